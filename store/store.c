/* store.c - the backend-neutral half of the store: dispatch to the ops
 * table, JSON documents, per-name metadata (uid, generation) and names. */
#include "store.h"
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void
store_set_observer(struct store *s, store_observe_fn *fn, void *arg)
{
    s->observe = fn;
    s->observe_arg = arg;
}

void
store_close(struct store *s)
{
    if (s != NULL)
        s->ops->close(s);
}

int
store_list(struct store *s, struct store_list *out, struct err *e)
{
    return s->ops->list(s, out, e);
}

void
store_spec_cleanup(struct store_spec *sp)
{
    free(sp->name);
    free(sp->key);
    free(sp->data);
    spec_invocation_free(sp->inv);
    free(sp->errors);
    memset(sp, 0, sizeof(*sp));
}

void
store_list_cleanup(struct store_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        store_spec_cleanup(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
}

int
store_get(struct store *s, const char *name, struct store_spec *out,
          struct err *e)
{
    struct store_list l;
    size_t i;

    if (s->ops->get != NULL)
        return s->ops->get(s, name, out, e);
    if (store_list(s, &l, e) == -1)
        return -1;
    for (i = 0; i < l.n; i++)
        if (strcmp(l.items[i].name, name) == 0)
            break;
    if (i == l.n) {
        store_list_cleanup(&l);
        return err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                       name);
    }
    *out = l.items[i];
    memset(&l.items[i], 0, sizeof(l.items[i]));
    store_list_cleanup(&l);
    return 0;
}

int
store_put(struct store *s, const char *name, const char *data, size_t len,
          const char *expect_rev, char new_rev[STORE_REV_MAX], struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->put(s, name, data, len, expect_rev, new_rev, e);
}

int
store_del(struct store *s, const char *name, const char *expect_rev,
          struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->del(s, name, expect_rev, e);
}

int
store_watch_fd(struct store *s, struct err *e)
{
    return s->ops->watch_fd(s, e);
}

bool
store_watch_primed(struct store *s)
{
    return s->ops->watch_primed == NULL || s->ops->watch_primed(s);
}

int
store_watch_read(struct store *s, struct store_change *out, size_t max,
                 size_t *n, struct err *e)
{
    return s->ops->watch_read(s, out, max, n, e);
}

int
store_batch_begin(struct store *s, struct err *e)
{
    return s->ops->batch_begin ? s->ops->batch_begin(s, e) : 0;
}

void
store_batch_item_end(struct store *s)
{
    if (s->ops->batch_item_end != NULL)
        s->ops->batch_item_end(s);
}

int
store_batch_end(struct store *s, struct err *e)
{
    return s->ops->batch_end ? s->ops->batch_end(s, e) : 0;
}

int
store_lock(struct store *s, struct err *e)
{
    return s->ops->lock(s, e);
}

void
store_unlock(struct store *s)
{
    s->ops->unlock(s);
}

