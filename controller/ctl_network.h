/* ctl_network.h - the attempt's internal network, created idempotently
 * (ctl_network.c). */
#ifndef CTL_NETWORK_H
#define CTL_NETWORK_H

#include "ctl.h"

/* List this attempt's networks (adopt one, remove twins), or create. */
enum ctl_step ctl_network_step(struct ctl_inv *inv);

#endif
