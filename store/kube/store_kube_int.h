/* store_kube_int.h - the Kubernetes API server store's insides
 * (docs/store-kube.md), shared by its files and its unit tests:
 *   store_kube_config.c  kubeconfig / in-cluster settings (own header)
 *   store_kube_http.c    one request to the API server with libcurl
 *   store_kube_object.c  objects <-> spec text and documents (pure)
 *   store_kube_spec.c    list, get, put, delete of specs
 *   store_kube_docs.c    status, meta and applied documents
 *   store_kube_events.c  events as Kubernetes Events
 *   store_kube_watch.c   the watch (list + watch from its version)
 *   store_kube_lease.c   the controller's Lease and the claims
 *   store_kube_lease_obj.c  their Lease objects (pure)
 *   store_kube_own.c     the controller's own Lease, fresh to claim under
 *   store_kube_async.c   requests on the watch's multi handle
 *   store_kube_claim_async.c  the claims sent on it
 *   store_kube_cache.c   the informer cache (pure, own header)
 *   store_kube_informer.c reads served from it while the watch is live
 *   store_kube.c         open, close, the ops table
 */
#ifndef STORE_KUBE_INT_H
#define STORE_KUBE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "store.h"
#include "store_int.h"
#include "store_kube_cache.h"
#include "store_kube_config.h"

#define STORE_KUBE_TIMEOUT_MS 10000
#define STORE_KUBE_CONNECT_MS 3000
#define STORE_KUBE_ANSWER_MAX (64 * 1024 * 1024) /* bytes of one answer */
#define STORE_KUBE_GROUP_PATH "/apis/agentctl.dev/v1alpha1"
#define STORE_KUBE_WATCH_S    300 /* the server ends a watch after this */
/* requests out without blocking at once: a renewal, a grant, a claim */
#define STORE_KUBE_CALLS_MAX  4
/* the controller's finalizer: an object is gone only once the
 * controller removed every Docker object of it (docs/store-kube.md) */
#define STORE_KUBE_FINALIZER "agentctl.dev/cleanup"
/* agentctl apply's record of what it applied (STORE_DOC_APPLIED) */
#define STORE_KUBE_APPLIED_ANNOTATION "agentctl.dev/applied"
/* the Leases (coordination.k8s.io/v1) in the controller's namespace:
 * a controller's own, an invocation's claim, and the claim's note of the
 * term of its holder's Lease it was taken under */
#define STORE_KUBE_LEASE_PREFIX    "agentctl-controller-"
#define STORE_KUBE_CLAIM_PREFIX    "agentctl-claim-"
#define STORE_KUBE_TERM_ANNOTATION "agentctl.dev/lease-term"

struct curl_slist;
struct store_kube_call;

/* A name as the watch last reported it (store_kube_watch.c). */
struct store_kube_seen {
    char name[STORE_NAME_MAX + 1];
    double generation;
    bool deleting; /* deletionTimestamp set */
};

struct store_kube_watch {
    struct store_multi_fds fds; /* the watch fd and curl's timer */
    int retry;      /* timerfd: time to restart the stream */
    void *multi;    /* CURLM * */
    void *easy;     /* CURL * of the stream; NULL while none */
    struct curl_slist *headers;
    struct buf pending; /* stream bytes not yet a whole line */
    char rv[32];        /* resourceVersion to resume from */
    struct store_kube_seen *seen;
    size_t nseen, cap;
    int fails;      /* restarts in a row without an event */
    bool need_list; /* the next restart lists first */
    bool resync;    /* report RESYNC with the next read */
    unsigned relists;
};

struct store_kube {
    struct store base; /* first: the ops table points here */
    struct store_kube_config cfg;
    char *state; /* local state dir (captured output) */
    void *curl;  /* CURL *, reused for the blocking requests */
    int lock_depth;
    struct store_kube_watch *w; /* NULL until store_watch_fd() */
    char holder[64];    /* the controller ID of its Lease; "" in agentctl */
    bool check_holders; /* false: the claims' negative control */
    cJSON *own;  /* its Lease as last written (NULL: read it first) */
    cJSON *own_ok; /* its Lease as the API server last took it: claims
                      only while fresh (store_kube_own.c) */
    struct store_kube_call *call; /* the requests out without blocking */
    bool closing; /* store_close: a request's done only frees its own */
    bool loop_blocking; /* store_kube_set_loop_blocking(): the control */
    struct store_kube_cache cache; /* filled by the watch (w) only */
    bool cache_off; /* AGENTCTL_KUBE_CACHE=off: every read asks the server */
};

