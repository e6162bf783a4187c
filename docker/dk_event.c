/* dk_event.c - one line of Docker's event stream read (dk_event.h). */
#include "dk_event.h"

#include <limits.h>
#include <string.h>

static const char *
str(const cJSON *obj, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

int
dk_event_parse(const char *line, size_t len, struct dk_event *ev)
{
    const cJSON *actor, *attrs, *t;

    memset(ev, 0, sizeof(*ev));
    ev->root = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(ev->root)) {
        dk_event_cleanup(ev);
        return -1;
    }
    actor = cJSON_GetObjectItemCaseSensitive(ev->root, "Actor");
    attrs = cJSON_GetObjectItemCaseSensitive(actor, "Attributes");
    ev->type = str(ev->root, "Type");
    ev->action = str(ev->root, "Action");
    ev->id = str(actor, "ID");
    ev->uid = str(attrs, "agentctl.dev/uid");
    ev->role = str(attrs, "agentctl.dev/role");
    ev->name = str(attrs, "name");
    ev->container = str(attrs, "container");
    /* Unix seconds. A number a long cannot hold (inf, 1e300; NaN fails
     * both tests) would make the cast undefined, and none before 1970 is
     * Docker's: either is no time at all. */
    t = cJSON_GetObjectItemCaseSensitive(ev->root, "time");
    if (cJSON_IsNumber(t) && t->valuedouble >= 0 &&
        t->valuedouble < (double)LONG_MAX) { /* 2^63 (or 2^31): above all */
        ev->has_time = true;
        ev->time = (long)t->valuedouble;
    }
    return 0;
}

void
dk_event_cleanup(struct dk_event *ev)
{
    cJSON_Delete(ev->root);
    memset(ev, 0, sizeof(*ev));
}
