/* obs_usage.h - status.usage: what an attempt's credential gateway says
 * the vendor did for it, summed from the gateway's audit lines
 * (docs/gateway.md "Token accounting", docs/status.md "usage").
 *
 * obs_usage.c is pure (one audit line in, counts added; the counts as
 * the status object); out_usage_record.c puts them in the status, the
 * events and the metrics. Kept apart from out_egress.c, which only hands
 * each gateway line over, so the way the lines are read can change
 * without touching how they are counted.
 */
#ifndef OBS_USAGE_H
#define OBS_USAGE_H

#include <stdint.h>

#include <cjson/cJSON.h>

struct ctl_inv;

struct obs_usage {
    uint64_t requests; /* every request line (the probe's left out) */
    uint64_t refused;  /* the gateway's own 4xx answers: not forwarded */
    uint64_t input, output, cache_read, cache_write; /* tokens */
    uint64_t token_spent; /* refused with "token budget spent" */
};

/* Add one gateway request line (its JSON text, "msg":"request"; the
 * boundary probe's lines already left out). A line that is not a JSON
 * object counts as a request and nothing else; a "usage" object adds
 * its counts (OpenAI's cached input is in both input and cacheRead, as
 * the gateway writes it). */
void obs_usage_add_line(struct obs_usage *u, const char *line);

/* The status object {requests, refused, inputTokens, outputTokens,
 * cacheReadTokens, cacheWriteTokens} (caller deletes); NULL on no
 * memory. */
cJSON *obs_usage_to_json(const struct obs_usage *u);

/* The counts of a status object obs_usage_to_json() made (token_spent
 * is not in it); a missing or foreign object leaves u as it is. */
void obs_usage_from_json(struct obs_usage *u, const cJSON *o);

/* status.usage of an attempt with a gateway, as counted so far (written
 * with status.egress, out_egress.c); nothing in env mode. */
void out_usage_record(struct ctl_inv *inv, const struct obs_usage *u);

/* The attempt's audit has been read: status.usage, a TokenBudgetSpent
 * Warning when the token budget refused a request, and the vendor's
 * counters on /metrics. */
void out_usage_finish(struct ctl_inv *inv, const struct obs_usage *u);

#endif
