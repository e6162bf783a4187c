/* ctl_probe.h - the boundary probe's steps (ctl_probe.c). */
#ifndef CTL_PROBE_H
#define CTL_PROBE_H

#include "ctl.h"

/* The probe step the planner chose: PLAN_PROBE_CREATE, _WAIT, _READ or
 * _DISCARD (its start is a run-once start, ctl_prepare.c). */
enum ctl_step ctl_probe_step(struct ctl_inv *inv, enum plan_action action);

#endif
