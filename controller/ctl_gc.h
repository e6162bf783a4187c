/* ctl_gc.h - the garbage collector (ctl_gc.c): objects labelled for this
 * controller that no live invocation owns, at start and every resync. */
#ifndef CTL_GC_H
#define CTL_GC_H

#include "ctl.h"

void ctl_gc_run(struct ctl *c);
void ctl_gc_stop(struct ctl *c);

#endif
