/* ctl_events.h - following Docker events (ctl_events.c). */
#ifndef CTL_EVENTS_H
#define CTL_EVENTS_H

#include "ctl.h"

/* Started once the daemon answers. */
void ctl_events_start(struct ctl *c);
void ctl_events_stop(struct ctl *c);

#endif