/* --- store_kube_object.c (pure) --- */

/* The user's part of an object (apiVersion, kind, metadata name, labels
 * and annotations but kubectl's and apply's, spec) as indented JSON, for
 * the spec parser. Caller frees; NULL when out of memory. */
char *store__kube_spec_text(const cJSON *obj);
/* A spec's YAML (one document) as a JSON object to send. */
cJSON *store__kube_object_from_text(const char *name, const char *data,
                                    size_t len, struct err *e);
/* cur (the object as read) takes spec, labels and the user's
 * annotations of want; its finalizers, status, bookkeeping annotations
 * and resourceVersion stay. */
int store__kube_merge_user_fields(cJSON *cur, const cJSON *want, struct err *e);
/* The STORE_DOC_META document of an object (uid, generation,
 * creationTimestamp); NULL when it lacks them. Caller frees. */
char *store__kube_meta_doc(const cJSON *obj);
/* metadata.deletionTimestamp is set: a spec that is gone for the
 * controller (list and get skip it, the watch says DELETE). */
bool store__kube_deleting(const cJSON *obj);
/* The index of STORE_KUBE_FINALIZER in metadata.finalizers; -1: none. */
int store__kube_finalizer_at(const cJSON *obj);
/* obj.a (b NULL) or obj.a.b when a string, else NULL. */
const char *store__kube_str(const cJSON *obj, const char *a, const char *b);
/* The Event (core/v1) of one store event line about name (uid may be
 * NULL). Caller deletes. */
cJSON *store__kube_event_object(const char *name, const char *uid,
                                const char *line);

/* --- store_kube_spec.c --- */

/* The API path of the AgentInvocations, of one (name), or of its
 * subresource (sub: "status"). */
int store__kube_path(char *buf, size_t size, const char *name, const char *sub,
                     struct err *e);
int store__kube_get_object(struct store_kube *s, const char *name, cJSON **obj,
                           struct err *e);
int store__kube_spec_of(const cJSON *obj, struct store_spec *out,
                        struct err *e);
int store__kube_list(struct store *st, struct store_list *out, struct err *e);
int store__kube_get(struct store *st, const char *name, struct store_spec *out,
                    struct err *e);
int store__kube_put(struct store *st, const char *name, const char *data,
                    size_t len, const char *expect_rev,
                    char new_rev[STORE_REV_MAX], struct err *e);
int store__kube_del(struct store *st, const char *name, const char *expect_rev,
                    struct err *e);

/* A spec read from its text (store__kube_spec_text) at revision rv. */
int store__kube_spec_from_text(const char *name, const char *rv,
                               const char *text, struct store_spec *out,
                               struct err *e);

/* --- store_kube_informer.c --- */

/* The cache may answer: the watch is streaming from a whole list (not
 * broken, no list owed) and the cache is not turned off. */
bool store__kube_cache_live(const struct store_kube *s);
/* The cached entry of name when the cache may answer; NULL: read the API
 * server. */
const struct store_kube_cached *store__kube_cached(const struct store_kube *s,
                                                   const char *name);
/* store_list and store_doc_names (status, applied) from a live cache. */
int store__kube_cached_list(const struct store_kube *s, struct store_list *out,
                            struct err *e);
int store__kube_cached_names(const struct store_kube *s, enum store_doc kind,
                             char ***names, size_t *n, struct err *e);
/* An object the API server answered to our write: into the cache, so a
 * read right after the write sees it. */
void store__kube_write_through(struct store_kube *s, const cJSON *ans);
/* A claim of name was written: its object read from the API server into
 * the cache, so the status read next is not older than the claim. */
void store__kube_claimed_read(struct store_kube *s, const char *name);
/* The same with the object a claimant read without blocking (NULL: it
 * could not be read: the entry is forgotten). */
void store__kube_claimed_take(struct store_kube *s, const char *name,
                              const cJSON *obj);

/* --- store_kube_watch.c --- */

int store__kube_watch_fd(struct store *st, struct err *e);
int store__kube_watch_read(struct store *st, struct store_change *out,
                           size_t max, size_t *n, struct err *e);
void store__kube_watch_free(struct store_kube *s);

/* --- store_kube_docs.c, store_kube_events.c --- */

/* The STORE_DOC_META document of obj with its spec's hash; NULL when it
 * lacks uid, generation or creationTimestamp. Caller frees. */
char *store__kube_meta_with_hash(const cJSON *obj);

int store__kube_doc_get(struct store *st, enum store_doc kind, const char *name,
                        char **data, size_t *len, struct err *e);
