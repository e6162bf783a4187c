/* ctl_observe.h - /metrics and /healthz on --metrics (ctl_observe.c). */
#ifndef CTL_OBSERVE_H
#define CTL_OBSERVE_H

#include "ctl.h"

int ctl_observe_start(struct ctl *c, struct err *e);
void ctl_observe_stop(struct ctl *c);

#endif
