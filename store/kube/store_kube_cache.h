/* store_kube_cache.h - the informer cache of the API server store: what
 * the controller reads about each AgentInvocation (its spec text, status,
 * metadata and apply record), kept from the watch's list and then its
 * events, so the reads of a pass cost the API server nothing while the
 * watch is live (docs/store-kube.md "The controller's cache"). Pure: fed
 * objects, no I/O, so tests/unit/test_store_kube_cache.c drives it.
 *
 * Compact: the texts the reads return, not the objects (no managedFields,
 * no cJSON tree per object).
 *
 * Ordering: a value only replaces one of an older resourceVersion (the
 * API server's etcd revision, a number), so a watch event of our own
 * write that arrives after its write-through cannot take the cache back. */
#ifndef STORE_KUBE_CACHE_H
#define STORE_KUBE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "store.h"

struct store_kube_cached {
    char name[STORE_NAME_MAX + 1];
    char rv[32];               /* resourceVersion as the server wrote it */
    unsigned long long rv_num; /* the same, for ordering */
    bool deleting;             /* deletionTimestamp set */
    char *spec;    /* store__kube_spec_text() */
    char *base;    /* store__kube_meta_doc() (no hash): to reuse meta */
    char *meta;    /* the STORE_DOC_META document, with the spec hash */
    char *status;  /* NULL: no status yet */
    char *applied; /* NULL: no apply record */
};

struct store_kube_cache {
    struct store_kube_cached **items; /* sorted by name */
    size_t n, cap;
    bool listed; /* a whole list was taken in since the last begin */
};

void store__kube_cache_cleanup(struct store_kube_cache *c);

/* obj as listed, watched or answered to a write: kept unless what is held
 * is as new. -1 when out of memory (the entry is dropped then: a miss
 * reads the API server). */
int store__kube_cache_take(struct store_kube_cache *c, const cJSON *obj);

/* A DELETED event of obj: forget its name. */
void store__kube_cache_drop(struct store_kube_cache *c, const cJSON *obj);
/* Forget name's entry: its next read asks the API server. */
void store__kube_cache_forget(struct store_kube_cache *c, const char *name);

/* A relist: forget everything (listed false), take the list's items,
 * then _relist_end (listed true). */
void store__kube_cache_relist_begin(struct store_kube_cache *c);
void store__kube_cache_relist_end(struct store_kube_cache *c);

/* The entry of name; NULL when never heard of. */
const struct store_kube_cached *
store__kube_cache_get(const struct store_kube_cache *c, const char *name);

#endif
