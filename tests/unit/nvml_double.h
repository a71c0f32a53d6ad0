/* SPDX-License-Identifier: GPL-2.0 */
/* Where the NVML test double is, for the tests that load it. */
#ifndef _GPULAT_TEST_NVML_DOUBLE_H
#define _GPULAT_TEST_NVML_DOUBLE_H

#include <stddef.h>

/*
 * nvml_double_path - the NVML test double built beside this test in
 * @buf (@sub: nvml, nvml-old, folders of build/unit/); NULL when absent
 */
const char *nvml_double_path(char *buf, size_t len, const char *sub);

#endif /* _GPULAT_TEST_NVML_DOUBLE_H */
