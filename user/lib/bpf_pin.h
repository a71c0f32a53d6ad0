/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpulat: the pin folder's temporaries (bpf_pin.c), for the commands
 * that say what a killed gpulat attach or detach left.
 */
#ifndef _GPULAT_BPF_PIN_H
#define _GPULAT_BPF_PIN_H

#include <stddef.h>

/* GPULAT_ATTACH_PAUSE=N: attach (or detach) stops at step N (tests). */
#define GL_BPF_PAUSE_ENV	"GPULAT_ATTACH_PAUSE"

/*
 * gl_bpf_pin_sweep_said - remove the temporaries of attaches and
 * detaches provably gone (their process gone, their lock free), each one
 * said on @said ("; " between); how many
 */
size_t gl_bpf_pin_sweep_said(char *said, size_t len);

#endif /* _GPULAT_BPF_PIN_H */
