/* drift.h - the answer to drift the revalidation found (drift_verify.c,
 * drift_neighbours.c): fail closed while the agent runs (boundary-drift,
 * Drifted=True naming the rule), tear down and rebuild before its start
 * (DriftRepaired), only record it once the attempt has stopped. */
#ifndef DRIFT_H
#define DRIFT_H

#include "ctl.h"

/* Ends the round and keeps the finding for drift_step(). Always
 * CTL_STEP_DONE: the next pass acts on it. */
enum ctl_step drift_found(struct ctl_inv *inv, const char *rule,
                              const char *message);

/* A finding kept: the daemon is asked over a new connection first, and
 * the finding acted on only if it answers (a daemon shutting down shows
 * its own teardown on old connections). CTL_STEP_NONE without one. */
enum ctl_step drift_step(struct ctl_inv *inv);

#endif
