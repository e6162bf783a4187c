/* ctl_run.h - a running agent (ctl_run.c). */
#ifndef CTL_RUN_H
#define CTL_RUN_H

#include "ctl.h"

/* Follow the agent's output and exit; finish the attempt on its exit. */
enum ctl_step ctl_run_step(struct ctl_inv *inv);

#endif
