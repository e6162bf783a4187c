/* pass_inv.h - one pass of one invocation (pass_inv.c). */
#ifndef PASS_INV_H
#define PASS_INV_H

#include "ctl.h"

/* The pass the work queue runs (inv_queue_init). */
void pass_inv_pass(struct ctl_inv *inv);
/* A new invocation named `name`, its status loaded from the store. */
struct ctl_inv *pass_inv_add(struct ctl *c, const char *name);
/* Seal the output, then unlink and free an invocation whose work is
 * done (and every one, at exit). */
void pass_inv_forget(struct ctl_inv *inv);
/* A new valid spec: stop at once for cancel or a new attempt ID. */
void pass_inv_spec_changed(struct ctl_inv *inv);

#endif