int
store_doc_get(struct store *s, enum store_doc kind, const char *name,
              char **data, size_t *len, struct err *e)
{
    if (!store_doc_name_ok(kind, name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->doc_get(s, kind, name, data, len, e);
}

int
store_doc_put(struct store *s, enum store_doc kind, const char *name,
              const char *data, size_t len, struct err *e)
{
    if (!store_doc_name_ok(kind, name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->doc_put(s, kind, name, data, len, e);
}

int
store_doc_create(struct store *s, enum store_doc kind, const char *name,
                 const char *data, size_t len, struct err *e)
{
    if (!store_doc_name_ok(kind, name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->doc_create(s, kind, name, data, len, e);
}

int
store_doc_del(struct store *s, enum store_doc kind, const char *name,
              struct err *e)
{
    if (!store_doc_name_ok(kind, name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->doc_del(s, kind, name, e);
}

int
store_doc_names(struct store *s, enum store_doc kind, char ***names, size_t *n,
                struct err *e)
{
    return s->ops->doc_names(s, kind, names, n, e);
}

void
store_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int
store_json_get(struct store *s, enum store_doc kind, const char *name,
               cJSON **out, struct err *e)
{
    char *data;
    size_t len;
    cJSON *j;

    if (store_doc_get(s, kind, name, &data, &len, e) == -1)
        return -1;
    j = cJSON_ParseWithLength(data, len);
    free(data);
    if (j == NULL || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return err_set(e, ERR_SYNTAX, "state of \"%s\" is not a JSON object",
                       name);
    }
    *out = j;
    return 0;
}

int
store_json_put(struct store *s, enum store_doc kind, const char *name,
               const cJSON *doc, struct err *e)
{
    char *text = cJSON_PrintUnformatted(doc);
    int rc;

    if (text == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store_doc_put(s, kind, name, text, strlen(text), e);
    cJSON_free(text);
    return rc;
}

int
store_event_append(struct store *s, const char *name, const char *line,
                   struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    if (strchr(line, '\n') != NULL)
        return err_set(e, ERR_INVALID, "an event must be one line");
    return s->ops->event_append(s, name, line, e);
}

int
store_status_write(struct store *s, const char *name, const char *status,
                   size_t len, char *const *events, size_t n, struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    for (size_t i = 0; i < n; i++)
        if (strchr(events[i], '\n') != NULL)
            return err_set(e, ERR_INVALID, "an event must be one line");
    if (s->ops->status_write != NULL && n > 0)
        return s->ops->status_write(s, name, status, len, events, n, e);
    for (size_t i = 0; i < n; i++)
        if (s->ops->event_append(s, name, events[i], e) == -1)
            return -1;
    return status == NULL ? 0
                          : s->ops->doc_put(s, STORE_DOC_STATUS, name, status,
                                            len, e);
}

static int
status_item_ok(const struct store_status_item *it, struct err *e)
{
    if (!store_name_ok(it->name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name",
                       it->name);
    for (size_t i = 0; i < it->n_events; i++)
        if (strchr(it->events[i], '\n') != NULL)
            return err_set(e, ERR_INVALID, "an event must be one line");
    return 0;
}

/* Every item checked and its outcome reset; false when one is not valid
 * (that item says so). */
static bool
status_items_ok(struct store_status_item *it, size_t n)
{
    bool all_ok = true;

    for (size_t i = 0; i < n; i++) {
        it[i].err = (struct err){ 0 };
        it[i].rc = status_item_ok(&it[i], &it[i].err);
        all_ok = all_ok && it[i].rc == 0;
    }
    return all_ok;
}

int
store__status_item_alone(struct store *s, struct store_status_item *it)
{
    if (store_status_write(s, it->name, it->remove ? NULL : it->status, it->len,
                           it->events, it->n_events, &it->err) == -1)
        return -1;
    if (!it->remove)
        return 0;
    if (store_doc_del(s, STORE_DOC_STATUS, it->name, &it->err) == -1)
        return -1;
    return store_doc_del(s, STORE_DOC_META, it->name, &it->err);
}

void
store_status_write_many(struct store *s, struct store_status_item *it, size_t n)
{
    bool all_ok = status_items_ok(it, n);

    if (s->ops->status_write_many != NULL && all_ok) {
        s->ops->status_write_many(s, it, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (it[i].rc == 0)
            it[i].rc = store__status_item_alone(s, &it[i]);
}

void
store_async_wait(struct store *s, long ms)
{
    if (s->ops->async_wait != NULL)
        s->ops->async_wait(s, ms);
}

bool
store_groups_status(const struct store *s)
{
    return s->ops->status_write_many != NULL;
}

int
store_event_read(struct store *s, const char *name, char **data, size_t *len,
                 struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->event_read(s, name, data, len, e);
}

int
store_output_path(struct store *s, const char *name, char *path, size_t size,
                  struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->output_path(s, name, path, size, e);
}

int
store_beside_output(struct store *s, const char *name, const char *ext,
                    char *path, size_t size, struct err *e)
{
    size_t n;

    if (store_output_path(s, name, path, size, e) == -1)
        return -1;
    n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".log") != 0 ||
        n - 4 + strlen(ext) + 1 > size)
        return err_set(e, ERR_LIMIT, "no room for the %s path of %s", ext,
                       name);
    memcpy(path + n - 4, ext, strlen(ext) + 1);
    return 0;
}

int
store_egress_path(struct store *s, const char *name, char *path, size_t size,
                  struct err *e)
{
    return store_beside_output(s, name, ".egress.jsonl", path, size, e);
}

bool
store_has_claims(const struct store *s)
{
    return s->ops->claim != NULL;
}

int
store_lease_grant(struct store *s, int ttl_s, int64_t *lease, struct err *e)
{
    *lease = 0;
    return s->ops->lease_grant ? s->ops->lease_grant(s, ttl_s, lease, e) : 0;
}

/* After an optional async op was tried (or not: mine untouched): true
 * when the caller does it the blocking way instead - there was no op, or
 * it cannot start here (ERR_INVALID: no watch yet). false: it failed, e
 * says why. */
static bool
async_fallback(const struct err *mine, struct err *e)
{
    if (mine->code == ERR_OK || mine->code == ERR_INVALID)
        return true;
    if (e != NULL)
        *e = *mine;
    return false;
}

int
store_status_write_many_async(struct store *s, struct store_status_item *it,
                              size_t n, store_done_fn *done, void *arg,
                              struct err *e)
{
    struct err mine = { 0 };

    if (n > 0 && status_items_ok(it, n) &&
        s->ops->status_write_many_async != NULL &&
        s->ops->status_write_many_async(s, it, n, done, arg, &mine) == 0)
        return 0;
    if (!async_fallback(&mine, e))
        return -1;
    store_status_write_many(s, it, n);
    done(arg, 0, NULL);
    return 0;
}

int
store_lease_keepalive_async(struct store *s, int64_t lease,
                            store_done_fn *done, void *arg, struct err *e)
{
    struct err mine = { 0 };
    int rc;

    if (s->ops->lease_keepalive_async != NULL &&
        s->ops->lease_keepalive_async(s, lease, done, arg, &mine) == 0)
        return 0;
    if (!async_fallback(&mine, e))
        return -1;
    rc = store_lease_keepalive(s, lease, &mine);
    done(arg, rc, &mine);
    return 0;
}

int
store_lease_grant_async(struct store *s, int ttl_s, store_lease_fn *done,
                        void *arg, struct err *e)
{
    struct err mine = { 0 };
    int64_t lease = 0;
    int rc;

    if (s->ops->lease_grant_async != NULL &&
        s->ops->lease_grant_async(s, ttl_s, done, arg, &mine) == 0)
        return 0;
    if (!async_fallback(&mine, e))
        return -1;
    rc = store_lease_grant(s, ttl_s, &lease, &mine);
    done(arg, rc, lease, &mine);
    return 0;
}

int
store_doc_put_async(struct store *s, enum store_doc kind, const char *name,
                    const char *data, size_t len, store_done_fn *done,
                    void *arg, struct err *e)
{
    struct err mine = { 0 };
    int rc;

    if (s->ops->doc_put_async != NULL &&
        s->ops->doc_put_async(s, kind, name, data, len, done, arg, &mine) == 0)
        return 0;
    if (!async_fallback(&mine, e))
        return -1;
    rc = store_doc_put(s, kind, name, data, len, &mine);
    done(arg, rc, &mine);
    return 0;
}

int
store_lease_keepalive(struct store *s, int64_t lease, struct err *e)
{
    return s->ops->lease_keepalive ? s->ops->lease_keepalive(s, lease, e) : 0;
}

int
store_claim(struct store *s, const char *name, const char *holder,
            int64_t lease, struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->claim ? s->ops->claim(s, name, holder, lease, e) : 0;
}

int
store_claim_holder(struct store *s, const char *name, char *holder, size_t size,
                   struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    if (s->ops->claim_holder == NULL)
        return err_set(e, ERR_NOTFOUND, "this store has no claims");
    return s->ops->claim_holder(s, name, holder, size, e);
}

int
store_release(struct store *s, const char *name, int64_t lease, struct err *e)
{
    if (!store_name_ok(name))
        return err_set(e, ERR_INVALID, "\"%s\" is not a valid name", name);
    return s->ops->release ? s->ops->release(s, name, lease, e) : 0;
}

/* One item the one-request way: whether the name was free is read first
 * (a store without claim_many has no read in its claim). */
static int
claim_one(struct store *s, const char *holder, int64_t lease,
          struct store_claim_item *it)
{
    char who[256];
    struct err e;

    if (it->release)
        return store_release(s, it->name, lease, &it->err);
    it->was_free =
        store_claim_holder(s, it->name, who, sizeof(who), &e) == -1 &&
        e.code == ERR_NOTFOUND;
    return store_claim(s, it->name, holder, lease, &it->err);
}

/* Every item's outcome reset; false when a name is not valid (that item
 * says so, the rest are claimed one by one). */
static bool
claim_items_ok(struct store_claim_item *it, size_t n)
{
    bool all_ok = true;

    for (size_t i = 0; i < n; i++) {
        it[i].err = (struct err){ 0 };
        it[i].was_free = false;
        it[i].rc = store_name_ok(it[i].name)
                       ? 0
                       : err_set(&it[i].err, ERR_INVALID,
                                 "\"%s\" is not a valid name", it[i].name);
        all_ok = all_ok && it[i].rc == 0;
    }
    return all_ok;
}

int
store_claim_many_async(struct store *s, const char *holder, int64_t lease,
                       struct store_claim_item *it, size_t n,
                       store_done_fn *done, void *arg, struct err *e)
{
    struct err mine = { 0 };

    if (n > STORE_CLAIMS_ASYNC_MAX)
        return err_set(e, ERR_INVALID, "%zu claims at once, at most %d", n,
                       STORE_CLAIMS_ASYNC_MAX);
    if (claim_items_ok(it, n) && s->ops->claim_many_async != NULL &&
        s->ops->claim_many_async(s, holder, lease, it, n, done, arg, &mine) ==
            0)
        return 0;
    if (!async_fallback(&mine, e))
        return -1;
    store_claim_many(s, holder, lease, it, n);
    done(arg, 0, NULL);
    return 0;
}

void
store_claim_many(struct store *s, const char *holder, int64_t lease,
                 struct store_claim_item *it, size_t n)
{
    bool all_ok = claim_items_ok(it, n);

    if (s->ops->claim_many != NULL && all_ok) {
        s->ops->claim_many(s, holder, lease, it, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (it[i].rc == 0)
            it[i].rc = claim_one(s, holder, lease, &it[i]);
}

bool
store_name_ok(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > STORE_NAME_MAX || name[0] == '-' || name[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= '0' && name[i] <= '9') || name[i] == '-'))
            return false;
    return true;
}

bool
store_doc_name_ok(enum store_doc kind, const char *name)
{
    size_t n = strlen(name);

    if (kind != STORE_DOC_POOL)
        return store_name_ok(name);
    /* A controller ID (agent-controller --controller-id, rc_desired's
     * check) may hold capitals, dots and underscores, which a DNS-1123
     * label may not. It still cannot be a path: no '/', and no leading
     * '.' (".", "..", and the directory store's dot-files). */
    if (n == 0 || n > STORE_NAME_MAX || name[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ||
              name[i] == '.' || name[i] == '_'))
            return false;
    return true;
}

int
store_uuid4(char out[37], struct err *e)
{
    unsigned char b[16];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd == -1)
        return err_sys(e, "open /dev/urandom");
    while (got < sizeof(b)) {
        ssize_t r = read(fd, b + got, sizeof(b) - got);

        if (r == -1 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            return err_sys(e, "read /dev/urandom");
        }
        got += (size_t)r;
    }
    close(fd);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
    return 0;
}
