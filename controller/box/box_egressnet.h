/* box_egressnet.h - the shared egress network, known to exist
 * (box_egressnet.c). */
#ifndef BOX_EGRESSNET_H
#define BOX_EGRESSNET_H

#include "ctl.h"

/* The daemon answers (again): look the egress network up once, off any
 * invocation's path. */
void box_egressnet_look(struct ctl *c);

/* An inspect or a create showed it there (true), or a request that
 * needed it answered 404 (false). */
void box_egressnet_seen(struct ctl *c, bool there);

/* This controller saw it there and nothing has said otherwise since: an
 * attempt's first step need not ask again. */
bool box_egressnet_known(const struct ctl *c);

#endif
