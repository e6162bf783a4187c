/* store_dir.c - the directory store: specs are *.yaml / *.yml files in one
 * directory (hand-written or written by agentctl apply), state lives under
 * --state (default: where the controller recorded its own in
 * <specs>/.agentctl-state, store_dir_state.c; else <specs>/.agentctl/):
 *
 *   lock                  flock()ed around read-compare-write sequences
 *   status/<name>.json    controller status (atomic replace)
 *   meta/<name>.json      uid, generation, creationTimestamp
 *   applied/<name>.json   sha256 of the bytes agentctl apply wrote
 *   pool/<id>.json        a controller's warm pool (<id>: its controller ID)
 *   events/<name>.jsonl   one JSON event per line (O_APPEND)
 *   output/<name>.log     captured stdout+stderr of the attempt
 *
 * A spec's revision is the sha256 of its file's bytes (store.h). Writes go
 * to a temp dot-file in the same directory and are renamed over the
 * target, so a reader or watcher never sees half a file.
 */
#include "store_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const doc_dirs[] = {
    [STORE_DOC_STATUS] = "status",
    [STORE_DOC_META] = "meta",
    [STORE_DOC_APPLIED] = "applied",
    [STORE_DOC_POOL] = "pool",
};

#define DIR_OF(s) ((struct store_dir *)(s))

bool
store__dir_is_spec_file(const char *base)
{
    size_t n = strlen(base);

    if (base[0] == '.' || n < 5)
        return false;
    return strcmp(base + n - 5, ".yaml") == 0 ||
           strcmp(base + n - 4, ".yml") == 0;
}

