/* store_kube_spec.c - specs as AgentInvocation objects of the API server
 * (docs/store-kube.md "Specs"): list, get, put and delete, the revision
 * token being the object's resourceVersion. A put replaces spec, labels
 * and the user's annotations of the object it read and sends that
 * object back with its resourceVersion, so the API server refuses it
 * (409) when anyone changed the object meanwhile, and the controller's
 * finalizer and status are never written by a spec put. */
#include "store_kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_OF(s) ((struct store_kube *)(s))

int
store__kube_path(char *buf, size_t size, const char *name, const char *sub,
                 struct err *e)
{
    int n = snprintf(buf, size, "%s/agentinvocations%s%s%s%s",
                     STORE_KUBE_GROUP_PATH, name ? "/" : "", name ? name : "",
                     sub ? "/" : "", sub ? sub : "");

    return n < 0 || (size_t)n >= size ? err_set(e, ERR_LIMIT, "name too long")
                                      : 0;
}

/* Parse sp->data into sp->inv, or sp->errors saying why not (the object
 * was admitted by the API server but breaks a rule it does not check:
 * a CEL rule of 1.20, say). -1 only when out of memory. */
static int
check_spec(struct store_spec *sp)
{
    struct spec_file f;

    spec_load_buffer(sp->key, sp->data, sp->len, &f);
    if (f.errors.n == 0 && f.n == 1) {
        sp->inv = spec_file_take(&f, 0);
        spec_file_cleanup(&f);
        return 0;
    }
    sp->errors = calloc(1, sizeof(*sp->errors));
    if (sp->errors != NULL)
        *sp->errors = f.errors;
    spec_file_cleanup(&f);
    return sp->errors == NULL ? -1 : 0;
}

int
store__kube_spec_from_text(const char *name, const char *rv, const char *text,
                           struct store_spec *out, struct err *e)
{
    char key[512];

