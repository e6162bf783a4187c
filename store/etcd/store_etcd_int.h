/* store_etcd_int.h - what the files of the etcd backend share (specs/
 * only): the store struct, the JSON-gateway client and the pure helpers
 * the unit tests drive (base64, request bodies, the watch-stream parser).
 *
 *   store_etcd_http.c   endpoints, failover, one request -> cJSON answer
 *   store_etcd_json.c   base64, int64-as-string fields, request bodies
 *   store_etcd_kv.c     specs: list, CAS put and delete, the store lock
 *   store_etcd_watch.c  the watch inside the caller's loop (epoll fd)
 *   store_etcd_wparse.c the watch stream: split chunks -> changes
 *   store_etcd_docs.c   documents, events, output path, open and close
 *   store_etcd_output.c captured output uploaded to / fetched from etcd
 *   store_etcd_lease.c  the controller's lease: grant, keep-alive
 *   store_etcd_claim.c  the claims of invocations, one or many at once
 *   store_etcd_cache.c  the informer cache (pure; store_etcd_cache.h)
 *   store_etcd_informer.c  the cache fed: relists, write-through
 *   store_etcd_batch.c  an apply's writes queued and sent as few txns
 */
#ifndef STORE_ETCD_INT_H
#define STORE_ETCD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "store.h"
#include "store_etcd_cache.h"

struct curl_slist;

#define STORE_ETCD_TIMEOUT_MS  2000 /* one request to one endpoint */
#define STORE_ETCD_CONNECT_MS  1000
#define STORE_ETCD_BODY_MAX    (256u * 1024 * 1024) /* one answer */
#define STORE_ETCD_WATCH_MAX   (64u * 1024 * 1024)  /* one watch message */
#define STORE_ETCD_LOCK_TTL    15                   /* seconds */
#define STORE_ETCD_LOCK_WAIT_S 10

struct store_etcd_watch; /* store_etcd_watch.c */
struct store_etcd_batch; /* store_etcd_batch.c */

struct store_etcd {
    struct store base; /* first: the ops table points here */
    char **eps;        /* endpoint base URLs, no trailing slash */
    size_t neps;
    size_t cur;   /* the endpoint that answered last */
    char *prefix; /* key prefix, no trailing slash, e.g. "/agentctl" */
    char *state;  /* local state dir (captured output) */
    void *curl;   /* CURL *, reused for the blocking requests */
    int lock_depth;
    char lock_lease[24]; /* lease ID holding <prefix>/lock, decimal */
    int64_t list_rev;    /* header revision of the last spec list */
    struct store_etcd_watch *w;
    struct {             /* store_etcd_set_security(); NULL: not set */
        char *ca_file, *cert_file, *key_file, *user, *password;
    } sec;
    char token[2048];    /* etcd auth token; "" = none yet */
    bool authenticating; /* the authenticate call itself is in progress */
    /* the informer cache, made with the watch (store_etcd_informer.c);
     * cache_off: reads go to etcd anyway (store_etcd_set_cache) */
    struct store_etcd_cache *cache;
    bool cache_off;
    struct store_etcd_req *reqs; /* async requests in flight */
    /* store_etcd_set_loop_blocking(): a negative control, the loop's
     * lease grants, pool document and lists the blocking way again */
    bool loop_blocking;
    struct store_etcd_batch *batch; /* store_batch_begin(); NULL: none */
};

/* --- store_etcd_auth.c --- */

/* TLS options and the Authorization header (when there is a token) on a
 * curl handle; *headers is the caller's to free after the request. */
int store__etcd_secure(struct store_etcd *s, void *curl,
                       struct curl_slist **headers);
/* Get a token for the configured user. */
int store__etcd_authenticate(struct store_etcd *s, struct err *e);
/* An answer that says the token is no good (expired, etcd restarted). */
bool store__etcd_token_refused(const struct err *e);
void store__etcd_security_free(struct store_etcd *s);

/* --- store_etcd_http.c --- */

