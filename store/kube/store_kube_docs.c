/* store_kube_docs.c - the per-name documents of store.h on the API
 * server (docs/store-kube.md "Documents"): they are parts of the
 * AgentInvocation object itself, so they go with it.
 *   status   .status, written through the status subresource with the
 *            object's resourceVersion; a conflict re-reads and writes
 *            again (a spec change meanwhile), never blindly
 *   meta     uid, generation and creationTimestamp the API server keeps
 *            (it owns them: writes of this document change nothing)
 *   applied  agentctl apply's record: annotation agentctl.dev/applied
 * and events are Kubernetes Events on the object (store_kube_events.c). */
#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_OF(s)   ((struct store_kube *)(s))
#define STATUS_TRIES 5

static int
give_text(char *text, char **data, size_t *len, struct err *e)
{
    if (text == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    *data = text;
    *len = strlen(text);
    return 0;
}

/* The meta document with the spec hash of the object's spec, so
 * store_meta_observe() sees no change to count (the server counts). */
char *
store__kube_meta_with_hash(const cJSON *obj)
{
    struct store_spec sp;
    char *text = store__kube_meta_doc(obj), *out = NULL;
    cJSON *j;

    if (text == NULL || store__kube_spec_of(obj, &sp, NULL) == -1)
        return text;
    j = cJSON_Parse(text);
    if (j != NULL && sp.inv != NULL &&
        cJSON_AddStringToObject(j, "specHash", sp.inv->spec_hash) != NULL)
        out = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    store_spec_cleanup(&sp);
    if (out == NULL)
        return text;
    free(text);
    return out;
}

/* A document from the informer cache (store_kube_informer.c). */
static int
cached_doc(const struct store_kube_cached *c, enum store_doc kind, char **data,
           size_t *len, struct err *e)
{
    const char *text = kind == STORE_DOC_STATUS ? c->status
                       : kind == STORE_DOC_META ? c->meta
                                                : c->applied;

    if (text == NULL)
        return err_set(e, ERR_NOTFOUND, "no %s document of \"%s\"",
                       kind == STORE_DOC_STATUS ? "status"
                       : kind == STORE_DOC_META ? "metadata"
                                                : "applied",
                       c->name);
    return give_text(strdup(text), data, len, e);
}

int
store__kube_doc_get(struct store *st, enum store_doc kind, const char *name,
                    char **data, size_t *len, struct err *e)
{
    cJSON *obj;
    const cJSON *status;
    const char *applied;
    char *text = NULL;
    int rc;

    if (kind == STORE_DOC_POOL)
        return err_set(e, ERR_NOTFOUND,
                       "no warm pool document on the API server store");
    if (store__kube_cached(KUBE_OF(st), name) != NULL)
        return cached_doc(store__kube_cached(KUBE_OF(st), name), kind, data,
                          len, e);
    if (store__kube_get_object(KUBE_OF(st), name, &obj, e) == -1)
        return -1;
    status = cJSON_GetObjectItemCaseSensitive(obj, "status");
    applied = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "annotations"),
        STORE_KUBE_APPLIED_ANNOTATION));
    if (kind == STORE_DOC_STATUS && cJSON_IsObject(status) &&
        status->child != NULL)
        text = cJSON_PrintUnformatted(status);
    else if (kind == STORE_DOC_META)
        text = store__kube_meta_with_hash(obj);
    else if (kind == STORE_DOC_APPLIED && applied != NULL)
        text = strdup(applied);
    else {
        cJSON_Delete(obj);
        return err_set(e, ERR_NOTFOUND, "no %s document of \"%s\"",
                       kind == STORE_DOC_STATUS ? "status" : "applied", name);
    }
    rc = give_text(text, data, len, e);
    cJSON_Delete(obj);
    return rc;
}

