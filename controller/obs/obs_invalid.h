/* obs_invalid.h - a spec in the store that does not validate, told to
 * the operator once per version: a log line and a gauge (obs_invalid.c). */
#ifndef OBS_INVALID_H
#define OBS_INVALID_H

#include "ctl.h"

/* The store gave inv's spec at revision rev (valid or not): an invalid
 * version not logged yet is logged at the next obs_invalid_note. The
 * same revision again (a relist after a RESYNC, a Docker reconnect, a
 * SIGHUP) is the same version: not logged again. */
void obs_invalid_seen(struct ctl_inv *inv, const char *rev);

/* Log inv's invalid version once: "spec invalid" with its first error
 * as file:line:col: field: problem. Called when a version comes in and
 * at every resync; says nothing for a version it logged. */
void obs_invalid_note(struct ctl_inv *inv);

/* Specs in the store that do not validate now (agentctl_specs_invalid). */
unsigned obs_invalid_count(const struct ctl *c);

#endif
