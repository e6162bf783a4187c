/* pass_plan.h - the facts the step planner decides on (pass_plan.c). */
#ifndef PASS_PLAN_H
#define PASS_PLAN_H

#include "ctl.h"

/* The view plan/plan_step.h decides the next preparation or cleanup
 * step from. */
void pass_plan_view(const struct ctl_inv *inv, struct plan_view *v);

#endif