static int
add_entry(struct store_list *l, struct store_spec *sp, struct err *e)
{
    struct store_spec *items;

    items = realloc(l->items, (l->n + 1) * sizeof(*items));
    if (items == NULL) {
        store_spec_cleanup(sp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    l->items = items;
    l->items[l->n++] = *sp;
    return 0;
}

/* A copy of len bytes plus a NUL (the bytes may hold NULs themselves). */
static char *
dup_bytes(const char *data, size_t len)
{
    char *p = malloc(len + 1);

    if (p != NULL) {
        memcpy(p, data, len);
        p[len] = '\0';
    }
    return p;
}

/* The base name without .yaml/.yml: the name of an invalid file. */
static char *
stem_of(const char *base)
{
    size_t n = strlen(base);

    n -= strcmp(base + n - 4, ".yml") == 0 ? 4 : 5;
    return strndup(base, n);
}

/* One entry for a file that cannot be used, with its errors. */
static int
add_invalid(struct store_list *l, const char *base, const char *path,
            const char *data, size_t len, const char *rev,
            const struct spec_errors *errs, struct err *e)
{
    struct store_spec sp = { .len = len, .docs = 1 };

    sp.name = stem_of(base);
    sp.key = strdup(path);
    sp.data = dup_bytes(data, len);
    sp.errors = malloc(sizeof(*sp.errors));
    if (sp.name == NULL || sp.key == NULL || sp.data == NULL ||
        sp.errors == NULL) {
        store_spec_cleanup(&sp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    *sp.errors = *errs;
    snprintf(sp.rev, sizeof(sp.rev), "%s", rev);
    return add_entry(l, &sp, e);
}

static int
add_valid(struct store_list *l, struct spec_file *f, const char *path,
          const char *data, size_t len, const char *rev, struct err *e)
{
    for (size_t i = 0; i < f->n; i++) {
        struct store_spec sp = { .len = len, .docs = f->n };

        sp.inv = spec_file_take(f, i);
        sp.name = strdup(sp.inv->name);
        sp.key = strdup(path);
        sp.data = dup_bytes(data, len);
        if (sp.name == NULL || sp.key == NULL || sp.data == NULL) {
            store_spec_cleanup(&sp);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        snprintf(sp.rev, sizeof(sp.rev), "%s", rev);
        if (add_entry(l, &sp, e) == -1)
            return -1;
    }
    return 0;
}

int
store__dir_load(struct store_dir *d, const char *base, const char *same_rev,
                struct store_list *l, struct err *e)
{
    char path[4096], rev[65];
    struct spec_file f;
    struct err re = { 0 };
    char *data = NULL;
    size_t len = 0;
    int rc;

    if (store__path(path, sizeof(path), e, "%s/%s", d->specs, base) == -1)
        return -1;
    if (store__read_file(path, SPEC_MAX_FILE_BYTES, &data, &len, &re) == -1) {
        struct spec_errors es = { .n = 1 };

        if (re.code == ERR_NOTFOUND)
            return 0; /* deleted while we listed */
        err_set_at(&es.items[0], ERR_INVALID, path, 0, 0, NULL, "%s",
                   re.code == ERR_LIMIT ? "file is over the 1 MiB limit"
                                        : re.msg);
        /* no bytes: a revision that still changes when the file does */
        snprintf(rev, sizeof(rev), "unreadable");
        return add_invalid(l, base, path, "", 0, rev, &es, e);
    }
    spec_sha256_hex(data, len, rev);
    if (same_rev != NULL && strcmp(same_rev, rev) == 0) {
        free(data); /* the same bytes: what they parse to is known */
        return 1;
    }
    if (spec_load_buffer(path, data, len, &f) == 0 && f.n > 0)
        rc = add_valid(l, &f, path, data, len, rev, e);
    else
        rc = add_invalid(l, base, path, data, len, rev, &f.errors, e);
    spec_file_cleanup(&f);
    free(data);
    return rc;
}

static int
entry_cmp(const void *a, const void *b)
{
    const struct store_spec *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c != 0 ? c : strcmp(x->key, y->key);
}

/* Two files defining one name: neither is acted on until a human fixes
 * it, so each entry turns invalid and says where the other one is. */
static int
mark_duplicates(struct store_list *l, struct err *e)
{
    for (size_t i = 0; i < l->n; i++) {
        struct store_spec *sp = &l->items[i];
        const struct store_spec *other = NULL;

        if (i > 0 && strcmp(l->items[i - 1].name, sp->name) == 0)
            other = &l->items[i - 1];
        else if (i + 1 < l->n && strcmp(l->items[i + 1].name, sp->name) == 0)
            other = &l->items[i + 1];
        if (other == NULL)
            continue;
        if (sp->errors == NULL) {
            sp->errors = calloc(1, sizeof(*sp->errors));
            if (sp->errors == NULL)
                return err_set(e, ERR_NOMEM, "out of memory");
        }
        spec_errors_add_at(sp->errors, sp->key, sp->inv ? sp->inv->line : 0,
                           sp->inv ? 1 : 0, "metadata.name",
                           "name \"%s\" is also defined in %s", sp->name,
                           other->key);
        spec_invocation_free(sp->inv);
        sp->inv = NULL;
    }
    return 0;
}

/* Every entry of the index, copied out, sorted, duplicates marked. */
static int
dir_list(struct store *s, struct store_list *out, struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    struct store_list l = { 0 };
    size_t total = 0;

    if (store__dir_scan(d, e) == -1)
        return -1;
    for (size_t i = 0; i < d->nfiles; i++)
        total += d->files[i].specs.n;
    if (total > 0 && (l.items = calloc(total, sizeof(*l.items))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < d->nfiles; i++)
        for (size_t j = 0; j < d->files[i].specs.n; j++, l.n++)
            if (store__dir_copy(&d->files[i], &d->files[i].specs.items[j],
                                &l.items[l.n], e) == -1)
                goto fail;
    if (l.n > 0)
        qsort(l.items, l.n, sizeof(*l.items), entry_cmp);
    if (mark_duplicates(&l, e) == -1)
        goto fail;
    *out = l;
    return 0;
fail:
    store_list_cleanup(&l);
    return -1;
}

/* Two files defining name: the first (by key) is returned, invalid, and
 * says where the other is, as a list would show it. */
static int
mark_duplicate(struct store_spec *sp, const char *other, struct err *e)
{
    if (sp->errors == NULL &&
        (sp->errors = calloc(1, sizeof(*sp->errors))) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    spec_errors_add_at(sp->errors, sp->key, sp->inv ? sp->inv->line : 0,
                       sp->inv ? 1 : 0, "metadata.name",
                       "name \"%s\" is also defined in %s", sp->name, other);
    spec_invocation_free(sp->inv);
    sp->inv = NULL;
    return 0;
}

static int
dir_get(struct store *s, const char *name, struct store_spec *out,
        struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    const struct store_spec *hits[2];
    const struct store_dir_file *files[2];
    size_t n;

    if (store__dir_fresh(d, name, e) == -1)
        return -1;
    n = store__dir_find(d, name, hits, files, 2);
    if (n == 0)
        return err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                       name);
    if (store__dir_copy(files[0], hits[0], out, e) == -1)
        return -1;
    if (n > 1 && mark_duplicate(out, hits[1]->key, e) == -1) {
        store_spec_cleanup(out);
        return -1;
    }
    return 0;
}

static const char *
base_of(const char *path)
{
    const char *p = strrchr(path, '/');

    return p ? p + 1 : path;
}

/* Which file to write for name, and its current revision ("" = none).
 * Only a single-document <name>.yaml or <name>.yml may be rewritten: a
 * name living in another file belongs to whoever wrote that file. */
static int
find_target(struct store_dir *d, const char *name, char *target, size_t size,
            char *rev, struct err *e)
{
    const struct store_spec *hits[2];
    const struct store_dir_file *files[2];
    const struct store_dir_file *at;
    char want_yaml[80], want_yml[80];
    size_t n;

    snprintf(want_yaml, sizeof(want_yaml), "%s.yaml", name);
    snprintf(want_yml, sizeof(want_yml), "%s.yml", name);
    snprintf(target, size, "%s", want_yaml);
    rev[0] = '\0';
    if (store__dir_fresh(d, name, e) == -1)
        return -1;
    n = store__dir_find(d, name, hits, files, 2);
    if (n == 0) {
        /* <name>.yaml may exist and hold something else */
        at = store__dir_file(d, want_yaml);
        if (at != NULL && at->specs.n > 0)
            return err_set(e, ERR_CONFLICT, "%s holds \"%s\", not \"%s\"",
                           at->specs.items[0].key, at->specs.items[0].name,
                           name);
        return 0;
    }
    if (n > 1)
        return err_set(e, ERR_CONFLICT, "\"%s\" is defined in %s and %s", name,
                       hits[0]->key, hits[1]->key);
    if (hits[0]->docs > 1)
        return err_set(e, ERR_CONFLICT,
                       "\"%s\" lives in %s with %zu other documents; edit "
                       "that file by hand",
                       name, hits[0]->key, hits[0]->docs - 1);
    if (strcmp(files[0]->base, want_yaml) != 0 &&
        strcmp(files[0]->base, want_yml) != 0)
        return err_set(e, ERR_CONFLICT, "\"%s\" is defined in %s", name,
                       hits[0]->key);
    at = store__dir_file(d, want_yaml);
    if (at != NULL && at != files[0] && at->specs.n > 0)
        return err_set(e, ERR_CONFLICT, "%s holds \"%s\", not \"%s\"",
                       at->specs.items[0].key, at->specs.items[0].name, name);
    snprintf(target, size, "%s", files[0]->base);
    snprintf(rev, STORE_REV_MAX, "%s", hits[0]->rev);
    return 0;
}

static int
check_rev(const char *name, const char *expect, const char *cur, struct err *e)
{
    if (expect == NULL || strcmp(expect, cur) == 0)
        return 0;
    if (cur[0] == '\0')
        return err_set(e, ERR_CONFLICT, "\"%s\" was deleted meanwhile", name);
    if (expect[0] == '\0')
        return err_set(e, ERR_CONFLICT, "\"%s\" already exists", name);
    return err_set(e, ERR_CONFLICT, "\"%s\" was changed meanwhile", name);
}

static bool
batch_holds(struct store_dir *d, const char *dir, const char *base)
{
    char path[4096];

    return d->batch != NULL &&
           snprintf(path, sizeof(path), "%s/%s", dir, base) <
               (int)sizeof(path) &&
           store__fs_batch_has(d->batch, path);
}

static int
dir_batch_begin(struct store *s, struct err *e)
{
    struct store_dir *d = DIR_OF(s);

    if (d->batch != NULL)
        return 0;
    d->batch = store__fs_batch_new();
    if (d->batch == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

static int
dir_batch_end(struct store *s, struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    int rc;

    if (d->batch == NULL)
        return 0;
    rc = store__fs_batch_commit(d->batch, e);
    free(d->batch);
    d->batch = NULL;
    d->scanned = false; /* the files renamed in are read at the next look */
    return rc;
}

static int
dir_put(struct store *s, const char *name, const char *data, size_t len,
        const char *expect_rev, char new_rev[STORE_REV_MAX], struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    char target[128], rev[STORE_REV_MAX];
    int rc = -1;

    if (store_lock(s, e) == -1)
        return -1;
    if (find_target(d, name, target, sizeof(target), rev, e) == -1)
        goto out;
    /* a second put of one file in a batch compares with the first one's
     * bytes: those go to disk first */
    if (batch_holds(d, d->specs, target) &&
        (dir_batch_end(s, e) == -1 || dir_batch_begin(s, e) == -1 ||
         find_target(d, name, target, sizeof(target), rev, e) == -1))
        goto out;
    if (check_rev(name, expect_rev, rev, e) == -1 ||
        store__write_atomic(d->batch, d->specs, target, data, len, e) == -1 ||
        (d->batch == NULL && store__dir_refresh(d, target, NULL, e) == -1))
        goto out;
    if (new_rev != NULL)
        spec_sha256_hex(data, len, new_rev);
    rc = 0;
out:
    store_unlock(s);
    return rc;
}

static int
dir_del(struct store *s, const char *name, const char *expect_rev,
        struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    struct store_spec sp;
    int rc = -1;

    if (store_lock(s, e) == -1)
        return -1;
    if (store_get(s, name, &sp, e) == -1)
        goto out;
    if (sp.docs > 1)
        err_set(e, ERR_CONFLICT,
                "%s holds %zu documents; delete \"%s\" by editing that file",
                sp.key, sp.docs, name);
    else if (check_rev(name, expect_rev, sp.rev, e) == 0) {
        if (unlink(sp.key) == -1 && errno != ENOENT)
            err_sys(e, "remove %s", sp.key);
        else if (store__fsync_dir(d->specs, e) == 0)
            rc = store__dir_refresh(d, base_of(sp.key), NULL, e);
    }
    store_spec_cleanup(&sp);
out:
    store_unlock(s);
    return rc;
}

static int
dir_lock(struct store *s, struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    char path[4096];
    int fd;

    if (d->lock_depth > 0) {
        d->lock_depth++;
        return 0;
    }
    if (store__path(path, sizeof(path), e, "%s/lock", d->state) == -1)
        return -1;
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1)
        return err_sys(e, "open %s", path);
    while (flock(fd, LOCK_EX) == -1) {
        if (errno != EINTR) {
            err_sys(e, "lock %s", path);
            close(fd);
            return -1;
        }
    }
    d->lock_fd = fd;
    d->lock_depth = 1;
    /* what others wrote before we held the lock: one scan per lock */
    d->scanned = false;
    return 0;
}

static void
dir_unlock(struct store *s)
{
    struct store_dir *d = DIR_OF(s);

    if (d->lock_depth == 0 || --d->lock_depth > 0)
        return;
    close(d->lock_fd); /* releases the flock */
    d->lock_fd = -1;
}

static int
doc_path(struct store_dir *d, enum store_doc kind, const char *name, char *path,
         size_t size, struct err *e)
{
    return store__path(path, size, e, "%s/%s/%s.json", d->state, doc_dirs[kind],
                       name);
}

static int
dir_doc_get(struct store *s, enum store_doc kind, const char *name, char **data,
            size_t *len, struct err *e)
{
    char path[4096];

    if (doc_path(DIR_OF(s), kind, name, path, sizeof(path), e) == -1)
        return -1;
    return store__read_file(path, STORE_STATE_MAX, data, len, e);
}

static int
dir_doc_write(struct store *s, enum store_doc kind, const char *name,
              const char *data, size_t len, bool create, struct err *e)
{
    struct store_dir *d = DIR_OF(s);
    char dir[4096], base[80];

    if (len > STORE_STATE_MAX)
        return err_set(e, ERR_LIMIT, "state of \"%s\" is too big", name);
    if (store__path(dir, sizeof(dir), e, "%s/%s", d->state, doc_dirs[kind]) ==
        -1)
        return -1;
    snprintf(base, sizeof(base), "%s.json", name);
    if (batch_holds(d, dir, base) &&
        (dir_batch_end(s, e) == -1 || dir_batch_begin(s, e) == -1))
        return -1;
    if (create)
        return store__create_exclusive(d->batch, dir, base, data, len, e);
    return store__write_atomic(d->batch, dir, base, data, len, e);
}

static int
dir_doc_put(struct store *s, enum store_doc kind, const char *name,
            const char *data, size_t len, struct err *e)
{
    return dir_doc_write(s, kind, name, data, len, false, e);
}

static int
dir_doc_create(struct store *s, enum store_doc kind, const char *name,
               const char *data, size_t len, struct err *e)
{
    return dir_doc_write(s, kind, name, data, len, true, e);
}

static int
dir_doc_del(struct store *s, enum store_doc kind, const char *name,
            struct err *e)
{
    char path[4096];

    if (doc_path(DIR_OF(s), kind, name, path, sizeof(path), e) == -1)
        return -1;
    if (unlink(path) == -1 && errno != ENOENT)
        return err_sys(e, "remove %s", path);
    return 0;
}

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
dir_doc_names(struct store *s, enum store_doc kind, char ***names, size_t *n,
              struct err *e)
{
    char dir[4096];
    DIR *dp;
    struct dirent *de;
    char **v = NULL, **nv;
    size_t k = 0, len;

    if (store__path(dir, sizeof(dir), e, "%s/%s", DIR_OF(s)->state,
                    doc_dirs[kind]) == -1)
        return -1;
    dp = opendir(dir);
    if (dp == NULL && errno != ENOENT) /* missing: a reader's, none yet */
        return err_sys(e, "open %s", dir);
    while (dp != NULL && (de = readdir(dp)) != NULL) {
        len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len < 6 ||
            strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        nv = realloc(v, (k + 1) * sizeof(*v));
        if (nv == NULL || (nv[k] = strndup(de->d_name, len - 5)) == NULL) {
            store_names_free(nv ? nv : v, k);
            closedir(dp);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        v = nv;
        k++;
    }
    if (dp != NULL)
        closedir(dp);
    if (k > 0)
        qsort(v, k, sizeof(*v), name_cmp);
    *names = v;
    *n = k;
    return 0;
}

static int
dir_event_append(struct store *s, const char *name, const char *line,
                 struct err *e)
{
    char path[4096], *rec;
    size_t len = strlen(line);
    ssize_t w;
    int fd;

    if (store__path(path, sizeof(path), e, "%s/events/%s.jsonl",
                    DIR_OF(s)->state, name) == -1)
        return -1;
    rec = malloc(len + 2);
    if (rec == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    memcpy(rec, line, len);
    rec[len] = '\n';
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1) {
        free(rec);
        return err_sys(e, "open %s", path);
    }
    /* one write() with O_APPEND: concurrent writers never interleave */
    w = write(fd, rec, len + 1);
    free(rec);
    if (w != (ssize_t)(len + 1)) {
        err_sys(e, "append to %s", path);
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static int
dir_event_read(struct store *s, const char *name, char **data, size_t *len,
               struct err *e)
{
    char path[4096];
    struct stat st;
    size_t got = 0;
    char *p;
    int fd;

    if (store__path(path, sizeof(path), e, "%s/events/%s.jsonl",
                    DIR_OF(s)->state, name) == -1)
        return -1;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1 && errno != ENOENT)
        return err_sys(e, "open %s", path);
    st.st_size = 0;
    if (fd != -1 && fstat(fd, &st) == -1)
        st.st_size = 0;
    /* keep the newest STORE_EVENTS_MAX bytes */
    if (fd != -1 && st.st_size > STORE_EVENTS_MAX)
        lseek(fd, st.st_size - STORE_EVENTS_MAX, SEEK_SET);
    p = malloc(STORE_EVENTS_MAX + 1);
    if (p == NULL) {
        if (fd != -1)
            close(fd);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    while (fd != -1 && got < STORE_EVENTS_MAX) {
        ssize_t r = read(fd, p + got, STORE_EVENTS_MAX - got);

        if (r == -1 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (fd != -1)
        close(fd);
    p[got] = '\0';
    *data = p;
    *len = got;
    return 0;
}

static int
dir_output_path(struct store *s, const char *name, char *path, size_t size,
                struct err *e)
{
    return store__path(path, size, e, "%s/output/%s.log", DIR_OF(s)->state,
                       name);
}

static void
dir_close(struct store *s)
{
    struct store_dir *d = DIR_OF(s);

    if (d->lock_depth > 0)
        close(d->lock_fd);
    if (d->batch != NULL) { /* never committed: its temp files go */
        store__fs_batch_clear(d->batch);
        free(d->batch);
    }
    store__dir_watch_cleanup(d);
    store__dir_index_free(d);
    free(d->specs);
    free(d->state);
    free(d);
}

static const struct store_ops dir_ops = {
    .list = dir_list,
    .get = dir_get,
    .put = dir_put,
    .del = dir_del,
    .watch_fd = store__dir_watch_fd,
    .watch_read = store__dir_watch_read,
    .lock = dir_lock,
    .unlock = dir_unlock,
    .doc_get = dir_doc_get,
    .doc_put = dir_doc_put,
    .doc_create = dir_doc_create,
    .doc_del = dir_doc_del,
    .doc_names = dir_doc_names,
    .event_append = dir_event_append,
    .event_read = dir_event_read,
    .output_path = dir_output_path,
    .close = dir_close,
    .batch_begin = dir_batch_begin,
    .batch_end = dir_batch_end,
};

/* The state directory and one folder per kind of state. */
static int
make_state_dirs(const char *state, struct err *e)
{
    static const char *const sub[] = { "status", "meta",   "applied",
                                       "pool",   "events", "output" };
    char path[4096];

    if (store__mkdir(state, e) == -1)
        return -1;
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
        if (store__path(path, sizeof(path), e, "%s/%s", state, sub[i]) == -1 ||
            store__mkdir(path, e) == -1)
            return -1;
    return 0;
}

/* create: make the state directory and its folders when missing (a
 * writer); a reader leaves them as they are. */
static struct store *
dir_open(const char *specs_dir, const char *state_dir, bool create,
         struct err *e)
{
    struct store_dir *d;
    struct stat st;

    if (stat(specs_dir, &st) == -1) {
        err_sys(e, "specs directory %s", specs_dir);
        return NULL;
    }
    if (!S_ISDIR(st.st_mode)) {
        err_set(e, ERR_INVALID, "%s is not a directory", specs_dir);
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->base.ops = &dir_ops;
    d->base.backend = "dir";
    d->lock_fd = -1;
    d->ino_fd = -1;
    d->specs = strdup(specs_dir);
    if (state_dir != NULL)
        d->state = strdup(state_dir);
    else if ((d->state = store__dir_recorded_state(specs_dir)) != NULL)
        ; /* the controller's --state (store_dir_state.c) */
    else if (asprintf(&d->state, "%s/.agentctl", specs_dir) == -1)
        d->state = NULL;
    if (d->specs == NULL || d->state == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        dir_close(&d->base);
        return NULL;
    }
    if (create && make_state_dirs(d->state, e) == -1) {
        dir_close(&d->base);
        return NULL;
    }
    return &d->base;
}

struct store *
store_dir_open(const char *specs_dir, const char *state_dir, struct err *e)
{
    return dir_open(specs_dir, state_dir, true, e);
}

struct store *
store_dir_open_read(const char *specs_dir, const char *state_dir,
                    struct err *e)
{
    return dir_open(specs_dir, state_dir, false, e);
}
