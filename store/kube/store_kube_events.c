/* store_kube_events.c - the event log of a name as Kubernetes Events
 * (core/v1) on its AgentInvocation, in namespace "default", so
 * `kubectl describe ai NAME` and `kubectl get events` show them. Each
 * Event carries the store's event line whole in an annotation, so
 * store_event_read() gives back exactly what was appended; its type,
 * reason and message are the line's, for kubectl. The API server expires
 * Events after its --event-ttl (1 h by default): older events are gone
 * on this store (docs/store-kube.md "Events"). */
#include "store_kube_int.h"

#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_OF(s)            ((struct store_kube *)(s))
#define EVENT_LINE_ANNOTATION "agentctl.dev/event"
/* The API server takes the Events of a cluster-scoped object (as of a
 * Node) in "default" only: involvedObject.namespace is "" and must match
 * the Event's namespace, "default" excepted. */
#define EVENT_NAMESPACE "default"

static const char *
line_str(const cJSON *line, const char *key, const char *dflt)
{
    const char *v =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, key));

    return v != NULL && v[0] != '\0' ? v : dflt;
}

cJSON *
store__kube_event_object(const char *name, const char *uid, const char *line)
{
    cJSON *l = cJSON_Parse(line), *ev = cJSON_CreateObject(), *m, *io, *src;
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(l, "count");
    const char *t = line_str(l, "time", NULL);
    char gen[80];

    snprintf(gen, sizeof(gen), "%s.", name);
    m = cJSON_AddObjectToObject(ev, "metadata");
    cJSON_AddStringToObject(m, "generateName", gen);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "annotations"),
                            EVENT_LINE_ANNOTATION, line);
    io = cJSON_AddObjectToObject(ev, "involvedObject");
    cJSON_AddStringToObject(io, "apiVersion", "agentctl.dev/v1alpha1");
    cJSON_AddStringToObject(io, "kind", "AgentInvocation");
    cJSON_AddStringToObject(io, "name", name);
    if (uid != NULL)
        cJSON_AddStringToObject(io, "uid", uid);
    /* kubectl shows Normal and Warning; the store's lines say so too */
    cJSON_AddStringToObject(ev, "type", line_str(l, "type", "Normal"));
    cJSON_AddStringToObject(ev, "reason", line_str(l, "reason", "Event"));
    cJSON_AddStringToObject(ev, "message", line_str(l, "message", ""));
    if (t != NULL) {
        cJSON_AddStringToObject(ev, "firstTimestamp",
                                line_str(l, "firstTime", t));
        cJSON_AddStringToObject(ev, "lastTimestamp", t);
    }
    cJSON_AddNumberToObject(ev, "count",
                            cJSON_IsNumber(count) ? count->valuedouble : 1);
    src = cJSON_AddObjectToObject(ev, "source");
    cJSON_AddStringToObject(src, "component", "agent-controller");
    cJSON_Delete(l);
    return ev;
}

int
store__kube_event_append(struct store *st, const char *name, const char *line,
                         struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    cJSON *obj = NULL, *ev;
    char path[300], *body;
    int rc = -1;
    struct err e2 = { 0 };

    /* the uid ties the Event to this object, not a later one of the
     * name; an object already gone (the controller cleaning up after a
     * delete) still gets its events, by name */
    if (store__kube_get_object(s, name, &obj, &e2) == -1 && e2.code != ERR_NOTFOUND) {
        if (e != NULL)
            *e = e2;
        return -1;
    }
    ev = store__kube_event_object(name, store__kube_str(obj, "metadata", "uid"),
                                  line);
    cJSON_Delete(obj);
    body = ev ? cJSON_PrintUnformatted(ev) : NULL;
    cJSON_Delete(ev);
    if (body == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (snprintf(path, sizeof(path), "/api/v1/namespaces/%s/events",
                 EVENT_NAMESPACE) >= (int)sizeof(path))
        err_set(e, ERR_LIMIT, "namespace too long");
    else
        rc = store__kube_request(s, "POST", path, body, NULL, NULL, NULL, e);
    free(body);
    return rc;
}

/* The store's line an Event carries; NULL for an Event not ours. */
static const char *
event_line(const cJSON *ev)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(ev, "metadata");

    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(meta, "annotations"),
        EVENT_LINE_ANNOTATION));
}

static int
by_time(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    const char *tx = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(x, "lastTimestamp"));
    const char *ty = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(y, "lastTimestamp"));
    int c = strcmp(tx ? tx : "", ty ? ty : "");

    if (c != 0)
        return c;
    /* same second: the order the API server stored them in */
    tx = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(x, "metadata"), "resourceVersion"));
    ty = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(y, "metadata"), "resourceVersion"));
    return (tx && ty)
               ? (strlen(tx) != strlen(ty) ? (strlen(tx) < strlen(ty) ? -1 : 1)
                                           : strcmp(tx, ty))
               : 0;
}

int
store__kube_event_read(struct store *st, const char *name, char **data,
                       size_t *len, struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    char path[512];
    cJSON *ans;
    const cJSON *it, *items;
    const cJSON **v;
    size_t n = 0, k;
    struct buf b;

    if (snprintf(
            path, sizeof(path),
            "/api/v1/namespaces/%s/events?fieldSelector=involvedObject.kind%%3D"
            "AgentInvocation%%2CinvolvedObject.name%%3D%s",
            EVENT_NAMESPACE, name) >= (int)sizeof(path))
        return err_set(e, ERR_LIMIT, "namespace too long");
    if (store__kube_request(s, "GET", path, NULL, NULL, &ans, NULL, e) == -1)
        return -1;
    items = cJSON_GetObjectItemCaseSensitive(ans, "items");
    v = calloc((size_t)cJSON_GetArraySize(items) + 1, sizeof(*v));
    if (v == NULL) {
        cJSON_Delete(ans);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    cJSON_ArrayForEach(it, items) v[n++] = it;
    qsort(v, n, sizeof(*v), by_time);
    /* the newest STORE_EVENTS_MAX bytes, as the other stores keep */
    buf_init(&b, STORE_EVENTS_MAX);
    k = n;
    for (size_t used = 0; k > 0; k--) {
        const char *l = event_line(v[k - 1]);

        if (l != NULL && (used += strlen(l) + 1) > STORE_EVENTS_MAX)
            break;
    }
    for (; k < n; k++) {
        const char *l = event_line(v[k]);

        if (l != NULL &&
            (buf_puts(&b, l, NULL) == -1 || buf_puts(&b, "\n", NULL) == -1))
            break;
    }
    free(v);
    cJSON_Delete(ans);
    *len = b.len;
    *data = buf_take(&b);
    if (*data == NULL && (*data = strdup("")) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}
