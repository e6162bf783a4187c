/* loop_events.h - following Docker events (loop_events.c). */
#ifndef LOOP_EVENTS_H
#define LOOP_EVENTS_H

#include "ctl.h"

/* Started once the daemon answers. */
void loop_events_start(struct ctl *c);
void loop_events_stop(struct ctl *c);

#endif
