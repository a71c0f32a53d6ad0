// SPDX-License-Identifier: GPL-2.0
/*
 * The command table: one descriptor per command (GPULAT_COMMANDS in
 * cmd/cmd.h), which dispatch (gpulat.c), help (help.c) and parsing
 * (cli.c) all read.
 */
#include <string.h>

#include "cmd/cmd.h"

static const struct gpulat_command *const gpulat_commands[GPULAT_NR_CMDS] = {
#define GPULAT_CMD_ENTRY(id, name)	[GPULAT_CMD_##id] = &cmd_##name,
	GPULAT_COMMANDS(GPULAT_CMD_ENTRY)
#undef GPULAT_CMD_ENTRY
};

/* gpulat_command_of - the descriptor of @cmd; NULL for NONE, HELP, VERSION */
const struct gpulat_command *gpulat_command_of(enum gpulat_cmd cmd)
{
	if ((unsigned int)cmd >= GPULAT_NR_CMDS)
		return NULL;
	return gpulat_commands[cmd];
}

/* gpulat_command_lookup - the command named @word; GPULAT_CMD_NONE if none */
enum gpulat_cmd gpulat_command_lookup(const char *word)
{
	int cmd;

	for (cmd = GPULAT_CMD_NONE; cmd < GPULAT_NR_CMDS; cmd++)
		if (gpulat_commands[cmd] &&
		    !strcmp(gpulat_commands[cmd]->name, word))
			return cmd;
	return GPULAT_CMD_NONE;
}
