/* store_dir_index.c - the directory store's index: spec file -> the
 * resources it holds, parsed once per change of the file.
 *
 * Each file is remembered with its stat key (dev, inode, size, mtime and
 * ctime in ns). Looking again costs one lstat(); a file is read again
 * only when its key changed, and parsed again only when its bytes hash
 * differently. A file changed within store__dir_racy_ns of being read is
 * "racy": a second write within the same file system clock tick
 * (timestamps come from a coarse clock, and some file systems keep
 * seconds only) could leave size, mtime and ctime as they were, so its
 * bytes are hashed again on every look until a look comes later than
 * that window after its change (the rule git uses for its index).
 *
 * Reads (list, get), put, delete and the watcher all go through it, so
 * a put finds its file without parsing the directory, and duplicate names
 * across files are found from the index (store_dir.c).
 */
#include "store_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* 2 s: FAT and some network file systems keep 2-second or server-side
 * timestamps; local ones tick every few ms. A variable so a unit test can
 * switch the protection off and show what it protects. */
int64_t store__dir_racy_ns = 2 * 1000000000LL;

static int64_t
ts_ns(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static int64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_ns(&ts);
}

bool
store__dir_key_same(const struct store_dir_key *a,
                    const struct store_dir_key *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

bool
store__dir_key_racy(const struct store_dir_key *k, int64_t read_ns)
{
    return k->mtime_ns > read_ns - store__dir_racy_ns ||
           k->ctime_ns > read_ns - store__dir_racy_ns;
}

/* --- base name -> file, a hash (10,000 files: a walk per lookup made
 * each scan, so each agentctl command, 10,000 x 5,000 strcmp) --------- */

static void
slot_put(struct store_dir *d, size_t i)
{
    store__slot_put(d->slots, d->nslots, d->files[i].base, i);
}

/* Every file in again, the table at most half full. false: no memory
 * (lookups then walk the files). */
static bool
slots_rebuild(struct store_dir *d)
{
    size_t n = 64;

    while (n < 2 * (d->nfiles + 1))
        n *= 2;
    if (n != d->nslots) {
        size_t *v = realloc(d->slots, n * sizeof(*v));

        if (v == NULL)
            return false;
        d->slots = v;
        d->nslots = n;
    }
    memset(d->slots, 0, d->nslots * sizeof(*d->slots));
    for (size_t i = 0; i < d->nfiles; i++)
        slot_put(d, i);
    d->slots_stale = false;
    return true;
}

struct store_dir_file *
store__dir_file(struct store_dir *d, const char *base)
{
    size_t mask, at;

    if ((d->slots_stale || d->nslots == 0) && !slots_rebuild(d)) {
        for (size_t i = 0; i < d->nfiles; i++)
            if (strcmp(d->files[i].base, base) == 0)
                return &d->files[i];
        return NULL;
    }
    mask = d->nslots - 1;
    for (at = store__str_hash(base) & mask; d->slots[at] != 0;
         at = (at + 1) & mask)
        if (strcmp(d->files[d->slots[at] - 1].base, base) == 0)
            return &d->files[d->slots[at] - 1];
    return NULL;
}

static void
file_free(struct store_dir_file *f)
{
    free(f->base);
    free(f->data);
    store_list_cleanup(&f->specs);
}

/* Drop entry f (the last one takes its place). */
static void
file_drop(struct store_dir *d, struct store_dir_file *f)
{
    file_free(f);
    *f = d->files[--d->nfiles];
    d->slots_stale = true; /* rebuilt at the next lookup: a scan that
                              drops many pays once */
}

void
store__dir_index_free(struct store_dir *d)
{
    for (size_t i = 0; i < d->nfiles; i++)
        file_free(&d->files[i]);
    free(d->files);
    d->files = NULL;
    d->nfiles = d->files_cap = 0;
    free(d->slots);
    d->slots = NULL;
    d->nslots = 0;
    d->scanned = false;
}

static struct store_dir_file *
file_add(struct store_dir *d, const char *base, struct err *e)
{
    struct store_dir_file *v;

    if (d->nfiles == d->files_cap) {
        size_t cap = d->files_cap ? 2 * d->files_cap : 16;

        v = realloc(d->files, cap * sizeof(*v));
        if (v == NULL) {
            err_set(e, ERR_NOMEM, "out of memory");
            return NULL;
        }
        d->files = v;
        d->files_cap = cap;
    }
    v = &d->files[d->nfiles];
    memset(v, 0, sizeof(*v));
    if ((v->base = strdup(base)) == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->nfiles++;
    if (d->slots_stale || 2 * d->nfiles > d->nslots)
        d->slots_stale = true; /* grown (or stale): rebuilt at the lookup */
    else
        slot_put(d, d->nfiles - 1);
    return v;
}

/* The new contents of f: the bytes once, the entries without copies. */
static void
file_take(struct store_dir_file *f, struct store_list *l)
{
    free(f->data);
    store_list_cleanup(&f->specs);
    f->data = l->items[0].data;
    f->len = l->items[0].len;
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            free(l->items[i].data);
        l->items[i].data = NULL;
    }
    f->specs = *l;
    memset(l, 0, sizeof(*l));
}

static void
key_of(const struct stat *st, struct store_dir_key *k)
{
    memset(k, 0, sizeof(*k));
    k->dev = st->st_dev;
    k->ino = st->st_ino;
    k->size = st->st_size;
    k->mtime_ns = ts_ns(&st->st_mtim);
    k->ctime_ns = ts_ns(&st->st_ctim);
}

int
store__dir_refresh(struct store_dir *d, const char *base, bool *changed,
                   struct err *e)
{
    struct store_dir_file *f = store__dir_file(d, base);
    struct store_list l = { 0 };
    struct store_dir_key k;
    char path[4096];
    struct stat st;
    int64_t t = now_ns();
    int rc;

    if (changed != NULL)
        *changed = false;
    if (store__path(path, sizeof(path), e, "%s/%s", d->specs, base) == -1)
        return -1;
    if (lstat(path, &st) == -1) {
        if (errno != ENOENT && errno != ENOTDIR)
            return err_sys(e, "stat %s", path);
        if (f != NULL) {
            file_drop(d, f);
            if (changed != NULL)
                *changed = true;
        }
        return 0;
    }
    key_of(&st, &k);
    if (f != NULL && store__dir_key_same(&f->key, &k) && !f->racy)
        return 0;
    rc = store__dir_load(d, base, f ? f->specs.items[0].rev : NULL, &l, e);
    if (rc == -1)
        return -1;
    if (rc == 0 && l.n == 0) { /* gone between the stat and the read */
        if (f != NULL) {
            file_drop(d, f);
            if (changed != NULL)
                *changed = true;
        }
        return 0;
    }
    if (f == NULL && (f = file_add(d, base, e)) == NULL) {
        store_list_cleanup(&l);
        return -1;
    }
    if (rc == 0) {
        file_take(f, &l);
        if (changed != NULL)
            *changed = true;
    }
    f->key = k;
    f->racy = store__dir_key_racy(&k, t);
    return 0;
}

/* Spec file names in the directory. */
static int
dir_files(const char *dir, char ***out, size_t *n, struct err *e)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char **v = NULL, **nv;
    size_t k = 0;

    if (dp == NULL)
        return err_sys(e, "open %s", dir);
    while ((de = readdir(dp)) != NULL) {
        if (!store__dir_is_spec_file(de->d_name))
            continue;
        /* symlinks are listed so that reading them (O_NOFOLLOW) reports
         * them as invalid instead of ignoring them silently */
        if (de->d_type != DT_REG && de->d_type != DT_LNK &&
            de->d_type != DT_UNKNOWN)
            continue;
        nv = realloc(v, (k + 1) * sizeof(*v));
        if (nv == NULL || (nv[k] = strdup(de->d_name)) == NULL) {
            store_names_free(nv ? nv : v, k);
            closedir(dp);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        v = nv;
        k++;
    }
    closedir(dp);
    *out = v;
    *n = k;
    return 0;
}

int
store__dir_scan(struct store_dir *d, struct err *e)
{
    char **files = NULL;
    size_t n = 0;
    int rc = 0;

    if (dir_files(d->specs, &files, &n, e) == -1)
        return -1;
    for (size_t i = 0; i < d->nfiles; i++)
        d->files[i].listed = false;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct store_dir_file *f;

        rc = store__dir_refresh(d, files[i], NULL, e);
        if (rc == 0 && (f = store__dir_file(d, files[i])) != NULL)
            f->listed = true;
    }
    /* forget what is no longer there */
    for (size_t i = 0; i < d->nfiles && rc == 0;)
        if (!d->files[i].listed)
            file_drop(d, &d->files[i]);
        else
            i++;
    store_names_free(files, n);
    if (rc == 0)
        d->scanned = true;
    return rc;
}

