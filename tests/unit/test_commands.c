// SPDX-License-Identifier: GPL-2.0
/* The command table (user/cmd/commands.c) and the help built from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "cmd/cmd.h"
#include "text.h"

/* Every command is found by its name, has help, and takes -h. */
TEST(every_command_is_whole)
{
	const struct gpulat_command *c;
	char head[64];
	int cmd, n = 0;

	ASSERT_EQ(NULL, gpulat_command_of(GPULAT_CMD_NONE));
	ASSERT_EQ(NULL, gpulat_command_of(GPULAT_CMD_HELP));
	ASSERT_EQ(NULL, gpulat_command_of(GPULAT_CMD_VERSION));
	ASSERT_EQ(NULL, gpulat_command_of(GPULAT_NR_CMDS));
	ASSERT_EQ(GPULAT_CMD_NONE, gpulat_command_lookup("bogus"));
	ASSERT_EQ(GPULAT_CMD_NONE, gpulat_command_lookup(""));
	for (cmd = GPULAT_CMD_VERSION + 1; cmd < GPULAT_NR_CMDS; cmd++) {
		c = gpulat_command_of(cmd);
		ASSERT_NE(NULL, c);
		ASSERT_EQ(cmd, (int)gpulat_command_lookup(c->name));
		ASSERT_NE(NULL, c->summary);
		ASSERT_NE(NULL, c->run);
		ASSERT_EQ('h', c->optstring[0]);
		snprintf(head, sizeof(head), "gpulat %s", c->name);
		ASSERT_NE(NULL, strstr(c->usage, head));
		n++;
	}
	ASSERT_EQ(15, n);
	/* the command words with a dash */
	ASSERT_EQ(GPULAT_CMD_WATCH_CGROUP, gpulat_command_lookup("watch-cgroup"));
	ASSERT_EQ(GPULAT_ARGS_CGROUPS, cmd_watch_cgroup.args);
}

/* gpulat --help lists every command with its summary, in table order. */
TEST(main_help_lists_the_table)
{
	char *buf = NULL, line[128], fams[96];
	const char *prev = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int cmd;

	ASSERT_NE(NULL, f);
	gpulat_usage(f, GPULAT_CMD_NONE);
	fclose(f);
	for (cmd = GPULAT_CMD_VERSION + 1; cmd < GPULAT_NR_CMDS; cmd++) {
		const struct gpulat_command *c = gpulat_command_of(cmd);

		snprintf(line, sizeof(line), "\n  %-12s %s\n", c->name,
			 c->summary);
		at = strstr(buf, line);
		ASSERT_NE(NULL, at);
		ASSERT_TRUE(!prev || at > prev);
		prev = at;
	}
	snprintf(line, sizeof(line), "\nfamilies: %s\n",
		 family_list(fams, sizeof(fams)));
	ASSERT_NE(NULL, strstr(buf, line));
	free(buf);
}

/* gpulat COMMAND --help is the command's own text. */
TEST(command_help)
{
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;
	FILE *f = open_memstream(&buf, &len);
	FILE *e = open_memstream(&ebuf, &elen);

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, e);
	gpulat_usage(f, GPULAT_CMD_DISABLE);
	gpulat_usage(e, GPULAT_CMD_ENABLE);
	fclose(f);
	fclose(e);
	ASSERT_STREQ(ebuf, buf);
	/* the usage as written, the list of families in its place */
	ASSERT_EQ(0, strncmp(cmd_enable.usage, buf, 30));
	ASSERT_EQ(NULL, strstr(buf, GPULAT_USAGE_FAMILIES));
	ASSERT_NE(NULL, strstr(buf, "Families: sched, "));
	free(buf);
	free(ebuf);
}

TEST_HARNESS_MAIN
