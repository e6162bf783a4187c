/* box.h - one box of the warm pool: its steps, its revalidation while
 * it waits, its removal (box.c). struct ctl_box is in ctl.h. */
#ifndef BOX_H
#define BOX_H

#include "ctl.h"

/* A new box of vendor at the head of c->boxes, with a fresh uid and the
 * lowest free /24 of subnetPool; its steps start with box_go().
 * NULL when out of memory. */
struct ctl_box *box_new(struct ctl *c, const char *vendor);
/* Run the box's next step, if none is in flight: a waiting box runs only
 * a revalidation that is due (check_due). A box whose removal is done is
 * freed here: b may be gone on return. */
void box_go(struct ctl_box *b);
/* Failed, drifted or let go: its objects are removed by ID from the next
 * box_go() on, and it is never handed. why is one word for the log. */
void box_doom(struct ctl_box *b, const char *why, const char *detail);
/* Forget the box (its request cancelled), leaving its objects as they
 * are: handed to an invocation, or left for garbage collection. */
void box_free(struct ctl_box *b);

/* The box's boundary probe ran and passed when it became ready. False for
 * a vendor in credentialMode gateway: the boundary includes the gateway,
 * which is made at the hand-over, so the invocation probes it then. */
bool box_probed(const struct ctl_box *b);

#endif
