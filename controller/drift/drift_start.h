/* drift_start.h - what this process knows of a run-once container's start
 * (drift_start.c). */
#ifndef DRIFT_START_H
#define DRIFT_START_H

#include "ctl.h"

/* Docker's inspect says the container never ran (State.StartedAt is
 * Docker's zero time, or absent). */
bool drift_start_never_ran(const cJSON *inspect);

/* This process saw the container with ID id: its inspect answer, or NULL
 * when its create has just answered (it never ran). */
void drift_start_saw(struct ctl_inv *inv, const char *id, const cJSON *inspect);

/* A start of id is sent (it may happen even if its answer is lost). */
void drift_start_sent(struct ctl_inv *inv, const char *id);

/* This process knows id never ran and sent it no start since. */
bool drift_start_known_unstarted(const struct ctl_inv *inv, const char *id);

#endif
