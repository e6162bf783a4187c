/* dk_event.h - one line of Docker's event stream (GET /events, which
 * dk_events() hands on line by line), read into the fields the controller
 * routes by. Pure: no request, no loop.
 *
 * Docker writes one JSON object per line: {"Type", "Action", "Actor":
 * {"ID", "Attributes": {...}}, "time", "timeNano"} (API 1.41). Only
 * container events carry the object's labels in Attributes; network
 * events name the container they are about in Attributes.container.
 */
#ifndef DK_EVENT_H
#define DK_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct dk_event {
    cJSON *root;           /* the parsed line; owned */
    const char *type;      /* "container", "network", "volume"; NULL */
    const char *action;    /* "start", "connect", "exec_start: ..."; NULL */
    const char *id;        /* Actor.ID (a volume's: its name); NULL */
    const char *uid;       /* Attributes["agentctl.dev/uid"]; NULL */
    const char *role;      /* Attributes["agentctl.dev/role"]; NULL */
    const char *name;      /* Attributes.name; NULL */
    const char *container; /* Attributes.container (network events); NULL */
    bool has_time;
    long time; /* Unix seconds, when has_time (a "time" that is no
                  number, below 0 or past what a long holds is none) */
};

/* Read one line (len bytes, no NUL needed). The strings are borrowed from
 * ev->root until dk_event_cleanup(); a field that is absent or not a
 * string is NULL. -1 when the line is not a JSON object (ev is then
 * empty; dk_event_cleanup() is still allowed). */
int dk_event_parse(const char *line, size_t len, struct dk_event *ev);

void dk_event_cleanup(struct dk_event *ev);

#endif
