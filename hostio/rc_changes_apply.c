/* rc_changes_apply.c - put a change set onto a checkout of the same base
 * (rc_changes.h, `agentctl changes NAME --apply-to DIR`).
 *
 * Three phases, so that a conflict leaves the directory as it was:
 *   1. check: every path passes the rules of the way back (nothing
 *      absolute, no "..", no symlink leaving the tree), is reached
 *      without following a symlink, and is what the base was (a modified
 *      or deleted file has the base's sha256, an added path is absent and
 *      its directory there or added too);
 *   2. stage: each new file or symlink is written beside its target
 *      under a temporary name, added directories made; a failure removes
 *      what was staged;
 *   3. commit: renames into place, then the deletions.
 * Only phase 3 changes what was there, and it only renames and unlinks.
 */
#include "rc_changes_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#define IO_CHUNK 65536

/* One staged entry. */
struct staged {
    int parent;     /* its directory */
    char *name;     /* the target's last component */
    char *tmp;      /* the temporary name beside it; NULL: a directory made */
    char *rel;
    const char *op; /* "A", "M", "m" for the report */
};

struct apply {
    int dir;
    cJSON *json;
    struct staged *st;
    size_t nst, cap;
    FILE *report;
};

/* ---- where a path is -------------------------------------------------- */

/* The directory holding rel, opened beneath a->dir; *name its last
 * component. -1 with errno. */
static int
open_parent(const struct apply *a, const char *rel, const char **name)
{
    const char *slash = strrchr(rel, '/');
    char dir[RC_WS_PATH_MAX];

    *name = slash ? slash + 1 : rel;
    if (slash == NULL)
        return dup(a->dir);
    memcpy(dir, rel, (size_t)(slash - rel));
    dir[slash - rel] = '\0';
    return rc__open_beneath(a->dir, dir, O_RDONLY | O_DIRECTORY, 0);
}

static int
file_sha(int parent, const char *name, char out[65])
{
    int fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                                      O_CLOEXEC);
    EVP_MD_CTX *md;
    char buf[IO_CHUNK];
    struct stat st;
    ssize_t n = 0;
    int rc = -1;

    if (fd == -1)
        return -1;
    md = EVP_MD_CTX_new();
    if (md != NULL && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1) {
        while ((n = read(fd, buf, sizeof(buf))) > 0)
            EVP_DigestUpdate(md, buf, (size_t)n);
        if (n == 0 && rc__sha256_hex(md, out) == 0)
            rc = 0;
    }
    EVP_MD_CTX_free(md);
    close(fd);
    return rc;
}

static const char *
str(const cJSON *it, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, key));
}

/* ---- 1. check --------------------------------------------------------- */

/* The path is now what the base was (type and content). */
static int
check_base(struct apply *a, const cJSON *it, const char *rel, struct err *e)
{
    const char *type = str(it, "baseType") ? str(it, "baseType")
                                           : str(it, "type");
    const char *want = str(it, "baseSha256") ? str(it, "baseSha256")
                                             : str(it, "sha256");
    const char *target = str(it, "baseTarget") ? str(it, "baseTarget")
                                               : str(it, "target");
    const char *name;
    char sum[65], link[RC_WS_PATH_MAX];
    struct stat st;
    int parent = open_parent(a, rel, &name), ok = 0;
    ssize_t n;

    if (parent != -1 && type != NULL &&
        fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (strcmp(type, "file") == 0)
            ok = S_ISREG(st.st_mode) && want != NULL &&
                 file_sha(parent, name, sum) == 0 && strcmp(sum, want) == 0;
        else if (strcmp(type, "symlink") == 0)
            ok = S_ISLNK(st.st_mode) && target != NULL &&
                 (n = readlinkat(parent, name, link, sizeof(link) - 1)) >= 0 &&
                 (link[n] = '\0', strcmp(link, target) == 0);
        else
            ok = S_ISDIR(st.st_mode);
    }
    if (parent != -1)
        close(parent);
    if (!ok)
        return err_set(e, ERR_CONFLICT,
                       "%s: not the base the change set was made from "
                       "(missing, or changed)",
                       rel);
    return 0;
}

/* An added path: absent, and its directory there (or added before it:
 * the lists are in the archive's order, parents first). */
static int
check_absent(struct apply *a, const char *rel, struct err *e)
{
    const char *name;
    struct stat st;
    int parent = open_parent(a, rel, &name);
    const cJSON *it;

    if (parent == -1) {
        const char *slash = strrchr(rel, '/');

        cJSON_ArrayForEach(it, cJSON_GetObjectItem(a->json, "added"))
        {
            const char *p = str(it, "path");

            if (slash != NULL && p != NULL &&
                strlen(p) == (size_t)(slash - rel) &&
                strncmp(p, rel, (size_t)(slash - rel)) == 0 &&
                strcmp(str(it, "type") ? str(it, "type") : "", "dir") == 0)
                return 0;
        }
        return err_set(e, ERR_CONFLICT, "%s: its directory is not there", rel);
    }
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        close(parent);
        return err_set(e, ERR_CONFLICT, "%s: already exists", rel);
    }
    close(parent);
    return 0;
}

