// SPDX-License-Identifier: GPL-2.0
/* The JSON writer (user/lib/json.c): escaping and numbers. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include "lib/json.h"

TEST(json_escaping)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json j;

	json_begin(&j, f);
	json_object_begin(&j, NULL);
	json_str(&j, "s", "a\"b\\c\n\x01\xff");
	json_null(&j, "n");
	json_array_begin(&j, "a");
	json_u64(&j, NULL, 18446744073709551615ULL);
	json_double(&j, NULL, 0.25);
	json_bool(&j, NULL, false);
	json_array_end(&j);
	json_object_end(&j);
	json_end(&j);
	fclose(f);
	ASSERT_STREQ("{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u00ff\",\"n\":null,"
		     "\"a\":[18446744073709551615,0.25,false]}\n", text);
	free(text);
}

TEST_HARNESS_MAIN
