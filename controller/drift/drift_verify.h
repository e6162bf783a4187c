/* drift_verify.h - the revalidation round (drift_verify.c). */
#ifndef DRIFT_VERIFY_H
#define DRIFT_VERIFY_H

#include "ctl.h"

/* One inspect of the round; CTL_STEP_NONE when the round is complete
 * (or none is due). */
enum ctl_step drift_verify_step(struct ctl_inv *inv);

/* The volumes, one inspect per step, before the keeper - the first
 * container to mount them - is created (PLAN_VERIFY_STORAGE): a volume's
 * identity is the CreatedAt of its create answer until a mount moves it.
 * Drift found is repaired like any drift before the start; CTL_STEP_DONE
 * with inv->verify.storage_verified set once every recorded volume passed. */
enum ctl_step drift_verify_storage_step(struct ctl_inv *inv);

#endif
