/* inv_pinset.h - the capture's pin set as the queue sees it: in flight,
 * and freed with the invocation (inv_pinset.c; the pinning is
 * drift_pins.c). */
#ifndef INV_PINSET_H
#define INV_PINSET_H

#include "ctl.h"

/* Inspects of the capture's pins are out. */
bool inv_pins_out(const struct ctl_pins *p);

/* The pins go, with any inspect still out (NULL: nothing). */
void inv_pins_free(struct ctl_pins *p);

#endif
