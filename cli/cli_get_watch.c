/* cli_get_watch.c - get -w: after the first list, poll the store and
 * print an invocation again each time its spec or status changes (a new
 * row with the widths of the first table, or the resource in the -o
 * format), as kubectl's watch does, until interrupted. An invocation
 * deleted (or no longer selected) is printed once more, as last seen,
 * as kubectl -w prints a deleted object. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCH_POLL_MS 250

static volatile sig_atomic_t watch_stop;

static void
on_signal(int sig)
{
    (void)sig;
    watch_stop = 1;
}

struct seen {
    char *name;
    char *print; /* revision + status: what a change changes */
    struct spec_invocation *inv; /* as last seen (a holder); NULL: invalid */
    bool listed; /* in the latest listing */
    bool terminating; /* as last seen: deleted, its cleanup pending */
};

struct seen_set {
    struct seen *v;
    size_t n;
};

static char *
print_of(struct cli *c, const struct store_spec *sp)
{
    cJSON *st = cli_status(c, sp->name);
    char *s = st ? cJSON_PrintUnformatted(st) : NULL, *out = NULL;

    if (asprintf(&out, "%s|%s", sp->rev, s ? s : "") == -1)
        out = NULL;
    free(s);
    cJSON_Delete(st);
    return out;
}

/* Remember sp; true when it is new or differs from what was seen. */
static bool
changed(struct cli *c, struct seen_set *set, const struct store_spec *sp)
{
    char *now = print_of(c, sp);
    struct seen *v;

    if (now == NULL)
        return false;
    for (size_t i = 0; i < set->n; i++) {
        if (strcmp(set->v[i].name, sp->name) != 0)
            continue;
        set->v[i].listed = true;
        if (strcmp(set->v[i].print, now) == 0) {
            free(now);
            return false;
        }
        free(set->v[i].print);
        set->v[i].print = now;
        spec_invocation_free(set->v[i].inv);
        set->v[i].inv = sp->inv ? spec_invocation_ref(sp->inv) : NULL;
        set->v[i].terminating = sp->terminating;
        return true;
    }
    v = realloc(set->v, (set->n + 1) * sizeof(*v));
    if (v == NULL || (v[set->n].name = strdup(sp->name)) == NULL) {
        set->v = v ? v : set->v;
        free(now);
        return false;
    }
    set->v = v;
    set->v[set->n].print = now;
    set->v[set->n].inv = sp->inv ? spec_invocation_ref(sp->inv) : NULL;
    set->v[set->n].terminating = sp->terminating;
    set->v[set->n++].listed = true;
    return true;
}

static void
seen_drop(struct seen_set *set, size_t i)
{
    free(set->v[i].name);
    free(set->v[i].print);
    spec_invocation_free(set->v[i].inv);
    set->v[i] = set->v[--set->n];
}

static void
print_one(struct cli *c, struct cli_get *g, const struct store_spec *sp)
{
    if (g->out == GET_OUT_TABLE || g->out == GET_OUT_WIDE)
        cli_get_table_row(c, g, sp);
    else
        cli_get_print(c, g, sp, 1, true);
    fflush(stdout);
}

/* The invocations seen before that the latest listing no longer has:
 * printed once more as last seen (an invalid one only as a row or a
 * name: it has no resource to print), then forgotten. */
static void
print_gone(struct cli *c, struct cli_get *g, struct seen_set *set)
{
    for (size_t i = set->n; i-- > 0;) {
        struct store_spec sp = { 0 };

        if (set->v[i].listed) {
            set->v[i].listed = false;
            continue;
        }
        sp.name = set->v[i].name; /* key NULL: gone, assign it nothing */
        sp.inv = set->v[i].inv;
        sp.terminating = set->v[i].terminating;
        if (sp.inv != NULL || sp.terminating || g->out == GET_OUT_TABLE ||
            g->out == GET_OUT_WIDE || g->out == GET_OUT_NAME)
            print_one(c, g, &sp);
        seen_drop(set, i);
    }
}

int
cli_get_watch(struct cli *c, const struct cli_args *a, struct cli_get *g,
              const struct store_list *first)
{
    struct seen_set set = { 0 };
    struct timespec ts = { 0, WATCH_POLL_MS * 1000000L };
    struct sigaction sa = { .sa_handler = on_signal };

    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fflush(stdout);
    for (size_t i = 0; i < first->n; i++)
        changed(c, &set, &first->items[i]);
    for (size_t i = 0; i < set.n; i++)
        set.v[i].listed = false;
    while (!watch_stop) {
        struct store_list l;

        nanosleep(&ts, NULL); /* a signal ends the sleep early */
        if (watch_stop || cli_get_list(c, a, g->sel, false, &l) == -1)
            break;
        cli_fieldsel_filter(c, g->fsel, &l);
        for (size_t i = 0; i < l.n; i++)
            if (changed(c, &set, &l.items[i]))
                print_one(c, g, &l.items[i]);
        print_gone(c, g, &set);
        store_list_cleanup(&l);
    }
    while (set.n > 0)
        seen_drop(&set, set.n - 1);
    free(set.v);
    return CLI_OK;
}
