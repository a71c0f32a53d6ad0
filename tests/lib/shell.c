// SPDX-License-Identifier: GPL-2.0
/* Shell commands for tests (shell.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "shell.h"

static int sh_run(bool loud, const char *fmt, va_list ap)
{
	char cmd[8192];
	int st;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	st = system(cmd);
	if (st && loud)
		fprintf(stderr, "# failed (%d): %s\n", st, cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int sh(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sh_run(false, fmt, ap);
	va_end(ap);
	return ret;
}

int sh_loud(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sh_run(true, fmt, ap);
	va_end(ap);
	return ret;
}