/* POST body to path (e.g. "/v3/kv/range") on the current endpoint, then
 * the next ones while an endpoint cannot be reached. *out is the parsed
 * answer (caller deletes). An answer carrying "error" is ERR_REMOTE. A
 * message a user can act on: "etcd URL: connection refused (tried 2
 * endpoints)". */
int store__etcd_call(struct store_etcd *s, const char *path, const cJSON *body,
                     cJSON **out, struct err *e);
/* The pieces of a request the async path (store_etcd_async.c) shares:
 * the capped body writer (arg: struct buf), why an endpoint could not be
 * reached (c: the CURL handle, rc: its CURLcode), whether another
 * endpoint may answer, an answer parsed into *out (or ERR_REMOTE), the
 * monotonic clock in seconds, and the store's observer called. */
size_t store__etcd_on_body(char *p, size_t size, size_t nmemb, void *arg);
void store__etcd_reach_error(void *c, int rc, const char *errbuf, char *out,
                             size_t size);
bool store__etcd_unreachable(int rc);
int store__etcd_take_answer(const char *ep, long status, const struct buf *b,
                            cJSON **out, struct err *e);
double store__etcd_now(void);
void store__etcd_observe(struct store_etcd *s, const char *path,
                         double started, int rc, bool blocking);

/* --- store_etcd_async.c --- */

/* The answer of an async request: rc 0 with ans (the callee's: it is
 * deleted after the call) or -1 with e. */
typedef void store__etcd_done_fn(void *arg, int rc, const cJSON *ans,
                                 const struct err *e);
struct store_etcd_req;
/* POST body to path without blocking, on the watch's curl multi handle
 * (so inside the caller's loop): done is called from a later
 * store_watch_read(), never before this returns. Endpoints are tried in
 * turn as store__etcd_call() does. -1 (nothing started, done never
 * called) when there is no watch yet or out of memory. */
int store__etcd_call_async(struct store_etcd *s, const char *path,
                           const cJSON *body, store__etcd_done_fn *done,
                           void *arg, struct err *e);
/* curl finished easy (a handle of an async request): answer it. false
 * when easy is not one. */
bool store__etcd_async_finished(struct store_etcd *s, void *easy, int result);
/* store_async_wait() (store_etcd_watch.c). */
void store__etcd_async_wait(struct store *st, long ms);
/* Drop every request in flight without answering (the store closes). */
void store__etcd_async_free(struct store_etcd *s);

/* store__etcd_call() that takes ownership of req (NULL: out of memory),
 * so callers can build the request inline. */
int store__etcd_call_take(struct store_etcd *s, const char *path, cJSON *req,
                          cJSON **ans, struct err *e);
/* The same for a request whose builder may refuse its input (a compare
 * on a malformed revision): NULL reports what `built` says, else out of
 * memory. */
int store__etcd_call_built(struct store_etcd *s, const char *path, cJSON *req,
                           const struct err *built, cJSON **ans, struct err *e);
/* A request builder returned NULL: -1, e saying what `built` says, or out
 * of memory when it says nothing. */
int store__etcd_no_body(const struct err *built, struct err *e);

/* --- store_etcd_batch.c --- */

int store__etcd_batch_begin(struct store *st, struct err *e);
int store__etcd_batch_end(struct store *st, struct err *e);
void store__etcd_batch_item_end(struct store *st);
/* Queue a txn_put-style write (expect as in store__etcd_txn_put) when a
 * batch is open: 1 queued, 0 no batch (send it now), -1 with e. */
int store__etcd_batch_add(struct store_etcd *s, const char *key,
                          const char *data, size_t len, const char *expect,
                          struct err *e);
/* Send what is queued (before any other request of the batch). */
void store__etcd_batch_flush(struct store_etcd *s);
/* A name's metadata as read at the batch's start or queued since: 1 with
 * *data (caller frees), 0 no batch, -1 ERR_NOTFOUND. */
int store__etcd_batch_meta(struct store_etcd *s, const char *name,
                           char **data, size_t *len, struct err *e);
