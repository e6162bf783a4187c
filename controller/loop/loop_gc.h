/* loop_gc.h - the garbage collector (loop_gc.c): objects labelled for this
 * controller that no live invocation owns, at start and every resync. */
#ifndef LOOP_GC_H
#define LOOP_GC_H

#include "ctl.h"

void loop_gc_run(struct ctl *c);
void loop_gc_stop(struct ctl *c);

#endif
