/* pass_cleanup.h - removing an attempt's objects by recorded ID (pass_cleanup.c).
 */
#ifndef PASS_CLEANUP_H
#define PASS_CLEANUP_H

#include "ctl.h"

/* One step of the cleanup; CTL_STEP_NONE when nothing is left. */
enum ctl_step pass_cleanup_step(struct ctl_inv *inv);

#endif