static int
check_rules(const cJSON *it, const char *rel, struct err *e)
{
    const char *why = rc__changes_path_refusal(rel);
    const char *target = str(it, "target");

    if (why == NULL && target != NULL &&
        strcmp(str(it, "type") ? str(it, "type") : "", "symlink") == 0)
        why = rc__changes_link_refusal(rel, target);
    if (why != NULL)
        return err_set(e, ERR_INVALID, "%s: refused: %s", rel, why);
    return 0;
}

static int
check_all(struct apply *a, struct err *e)
{
    static const char *const lists[] = { "added", "modified", "modeChanged",
                                         "deleted" };
    const cJSON *it;

    for (size_t l = 0; l < 4; l++) {
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(a->json, lists[l]))
        {
            const char *rel = str(it, "path");

            if (rel == NULL)
                return err_set(e, ERR_SYNTAX, "change set: an entry of %s "
                               "has no path", lists[l]);
            if (l == 1 && str(it, "baseType") != NULL && str(it, "type") &&
                strcmp(str(it, "baseType"), str(it, "type")) != 0)
                return err_set(e, ERR_CONFLICT, "%s: a %s became a %s: "
                               "apply that by hand", rel, str(it, "baseType"),
                               str(it, "type"));
            if (check_rules(it, rel, e) == -1 ||
                (l == 0 ? check_absent(a, rel, e) : check_base(a, it, rel, e)))
                return -1;
        }
    }
    return 0;
}

/* ---- 2. stage --------------------------------------------------------- */

static const char *
op_of(const struct apply *a, const char *rel)
{
    static const char *const lists[] = { "added", "modified", "modeChanged" };
    static const char *const ops[] = { "A", "M", "m" };
    const cJSON *it;

    for (size_t l = 0; l < 3; l++)
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(a->json, lists[l]))
        {
            const char *p = str(it, "path");

            if (p != NULL && strcmp(p, rel) == 0)
                return ops[l];
        }
    return NULL;
}

static struct staged *
stage_slot(struct apply *a, struct err *e)
{
    if (a->nst == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        struct staged *v = realloc(a->st, cap * sizeof(*v));

        if (v == NULL) {
            err_set(e, ERR_NOMEM, "out of memory");
            return NULL;
        }
        a->st = v;
        a->cap = cap;
    }
    memset(&a->st[a->nst], 0, sizeof(a->st[0]));
    a->st[a->nst].parent = -1;
    return &a->st[a->nst++];
}

static int
stage_data(struct archive *ar, int fd, const char *rel, struct err *e)
{
    char buf[IO_CHUNK];
    la_ssize_t n;

    while ((n = archive_read_data(ar, buf, sizeof(buf))) > 0)
        if (write(fd, buf, (size_t)n) != n)
            return err_sys(e, "%s", rel);
    if (n < 0)
        return err_set(e, ERR_SYNTAX, "change set archive: %s",
                       archive_error_string(ar));
    return 0;
}

static int
stage_entry(struct apply *a, struct archive *ar, struct archive_entry *ae,
            struct err *e)
{
    const char *rel = archive_entry_pathname(ae), *name, *op;
    unsigned mode = archive_entry_perm(ae) & 0777;
    struct staged *s;
    char tmp[300];
    int fd;