int store__kube_doc_put(struct store *st, enum store_doc kind, const char *name,
                        const char *data, size_t len, struct err *e);
int store__kube_doc_create(struct store *st, enum store_doc kind,
                           const char *name, const char *data, size_t len,
                           struct err *e);
int store__kube_doc_del(struct store *st, enum store_doc kind, const char *name,
                        struct err *e);
int store__kube_doc_names(struct store *st, enum store_doc kind, char ***names,
                          size_t *n, struct err *e);
int store__kube_event_append(struct store *st, const char *name,
                             const char *line, struct err *e);
int store__kube_event_read(struct store *st, const char *name, char **data,
                           size_t *len, struct err *e);

/* --- store_kube_lease_obj.c (pure) --- */

/* t (seconds since the epoch) as a MicroTime: 2026-12-07T22:30:00.123456Z */
int store__kube_microtime(double t, char *out, size_t size);
/* An RFC 3339 UTC time (fraction optional) into *t; -1 when not one. */
int store__kube_parse_time(const char *s, double *t);
/* A new Lease named name with an empty spec; NULL: out of memory. */
cJSON *store__kube_lease_new(const char *name);
/* lease held by holder for ttl_s under term, renewed now (new_term: and
 * acquired now). */
int store__kube_lease_hold(cJSON *lease, const char *holder, int ttl_s,
                           int64_t term, double now, bool new_term,
                           struct err *e);
/* spec.leaseTransitions, the term; 0 when none. */
int64_t store__kube_lease_term(const cJSON *lease);
/* lease is holder's of term and renewTime + leaseDurationSeconds >= now. */
bool store__kube_lease_live(const cJSON *lease, const char *holder,
                            int64_t term, double now);
/* A claim taken by holder under term at now, or released (holder NULL). */
int store__kube_claim_set(cJSON *claim, const char *holder, int64_t term,
                          double now, struct err *e);
/* The holder a claim names and its term (*term); NULL when released. */
const char *store__kube_claim_holder_of(const cJSON *claim, int64_t *term);
/* The claim is holder's of term lease: a release writes it free. */
bool store__kube_claim_ours(const cJSON *claim, const char *holder,
                            int64_t lease);
/* A new claim's labels and its owner, the invocation of uid (NULL: none). */
int store__kube_claim_owner(cJSON *claim, const char *inv_name, const char *uid,
                            struct err *e);

/* The controller's Lease to write for a grant to holder, from the one
 * read (NULL: none, *create), with the term it is of (*term): the same
 * term while the read one still lives, else the next. NULL with e. */
cJSON *store__kube_grant_next(const cJSON *read, const char *holder, int ttl_s,
                              double now, int64_t *term, bool *create,
                              struct err *e);

/* What a claim by holder does with a claim held by who under term (who
 * NULL: released or new), given who's Lease as read (NULL: none). */
enum store_kube_verdict {
    STORE_KUBE_CLAIM_TAKE,  /* free, or holder's own: write it */
    STORE_KUBE_CLAIM_FENCE, /* who's Lease expired: fence it, then write */
    STORE_KUBE_CLAIM_HELD,  /* who's Lease lives: ERR_CONFLICT */
};
/* *was_free: nobody's live claim (NodeLost for the one before).
 * check_holders false (the negative control): every claim is free. */
enum store_kube_verdict
store__kube_claim_verdict(const cJSON *holder_lease, const char *who,
                          int64_t term, const char *holder, bool check_holders,
                          double now, bool *was_free);
/* Fence who's expired Lease of term as read: holderIdentity "" (1: PUT
 * it, its resourceVersion the precondition), 0 when it is no longer
 * who's of term (nothing to fence), -1 ERR_CONFLICT when who renewed it
 * (the claim is not taken). */
int store__kube_fence_lease(cJSON *lease, const char *who, int64_t term,
                            double now, struct err *e);

/* --- store_kube_lease.c --- */

int store__kube_lease_grant(struct store *st, int ttl_s, int64_t *lease,
                            struct err *e);
int store__kube_lease_keepalive(struct store *st, int64_t lease, struct err *e);
int store__kube_claim(struct store *st, const char *name, const char *holder,
                      int64_t lease, struct err *e);
int store__kube_claim_holder(struct store *st, const char *name, char *holder,
                             size_t size, struct err *e);
int store__kube_release(struct store *st, const char *name, int64_t lease,
                        struct err *e);
void store__kube_claim_many(struct store *st, const char *holder,
                            int64_t lease, struct store_claim_item *it,
                            size_t n);

