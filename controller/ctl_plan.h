/* ctl_plan.h - the facts the step planner decides on (ctl_plan.c). */
#ifndef CTL_PLAN_H
#define CTL_PLAN_H

#include "ctl.h"

/* The view plan/plan_step.h decides the next preparation or cleanup
 * step from. */
void ctl_plan_view(const struct ctl_inv *inv, struct plan_view *v);

#endif
