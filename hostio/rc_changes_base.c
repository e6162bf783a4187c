/* rc_changes_base.c - the base manifest (rc_changes.h): written one JSON
 * line per entry while the workspace is packed, read back sorted for the
 * comparison; and the path rules and the no-symlink open that the build
 * and the apply share. */
#include "rc_changes_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "rc_workspace.h"

#define BASE_LINE_MAX (2 * RC_WS_PATH_MAX + 256)

struct rc_changes_base_writer {
    FILE *f;
    char *path, *tmp;
};

struct rc_changes_base_writer *
rc_changes_base_open(const char *path, struct err *e)
{
    struct rc_changes_base_writer *w = calloc(1, sizeof(*w));

    if (w == NULL || (w->path = strdup(path)) == NULL ||
        (w->tmp = malloc(strlen(path) + 5)) == NULL) {
        rc_changes_base_abort(w);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    sprintf(w->tmp, "%s.tmp", path);
    w->f = fopen(w->tmp, "we");
    if (w->f == NULL) {
        err_sys(e, "base manifest %s", w->tmp);
        rc_changes_base_abort(w);
        return NULL;
    }
    return w;
}

int
rc_changes_base_add(struct rc_changes_base_writer *w, const char *rel,
                    char type, unsigned mode, uint64_t size,
                    const char *payload, struct err *e)
{
    cJSON *j = cJSON_CreateObject();
    char t[2] = { type, '\0' };
    char *line = NULL;
    int rc = -1;

    if (j != NULL && cJSON_AddStringToObject(j, "path", rel) != NULL &&
        cJSON_AddStringToObject(j, "type", t) != NULL &&
        cJSON_AddNumberToObject(j, "mode", mode & 0777) != NULL &&
        cJSON_AddNumberToObject(j, "size", (double)size) != NULL &&
        (payload == NULL ||
         cJSON_AddStringToObject(j, type == 'l' ? "target" : "sha256",
                                 payload) != NULL))
        line = cJSON_PrintUnformatted(j);
    if (line == NULL)
        err_set(e, ERR_NOMEM, "out of memory");
    else if (fprintf(w->f, "%s\n", line) < 0)
        err_sys(e, "base manifest %s", w->tmp);
    else
        rc = 0;
    free(line);
    cJSON_Delete(j);
    return rc;
}

int
rc_changes_base_close(struct rc_changes_base_writer *w, struct err *e)
{
    int rc = 0;

    if (fflush(w->f) != 0 || fsync(fileno(w->f)) == -1)
        rc = err_sys(e, "base manifest %s", w->tmp);
    if (fclose(w->f) != 0 && rc == 0)
        rc = err_sys(e, "base manifest %s", w->tmp);
    w->f = NULL;
    if (rc == 0 && rename(w->tmp, w->path) == -1)
        rc = err_sys(e, "base manifest %s", w->path);
    if (rc == -1)
        unlink(w->tmp);
    free(w->tmp);
    free(w->path);
    free(w);
    return rc;
}

void
rc_changes_base_abort(struct rc_changes_base_writer *w)
{
    if (w == NULL)
        return;
    if (w->f != NULL) {
        fclose(w->f);
        unlink(w->tmp);
    }
    free(w->tmp);
    free(w->path);
    free(w);
}

/* ---- reading it back --------------------------------------------------- */

static int
cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct rc__base_entry *)a)->path,
                  ((const struct rc__base_entry *)b)->path);
}

static int
base_take(struct rc__base *b, const cJSON *j, size_t *cap)
{
    const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(j, "path"));
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
    const cJSON *mode = cJSON_GetObjectItem(j, "mode");
    const cJSON *size = cJSON_GetObjectItem(j, "size");
    const char *payload =
        cJSON_GetStringValue(cJSON_GetObjectItem(j, "sha256"));
    struct rc__base_entry *en;

    if (payload == NULL)
        payload = cJSON_GetStringValue(cJSON_GetObjectItem(j, "target"));
    if (path == NULL || type == NULL || strchr("fdl", type[0]) == NULL ||
        type[0] == '\0' || !cJSON_IsNumber(mode) || !cJSON_IsNumber(size) ||
        (type[0] != 'd' && payload == NULL))
        return -1;
    if (b->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        struct rc__base_entry *v = realloc(b->v, ncap * sizeof(*v));

        if (v == NULL)
            return -1;
        b->v = v;
        *cap = ncap;
    }
    en = &b->v[b->n];
    memset(en, 0, sizeof(*en));
    en->type = type[0];
    en->mode = (unsigned)mode->valuedouble & 0777;
    en->size = (uint64_t)size->valuedouble;
    en->path = strdup(path);
    en->payload = payload != NULL ? strdup(payload) : NULL;
    if (en->path == NULL || (payload != NULL && en->payload == NULL)) {
        free(en->path);
        free(en->payload);
        return -1;
    }
    b->n++;
    return 0;
}

