/* obs_invalid.c - an invalid spec file in the watched directory (or an
 * invalid value in etcd) is something an operator must fix, and the only
 * place it showed was the status condition Valid=False of a name that
 * had once been valid. Now each invalid version gets one log line
 * (warning "spec invalid", its first error as file:line:col: field:
 * problem) when it comes in, not at every resync, and the gauge
 * agentctl_specs_invalid counts the specs that are invalid now
 * (docs/monitoring.md; the alert AgentctlSpecInvalid). */
#include "obs_invalid.h"

#include <stdint.h>

#include "ctl_testhooks.h"
#include "log.h"

/* FNV-1a: the version's revision in eight bytes (never 0 in practice:
 * 0 means "none logged"). */
static uint64_t
rev_hash(const char *rev)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (; *rev != '\0'; rev++)
        h = (h ^ (unsigned char)*rev) * 0x100000001b3ULL;
    return h;
}

void
obs_invalid_seen(struct ctl_inv *inv, const char *rev)
{
    inv->invalid.rev = rev_hash(rev);
}

void
obs_invalid_note(struct ctl_inv *inv)
{
    if (!inv->invalid.spec || inv->deleted ||
        (inv->invalid.logged_rev == inv->invalid.rev &&
         !ctl_test_disabled("invalid-log-once")))
        return;
    inv->invalid.logged_rev = inv->invalid.rev;
    log_kv(LOG_WARN,
           "spec invalid: fix it, the controller keeps the last "
           "valid version",
           "invocation", inv->name, "error",
           inv->invalid.msg ? inv->invalid.msg : "the spec is invalid", NULL);
}

unsigned
obs_invalid_count(const struct ctl *c)
{
    unsigned n = 0;

    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        n += i->invalid.spec && !i->deleted;
    return n;
}
