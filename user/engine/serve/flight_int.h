/* SPDX-License-Identifier: GPL-2.0 */
/* The flight recorder's internals, shared by flight.c and flight_writer.c. */
#ifndef _GPULAT_USER_FLIGHT_INT_H
#define _GPULAT_USER_FLIGHT_INT_H

#include "engine/serve/flight.h"
#include "engine/watch/watch.h"

#define FLIGHT_PREFIX	"gpulat-flight-"
#define FLIGHT_SUFFIX	".tar.gz"

/* flight_drop_report - free the pending bundle's report, if any */
void flight_drop_report(struct flight *fl);
/* flight_watch - the watch of the window around the trigger, copied */
int flight_watch(struct flight *fl, struct watch *w);
/*
 * flight_make_room - remove the oldest bundles of the folder until
 * @slots more fit in o.keep and @need more bytes in o.dir_bytes (@remove
 * false: none, only counted); the bytes of those left
 */
uint64_t flight_make_room(struct flight *fl, uint64_t need,
			  unsigned long slots, bool remove);

#endif /* _GPULAT_USER_FLIGHT_INT_H */