/* Drop a batch never ended (the store closes). */
void store__etcd_batch_free(struct store_etcd *s);

/* --- store_etcd_json.c (pure) --- */

/* Standard base64 of n bytes; caller frees; NULL when out of memory. */
char *store__etcd_b64_enc(const void *p, size_t n);

/* Decode base64 text into *out (caller frees, NUL-terminated) of *n bytes;
 * ERR_SYNTAX when text is not base64. */
int store__etcd_b64_dec(const char *text, char **out, size_t *n, struct err *e);

/* An int64 field the gateway prints as a decimal string (or a number);
 * 0 when absent or not a number. */
int64_t store__etcd_int(const cJSON *obj, const char *name);

/* "<prefix>/" + rest into buf; -1 with ERR_LIMIT when it does not fit. */
int store__etcd_key(const struct store_etcd *s, char *buf, size_t size,
                    struct err *e, const char *fmt, ...) ERR_PRINTF(5, 6);

/* The first key after every key starting with prefix (etcd's range_end
 * for a prefix): prefix with its last byte incremented. */
void store__etcd_prefix_end(const char *prefix, char *out, size_t size);

/* Bodies of the requests (caller deletes; NULL when out of memory or, for
 * an expect_rev that is not a decimal revision, ERR_CONFLICT in e).
 * txn_put: expect_rev NULL puts unconditionally, "" only creates (the
 * key's create_revision is 0), else the key's mod_revision must equal
 * it. lease "" means none. The failure branch reads the key back, so a
 * refused write can say whether the key is gone or changed. */
cJSON *store__etcd_txn_put(const char *key, const char *data, size_t len,
                           const char *expect_rev, const char *lease,
                           struct err *e);
cJSON *store__etcd_txn_del(const char *key, const char *expect_rev,
                           struct err *e);
/* An empty txn ({compare: [], success: []}) that several single-key
 * txns are merged into with txn_add (their failure branches dropped): it
 * holds every compare, and writes all or nothing. txn_add takes one
 * (NULL: its builder failed, e says why) and frees it. */
cJSON *store__etcd_txn_new(struct err *e);
int store__etcd_txn_add(cJSON *t, cJSON *one, struct err *e);
/* range_end NULL reads one key; keys_only drops the values. */
cJSON *store__etcd_range(const char *key, const char *range_end,
                         bool keys_only);

/* --- store_etcd_wparse.c (pure) --- */

/* The watch stream: newline-delimited JSON messages ({"result": ...}),
 * any of which may arrive split across reads. */
struct store_etcd_wparse {
    struct buf pending; /* bytes of an unfinished message */
    const char *specs;  /* "<prefix>/specs/": keys to report */
    /* when set, every event's kv is taken into it (with its value) */
    struct store_etcd_cache *cache;
};

enum store_etcd_wmsg {
    STORE_ETCD_WMSG_NONE,     /* nothing complete yet */
    STORE_ETCD_WMSG_CREATED,  /* the watch is live */
    STORE_ETCD_WMSG_EVENTS,   /* changes (maybe none: a progress notice) */
    STORE_ETCD_WMSG_COMPACTED /* canceled or compacted: relist */
};

void store__etcd_wparse_init(struct store_etcd_wparse *p, const char *specs);
void store__etcd_wparse_cleanup(struct store_etcd_wparse *p);

/* Append bytes read from the stream. ERR_LIMIT when one message grows
 * past STORE_ETCD_WATCH_MAX (the watch must restart). */
int store__etcd_wparse_feed(struct store_etcd_wparse *p, const char *data,
                            size_t len, struct err *e);

/* Take the next complete message: its kind, the header revision in *rev,
 * and for EVENTS the changes of keys under specs (with a valid name) in
 * out[0..*n) (at most max; *over set when more did not fit). -1 with
 * ERR_SYNTAX for a message that is not a watch answer (an "error"). */