    if (rel == NULL || (op = op_of(a, rel)) == NULL)
        return err_set(e, ERR_INVALID, "change set archive: %s is not in "
                       "its summary", rel ? rel : "an unnamed entry");
    if ((s = stage_slot(a, e)) == NULL)
        return -1;
    s->op = op;
    if ((s->rel = strdup(rel)) == NULL ||
        (s->parent = open_parent(a, rel, &name)) == -1 ||
        (s->name = strdup(name)) == NULL)
        return err_sys(e, "%s", rel);
    if (archive_entry_filetype(ae) == AE_IFDIR) {
        if (strcmp(op, "A") != 0) /* a directory's mode: set at commit */
            return 0;
        if (mkdirat(s->parent, name, mode | 0700) == -1)
            return err_sys(e, "%s", rel);
        return 0; /* tmp NULL: made here, removed on a rollback */
    }
    snprintf(tmp, sizeof(tmp), ".%.200s.agentctl-%ld", name, (long)getpid());
    if ((s->tmp = strdup(tmp)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (archive_entry_filetype(ae) == AE_IFLNK) {
        if (symlinkat(archive_entry_symlink(ae), s->parent, tmp) == -1)
            return err_sys(e, "%s", rel);
        return 0;
    }
    if (archive_entry_filetype(ae) != AE_IFREG)
        return err_set(e, ERR_INVALID, "change set archive: %s: not a file, "
                       "symlink or directory", rel);
    fd = openat(s->parent, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                    O_CLOEXEC, 0600);
    if (fd == -1)
        return err_sys(e, "%s", rel);
    if (stage_data(ar, fd, rel, e) == -1 || fchmod(fd, mode) == -1) {
        close(fd);
        return e->code != ERR_OK ? -1 : err_sys(e, "%s", rel);
    }
    if (close(fd) == -1)
        return err_sys(e, "%s", rel);
    return 0;
}

static int
stage_all(struct apply *a, const char *tar, struct err *e)
{
    struct archive *ar = archive_read_new();
    struct archive_entry *ae;
    int r, rc = 0;

    if (ar == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    archive_read_support_format_tar(ar);
    if (archive_read_open_filename(ar, tar, IO_CHUNK) != ARCHIVE_OK) {
        err_set(e, ERR_IO, "%s: %s", tar, archive_error_string(ar));
        archive_read_free(ar);
        return -1;
    }
    while (rc == 0 && (r = archive_read_next_header(ar, &ae)) == ARCHIVE_OK)
        rc = stage_entry(a, ar, ae, e);
    if (rc == 0 && r != ARCHIVE_EOF)
        rc = err_set(e, ERR_SYNTAX, "%s: %s", tar, archive_error_string(ar));
    archive_read_free(ar);
    return rc;
}

/* A stage that failed: what it made goes, last first. */
static void
rollback(struct apply *a)
{
    for (size_t i = a->nst; i-- > 0;) {
        struct staged *s = &a->st[i];

        if (s->parent == -1 || s->name == NULL)
            continue;
        if (s->tmp != NULL)
            (void)unlinkat(s->parent, s->tmp, 0);
        else if (strcmp(s->op, "A") == 0)
            (void)unlinkat(s->parent, s->name, AT_REMOVEDIR);
    }
}

/* ---- 3. commit -------------------------------------------------------- */

static int
commit_all(struct apply *a, struct err *e)
{
    const cJSON *it;
    int n;

    for (size_t i = 0; i < a->nst; i++) {
        struct staged *s = &a->st[i];

        if (s->tmp != NULL && renameat(s->parent, s->tmp, s->parent, s->name))
            return err_sys(e, "%s", s->rel);
        if (s->tmp == NULL && strcmp(s->op, "A") != 0) {
            const cJSON *m;

            cJSON_ArrayForEach(m, cJSON_GetObjectItem(a->json, "modeChanged"))
                if (str(m, "path") && strcmp(str(m, "path"), s->rel) == 0 &&
                    str(m, "mode") != NULL)
                    (void)fchmodat(s->parent, s->name,
                                   (mode_t)strtoul(str(m, "mode"), NULL, 8),
                                   0);
        }
        if (a->report != NULL)
            fprintf(a->report, "%s %s\n", s->op, s->rel);
    }
    /* deletions, deepest first: the list is sorted, so children follow
     * their directory */
    n = cJSON_GetArraySize(cJSON_GetObjectItem(a->json, "deleted"));
    for (int i = n - 1; i >= 0; i--) {
        const char *name, *rel, *type;
        int parent;

        it = cJSON_GetArrayItem(cJSON_GetObjectItem(a->json, "deleted"), i);
        rel = str(it, "path");
        type = str(it, "type");
        parent = open_parent(a, rel, &name);
        if (parent == -1 ||
            unlinkat(parent, name,
                     type && strcmp(type, "dir") == 0 ? AT_REMOVEDIR : 0)) {
            if (parent != -1)
                close(parent);
            return err_sys(e, "%s", rel);
        }
        close(parent);
        if (a->report != NULL)
            fprintf(a->report, "D %s\n", rel);
    }
    return 0;
}

static cJSON *
load_json(const char *path, struct err *e)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t cap = 0;
    ssize_t n;
    cJSON *j;

    if (f == NULL) {
        err_sys(e, "%s", path);
        return NULL;
    }
    n = getdelim(&text, &cap, '\0', f);
    fclose(f);
    j = n > 0 ? cJSON_ParseWithLength(text, (size_t)n) : NULL;
    free(text);
    if (j == NULL)
        err_set(e, ERR_SYNTAX, "%s: not a change set", path);
    return j;
}

int
rc_changes_apply(const char *changes, const char *dir, FILE *report,
                 struct err *e)
{
    struct apply a = { .report = report };
    char path[4200];
    int rc = -1;

    snprintf(path, sizeof(path), "%s.json", changes);
    a.json = load_json(path, e);
    if (a.json == NULL)
        return -1;
    a.dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (a.dir == -1) {
        err_sys(e, "%s", dir);
        goto out;
    }
    snprintf(path, sizeof(path), "%s.tar", changes);
    if (check_all(&a, e) == -1)
        goto out;
    if (stage_all(&a, path, e) == -1) {
        rollback(&a);
        goto out;
    }
    rc = commit_all(&a, e);
out:
    for (size_t i = 0; i < a.nst; i++) {
        if (a.st[i].parent != -1)
            close(a.st[i].parent);
        free(a.st[i].name);
        free(a.st[i].tmp);
        free(a.st[i].rel);
    }
    free(a.st);
    if (a.dir != -1)
        close(a.dir);
    cJSON_Delete(a.json);
    return rc;
}
