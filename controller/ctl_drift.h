/* ctl_drift.h - the answer to drift the revalidation found (ctl_verify.c,
 * ctl_neighbours.c): fail closed while the agent runs (boundary-drift,
 * Drifted=True naming the rule), tear down and rebuild before its start
 * (DriftRepaired), only record it once the attempt has stopped. */
#ifndef CTL_DRIFT_H
#define CTL_DRIFT_H

#include "ctl.h"

/* Always CTL_STEP_DONE: the next pass acts on what was recorded. */
enum ctl_step ctl_drift_found(struct ctl_inv *inv, const char *rule,
                              const char *message);

#endif
