/* drift_start.c - what this process knows of a run-once container's start.
 *
 * The agent and the boundary probe are started only when Docker says they
 * never ran (pass_prepare.c asks with an inspect right before the start):
 * a start whose answer was lost may have happened, and a controller
 * killed between a start and its record must not run them twice. That
 * inspect is one round trip on the path to Running each time, and twice
 * it only says what this process already knows: the probe's create has
 * just answered (a new container never ran), and the agent was inspected
 * by its recorded ID in the round right before its start (drift_verify.c).
 * So the controller remembers one container ID it saw never started;
 * any start it sends forgets it, and so does an inspect that shows a
 * start. An ID names one container for good: a new attempt's or a
 * repair's containers never match an old one. A restarted controller
 * remembers nothing and asks, as before. */
#include "drift_start.h"

#include <stdio.h>
#include <string.h>

/* Docker's "never started" time. */
#define NEVER_STARTED "0001-01-01T00:00:00Z"

bool
drift_start_never_ran(const cJSON *inspect)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(inspect, "State"), "StartedAt");

    return !cJSON_IsString(at) || strcmp(at->valuestring, NEVER_STARTED) == 0;
}

void
drift_start_saw(struct ctl_inv *inv, const char *id, const cJSON *inspect)
{
    if (id == NULL)
        return;
    if (inspect == NULL || drift_start_never_ran(inspect))
        snprintf(inv->verify.never_started, sizeof(inv->verify.never_started),
                 "%s", id);
    else
        drift_start_sent(inv, id); /* it ran: forgotten */
}

void
drift_start_sent(struct ctl_inv *inv, const char *id)
{
    if (id != NULL && strcmp(inv->verify.never_started, id) == 0)
        inv->verify.never_started[0] = '\0';
}

bool
drift_start_known_unstarted(const struct ctl_inv *inv, const char *id)
{
    return id != NULL && strcmp(inv->verify.never_started, id) == 0;
}
