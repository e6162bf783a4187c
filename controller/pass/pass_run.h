/* pass_run.h - a running agent (pass_run.c). */
#ifndef PASS_RUN_H
#define PASS_RUN_H

#include "ctl.h"

/* Follow the agent's output and exit; finish the attempt on its exit. */
enum ctl_step pass_run_step(struct ctl_inv *inv);

#endif