/* PUT obj with .status = status to the status subresource. */
static int
put_status(struct store_kube *s, const char *name, cJSON *obj,
           const char *status, size_t len, struct err *e)
{
    cJSON *st = cJSON_ParseWithLength(status, len), *ans = NULL;
    char path[256], *body;
    int rc;

    if (!cJSON_IsObject(st)) {
        cJSON_Delete(st);
        return err_set(e, ERR_SYNTAX, "status of \"%s\" is not a JSON object",
                       name);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
    cJSON_AddItemToObject(obj, "status", st);
    if ((body = cJSON_PrintUnformatted(obj)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__kube_path(path, sizeof(path), name, "status", e);
    if (rc == 0)
        rc = store__kube_request(s, "PUT", path, body, NULL, &ans, NULL, e);
    free(body);
    if (rc == 0)
        store__kube_write_through(s, ans); /* a pass reads it next */
    cJSON_Delete(ans);
    return rc;
}

/* JSON-patch the object's finalizers, preconditioned on the
 * resourceVersion it was read at; *out (may be NULL) gets the object as
 * patched. add: append ours; else remove ours (at index at). */
static int
patch_finalizer(struct store_kube *s, const char *name, const cJSON *obj,
                bool add, int at, cJSON **out, struct err *e)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "finalizers");
    const char *rv = store__kube_str(obj, "metadata", "resourceVersion");
    char path[256], body[512];

    if (rv == NULL)
        return err_set(e, ERR_SYNTAX, "the API server sent \"%s\" without a resourceVersion", name);
    if (add && cJSON_GetArraySize(f) == 0)
        snprintf(body, sizeof(body),
                 "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"%s\"},"
                 "{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\"%s\"]}]",
                 rv, STORE_KUBE_FINALIZER);
    else if (add)
        snprintf(body, sizeof(body),
                 "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"%s\"},"
                 "{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"%s\"}]",
                 rv, STORE_KUBE_FINALIZER);
    else
        snprintf(body, sizeof(body),
                 "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"%s\"},"
                 "{\"op\":\"remove\",\"path\":\"/metadata/finalizers/%d\"}]",
                 rv, at);
    if (store__kube_path(path, sizeof(path), name, NULL, e) == -1)
        return -1;
    return store__kube_request(s, "PATCH", path, body, "application/json-patch+json", out,
                               NULL, e);
}

/* Before the controller's first status of an object (so before its
 * first Docker object of it): the finalizer, unless it is there or the
 * object is being deleted. obj becomes the object as patched. */
static int
ensure_finalizer(struct store_kube *s, const char *name, cJSON **obj, struct err *e)
{
    cJSON *patched;

    if (store__kube_finalizer_at(*obj) >= 0 || store__kube_deleting(*obj))
        return 0;
    if (patch_finalizer(s, name, *obj, true, 0, &patched, e) == -1)
        return -1;
    cJSON_Delete(*obj);
    *obj = patched;
    return 0;
}

/* The status write: the object read, its status replaced, sent with its
 * resourceVersion; 409 (the object changed: a spec edit, a finalizer)
 * reads it again. An object that is gone takes no status: ERR_NOTFOUND,
 * nothing written (the controller cleaning up after a delete has nothing
 * left to write, but learns nothing about its right to write either). */
static int
status_put(struct store_kube *s, const char *name, const char *status,
           size_t len, struct err *e)
{
    for (int i = 0; i < STATUS_TRIES; i++) {
        struct err e2 = { 0 };
        cJSON *obj;
        int rc;

        if (store__kube_get_object(s, name, &obj, &e2) == 0) {
            rc = ensure_finalizer(s, name, &obj, &e2);
            if (rc == 0)
                rc = put_status(s, name, obj, status, len, &e2);
            cJSON_Delete(obj);
            if (rc == 0)
                return 0;
        }
        if (e2.code == ERR_NOTFOUND)
            return err_set(e, ERR_NOTFOUND,
                           "AgentInvocation \"%s\" is gone: its status has "
                           "nowhere to go (nothing written)",
                           name);
        if (e2.code != ERR_CONFLICT) {
            if (e != NULL)
                *e = e2;
            return -1;
        }
    }
    return err_set(e, ERR_CONFLICT,
                   "status of \"%s\": the object changed at "
                   "each of %d writes",
                   name, STATUS_TRIES);
}

/* Merge-patch annotation agentctl.dev/applied (value NULL: remove). */
static int
patch_applied(struct store_kube *s, const char *name, const char *value,
              struct err *e)
{
    cJSON *p = cJSON_CreateObject(), *ann;
    char path[256], *body = NULL;
    int rc = -1;

    ann = cJSON_AddObjectToObject(cJSON_AddObjectToObject(p, "metadata"),
                                  "annotations");
    if (ann != NULL &&
        (value ? cJSON_AddStringToObject(ann, STORE_KUBE_APPLIED_ANNOTATION,
                                         value)
               : cJSON_AddNullToObject(ann, STORE_KUBE_APPLIED_ANNOTATION)) !=
            NULL)
        body = cJSON_PrintUnformatted(p);
    cJSON_Delete(p);
    if (body == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (store__kube_path(path, sizeof(path), name, NULL, e) == 0)
        rc = store__kube_request(s, "PATCH", path, body,
                                 "application/merge-patch+json", NULL, NULL, e);
    free(body);
    return rc;
}

int
store__kube_doc_put(struct store *st, enum store_doc kind, const char *name,
                    const char *data, size_t len, struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    char *copy;
    int rc;

    switch (kind) {
    case STORE_DOC_STATUS:
        return status_put(s, name, data, len, e);
    case STORE_DOC_META:
        return 0; /* the API server keeps uid, generation and time */
    case STORE_DOC_APPLIED:
        if ((copy = strndup(data, len)) == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        rc = patch_applied(s, name, copy, e);
        free(copy);
        return rc;
    case STORE_DOC_POOL:
        break;
    }
    return err_set(e, ERR_INVALID,
                   "the API server store keeps no warm pool document");
}

int
store__kube_doc_create(struct store *st, enum store_doc kind, const char *name,
                       const char *data, size_t len, struct err *e)
{
    cJSON *obj;

    /* the metadata exists exactly when the object does */
    if (kind == STORE_DOC_META) {
        if (store__kube_get_object(KUBE_OF(st), name, &obj, e) == -1)
            return -1;
        cJSON_Delete(obj);
        return err_set(e, ERR_CONFLICT,
                       "the API server keeps the metadata of \"%s\"", name);
    }
    return store__kube_doc_put(st, kind, name, data, len, e);
}

/* The controller removed every Docker object of a deleted name: drop
 * its finalizer, and the API server lets the object go. A conflict (the
 * object changed meanwhile) reads it again. */
static int
release_finalizer(struct store_kube *s, const char *name, struct err *e)
{
    for (int i = 0; i < STATUS_TRIES; i++) {
        struct err e2 = { 0 };
        cJSON *obj;
        int at, rc;

        if (store__kube_get_object(s, name, &obj, &e2) == -1) {
            if (e2.code == ERR_NOTFOUND)
                return 0; /* gone already */
            if (e != NULL)
                *e = e2;
            return -1;
        }
        at = store__kube_finalizer_at(obj);
        rc = at < 0 ? 0 : patch_finalizer(s, name, obj, false, at, NULL, &e2);
        cJSON_Delete(obj);
        if (rc == 0 || e2.code == ERR_NOTFOUND)
            return 0;
        /* a failed "test" of the resourceVersion is 422 on 1.20 */
        if (e2.code != ERR_CONFLICT && e2.code != ERR_INVALID) {
            if (e != NULL)
                *e = e2;
            return -1;
        }
    }
    return err_set(e, ERR_CONFLICT, "finalizer of \"%s\": the object changed at each of %d tries",
                   name, STATUS_TRIES);
}

int
store__kube_doc_del(struct store *st, enum store_doc kind, const char *name,
                    struct err *e)
{
    struct err e2 = { 0 };

    /* the status goes with the object: its removal is the clean-up's
     * end, so the finalizer goes */
    if (kind == STORE_DOC_STATUS)
        return release_finalizer(KUBE_OF(st), name, e);
    if (kind != STORE_DOC_APPLIED)
        return 0; /* metadata goes with the object */
    if (patch_applied(KUBE_OF(st), name, NULL, &e2) == 0 ||
        e2.code == ERR_NOTFOUND)
        return 0;
    if (e != NULL)
        *e = e2;
    return -1;
}

int
store__kube_doc_names(struct store *st, enum store_doc kind, char ***names,
                      size_t *n, struct err *e)
{
    char path[256], **v;
    cJSON *ans;
    const cJSON *it;
    size_t k = 0;

    *names = NULL;
    *n = 0;
    if (kind == STORE_DOC_POOL)
        return 0;
    if ((kind == STORE_DOC_STATUS || kind == STORE_DOC_APPLIED) &&
        store__kube_cache_live(KUBE_OF(st)))
        return store__kube_cached_names(KUBE_OF(st), kind, names, n, e);
    if (store__kube_path(path, sizeof(path), NULL, NULL, e) == -1 ||
        store__kube_request(KUBE_OF(st), "GET", path, NULL, NULL, &ans, NULL,
                            e) == -1)
        return -1;
    it = cJSON_GetObjectItemCaseSensitive(ans, "items");
    v = calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(*v));
    if (v == NULL) {
        cJSON_Delete(ans);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, "items"))
    {
        const cJSON *ann = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "metadata"), "annotations");
        const char *name = store__kube_str(it, "metadata", "name");

        if (name == NULL ||
            (kind == STORE_DOC_APPLIED &&
             !cJSON_HasObjectItem(ann, STORE_KUBE_APPLIED_ANNOTATION)) ||
            (kind == STORE_DOC_STATUS &&
             cJSON_GetObjectItemCaseSensitive(it, "status") == NULL))
            continue;
        if ((v[k] = strdup(name)) == NULL) {
            store_names_free(v, k);
            cJSON_Delete(ans);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        k++;
    }
    cJSON_Delete(ans);
    *names = v;
    *n = k;
    return 0;
}
