/* SPDX-License-Identifier: GPL-2.0 */
/* Shell commands for unit tests that set up files or run the tool. */
#ifndef _GPULAT_TEST_SHELL_H
#define _GPULAT_TEST_SHELL_H

/* sh - run a shell command built from @fmt; its exit status, -1 if none */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _GPULAT_TEST_SHELL_H */
