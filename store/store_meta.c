/* store_meta.c - the metadata a user never writes: uid, generation and
 * creation time of each name, kept as a STORE_DOC_META document.
 *
 * The first writer creates the document with store_doc_create(), which
 * cannot let two racing writers both win, so every process agrees on one
 * uid. The generation is a counter of spec changes: it advances under the
 * store lock, only when the spec hash differs from the recorded one. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
copy_str(char *dst, size_t size, const cJSON *j)
{
    if (!cJSON_IsString(j) || strlen(j->valuestring) >= size)
        return -1;
    memcpy(dst, j->valuestring, strlen(j->valuestring) + 1);
    return 0;
}

static int
meta_from_json(const cJSON *j, struct store_meta *m)
{
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(j, "generation");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(j, "specHash");

    memset(m, 0, sizeof(*m));
    if (copy_str(m->uid, sizeof(m->uid),
                 cJSON_GetObjectItemCaseSensitive(j, "uid")) == -1 ||
        copy_str(m->creation_timestamp, sizeof(m->creation_timestamp),
                 cJSON_GetObjectItemCaseSensitive(j, "creationTimestamp")) ==
            -1 ||
        !cJSON_IsNumber(gen) || gen->valuedouble < 1)
        return -1;
    m->generation = (uint64_t)gen->valuedouble;
    if (hash != NULL && copy_str(m->spec_hash, sizeof(m->spec_hash), hash))
        return -1;
    return 0;
}

static char *
meta_to_text(const struct store_meta *m)
{
    cJSON *j = cJSON_CreateObject();
    char *text = NULL;

    if (j != NULL && cJSON_AddStringToObject(j, "uid", m->uid) != NULL &&
        cJSON_AddNumberToObject(j, "generation", (double)m->generation) &&
        cJSON_AddStringToObject(j, "creationTimestamp",
                                m->creation_timestamp) != NULL &&
        cJSON_AddStringToObject(j, "specHash", m->spec_hash) != NULL)
        text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

int
store_meta_get(struct store *s, const char *name, struct store_meta *out,
               struct err *e)
{
    cJSON *j;
    int rc;

    if (store_json_get(s, STORE_DOC_META, name, &j, e) == -1)
        return -1;
    rc = meta_from_json(j, out);
    cJSON_Delete(j);
    if (rc == -1)
        return err_set(e, ERR_SYNTAX, "metadata of \"%s\" is damaged", name);
    return 0;
}

/* First sight of name: create the document unless someone else just did. */
static int
meta_create(struct store *s, const char *name, const char *spec_hash,
            struct store_meta *out, struct err *e)
{
    struct store_meta m = { .generation = 1 };
    time_t now = time(NULL);
    struct tm tm;
    char *text;
    int rc;

    if (store_uuid4(m.uid, e) == -1)
        return -1;
    gmtime_r(&now, &tm);
    strftime(m.creation_timestamp, sizeof(m.creation_timestamp),
             "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(m.spec_hash, sizeof(m.spec_hash), "%s",
             spec_hash ? spec_hash : "");
    text = meta_to_text(&m);
    if (text == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store_doc_create(s, STORE_DOC_META, name, text, strlen(text), e);
    cJSON_free(text);
    if (rc == 0)
        *out = m;
    return rc;
}

/* A known name whose spec hash changed: count it under the lock so two
 * observers of the same change advance the generation once. */
static int
meta_advance(struct store *s, const char *name, const char *spec_hash,
             struct store_meta *out, struct err *e)
{
    struct store_meta m;
    char *text;
    int rc = -1;

    if (store_lock(s, e) == -1)
        return -1;
    if (store_meta_get(s, name, &m, e) == -1)
        goto out;
    if (strcmp(m.spec_hash, spec_hash) != 0) {
        /* the first valid spec of a name first seen invalid is gen 1 */
        if (m.spec_hash[0] != '\0')
            m.generation++;
        snprintf(m.spec_hash, sizeof(m.spec_hash), "%s", spec_hash);
        text = meta_to_text(&m);
        if (text == NULL) {
            err_set(e, ERR_NOMEM, "out of memory");
            goto out;
        }
        rc = store_doc_put(s, STORE_DOC_META, name, text, strlen(text), e);
        cJSON_free(text);
        if (rc == -1)
            goto out;
    }
    *out = m;
    rc = 0;
out:
    store_unlock(s);
    return rc;
}

int
store_meta_observe(struct store *s, const char *name, const char *spec_hash,
                   struct store_meta *out, struct err *e)
{
    struct store_meta m;
    struct err e2 = { 0 };

    if (store_meta_get(s, name, &m, &e2) == -1) {
        if (e2.code != ERR_NOTFOUND) {
            if (e != NULL)
                *e = e2;
            return -1;
        }
        if (meta_create(s, name, spec_hash, &m, &e2) == 0) {
            *out = m;
            return 0;
        }
        /* lost the race: the winner's document is the one */
        if (e2.code != ERR_CONFLICT || store_meta_get(s, name, &m, e) == -1) {
            if (e != NULL && e2.code != ERR_CONFLICT)
                *e = e2;
            return -1;
        }
    }
    if (spec_hash == NULL || strcmp(m.spec_hash, spec_hash) == 0) {
        *out = m;
        return 0;
    }
    return meta_advance(s, name, spec_hash, out, e);
}
