/* drift_neighbours.h - the revalidation round's check of the other
 * containers on the daemon (drift_neighbours.c): joined namespaces,
 * mounted volumes, and docker exec into the attempt's containers. */
#ifndef DRIFT_NEIGHBOURS_H
#define DRIFT_NEIGHBOURS_H

#include "ctl.h"

/* Its bit in ctl_inv.verified. */
#define CTL_VERIFIED_NEIGHBOURS (1u << RC_ROLE_COUNT)

/* The round's last step; CTL_STEP_NONE when it is done. */
enum ctl_step drift_neighbours_step(struct ctl_inv *inv);
/* A Docker event (action) on container_id: when it is one of the
 * attempt's, an exec_create/exec_start makes the next revalidation report
 * container.exec-ids, and an archive-path/extract-to-dir (docker cp) on
 * the agent, proxy or gateway container.archive. Other actions: nothing. */
void drift_neighbours_event_seen(struct ctl_inv *inv, const char *container_id,
                               const char *action);

#endif
