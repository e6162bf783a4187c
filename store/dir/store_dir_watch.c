/* store_dir_watch.c - watching the specs directory with inotify and
 * turning file events into (name, put|delete) changes.
 *
 * Only finished files count: IN_CLOSE_WRITE (an editor saved in place)
 * and IN_MOVED_TO (a rename, which is how apply and most editors write),
 * never IN_CREATE or IN_MODIFY, which fire while bytes are still coming.
 * Temp dot-files, the state dir and files that are not *.yaml / *.yml are
 * ignored. A file maps to the names it holds, so the watcher keeps a small
 * map (file -> names it last reported) to know what a deleted or
 * rewritten file held. What a file holds comes from the index
 * (store_dir_index.c): an event for a file whose bytes did not change
 * costs a stat and a hash, no parse.
 */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

struct store_dir_seen {
    char *base;
    char **names;
    size_t n;
};

static void
file_clear(struct store_dir_seen *f)
{
    store_names_free(f->names, f->n);
    f->names = NULL;
    f->n = 0;
}

void
store__dir_watch_cleanup(struct store_dir *d)
{
    for (size_t i = 0; i < d->nseen; i++) {
        file_clear(&d->seen[i]);
        free(d->seen[i].base);
    }
    free(d->seen);
    d->seen = NULL;
    d->nseen = d->seen_cap = 0;
    free(d->seen_slots);
    d->seen_slots = NULL;
    d->nseen_slots = 0;
    if (d->ino_fd != -1)
        close(d->ino_fd);
    d->ino_fd = -1;
}

/* --- base name -> what it held, a hash (10,000 files: a walk per
 * lookup made the first listing 10,000 x 5,000 strcmp) ---------------- */

static struct store_dir_seen *
seen_lookup(const struct store_dir *d, const char *base)
{
    size_t mask = d->nseen_slots - 1;

    if (d->nseen_slots == 0)
        return NULL;
    for (size_t at = store__str_hash(base) & mask; d->seen_slots[at] != 0;
         at = (at + 1) & mask)
        if (strcmp(d->seen[d->seen_slots[at] - 1].base, base) == 0)
            return &d->seen[d->seen_slots[at] - 1];
    return NULL;
}

/* Room for one more entry, the table at most half full. -1: no memory. */
static int
seen_room(struct store_dir *d)
{
    size_t n;

    if (d->nseen == d->seen_cap) {
        struct store_dir_seen *v;

        n = d->seen_cap ? 2 * d->seen_cap : 64;
        if ((v = realloc(d->seen, n * sizeof(*v))) == NULL)
            return -1;
        d->seen = v;
        d->seen_cap = n;
    }
    if (2 * (d->nseen + 1) > d->nseen_slots) {
        size_t *v;

        n = d->nseen_slots ? 2 * d->nseen_slots : 128;
        if ((v = calloc(n, sizeof(*v))) == NULL)
            return -1;
        for (size_t i = 0; i < d->nseen; i++)
            store__slot_put(v, n, d->seen[i].base, i);
        free(d->seen_slots);
        d->seen_slots = v;
        d->nseen_slots = n;
    }
    return 0;
}

static struct store_dir_seen *
cache_find(struct store_dir *d, const char *base, bool add)
{
    struct store_dir_seen *c = seen_lookup(d, base);

    if (c != NULL || !add)
        return c;
    if (seen_room(d) == -1)
        return NULL;
    c = &d->seen[d->nseen];
    memset(c, 0, sizeof(*c));
    if ((c->base = strdup(base)) == NULL)
        return NULL;
    store__slot_put(d->seen_slots, d->nseen_slots, c->base, d->nseen);
    d->nseen++;
    return c;
}

/* The names the index holds for base now (none when it is gone). */
static int
names_now(struct store_dir *d, const char *base, struct store_dir_seen *now,
          struct err *e)
{
    const struct store_dir_file *f = store__dir_file(d, base);

