/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a shared library's functions lie in its file, for uprobes: a
 * uprobe is placed by (inode, file offset), the same for every process
 * that maps the file, in every container that bind-mounts it.
 */
#ifndef _GPULAT_USER_ELFSYM_H
#define _GPULAT_USER_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * gl_elf_sym_offsets - the file offset of each function @names[i] of the
 * ELF file @path into @offs[i] (0: the file defines no such function),
 * read from .dynsym, else .symtab; the number found, or -errno with the
 * reason in @why (not an ELF file, truncated, no symbol table)
 */
int gl_elf_sym_offsets(const char *path, const char *const *names,
		       size_t n, uint64_t *offs, char *why, size_t len);

/*
 * gl_elf_mem_sym_offsets - the same on an image in memory (the fuzzer),
 * which libelf may convert in place
 */
int gl_elf_mem_sym_offsets(void *img, size_t size,
			   const char *const *names, size_t n, uint64_t *offs,
			   char *why, size_t len);

#endif /* _GPULAT_USER_ELFSYM_H */
