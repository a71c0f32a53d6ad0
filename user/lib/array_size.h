/* SPDX-License-Identifier: GPL-2.0 */
/* ARRAY_SIZE, for every layer of user/ (lib, engines, commands). */
#ifndef _GPULAT_ARRAY_SIZE_H
#define _GPULAT_ARRAY_SIZE_H

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* _GPULAT_ARRAY_SIZE_H */
