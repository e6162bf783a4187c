/* box_network.h - the attempt's internal network, created idempotently
 * (box_network.c). */
#ifndef BOX_NETWORK_H
#define BOX_NETWORK_H

#include "ctl.h"

/* List this attempt's networks (adopt one, remove twins), or create. */
enum ctl_step box_network_step(struct ctl_inv *inv);

#endif
