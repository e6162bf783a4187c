/* cfg.c - load the controller configuration: read the file (capped at
 * SPEC_MAX_FILE_BYTES), parse its one YAML document with
 * spec_yaml_parse() (hostile input refused there), start from the
 * built-in defaults (cfg_defaults.c) and apply every key checked by
 * cfg_validate.c. All or nothing: a file with any error yields no config.
 * The admission check of a spec against a config is in cfg_admit.c.
 */
#include "cfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "cfg_int.h"

struct cfg *
cfg_parse(const char *name, const char *data, size_t len,
          struct spec_errors *es)
{
    struct cfg_parse p = { .file = name, .es = es };
    struct spec_stream st;
    const struct spec_node *root;

    memset(es, 0, sizeof(*es));
    p.cfg = cfg__defaults(es);
    if (p.cfg == NULL)
        return NULL;
    if (spec_yaml_parse(name, data, len, &st, es) == 0) {
        if (st.n > 1)
            spec_errors_add_at(es, name, st.doc_line[1], 1, NULL,
                               "a config file holds one YAML document");
        root = st.n > 0 ? st.docs[0] : NULL;
        /* An empty file is the built-in defaults. */
        if (root != NULL)
            cfg__apply(&p, root);
    }
    spec_stream_cleanup(&st);
    if (es->n > 0 || es->dropped > 0) {
        cfg_free(p.cfg);
        return NULL;
    }
    p.cfg->path = strdup(name);
    if (p.cfg->path == NULL) {
        spec_errors_add_at(es, name, 0, 0, NULL, "out of memory");
        cfg_free(p.cfg);
        return NULL;
    }
    return p.cfg;
}

/* Read at most SPEC_MAX_FILE_BYTES of path into b. */
static int
cfg_read_file(const char *path, struct buf *b, struct spec_errors *es)
{
    char chunk[16384];
    ssize_t got;
    struct err e;
    int fd = file_open_regular(path, 0, &e);

    if (fd == -1)
        return spec_errors_add_at(es, path, 0, 0, NULL, "cannot read: %s",
                                  e.msg);
    while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
        if (got == -1 && errno == EINTR)
            continue;
        if (got == -1) {
            int saved = errno;

            close(fd);
            return spec_errors_add_at(es, path, 0, 0, NULL, "cannot read: %s",
                                      strerror(saved));
        }
        if (buf_append(b, chunk, (size_t)got, NULL) == -1) {
            close(fd);
            return spec_errors_add_at(es, path, 0, 0, NULL,
                                      "file is over the 1 MiB limit");
        }
    }
    close(fd);
    return 0;
}

struct cfg *
cfg_load_all(const char *path, struct spec_errors *es)
{
    struct cfg *cfg;
    struct buf b;

    memset(es, 0, sizeof(*es));
    if (path == NULL) {
        return cfg__defaults(es);
    }
    buf_init(&b, SPEC_MAX_FILE_BYTES);
    if (cfg_read_file(path, &b, es) == -1) {
        buf_cleanup(&b);
        return NULL;
    }
    cfg = cfg_parse(path, b.data ? b.data : "", b.len, es);
    buf_cleanup(&b);
    return cfg;
}

struct cfg *
cfg_load(const char *path, struct err *e)
{
    struct spec_errors *es = malloc(sizeof(*es));
    struct cfg *cfg;

    /* struct spec_errors is ~30 KiB: keep it off the caller's stack. */
    if (es == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    cfg = cfg_load_all(path, es);
    if (cfg == NULL && e != NULL) {
        if (es->n > 0)
            *e = es->items[0];
        else
            err_set(e, ERR_INVALID, "config has errors");
    }
    free(es);
    return cfg;
}
