/* ctl_pinset.h - the capture's pin set as the queue sees it: in flight,
 * and freed with the invocation (ctl_pinset.c; the pinning is
 * ctl_pins.c). */
#ifndef CTL_PINSET_H
#define CTL_PINSET_H

#include "ctl.h"

/* Inspects of the capture's pins are out. */
bool ctl_pins_out(const struct ctl_pins *p);

/* The pins go, with any inspect still out (NULL: nothing). */
void ctl_pins_free(struct ctl_pins *p);

#endif
