/* dk_op.c - the operation a request is, for the latency histogram: a
 * small fixed vocabulary ("container_inspect", "network_create", ...)
 * read from the method and the path dk_engine.c wrote, so a metric label
 * never carries an object ID or name (a bounded series count whatever
 * the specs say). */
#include "dk_int.h"

#include <string.h>

/* "/containers/x/json" -> "containers", and what follows the object:
 * "" (nothing), "json", "start", ... or "create"/"list" for the
 * collection paths. */
static void
split(const char *path, char *coll, size_t csize, char *tail, size_t tsize)
{
    const char *p = path[0] == '/' ? path + 1 : path;
    size_t n = strcspn(p, "/");
    const char *rest = p[n] == '/' ? p + n + 1 : NULL;

    snprintf(coll, csize, "%.*s", (int)n, p);
    tail[0] = '\0';
    if (rest == NULL) {
        snprintf(tail, tsize, "list");
        return;
    }
    if (strcmp(rest, "create") == 0 || strcmp(rest, "json") == 0) {
        snprintf(tail, tsize, "%s",
                 strcmp(rest, "json") == 0 ? "list" : "create");
        return;
    }
    rest += strcspn(rest, "/"); /* past the object reference (escaped) */
    if (*rest == '/')
        snprintf(tail, tsize, "%s", rest + 1);
}

const char *
dk__operation(const char *what)
{
    static const struct {
        const char *method, *coll, *tail, *op;
    } ops[] = {
        { "GET", "containers", "list", "container_list" },
        { "POST", "containers", "create", "container_create" },
        { "GET", "containers", "json", "container_inspect" },
        { "DELETE", "containers", "", "container_remove" },
        { "POST", "containers", "start", "container_start" },
        { "POST", "containers", "wait", "container_wait" },
        { "GET", "containers", "logs", "container_logs" },
        { "PUT", "containers", "archive", "container_put_archive" },
        { "GET", "containers", "archive", "container_get_archive" },
        { "GET", "networks", "list", "network_list" },
        { "POST", "networks", "create", "network_create" },
        { "GET", "networks", "", "network_inspect" },
        { "DELETE", "networks", "", "network_remove" },
        { "POST", "networks", "connect", "network_connect" },
        { "GET", "volumes", "list", "volume_list" },
        { "POST", "volumes", "create", "volume_create" },
        { "GET", "volumes", "", "volume_inspect" },
        { "DELETE", "volumes", "", "volume_remove" },
        { "GET", "images", "json", "image_inspect" },
        { "GET", "_ping", "list", "ping" },
        { "HEAD", "_ping", "list", "ping" },
        { "GET", "version", "list", "version" },
        { "GET", "info", "list", "info" },
        { "GET", "events", "list", "events" },
    };
    char method[8], coll[32], tail[32];
    const char *path = strchr(what, ' ');

    if (path == NULL)
        return "other";
    snprintf(method, sizeof(method), "%.*s", (int)(path - what), what);
    split(path + 1, coll, sizeof(coll), tail, sizeof(tail));
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(ops[i].method, method) == 0 &&
            strcmp(ops[i].coll, coll) == 0 && strcmp(ops[i].tail, tail) == 0)
            return ops[i].op;
    return "other";
}
