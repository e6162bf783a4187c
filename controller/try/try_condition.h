/* try_condition.h - a step error that keeps an invocation from
 * progressing, as a condition and a counted Warning event
 * (try_condition.c). */
#ifndef TRY_CONDITION_H
#define TRY_CONDITION_H

#include "ctl.h"

/* A step failed (why), or went through. Ready=False with reason
 * StepFailed and a Warning event StepFailed counting the failures in a
 * row; Ready back to what it was (or False/Progressing) when one that
 * failed goes through (try_inv_settle(): a step done, or a pass that
 * ended with nothing failed and nothing in flight). */
void try_condition_step_failed(struct ctl_inv *inv, const struct err *why);
void try_condition_step_ok(struct ctl_inv *inv);

#endif
