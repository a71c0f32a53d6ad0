/* SPDX-License-Identifier: GPL-2.0 */
/* Checks on rendered text that several unit tests make. */
#ifndef _GPULAT_TEST_TEXT_H
#define _GPULAT_TEST_TEXT_H

#include <stddef.h>

/* longest_line - columns of the longest line of @text (lone paths aside) */
size_t longest_line(const char *text);

/* family_list - "sched, block, ..." from the family table, as help says */
const char *family_list(char *buf, size_t len);

#endif /* _GPULAT_TEST_TEXT_H */
