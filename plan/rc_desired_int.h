/* rc_desired_int.h - what the builders of one attempt's create bodies
 * share: rc_desired.c (every object) and rc_desired_gateway.c (the
 * credential gateway's). Not for use outside plan/. */
#ifndef RC_DESIRED_INT_H
#define RC_DESIRED_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "cfg.h"
#include "rc_desired.h"
#include "spec.h"

/* Building context: the first allocation failure is sticky, so builders
 * can run straight through and the caller checks once (cJSON_Add*()
 * return NULL on failure and accept a NULL parent). */
struct rc_build {
    const struct spec_invocation *inv;
    const struct cfg *cfg;
    const struct rc_inputs *in;
    const struct cfg_vendor *vendor;
    struct rc_desired *d;
    int nomem;
};

/* The first allocation failure is kept in b->nomem (p NULL). */
void rc_ok(struct rc_build *b, const void *p);
void rc_str(struct rc_build *b, cJSON *o, const char *k, const char *v);
void rc_num(struct rc_build *b, cJSON *o, const char *k, uint64_t v);
cJSON *rc_strs(struct rc_build *b, cJSON *o, const char *k,
               const char *const *v, size_t n);
/* The vendor's credential goes through a gateway (rc_helper_needed). */
bool rc_gateway_mode(const struct rc_build *b);
/* The attempt's volumes in the keeper's or (agent) the agent's mounts. */
void rc_storage_mounts(struct rc_build *b, cJSON *mounts, bool agent);
/* The labels and the stdio, TTY and stop settings of a role's container. */
void rc_container_config(struct rc_build *b, cJSON *c, enum rc_role role);
/* The hardened HostConfig of a role's container (the caller adds mounts). */
cJSON *rc_host_config(struct rc_build *b, cJSON *c, enum rc_role role,
                      const char *network_mode, uint64_t memory, uint64_t pids,
                      const char *log_size, const char *log_files);
/* One volume of the attempt mounted at target. */
void rc_mount(struct rc_build *b, cJSON *mounts, enum rc_role vol,
              const char *target, bool read_only);
/* The one network endpoint of a container, at a fixed address. */
void rc_one_endpoint(struct rc_build *b, cJSON *c, const char *ip);

/* rc_desired_agent.c: the adapter's output for a prompt spec (into
 * b->d->adapter), the agent's user, and the agent's body. */
int rc_adapt(struct rc_build *b, struct err *e);
int rc_agent_user(struct rc_build *b, struct err *e);
cJSON *rc_agent_body(struct rc_build *b);

/* The gateway's body (rc_desired_gateway.c). */
cJSON *rc_gateway_body(struct rc_build *b);

#endif