    memset(out, 0, sizeof(*out));
    out->docs = 1;
    if (name == NULL || rv == NULL || strlen(rv) >= sizeof(out->rev))
        return err_set(e, ERR_SYNTAX,
                       "the API server sent an object without "
                       "name or resourceVersion");
    if (store__kube_path(key, sizeof(key), name, NULL, e) == -1)
        return -1;
    snprintf(out->rev, sizeof(out->rev), "%s", rv);
    out->name = strdup(name);
    out->key = strdup(key);
    out->data = text != NULL ? strdup(text) : NULL;
    if (out->name == NULL || out->key == NULL || out->data == NULL ||
        (out->len = strlen(out->data), check_spec(out)) == -1) {
        store_spec_cleanup(out);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    return 0;
}

int
store__kube_spec_of(const cJSON *obj, struct store_spec *out, struct err *e)
{
    char *text = store__kube_spec_text(obj);
    int rc = store__kube_spec_from_text(
        store__kube_str(obj, "metadata", "name"),
        store__kube_str(obj, "metadata", "resourceVersion"), text, out, e);

    free(text);
    return rc;
}

int
store__kube_list(struct store *st, struct store_list *out, struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    char path[256];
    cJSON *ans;
    const cJSON *it, *items;
    struct store_list l = { 0 };

    if (store__kube_cache_live(s)) /* the controller's relist */
        return store__kube_cached_list(s, out, e);
    if (store__kube_path(path, sizeof(path), NULL, NULL, e) == -1 ||
        store__kube_request(s, "GET", path, NULL, NULL, &ans, NULL, e) == -1)
        return -1;
    items = cJSON_GetObjectItemCaseSensitive(ans, "items");
    l.items = calloc((size_t)cJSON_GetArraySize(items) + 1, sizeof(*l.items));
    if (l.items == NULL) {
        cJSON_Delete(ans);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    /* the API server lists in name order (its etcd keys) */
    cJSON_ArrayForEach(it, items)
    {
        if (store__kube_deleting(it))
            continue; /* gone for the controller: it cleans up */
        if (store__kube_spec_of(it, &l.items[l.n], e) == -1) {
            cJSON_Delete(ans);
            store_list_cleanup(&l);
            return -1;
        }
        l.n++;
    }
    cJSON_Delete(ans);
    *out = l;
    return 0;
}

int
store__kube_get_object(struct store_kube *s, const char *name, cJSON **obj,
                       struct err *e)
{
    char path[256];

    if (store__kube_path(path, sizeof(path), name, NULL, e) == -1)
        return -1;
    if (store__kube_request(s, "GET", path, NULL, NULL, obj, NULL, e) == -1) {
        if (e != NULL && e->code == ERR_NOTFOUND)
            err_set(e, ERR_NOTFOUND, "no AgentInvocation \"%s\"", name);
        return -1;
    }
    return 0;
}

int
store__kube_get(struct store *st, const char *name, struct store_spec *out,
                struct err *e)
{
    const struct store_kube_cached *c = store__kube_cached(KUBE_OF(st), name);
    cJSON *obj;
    int rc;

    if (c != NULL && c->deleting)
        return err_set(e, ERR_NOTFOUND, "AgentInvocation \"%s\" is being deleted", name);
    if (c != NULL)
        return store__kube_spec_from_text(name, c->rv, c->spec, out, e);
    if (store__kube_get_object(KUBE_OF(st), name, &obj, e) == -1)
        return -1;
    if (store__kube_deleting(obj)) {
        cJSON_Delete(obj);
        return err_set(e, ERR_NOTFOUND, "AgentInvocation \"%s\" is being deleted", name);
    }
    rc = store__kube_spec_of(obj, out, e);
    cJSON_Delete(obj);
    return rc;
}

/* Send obj (POST to create, PUT to replace) and take its new revision. */
static int
send_object(struct store_kube *s, const char *name, bool create, cJSON *obj,
            char new_rev[STORE_REV_MAX], struct err *e)
{
    char path[256], *body = cJSON_PrintUnformatted(obj);
    cJSON *ans = NULL;
    const char *rv;
    int rc;

    if (body == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__kube_path(path, sizeof(path), create ? NULL : name, NULL, e);
    if (rc == 0)
        rc = store__kube_request(s, create ? "POST" : "PUT", path, body, NULL,
                                 &ans, NULL, e);
    free(body);
    if (rc == 0)
        store__kube_write_through(s, ans);
    if (rc == 0 && new_rev != NULL &&
        (rv = store__kube_str(ans, "metadata", "resourceVersion")) != NULL)
        snprintf(new_rev, STORE_REV_MAX, "%s", rv);
    cJSON_Delete(ans);
    return rc;
}

int
store__kube_put(struct store *st, const char *name, const char *data,
                size_t len, const char *expect_rev, char new_rev[STORE_REV_MAX],
                struct err *e)
{
    struct store_kube *s = KUBE_OF(st);
    cJSON *want, *cur = NULL;
    const char *rv;
    struct err e2 = { 0 };
    int rc = -1;

    if ((want = store__kube_object_from_text(name, data, len, e)) == NULL)
        return -1;
    if (expect_rev != NULL && expect_rev[0] == '\0') {
        rc = send_object(s, name, true, want, new_rev, e);
        if (rc == -1 && e != NULL && e->code == ERR_CONFLICT)
            err_set(e, ERR_CONFLICT, "\"%s\" exists already", name);
    } else if (store__kube_get_object(s, name, &cur, &e2) == -1) {
        if (e2.code == ERR_NOTFOUND && expect_rev == NULL)
            rc = send_object(s, name, true, want, new_rev, e);
        else if (e2.code == ERR_NOTFOUND)
            err_set(e, ERR_CONFLICT, "\"%s\" was deleted meanwhile", name);
        else if (e != NULL)
            *e = e2;
    } else if (expect_rev != NULL &&
               ((rv = store__kube_str(cur, "metadata", "resourceVersion")) ==
                    NULL ||
                strcmp(rv, expect_rev) != 0))
        err_set(e, ERR_CONFLICT,
                "\"%s\" changed meanwhile (revision %s, expected %s)", name,
                rv ? rv : "?", expect_rev);
    else if (store__kube_merge_user_fields(cur, want, e) == 0) {
        rc = send_object(s, name, false, cur, new_rev, e);
        if (rc == -1 && e != NULL && e->code == ERR_CONFLICT)
            err_set(e, ERR_CONFLICT, "\"%s\" changed meanwhile", name);
    }
    cJSON_Delete(cur);
    cJSON_Delete(want);
    return rc;
}

int
store__kube_del(struct store *st, const char *name, const char *expect_rev,
                struct err *e)
{
    char path[256], body[200];
    cJSON *obj;

    if (store__kube_path(path, sizeof(path), name, NULL, e) == -1)
        return -1;
    /* "only if absent" deletes nothing: a conflict when it is there */
    if (expect_rev != NULL && expect_rev[0] == '\0') {
        if (store__kube_get_object(KUBE_OF(st), name, &obj, e) == -1)
            return -1;
        cJSON_Delete(obj);
        return err_set(e, ERR_CONFLICT, "\"%s\" exists", name);
    }
    /* a precondition on resourceVersion: the API server refuses (409)
     * when the object changed since it was read */
    if (expect_rev != NULL)
        snprintf(body, sizeof(body),
                 "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
                 "\"preconditions\":{\"resourceVersion\":\"%s\"}}",
                 expect_rev);
    if (store__kube_request(KUBE_OF(st), "DELETE", path,
                            expect_rev ? body : NULL, NULL, NULL, NULL, e) == 0)
        return 0;
    if (e != NULL && e->code == ERR_NOTFOUND)
        err_set(e, ERR_NOTFOUND, "no AgentInvocation \"%s\"", name);
    else if (e != NULL && e->code == ERR_CONFLICT)
        err_set(e, ERR_CONFLICT, "\"%s\" changed meanwhile", name);
    return -1;
}