int store__etcd_wparse_next(struct store_etcd_wparse *p,
                            enum store_etcd_wmsg *kind, int64_t *rev,
                            struct store_change *out, size_t max, size_t *n,
                            bool *over, struct err *e);

/* --- store_etcd_output.c --- */

/* After a status write: when status says the attempt is final and its
 * output.sha256 matches the local output file, upload that file (once). */
int store__etcd_output_sync(struct store_etcd *s, const char *name,
                            const char *status, size_t len, struct err *e);

/* Before reading output here without a local file: fetch what was
 * uploaded for the final attempt in status, when it hashes right. */
int store__etcd_output_fetch(struct store_etcd *s, const char *name,
                             const char *status, size_t len, struct err *e);

/* Bytes kept in etcd as chunks of at most 768 KiB under dir (a key
 * ending in '/'; what was there first goes), and read back concatenated
 * into b; *chunks is their number. */
int store__etcd_chunks_put(struct store_etcd *s, const char *dir,
                           const char *data, size_t len, size_t *chunks,
                           struct err *e);
int store__etcd_chunks_get(struct store_etcd *s, const char *dir,
                           struct buf *b, struct err *e);
/* The JSON marker at key, parsed (*marker NULL when there is none or it
 * is not JSON; the caller deletes it); -1 only when etcd was not read. */
int store__etcd_marker_get(struct store_etcd *s, const char *key,
                           cJSON **marker, struct err *e);
/* The "sha256" of the JSON marker at key ("" when there is none). */
int store__etcd_marker_sha(struct store_etcd *s, const char *key,
                           char sha[65], struct err *e);

/* --- store_etcd_changes.c --- */

/* After a status write: when status.result.changes names a diff sha256
 * that the local change set has and etcd's copy has not, upload the set
 * (bounded: STORE_ETCD_CHANGES_MAX, else the marker says so). */
#define STORE_ETCD_CHANGES_MAX (64u << 20)
int store__etcd_changes_sync(struct store_etcd *s, const char *name,
                             const char *status, size_t len, struct err *e);

/* Before reading a change set here without a local copy: fetch the one
 * uploaded for status, each file checked by its sha256. */
int store__etcd_changes_fetch(struct store_etcd *s, const char *name,
                              const char *status, size_t len, struct err *e);

/* --- store_etcd_lease.c --- */

int store__etcd_lease_grant(struct store *s, int ttl_s, int64_t *lease,
                            struct err *e);
int store__etcd_lease_keepalive(struct store *s, int64_t lease, struct err *e);
int store__etcd_lease_keepalive_async(struct store *s, int64_t lease,
                                      store_done_fn *done, void *arg,
                                      struct err *e);

/* --- store_etcd_claim.c --- */

int store__etcd_claim(struct store *s, const char *name, const char *holder,
                      int64_t lease, struct err *e);
int store__etcd_claim_holder(struct store *s, const char *name, char *holder,
                             size_t size, struct err *e);
int store__etcd_release(struct store *s, const char *name, int64_t lease,
                        struct err *e);
/* --- store_etcd_status.c --- */
int store__etcd_doc_put(struct store *st, enum store_doc kind, const char *name,
                        const char *data, size_t len, struct err *e);
int store__etcd_event_append(struct store *st, const char *name,
                             const char *line, struct err *e);
int store__etcd_status_write(struct store *st, const char *name,
                             const char *status, size_t len,
                             char *const *events, size_t n, struct err *e);
void store__etcd_status_write_many(struct store *st,
                                   struct store_status_item *it, size_t n);
int store__etcd_status_write_many_async(struct store *st,
                                        struct store_status_item *it, size_t n,
                                        store_done_fn *done, void *arg,
                                        struct err *e);

int store__etcd_claim_many_async(struct store *s, const char *holder,
                                 int64_t lease, struct store_claim_item *it,
                                 size_t n, store_done_fn *done, void *arg,
                                 struct err *e);
void store__etcd_claim_many(struct store *s, const char *holder,
                            int64_t lease, struct store_claim_item *it,
                            size_t n);

/* --- store_etcd_informer.c --- */

