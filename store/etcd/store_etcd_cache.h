/* store_etcd_cache.h - the informer cache of the etcd store: what the
 * controller reads about each name (spec, status, metadata, claim holder),
 * kept in memory from one list per key directory and then the watch
 * events of that directory. Pure: fed lists and events, no I/O, so the
 * unit tests drive it (tests/unit/test_store_etcd_cache.c).
 *
 * Why here and not in the controller: the controller reads the store
 * through store.h only; with the cache behind those calls every read it
 * makes at steady state (a pass's status read, the claim gate's holder,
 * a watch change's spec) costs etcd nothing, and agentctl, which never
 * starts a watch, keeps reading etcd itself (docs/store-etcd.md
 * "The controller's cache").
 *
 * Ordering: each value carries the etcd revision it was written at (the
 * key's mod_revision, or the revision that deleted it). A value only ever
 * replaces an older one, so an event of our own write that arrives after
 * a newer write-through (or a later event) cannot take the cache back. */
#ifndef STORE_ETCD_CACHE_H
#define STORE_ETCD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "store.h"

/* The key directories the cache holds (<prefix>/<dir>/<name>). */
enum store_etcd_part {
    STORE_ETCD_SPECS,
    STORE_ETCD_STATUS,
    STORE_ETCD_META,
    STORE_ETCD_CLAIMS,
    STORE_ETCD_PARTS
};

struct store_etcd_val {
    char *data;    /* NUL-terminated bytes; NULL when absent */
    size_t len;
    int64_t rev;   /* mod_revision, or the revision that deleted it */
    int64_t lease; /* the lease a claim is bound to (claims only) */
    bool stale;    /* read etcd before trusting it (see _mark_stale) */
};

struct store_etcd_entry {
    char name[STORE_NAME_MAX + 1];
    struct store_etcd_val v[STORE_ETCD_PARTS];
};

struct store_etcd_cache {
    struct store_etcd_entry **items; /* sorted by name */
    size_t n, cap;
    bool listed[STORE_ETCD_PARTS]; /* a list of that part was taken in */
    char root[512];                /* "<prefix>/" */
};

/* The directory name of a part in keys: "specs", "status", ... */
const char *store__etcd_part_dir(enum store_etcd_part part);

/* root is "<prefix>/" (with the slash). */
void store__etcd_cache_init(struct store_etcd_cache *c, const char *root);
void store__etcd_cache_cleanup(struct store_etcd_cache *c);

/* Which part and name a key is: false for keys the cache does not hold
 * (events, output, the lock, an invalid name). */
bool store__etcd_cache_key(const struct store_etcd_cache *c, const char *key,
                           size_t klen, enum store_etcd_part *part,
                           char name[STORE_NAME_MAX + 1]);

/* One value of name: data NULL (with del) means deleted at rev. Applied
 * only when rev is newer than what is held (or equal, for a stale value);
 * *changed (may be NULL) says whether it was. -1 when out of memory. */
int store__etcd_cache_set(struct store_etcd_cache *c, enum store_etcd_part part,
                          const char *name, const char *data, size_t len,
                          int64_t rev, int64_t lease, bool *changed,
                          struct err *e);

/* A kv of the gateway (a watch event's "kv", a list's or a txn's read
 * back): key, value, mod_revision and lease decoded and set; del for a
 * DELETE event. Keys the cache does not hold are skipped (0). *part and
 * *name (may be NULL) say what it was; *held says whether it was one. */
int store__etcd_cache_apply_kv(struct store_etcd_cache *c, const cJSON *kv,
                               bool del, bool *held, enum store_etcd_part *part,
                               char name[STORE_NAME_MAX + 1], struct err *e);

/* A relist of one part: forget every value of it, then the caller sets
 * what the list holds (apply_kv) and calls _relist_end, which drops
 * names with nothing left and marks the part listed. */
void store__etcd_cache_relist_begin(struct store_etcd_cache *c,
                                    enum store_etcd_part part);
void store__etcd_cache_relist_end(struct store_etcd_cache *c,
                                  enum store_etcd_part part);

/* The value of name, or NULL when absent (or never heard of). */
const struct store_etcd_val *
store__etcd_cache_get(const struct store_etcd_cache *c,
                      enum store_etcd_part part, const char *name);

/* Our claim was just taken: the status another controller wrote before it
 * released may not have come through the status watch yet (the claims
 * watch is another stream, with no order between the two), so the next
 * status read of name goes to etcd. */
void store__etcd_cache_mark_stale(struct store_etcd_cache *c,
                                  enum store_etcd_part part, const char *name);

/* true while name's value of part was marked stale and not read since. */
bool store__etcd_cache_stale(const struct store_etcd_cache *c,
                             enum store_etcd_part part, const char *name);

/* Every name holding a value of part, sorted; store_names_free(). */
int store__etcd_cache_names(const struct store_etcd_cache *c,
                            enum store_etcd_part part, char ***names,
                            size_t *n, struct err *e);

#endif