int store__kube_lease_keepalive_async(struct store *st, int64_t lease,
                                      store_done_fn *done, void *arg,
                                      struct err *e);
int store__kube_lease_grant_async(struct store *st, int ttl_s,
                                  store_lease_fn *done, void *arg,
                                  struct err *e);

/* Shared with store_kube_claim_async.c: the clock, the path of the Leases
 * (prefix NULL) or of one, a request to the store's observer (blocking:
 * the loop waited for it), and -1 ERR_INVALID when the test hook asks
 * for the blocking way (store_kube_set_loop_blocking). */
double store__kube_now(void);
int store__kube_lease_path(const struct store_kube *s, char *buf, size_t size,
                           const char *prefix, const char *name,
                           struct err *e);
void store__kube_observe(struct store_kube *s, const char *op, double started,
                         int rc, bool blocking);
bool store__kube_blocking_asked(const struct store_kube *s, struct err *e);

/* --- store_kube_claim_async.c --- */

int store__kube_claim_many_async(struct store *st, const char *holder,
                                 int64_t lease, struct store_claim_item *it,
                                 size_t n, store_done_fn *done, void *arg,
                                 struct err *e);

/* --- store_kube_own.c --- */

/* Our Lease was written (ans: as the API server answered; NULL: it is
 * lost, or unknown). */
void store__kube_own_renewed(struct store_kube *s, const cJSON *ans);
/* 0 when our Lease of term lease, as last renewed, is live for a third
 * of its duration more by this host's clock; else -1 ERR_NOTFOUND: no
 * claim may be written under it (it may expire before the claim lands,
 * and another controller then takes the claim as free). */
int store__kube_own_fresh(const struct store_kube *s, int64_t lease,
                          struct err *e);
/* A renewal of our Lease failed with e: a 409 (someone else wrote it:
 * a fence) becomes ERR_NOTFOUND, the Lease lost, as etcd reports an
 * expired lease (the controller stops its attempts and asks for a new
 * term), and no claim is made under it any more. */
void store__kube_renewal_refused(struct store_kube *s, struct err *e);

/* --- store_kube_async.c --- */

/* The answer of store__kube_send_async(): rc 0 with the parsed 2xx
 * answer (the callee's, deleted after), or -1 with e (404 ERR_NOTFOUND,
 * 409 ERR_CONFLICT, as store__kube_request). While s->closing, done
 * frees what arg holds and calls nobody back. */
typedef void store_kube_answer_fn(struct store_kube *s, void *arg, int rc,
                                  const cJSON *ans, const struct err *e);
/* Send method path with body (NULL: none) on the watch's multi handle;
 * done from a later store_watch_read(); what names it in an error
 * ("renewing the Lease"; a literal). -1 ERR_INVALID when it cannot (no
 * watch, or STORE_KUBE_CALLS_MAX out): the caller then goes the
 * blocking way. */
int store__kube_send_async(struct store_kube *s, const char *method,
                           const char *path, const cJSON *body,
                           const char *what, store_kube_answer_fn *done,
                           void *arg, struct err *e);
/* The watch's multi handle finished easy: true when it was one of these
 * requests (its done has been called). */
bool store__kube_async_done(struct store_kube *s, void *easy, int result);
/* The store closes: each request out is dropped, its done called with
 * s->closing set. */
void store__kube_async_drop(struct store_kube *s);

/* --- store_kube_http.c --- */

/* One request: method ("GET", "POST", "PUT", "PATCH", "DELETE") on path
 * (under the server URL) with an optional JSON body (content_type NULL:
 * application/json). A 2xx answer is parsed into *out (the caller
 * deletes; out may be NULL). Otherwise -1 with e from the API server's
 * Status (store__kube_status_error) or from the transport. *http gets
 * the HTTP status (0 when nothing answered); http may be NULL. */
int store__kube_request(struct store_kube *s, const char *method,
                        const char *path, const char *body,
                        const char *content_type, cJSON **out, long *http,
                        struct err *e);

/* An API server's answer of HTTP status http (a Status object, or not)
 * into e: 404 ERR_NOTFOUND, 409 ERR_CONFLICT, 422 ERR_INVALID, 401/403
 * ERR_REMOTE naming the missing permission, else ERR_REMOTE. Returns -1. */
int store__kube_status_error(long http, const char *body, size_t len,
                             const char *what, struct err *e);

/* curl's TLS and credential options of cfg; *headers (the Authorization
 * header) is the caller's to free. -1 with e when the token file cannot
 * be read. */
int store__kube_secure(const struct store_kube_config *cfg, void *curl,
                       struct curl_slist **headers, struct err *e);

#endif
