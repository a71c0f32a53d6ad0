// SPDX-License-Identifier: GPL-2.0
/*
 * libgpulat: functions' file offsets in a shared library (elfsym.h),
 * through libelf.  A function's offset is its address less the loadable
 * segment's that holds it, plus that segment's file offset: the kernel
 * places a uprobe at (inode, offset).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elfsym.h"

/*
 * elf_vaddr_offset - @vaddr's file offset, from an executable PT_LOAD,
 * inside the file's @size bytes (a header may say otherwise)
 */
static bool elf_vaddr_offset(Elf *e, uint64_t vaddr, uint64_t size,
			     uint64_t *off)
{
	size_t i, nr;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &nr))
		return false;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz ||
		    ph.p_offset >= size ||
		    vaddr - ph.p_vaddr >= size - ph.p_offset)
			continue;
		*off = vaddr - ph.p_vaddr + ph.p_offset;
		return true;
	}
	return false;
}

/* elf_scan - look @names up in the symbol table section @scn */
static int elf_scan(Elf *e, uint64_t size, Elf_Scn *scn,
		    const GElf_Shdr *sh, const char *const *names, size_t n,
		    uint64_t *offs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, k, nr;
	int found = 0;
	GElf_Sym sym;
	const char *s;

	if (!d || !sh->sh_entsize)
		return 0;
	nr = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nr; i++) {
		if (!gelf_getsym(d, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		s = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!s)
			continue;
		for (k = 0; k < n; k++) {
			if (offs[k] || strcmp(s, names[k]))
				continue;
			if (elf_vaddr_offset(e, sym.st_value, size, &offs[k]))
				found++;
		}
	}
	return found;
}

static int elf_offsets(Elf *e, uint64_t size, const char *const *names,
		       size_t n, uint64_t *offs, char *why, size_t len)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh, tsh;
	int found = 0;

	memset(offs, 0, n * sizeof(*offs));
	if (elf_kind(e) != ELF_K_ELF) {
		snprintf(why, len, "not an ELF file");
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = sh;
		} else if (sh.sh_type == SHT_SYMTAB && !tab) {
			tab = scn;
			tsh = sh;
		}
	}
	if (!dyn && !tab) {
		snprintf(why, len, "no symbol table");
		return -ENOENT;
	}
	if (dyn)
		found += elf_scan(e, size, dyn, &dsh, names, n, offs);
	if (tab)
		found += elf_scan(e, size, tab, &tsh, names, n, offs);
	return found;
}

int gl_elf_mem_sym_offsets(void *img, size_t size,
			   const char *const *names, size_t n, uint64_t *offs,
			   char *why, size_t len)
{
	Elf *e;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, len, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	e = elf_memory(img, size);
	if (!e) {
		snprintf(why, len, "libelf: %s", elf_errmsg(-1));
		return -ENOEXEC;
	}
	ret = elf_offsets(e, size, names, n, offs, why, len);
	elf_end(e);
	return ret;
}

int gl_elf_sym_offsets(const char *path, const char *const *names,
		       size_t n, uint64_t *offs, char *why, size_t len)
{
	struct stat st;
	Elf *e;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, len, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		snprintf(why, len, "%s: libelf: %s", path, elf_errmsg(-1));
		close(fd);
		return -ENOEXEC;
	}
	ret = elf_offsets(e, st.st_size, names, n, offs, why, len);
	elf_end(e);
	close(fd);
	return ret;
}