int
rc__base_load(const char *path, struct rc__base *b, struct err *e)
{
    FILE *f = fopen(path, "re");
    char *line = NULL;
    size_t cap = 0, lcap = 0;
    ssize_t got;
    unsigned lineno = 0;

    memset(b, 0, sizeof(*b));
    if (f == NULL)
        return err_sys(e, "base manifest %s", path);
    while ((got = getline(&line, &lcap, f)) != -1) {
        cJSON *j;
        int rc;

        lineno++;
        j = got < BASE_LINE_MAX ? cJSON_ParseWithLength(line, (size_t)got)
                                : NULL;
        rc = j != NULL ? base_take(b, j, &cap) : -1;
        cJSON_Delete(j);
        if (rc == -1) {
            free(line);
            fclose(f);
            rc__base_free(b);
            return err_set(e, ERR_SYNTAX, "base manifest %s:%u: broken line",
                           path, lineno);
        }
    }
    free(line);
    fclose(f);
    if (b->n > 0)
        qsort(b->v, b->n, sizeof(*b->v), cmp_entry);
    return 0;
}

struct rc__base_entry *
rc__base_find(const struct rc__base *b, const char *path)
{
    struct rc__base_entry key = { .path = (char *)path };

    if (b->n == 0)
        return NULL;
    return bsearch(&key, b->v, b->n, sizeof(*b->v), cmp_entry);
}

void
rc__base_free(struct rc__base *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->v[i].path);
        free(b->v[i].payload);
    }
    free(b->v);
    memset(b, 0, sizeof(*b));
}

/* ---- path rules ------------------------------------------------------ */

const char *
rc__changes_path_refusal(const char *rel)
{
    const char *p = rel;

    if (rel[0] == '\0')
        return "an empty path";
    if (rel[0] == '/')
        return "an absolute path";
    if (strlen(rel) >= RC_WS_PATH_MAX)
        return "a path over the length limit";
    while (*p != '\0') {
        size_t n = strcspn(p, "/");

        if (n == 0)
            return "an empty path component";
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return "a path with a \".\" or \"..\" component";
        p += n;
        if (*p == '/' && *++p == '\0')
            return "an empty path component";
    }
    return NULL;
}

const char *
rc__changes_link_refusal(const char *rel, const char *target)
{
    long depth = 0;
    const char *p;

    if (target[0] == '\0')
        return "a symlink with an empty target";
    if (target[0] == '/')
        return "a symlink with an absolute target, outside the tree";
    /* the link's own directory: one level per '/' in rel */
    for (p = rel; *p != '\0'; p++)
        depth += *p == '/';
    for (p = target; *p != '\0';) {
        size_t n = strcspn(p, "/");

        if (n == 2 && p[0] == '.' && p[1] == '.')
            depth--;
        else if (n > 0 && !(n == 1 && p[0] == '.'))
            depth++;
        if (depth < 0)
            return "a symlink whose target leaves the tree";
        p += n;
        if (*p == '/')
            p++;
    }
    return NULL;
}

int
rc__open_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
    char part[RC_WS_PATH_MAX];
    const char *p = rel;
    int fd = dirfd, next;

    if (rc__changes_path_refusal(rel) != NULL) {
        errno = EINVAL;
        return -1;
    }
    for (;;) {
        size_t n = strcspn(p, "/");

        memcpy(part, p, n);
        part[n] = '\0';
        p += n;
        if (*p == '\0') {
            next = openat(fd, part, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        } else {
            next = openat(fd, part,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            p++;
        }
        if (fd != dirfd) {
            int saved = errno;

            close(fd);
            errno = saved;
        }
        if (next == -1 || *p == '\0')
            return next;
        fd = next;
    }
}

int
rc__sha256_hex(struct evp_md_ctx_st *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned len = 0;

    if (EVP_DigestFinal_ex(md, d, &len) != 1 || len != 32)
        return -1;
    for (unsigned i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
    return 0;
}

void
rc__mode_str(unsigned mode, char out[8])
{
    snprintf(out, 8, "%04o", mode & 0777);
}
