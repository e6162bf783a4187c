/* ctl_cleanup.h - removing an attempt's objects by recorded ID (ctl_cleanup.c).
 */
#ifndef CTL_CLEANUP_H
#define CTL_CLEANUP_H

#include "ctl.h"

/* One step of the cleanup; CTL_STEP_NONE when nothing is left. */
enum ctl_step ctl_cleanup_step(struct ctl_inv *inv);

#endif
