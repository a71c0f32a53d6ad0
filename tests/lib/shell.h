/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shell commands for tests: the one sh() of the unit tests (which set up
 * files or run the tool) and of the guest tests (which load modules and
 * drive the network).
 */
#ifndef _GPULAT_TEST_SHELL_H
#define _GPULAT_TEST_SHELL_H

/* sh - run a shell command built from @fmt; its exit status, -1 if none */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* sh_loud - sh() that also prints a failing command on stderr */
int sh_loud(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _GPULAT_TEST_SHELL_H */
