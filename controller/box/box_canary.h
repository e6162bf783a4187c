/* box_canary.h - the boundary canary of a running agent (box_canary.c). */
#ifndef BOX_CANARY_H
#define BOX_CANARY_H

#include "ctl.h"

/* Set up inv->probe.canary (once, when the invocation is added). */
void box_canary_init(struct ctl_inv *inv);

/* The canary's next step while the agent runs: arm the timer, or create,
 * start, wait for, read and remove the run in progress. CTL_STEP_NONE when
 * nothing is due (or the phase is not Running: the timer is stopped). */
enum ctl_step box_canary_step(struct ctl_inv *inv);

/* Cleanup's first step: a canary whose create answer a crash lost
 * (status.canaryPending left set) is looked up by that name; one of this
 * attempt's, in the recorded agent's namespace, is recorded as the probe
 * (cleanup removes it next), a stranger is a stand-in left in place.
 * CTL_STEP_NONE when no canary name is pending. */
enum ctl_step box_canary_settle(struct ctl_inv *inv);

/* A Docker event about one of inv's objects (loop_events.c): one about its
 * network or its proxy, or one of its containers joining or leaving
 * another network, asks for a run. type is "container", "network" or
 * "volume"; role is the container's agentctl.dev/role label or NULL;
 * container is a network event's "container" attribute or NULL. */
void box_canary_event(struct ctl_inv *inv, const char *type, const char *id,
                      const char *role, const char *container);

#endif
