/* store_kube_object.c - the pure half of the Kubernetes store: an
 * AgentInvocation object as the API server holds it <-> the spec text
 * agentctl's parser checks, and the metadata document the API server
 * keeps for us. No I/O here, so the unit tests check it byte for byte.
 *
 * The spec text is the object without what the server adds (uid,
 * resourceVersion, managedFields, finalizers, status, kubectl's
 * last-applied annotation), as indented JSON: JSON is YAML, so the same
 * parser and schema judge it as a file, and an error's line:col points
 * into the text `agentctl get -o yaml`-style readers can show. */
#include "store_kube_int.h"

#include "spec_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Annotations that are bookkeeping of a tool, not the user's spec. */
static bool
bookkeeping_annotation(const char *key)
{
    return strcmp(key, "kubectl.kubernetes.io/last-applied-configuration") ==
               0 ||
           strcmp(key, STORE_KUBE_APPLIED_ANNOTATION) == 0;
}

static int
copy_field(cJSON *to, const cJSON *from, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
    cJSON *dup;

    if (v == NULL)
        return 0;
    dup = cJSON_Duplicate(v, true);
    return dup != NULL && cJSON_AddItemToObject(to, key, dup) ? 0 : -1;
}

/* metadata with name, labels and the user's annotations only */
static cJSON *
user_metadata(const cJSON *meta)
{
    const cJSON *ann = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    cJSON *m = cJSON_CreateObject(), *a = NULL;
    const cJSON *it;

    if (m == NULL || copy_field(m, meta, "name") == -1 ||
        copy_field(m, meta, "labels") == -1)
        goto fail;
    cJSON_ArrayForEach(it, ann)
    {
        if (bookkeeping_annotation(it->string))
            continue;
        if (a == NULL &&
            (a = cJSON_AddObjectToObject(m, "annotations")) == NULL)
            goto fail;
        if (!cJSON_AddItemToObject(a, it->string, cJSON_Duplicate(it, true)))
            goto fail;
    }
    return m;
fail:
    cJSON_Delete(m);
    return NULL;
}

char *
store__kube_spec_text(const cJSON *obj)
{
    cJSON *doc = cJSON_CreateObject(), *meta;
    char *text = NULL;

    if (doc == NULL || copy_field(doc, obj, "apiVersion") == -1 ||
        copy_field(doc, obj, "kind") == -1)
        goto out;
    meta = user_metadata(cJSON_GetObjectItemCaseSensitive(obj, "metadata"));
    if (meta == NULL || !cJSON_AddItemToObject(doc, "metadata", meta)) {
        cJSON_Delete(meta);
        goto out;
    }
    if (copy_field(doc, obj, "spec") == 0)
        text = cJSON_Print(doc);
out:
    cJSON_Delete(doc);
    return text;
}

cJSON *
store__kube_object_from_text(const char *name, const char *data, size_t len,
                             struct err *e)
{
    struct spec_stream st = { 0 };
    struct spec_errors es = { 0 };
    cJSON *obj = NULL;

    if (spec_yaml_parse(name, data, len, &st, &es) == -1) {
        if (e != NULL)
            *e = es.items[0];
    } else if (st.n != 1 || st.docs[0] == NULL ||
               st.docs[0]->kind != SPEC_NODE_MAP)
        err_set(e, ERR_INVALID, "%s: the API server store takes one document",
                name);
    else if ((obj = spec_json_from_node(st.docs[0])) == NULL)
        err_set(e, ERR_NOMEM, "out of memory");
    spec_stream_cleanup(&st);
    return obj;
}

int
store__kube_merge_user_fields(cJSON *cur, const cJSON *want, struct err *e)
{
    const cJSON *wmeta = cJSON_GetObjectItemCaseSensitive(want, "metadata");
    cJSON *cmeta = cJSON_GetObjectItemCaseSensitive(cur, "metadata");
    const cJSON *wann = cJSON_GetObjectItemCaseSensitive(wmeta, "annotations");
    cJSON *cann, *keep, *it, *next;

    if (!cJSON_IsObject(cmeta))
        return err_set(e, ERR_SYNTAX,
                       "the API server sent an object without metadata");
    /* spec and labels are the user's; annotations: the user's plus the
     * bookkeeping ones already there (kubectl's, apply's record) */
    cJSON_DeleteItemFromObjectCaseSensitive(cur, "spec");
    cJSON_DeleteItemFromObjectCaseSensitive(cmeta, "labels");
    if (copy_field(cur, want, "spec") == -1 ||
        copy_field(cmeta, wmeta, "labels") == -1)
        return err_set(e, ERR_NOMEM, "out of memory");
    cann = cJSON_DetachItemFromObjectCaseSensitive(cmeta, "annotations");
    keep = wann ? cJSON_Duplicate(wann, true) : cJSON_CreateObject();
    for (it = cann ? cann->child : NULL; it != NULL; it = next) {
        next = it->next;
        if (bookkeeping_annotation(it->string) && keep != NULL &&
            !cJSON_HasObjectItem(keep, it->string))
            cJSON_AddItemToObject(keep, it->string, cJSON_Duplicate(it, true));
    }
    cJSON_Delete(cann);
    if (keep == NULL || !cJSON_AddItemToObject(cmeta, "annotations", keep)) {
        cJSON_Delete(keep);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    return 0;
}

char *
store__kube_meta_doc(const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(meta, "generation");
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(meta, "uid");
    const cJSON *ts =
        cJSON_GetObjectItemCaseSensitive(meta, "creationTimestamp");
    cJSON *doc;
    char *text;

    if (!cJSON_IsString(uid) || !cJSON_IsString(ts) || !cJSON_IsNumber(gen))
        return NULL;
    doc = cJSON_CreateObject();
    if (doc == NULL || !cJSON_AddStringToObject(doc, "uid", uid->valuestring) ||
        !cJSON_AddNumberToObject(doc, "generation", gen->valuedouble) ||
        !cJSON_AddStringToObject(doc, "creationTimestamp", ts->valuestring)) {
        cJSON_Delete(doc);
        return NULL;
    }
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

const char *
store__kube_str(const cJSON *obj, const char *a, const char *b)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, a);

    if (b != NULL)
        j = cJSON_GetObjectItemCaseSensitive(j, b);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

bool
store__kube_deleting(const cJSON *obj)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"),
                                            "deletionTimestamp") != NULL;
}

int
store__kube_finalizer_at(const cJSON *obj)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "finalizers");
    int i = 0;
    const cJSON *it;

    cJSON_ArrayForEach(it, f)
    {
        if (cJSON_IsString(it) && strcmp(it->valuestring, STORE_KUBE_FINALIZER) == 0)
            return i;
        i++;
    }
    return -1;
}
