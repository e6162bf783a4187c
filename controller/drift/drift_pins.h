/* drift_pins.h - the capture's image pins, inspected at once (drift_pins.c). */
#ifndef DRIFT_PINS_H
#define DRIFT_PINS_H

#include "ctl.h"

/* Pin the agent's image and every helper image the vendor runs to their
 * IDs. CTL_STEP_NONE: all pinned (inv->capture.pins). CTL_STEP_STARTED:
 * inspects are out; the last answer settles the pass. CTL_STEP_FAILED: one
 * failed (retried with backoff). CTL_STEP_DONE with missing filled: an image is
 * not on this host, and the caller ends the attempt with that message. */
enum ctl_step drift_pins_step(struct ctl_inv *inv, char *missing, size_t size);

/* Forget the pins (cancelling inspects still out). */
void drift_pins_forget(struct ctl_inv *inv);

#endif
