/* rc_changes.c - build the change set from the base manifest and the
 * archive of /work read back (rc_changes.h).
 *
 * Two passes over the spooled archive, so that nothing is held whole:
 * the first hashes every entry and decides (added, modified, mode
 * changed, refused; the base entries never met are the deletions), the
 * second writes the decided entries into the change set's tar and their
 * diff. The archive is on the state disk already, so reading it twice
 * costs a second read, never memory. */
#include "rc_changes_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "rc_changes_diff.h"

#define IO_CHUNK 65536

enum kind { K_ADDED, K_MODIFIED, K_MODE };

/* A decision of the first pass, in archive order. */
struct decision {
    char *path;
    enum kind kind;
};

struct build {
    const struct rc_changes_opts *o;
    struct rc_changes_summary *s;
    struct rc__base base;
    struct decision *d;
    size_t nd, capd, next; /* next: the second pass's place in d */
    cJSON *json, *added, *modified, *deleted, *mode_changed, *not_diffed,
        *refused;
    struct rc__diff diff;
    struct archive *w;        /* the change set's tar */
    struct archive_entry *we; /* its entry, reused */
    char rel[RC_WS_PATH_MAX + 16];
};

static int
cancelled(const struct build *b, struct err *e)
{
    if (b->o->cancel != NULL && __atomic_load_n(b->o->cancel, __ATOMIC_ACQUIRE))
        return err_set(e, ERR_IO, "change set: cancelled");
    return 0;
}

static const char *
type_name(char t)
{
    return t == 'd' ? "dir" : t == 'l' ? "symlink" : "file";
}

static char
entry_type(struct archive_entry *ae)
{
    switch (archive_entry_filetype(ae)) {
    case AE_IFREG:
        return 'f';
    case AE_IFDIR:
        return 'd';
    case AE_IFLNK:
        return 'l';
    default:
        return '?';
    }
}

/* A list of the JSON, bounded: past RC_CHANGES_LIST_MAX the entry is
 * counted, not listed, and the set is marked truncated. */
static cJSON *
list_add(struct build *b, cJSON *list, const char *path)
{
    cJSON *it;

    if (cJSON_GetArraySize(list) >= RC_CHANGES_LIST_MAX) {
        b->s->truncated = true;
        return NULL;
    }
    it = cJSON_CreateObject();
    cJSON_AddStringToObject(it, "path", path);
    cJSON_AddItemToArray(list, it);
    return it;
}

static void
refuse(struct build *b, const char *rel, const char *why)
{
    cJSON *it = list_add(b, b->refused, rel);

    b->s->refused++;
    if (it != NULL)
        cJSON_AddStringToObject(it, "reason", why);
}

/* The entry's path below the top ("work/a/b" -> "a/b"), trailing '/'
 * dropped; "" for the top itself; NULL for a name outside it. */
static const char *
entry_rel(struct build *b, struct archive_entry *ae)
{
    const char *name = archive_entry_pathname(ae);
    const char *slash = name != NULL ? strchr(name, '/') : NULL;
    size_t n;

    if (name == NULL)
        return NULL;
    if (slash == NULL)
        return ""; /* the top: "work" */
    n = strlen(slash + 1);
    if (n >= sizeof(b->rel))
        n = sizeof(b->rel) - 1;
    memcpy(b->rel, slash + 1, n);
    b->rel[n] = '\0';
    while (n > 0 && b->rel[n - 1] == '/')
        b->rel[--n] = '\0';
    return b->rel;
}

static bool
under_git(const char *rel)
{
    return strncmp(rel, ".git", 4) == 0 && (rel[4] == '\0' || rel[4] == '/');
}