    now->names = NULL; /* now->base is the caller's */
    now->n = 0;
    if (f == NULL || f->specs.n == 0)
        return 0;
    now->names = calloc(f->specs.n, sizeof(char *));
    if (now->names == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (; now->n < f->specs.n; now->n++)
        if ((now->names[now->n] = strdup(f->specs.items[now->n].name)) ==
            NULL) {
            file_clear(now);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
    return 0;
}

/* Refresh base in the index and record the names it holds now. */
static int
cache_refresh(struct store_dir *d, const char *base, struct store_dir_seen *now,
              struct err *e)
{
    if (store__dir_refresh(d, base, NULL, e) == -1)
        return -1;
    return names_now(d, base, now, e);
}

static int
load_cache(struct store_dir *d, struct err *e)
{
    if (store__dir_scan(d, e) == -1)
        return -1;
    for (size_t i = 0; i < d->nfiles; i++) {
        struct store_dir_seen *c = cache_find(d, d->files[i].base, true);

        if (c == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        file_clear(c);
        if (names_now(d, d->files[i].base, c, e) == -1)
            return -1;
    }
    return 0;
}

int
store__dir_watch_fd(struct store *s, struct err *e)
{
    struct store_dir *d = (struct store_dir *)s;
    uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

    if (d->ino_fd != -1)
        return d->ino_fd;
    d->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (d->ino_fd == -1)
        return err_sys(e, "inotify_init1");
    if (inotify_add_watch(d->ino_fd, d->specs, mask) == -1) {
        err_sys(e, "watch %s", d->specs);
        store__dir_watch_cleanup(d);
        return -1;
    }
    /* Names known before the first event, so a delete can be named. */
    if (load_cache(d, e) == -1) {
        store__dir_watch_cleanup(d);
        return -1;
    }
    return d->ino_fd;
}

static bool
has_name(char *const *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], name) == 0)
            return true;
    return false;
}

static void
emit(struct store_change *out, size_t max, size_t *n, bool *over,
     enum store_change_kind kind, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (out[i].kind == kind && strcmp(out[i].name, name) == 0)
            return;
    if (*n + 1 >= max) { /* keep the last slot for RESYNC */
        *over = true;
        return;
    }
    out[*n].kind = kind;
    snprintf(out[*n].name, sizeof(out[*n].name), "%.*s", STORE_NAME_MAX, name);
    (*n)++;
}

/* One file changed or went away: report what it held before and holds
 * now. */
static int
file_changed(struct store_dir *d, const char *base, struct store_change *out,
             size_t max, size_t *n, bool *over, struct err *e)
{
    struct store_dir_seen now = { 0 }, *c = cache_find(d, base, true);

    if (c == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (cache_refresh(d, base, &now, e) == -1)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        if (!has_name(now.names, now.n, c->names[i]))
            emit(out, max, n, over, STORE_CHANGE_DELETE, c->names[i]);
    for (size_t i = 0; i < now.n; i++)
        emit(out, max, n, over, STORE_CHANGE_PUT, now.names[i]);
    file_clear(c);
    c->names = now.names;
    c->n = now.n;
    return 0;
}

/* The distinct spec files named by the events in buf[0..len). */
static size_t
touched_files(const char *buf, ssize_t len, const char **files, size_t max,
              bool *resync)
{
    size_t k = 0;

    for (const char *p = buf; p < buf + len;) {
        const struct inotify_event *ev = (const struct inotify_event *)p;

        p += sizeof(*ev) + ev->len;
        if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF))
            *resync = true;
        if (ev->len == 0 || (ev->mask & IN_ISDIR) ||
            !store__dir_is_spec_file(ev->name))
            continue;
        bool seen = false;
        for (size_t i = 0; i < k && !seen; i++)
            seen = strcmp(files[i], ev->name) == 0;
        if (seen)
            continue;
        if (k == max)
            *resync = true;
        else
            files[k++] = ev->name;
    }
    return k;
}

int
store__dir_watch_read(struct store *s, struct store_change *out, size_t max,
                      size_t *n, struct err *e)
{
    struct store_dir *d = (struct store_dir *)s;
    char buf[64 * (sizeof(struct inotify_event) + NAME_MAX + 1)]
        __attribute__((aligned(__alignof__(struct inotify_event))));
    const char *files[64];
    bool over = false, resync = false;

    *n = 0;
    if (max < 2)
        return err_set(e, ERR_INVALID, "room for at least 2 changes needed");
    if (d->ino_fd == -1 && store__dir_watch_fd(s, e) == -1)
        return -1;
    for (;;) {
        ssize_t len = read(d->ino_fd, buf, sizeof(buf));
        size_t k;

        if (len == -1 && errno == EINTR)
            continue;
        if (len == -1 && errno == EAGAIN)
            break;
        if (len <= 0)
            return err_sys(e, "read inotify");
        k = touched_files(buf, len, files, 64, &resync);
        for (size_t i = 0; i < k; i++)
            if (file_changed(d, files[i], out, max, n, &over, e) == -1)
                return -1;
    }
    if (over || resync) {
        out[*n].kind = STORE_CHANGE_RESYNC;
        out[*n].name[0] = '\0';
        (*n)++;
    }
    return 0;
}