/* true when reads of part may come from the cache: it was listed, the
 * cache is on, and no store lock is held (a read-compare-write under the
 * lock, such as the generation counter, must see etcd itself). */
bool store__etcd_cached(const struct store_etcd *s, enum store_etcd_part part);
/* List <prefix>/<dir>/ with values into the cache; *rev is the list's
 * header revision, where the part's watch continues from. */
int store__etcd_relist(struct store_etcd *s, enum store_etcd_part part,
                       int64_t *rev, struct err *e);
/* The same in two halves, for a list sent without blocking
 * (store_etcd_loop.c): the range's body, and its answer taken in. */
cJSON *store__etcd_relist_body(struct store_etcd *s, enum store_etcd_part part,
                               struct err *e);
int store__etcd_relist_take(struct store_etcd *s, enum store_etcd_part part,
                            const cJSON *ans, int64_t *rev, struct err *e);

/* --- store_etcd_loop.c: what the controller's loop sends without
 * blocking, beside store_etcd_async.c's keep-alive --- */

/* The answer of store__etcd_relist_async(): rc 0 with the list taken in
 * at revision rev, or -1 with e. */
typedef void store__etcd_relist_fn(void *arg, int rc, int64_t rev,
                                   const struct err *e);
/* store__etcd_relist() on the watch's connections; done is called from a
 * later watch read, never before this returns (-1: never called). */
int store__etcd_relist_async(struct store_etcd *s, enum store_etcd_part part,
                             store__etcd_relist_fn *done, void *arg,
                             struct err *e);
int store__etcd_lease_grant_async(struct store *st, int ttl_s,
                                  store_lease_fn *done, void *arg,
                                  struct err *e);
int store__etcd_doc_put_async(struct store *st, enum store_doc kind,
                              const char *name, const char *data, size_t len,
                              store_done_fn *done, void *arg, struct err *e);
bool store__etcd_watch_primed(struct store *st);
/* Our own write reached etcd: take it in at the revision of its answer
 * (ans: the txn or deleterange answer), so a read right after it sees
 * it before its watch event comes. data NULL: deleted. No-op without a
 * cache. */
void store__etcd_write_through(struct store_etcd *s, enum store_etcd_part part,
                               const char *name, const char *data, size_t len,
                               int64_t lease, const cJSON *ans);
/* The same at revision rev: an inner txn's answer has an empty header,
 * its revision is the outer answer's. */
void store__etcd_write_through_at(struct store_etcd *s,
                                  enum store_etcd_part part, const char *name,
                                  const char *data, size_t len, int64_t lease,
                                  int64_t rev);
/* A txn refused with the key read back in its failure branch: take in
 * what etcd holds now. */
void store__etcd_take_readback(struct store_etcd *s, const cJSON *ans);

/* --- store_etcd_kv.c, store_etcd_watch.c --- */

int store__etcd_list(struct store *s, struct store_list *out, struct err *e);
/* One spec by its key (a range of one key); ERR_NOTFOUND when absent. */
int store__etcd_get(struct store *s, const char *name, struct store_spec *out,
                    struct err *e);
int store__etcd_put(struct store *s, const char *name, const char *data,
                    size_t len, const char *expect_rev,
                    char new_rev[STORE_REV_MAX], struct err *e);
int store__etcd_del(struct store *s, const char *name, const char *expect_rev,
                    struct err *e);
int store__etcd_lock(struct store *s, struct err *e);
void store__etcd_unlock(struct store *s);

/* The current revision of the store (a count-only range). */
int store__etcd_revision(struct store_etcd *s, int64_t *rev, struct err *e);

int store__etcd_watch_fd(struct store *s, struct err *e);
/* The curl multi handle of the watch (CURLM *), NULL before it starts. */
void *store__etcd_watch_multi(struct store_etcd *s);
int store__etcd_watch_read(struct store *s, struct store_change *out,
                           size_t max, size_t *n, struct err *e);
void store__etcd_watch_free(struct store_etcd *s);

#endif