/* Why the entry may not come back, or NULL. */
static const char *
refusal(struct archive_entry *ae, const char *rel, char *why, size_t size,
        uint64_t max_file)
{
    const char *r = rc__changes_path_refusal(rel);

    if (r != NULL)
        return r;
    if (archive_entry_hardlink(ae) != NULL)
        return "a hard link (refused at upload too)";
    switch (archive_entry_filetype(ae)) {
    case AE_IFREG:
        if ((uint64_t)archive_entry_size(ae) > max_file) {
            snprintf(why, size, "a file of %" PRId64 " bytes, over the "
                     "workspace's %" PRIu64, (int64_t)archive_entry_size(ae),
                     max_file);
            return why;
        }
        return NULL;
    case AE_IFDIR:
        return NULL;
    case AE_IFLNK:
        return rc__changes_link_refusal(
            rel, archive_entry_symlink(ae) ? archive_entry_symlink(ae) : "");
    case AE_IFIFO:
        return "a FIFO";
    case AE_IFSOCK:
        return "a socket";
    case AE_IFCHR:
    case AE_IFBLK:
        return "a device";
    default:
        return "an entry of unknown type";
    }
}

static int
open_after(struct build *b, struct archive **a, struct err *e)
{
    (void)b;
    *a = archive_read_new();
    if (*a == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    archive_read_support_format_tar(*a);
    if (archive_read_open_filename(*a, b->o->after, IO_CHUNK) != ARCHIVE_OK) {
        err_set(e, ERR_IO, "change set: %s: %s", b->o->after,
                archive_error_string(*a));
        archive_read_free(*a);
        *a = NULL;
        return -1;
    }
    return 0;
}

/* ---- the first pass: decide ------------------------------------------ */

static int
hash_data(struct archive *a, char out[65], struct err *e)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    char buf[IO_CHUNK];
    la_ssize_t n;
    int rc = -1;

    if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "sha256 failed");
        goto out;
    }
    while ((n = archive_read_data(a, buf, sizeof(buf))) > 0)
        EVP_DigestUpdate(md, buf, (size_t)n);
    if (n < 0) {
        err_set(e, ERR_SYNTAX, "change set: archive read back: %s",
                archive_error_string(a));
        goto out;
    }
    if (rc__sha256_hex(md, out) == -1)
        err_set(e, ERR_NOMEM, "sha256 failed");
    else
        rc = 0;
out:
    EVP_MD_CTX_free(md);
    return rc;
}