/* Copies of the base names of the files holding name (at most max). */
static int
files_holding(struct store_dir *d, const char *name, char **out, size_t max,
              size_t *n, struct err *e)
{
    *n = 0;
    for (size_t i = 0; i < d->nfiles && *n < max; i++)
        for (size_t j = 0; j < d->files[i].specs.n; j++) {
            if (strcmp(d->files[i].specs.items[j].name, name) != 0)
                continue;
            if ((out[*n] = strdup(d->files[i].base)) == NULL) {
                for (size_t k = 0; k < *n; k++)
                    free(out[k]);
                return err_set(e, ERR_NOMEM, "out of memory");
            }
            (*n)++;
            break;
        }
    return 0;
}

int
store__dir_fresh(struct store_dir *d, const char *name, struct err *e)
{
    char base[STORE_NAME_MAX + 8], *held[16];
    size_t n;
    int rc = 0;

    if (!d->scanned)
        return store__dir_scan(d, e);
    /* the files that hold name now, and the two it would be written to;
     * a name defined anew in some other file comes with the next scan
     * or, in a watching process, with that file's event */
    if (files_holding(d, name, held, 16, &n, e) == -1)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = store__dir_refresh(d, held[i], NULL, e);
        free(held[i]);
    }
    snprintf(base, sizeof(base), "%s.yaml", name);
    if (rc == 0)
        rc = store__dir_refresh(d, base, NULL, e);
    snprintf(base, sizeof(base), "%s.yml", name);
    if (rc == 0)
        rc = store__dir_refresh(d, base, NULL, e);
    return rc;
}