static int
decide(struct build *b, const char *rel, enum kind k, struct err *e)
{
    if (b->nd == b->capd) {
        size_t cap = b->capd ? b->capd * 2 : 64;
        struct decision *v = realloc(b->d, cap * sizeof(*v));

        if (v == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        b->d = v;
        b->capd = cap;
    }
    b->d[b->nd].path = strdup(rel);
    if (b->d[b->nd].path == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    b->d[b->nd++].kind = k;
    return 0;
}

/* Describe an entry in its JSON list. */
static void
describe(cJSON *it, char type, unsigned mode, uint64_t size,
         const char *payload, const struct rc__base_entry *be)
{
    char m[8];

    if (it == NULL)
        return;
    cJSON_AddStringToObject(it, "type", type_name(type));
    rc__mode_str(mode, m);
    cJSON_AddStringToObject(it, "mode", m);
    if (type == 'f') {
        cJSON_AddNumberToObject(it, "size", (double)size);
        cJSON_AddStringToObject(it, "sha256", payload);
    } else if (type == 'l') {
        cJSON_AddStringToObject(it, "target", payload);
    }
    if (be == NULL)
        return;
    cJSON_AddStringToObject(it, "baseType", type_name(be->type));
    rc__mode_str(be->mode, m);
    cJSON_AddStringToObject(it, "baseMode", m);
    if (be->type == 'f')
        cJSON_AddStringToObject(it, "baseSha256", be->payload);
    else if (be->type == 'l')
        cJSON_AddStringToObject(it, "baseTarget", be->payload);
}

/* One entry that passed the rules, against the base. */
static int
compare(struct build *b, const char *rel, char type, unsigned mode,
        uint64_t size, const char *payload, struct err *e)
{
    struct rc__base_entry *be = rc__base_find(&b->base, rel);
    bool same_content;
    enum kind k;
    cJSON *list;

    if (be != NULL)
        be->seen = true;
    same_content = be != NULL && be->type == type &&
                   (type == 'd' || strcmp(be->payload, payload) == 0);
    if (same_content && be->mode == mode)
        return 0;
    if (type == 'f' && !same_content &&
        b->s->bytes + size > b->o->max_total_bytes) {
        if (be != NULL)
            be->seen = true; /* refused, not deleted */
        refuse(b, rel, "over the change set's total size");
        return 0;
    }
    k = be == NULL ? K_ADDED : same_content ? K_MODE : K_MODIFIED;
    list = k == K_ADDED ? b->added : k == K_MODE ? b->mode_changed
                                                 : b->modified;
    if (k == K_ADDED)
        b->s->added++;
    else if (k == K_MODE)
        b->s->mode_changed++;
    else
        b->s->modified++;
    if (type == 'f' && k != K_MODE)
        b->s->bytes += size;
    describe(list_add(b, list, rel), type, mode, size, payload,
             k == K_ADDED ? NULL : be);
    return decide(b, rel, k, e);
}

static int
scan_entry(struct build *b, struct archive *a, struct archive_entry *ae,
           struct err *e)
{
    const char *rel = entry_rel(b, ae), *why;
    char reason[160], sum[65];
    char type = entry_type(ae);
    unsigned mode = archive_entry_perm(ae) & 0777;

    if (rel == NULL) {
        refuse(b, "?", "an entry without a name");
        return 0;
    }
    if (rel[0] == '\0' || under_git(rel))
        return 0; /* the top; .git has its own volume and digest */
    why = refusal(ae, rel, reason, sizeof(reason), b->o->max_file_bytes);
    if (why != NULL) {
        struct rc__base_entry *be = rc__base_find(&b->base, rel);

        if (be != NULL)
            be->seen = true; /* replaced by what is refused: not deleted */
        refuse(b, rel, why);
        return 0;
    }
    if (type == 'f') {
        if (hash_data(a, sum, e) == -1)
            return -1;
        return compare(b, rel, type, mode, (uint64_t)archive_entry_size(ae),
                       sum, e);
    }
    return compare(b, rel, type, mode, 0,
                   type == 'l' ? archive_entry_symlink(ae) : NULL, e);
}

static int
scan(struct build *b, struct err *e)
{
    struct archive *a;
    struct archive_entry *ae;
    int r, rc = 0;

    if (open_after(b, &a, e) == -1)
        return -1;
    while (rc == 0 && (r = archive_read_next_header(a, &ae)) == ARCHIVE_OK)
        if ((rc = cancelled(b, e)) == 0)
            rc = scan_entry(b, a, ae, e);
    if (rc == 0 && r != ARCHIVE_EOF)
        rc = err_set(e, ERR_SYNTAX, "change set: archive read back: %s",
                     archive_error_string(a));
    archive_read_free(a);
    return rc;
}

/* ---- the second pass: write ------------------------------------------ */

static int
write_fail(struct build *b, struct err *e)
{
    return err_set(e, ERR_IO, "change set: %s.tar: %s", b->o->out,
                   archive_error_string(b->w));
}

/* The entry's header into the change set's tar, under its relative
 * path (no "work/" prefix: the archive applies to a checkout's top). */
static int
write_header(struct build *b, struct archive_entry *ae, const char *rel,
             struct err *e)
{
    archive_entry_clear(b->we);
    archive_entry_copy_pathname(b->we, rel);
    archive_entry_set_filetype(b->we, archive_entry_filetype(ae));
    archive_entry_set_perm(b->we, archive_entry_perm(ae) & 0777);
    archive_entry_set_mtime(b->we, archive_entry_mtime(ae), 0);
    archive_entry_set_size(b->we, archive_entry_filetype(ae) == AE_IFREG
                                      ? archive_entry_size(ae)
                                      : 0);
    if (archive_entry_filetype(ae) == AE_IFLNK)
        archive_entry_copy_symlink(b->we, archive_entry_symlink(ae));
    if (archive_write_header(b->w, b->we) < ARCHIVE_WARN)
        return write_fail(b, e);
    return 0;
}

/* Copy a file's bytes into the tar; keep the first
 * RC_CHANGES_DIFF_FILE_MAX + 1 of them for the diff. */
static int
copy_data(struct build *b, struct archive *a, struct rc__side *side,
          struct err *e)
{
    char buf[IO_CHUNK];
    la_ssize_t n;

    while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
        if (archive_write_data(b->w, buf, (size_t)n) != n)
            return write_fail(b, e);
        rc__side_take(side, buf, (size_t)n);
    }
    if (n < 0)
        return err_set(e, ERR_SYNTAX, "change set: archive read back: %s",
                       archive_error_string(a));
    return 0;
}

static int
write_entry(struct build *b, struct archive *a, struct archive_entry *ae,
            const struct decision *d, struct err *e)
{
    struct rc__base_entry *be = rc__base_find(&b->base, d->path);
    struct rc__side after;
    int rc;

    if (write_header(b, ae, d->path, e) == -1)
        return -1;
    if (archive_entry_filetype(ae) != AE_IFREG) {
        if (d->kind == K_MODE || archive_entry_filetype(ae) == AE_IFDIR)
            return rc__diff_mode(&b->diff, d->path, be,
                                 archive_entry_perm(ae) & 0777, e);
        return 0; /* a symlink: in the tar and the JSON */
    }
    rc__side_init(&after);
    rc = copy_data(b, a, &after, e);
    if (rc == 0 && d->kind == K_MODE) /* the same bytes */
        rc = rc__diff_mode(&b->diff, d->path, be,
                           archive_entry_perm(ae) & 0777, e);
    else if (rc == 0)
        rc = rc__diff_file(&b->diff, d->path, be != NULL && be->type == 'f'
                                                  ? be
                                                  : NULL,
                           &after, archive_entry_perm(ae) & 0777, e);
    rc__side_free(&after);
    return rc;
}

static int
write_pass(struct build *b, struct err *e)
{
    struct archive *a;
    struct archive_entry *ae;
    int r, rc = 0;

    if (open_after(b, &a, e) == -1)
        return -1;
    while (rc == 0 && b->next < b->nd &&
           (r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
        const char *rel = entry_rel(b, ae);

        if ((rc = cancelled(b, e)) != 0)
            break;
        if (rel == NULL || strcmp(rel, b->d[b->next].path) != 0)
            continue;
        rc = write_entry(b, a, ae, &b->d[b->next], e);
        b->next++;
    }
    if (rc == 0 && b->next < b->nd)
        rc = err_set(e, ERR_SYNTAX, "change set: the archive read back "
                     "changed between its two reads");
    archive_read_free(a);
    return rc;
}

/* The base entries the archive did not hold: deleted. */
static int
deletions(struct build *b, struct err *e)
{
    for (size_t i = 0; i < b->base.n; i++) {
        const struct rc__base_entry *be = &b->base.v[i];

        if (be->seen || under_git(be->path))
            continue;
        b->s->deleted++;
        describe(list_add(b, b->deleted, be->path), be->type, be->mode,
                 be->size, be->payload, NULL);
        if (be->type == 'f' && rc__diff_file(&b->diff, be->path, be, NULL, 0,
                                             e) == -1)
            return -1;
    }
    return 0;
}

/* ---- the files ------------------------------------------------------- */

static int
open_tar(struct build *b, struct err *e)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s.tar.tmp", b->o->out);
    b->w = archive_write_new();
    b->we = archive_entry_new();
    if (b->w == NULL || b->we == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (archive_write_set_format_pax_restricted(b->w) != ARCHIVE_OK ||
        archive_write_open_filename(b->w, path) != ARCHIVE_OK)
        return write_fail(b, e);
    return 0;
}

static int
write_json(struct build *b, struct err *e)
{
    char path[4200];
    char *text;
    FILE *f;
    int rc = 0;

    cJSON_AddBoolToObject(b->json, "partial", b->o->partial);
    cJSON_AddBoolToObject(b->json, "truncated", b->s->truncated);
    cJSON_AddStringToObject(b->json, "diffSha256", b->s->diff_sha256);
    cJSON_AddNumberToObject(b->json, "bytes", (double)b->s->bytes);
    text = cJSON_Print(b->json);
    if (text == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    snprintf(path, sizeof(path), "%s.json.tmp", b->o->out);
    f = fopen(path, "we");
    if (f == NULL || fprintf(f, "%s\n", text) < 0 || fflush(f) != 0 ||
        fsync(fileno(f)) == -1)
        rc = err_sys(e, "change set: %s", path);
    if (f != NULL && fclose(f) != 0 && rc == 0)
        rc = err_sys(e, "change set: %s", path);
    free(text);
    return rc;
}

/* <out>.X.tmp -> <out>.X, the JSON last: it says the set is whole. */
static int
commit(const char *out, struct err *e)
{
    static const char *const ext[] = { "tar", "diff", "json" };
    char from[4200], to[4200];

    for (size_t i = 0; i < 3; i++) {
        snprintf(from, sizeof(from), "%s.%s.tmp", out, ext[i]);
        snprintf(to, sizeof(to), "%s.%s", out, ext[i]);
        if (rename(from, to) == -1)
            return err_sys(e, "change set: %s", to);
    }
    return 0;
}

static void
unlink_tmp(const char *out)
{
    static const char *const ext[] = { "tar", "diff", "json" };
    char p[4200];

    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s.%s.tmp", out, ext[i]);
        (void)unlink(p);
    }
}

static int
make_json(struct build *b, struct err *e)
{
    b->json = cJSON_CreateObject();
    if (b->json == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    cJSON_AddStringToObject(b->json, "apiVersion", "agentctl.dev/v1alpha1");
    cJSON_AddStringToObject(b->json, "kind", "ChangeSet");
    b->added = cJSON_AddArrayToObject(b->json, "added");
    b->modified = cJSON_AddArrayToObject(b->json, "modified");
    b->deleted = cJSON_AddArrayToObject(b->json, "deleted");
    b->mode_changed = cJSON_AddArrayToObject(b->json, "modeChanged");
    b->not_diffed = cJSON_AddArrayToObject(b->json, "notDiffed");
    b->refused = cJSON_AddArrayToObject(b->json, "refused");
    if (b->refused == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

static int
build_run(struct build *b, struct err *e)
{
    char diff_path[4200];

    snprintf(diff_path, sizeof(diff_path), "%s.diff.tmp", b->o->out);
    if (make_json(b, e) == -1 || rc__base_load(b->o->base, &b->base, e) == -1 ||
        scan(b, e) == -1 || open_tar(b, e) == -1 ||
        rc__diff_open(&b->diff, diff_path, b->o->root, b->o->source,
                      b->not_diffed, e) == -1 ||
        write_pass(b, e) == -1 || deletions(b, e) == -1)
        return -1;
    if (archive_write_close(b->w) != ARCHIVE_OK)
        return write_fail(b, e);
    if (rc__diff_close(&b->diff, b->s, e) == -1 || write_json(b, e) == -1)
        return -1;
    return commit(b->o->out, e);
}

int
rc_changes_build(const struct rc_changes_opts *o, struct rc_changes_summary *s,
                 struct err *e)
{
    struct build b = { .o = o, .s = s };
    int rc;

    memset(s, 0, sizeof(*s));
    rc = build_run(&b, e);
    if (b.w != NULL)
        archive_write_free(b.w);
    archive_entry_free(b.we);
    rc__diff_abort(&b.diff);
    rc__base_free(&b.base);
    for (size_t i = 0; i < b.nd; i++)
        free(b.d[i].path);
    free(b.d);
    cJSON_Delete(b.json);
    if (rc == -1)
        unlink_tmp(o->out);
    return rc;
}