size_t
store__dir_find(struct store_dir *d, const char *name,
                const struct store_spec **hits,
                const struct store_dir_file **files, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < d->nfiles; i++)
        for (size_t j = 0; j < d->files[i].specs.n; j++) {
            const struct store_spec *sp = &d->files[i].specs.items[j];
            size_t k;

            if (strcmp(sp->name, name) != 0 || n == max)
                continue;
            /* insert sorted by key, as a list orders them */
            for (k = n; k > 0 && strcmp(hits[k - 1]->key, sp->key) > 0; k--) {
                hits[k] = hits[k - 1];
                files[k] = files[k - 1];
            }
            hits[k] = sp;
            files[k] = &d->files[i];
            n++;
        }
    return n;
}

int
store__dir_copy(const struct store_dir_file *f, const struct store_spec *sp,
                struct store_spec *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    out->name = strdup(sp->name);
    out->key = strdup(sp->key);
    out->data = malloc(f->len + 1);
    out->len = f->len;
    out->docs = sp->docs;
    memcpy(out->rev, sp->rev, sizeof(out->rev));
    if (sp->inv != NULL)
        out->inv = spec_invocation_ref(sp->inv);
    if (sp->errors != NULL && (out->errors = malloc(sizeof(*out->errors))))
        *out->errors = *sp->errors;
    if (out->name == NULL || out->key == NULL || out->data == NULL ||
        (sp->errors != NULL && out->errors == NULL)) {
        store_spec_cleanup(out);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    memcpy(out->data, f->data, f->len);
    out->data[f->len] = '\0';
    return 0;
}
