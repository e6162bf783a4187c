/* store.h - where AgentInvocation specs and the controller's state live.
 *
 * One interface, several backends: the directory store (store_dir.c:
 * specs are *.yaml / *.yml files in a directory, state under --state) and,
 * later, etcd (keys under a prefix). agentctl and agent-controller only
 * talk to `struct store`, so a backend is picked once at start.
 *
 * Revisions: every spec read comes with an opaque revision token (a short
 * string). A write or delete may pass the revision it last saw and then
 * fails with ERR_CONFLICT when someone changed the spec meanwhile (compare
 * and swap). The directory store's revision is the sha256 hex of the
 * file's bytes: a rename-based write always changes it unless the bytes
 * are the same, and then a lost update cannot lose anything. "" means
 * "does not exist", so a put expecting "" only creates.
 *
 * State: small per-name JSON documents of a few kinds (status, meta, the
 * record of what apply wrote; and one per controller: its warm pool), an
 * append-only event log per name, and the
 * captured output of an attempt. Every write of a document is atomic: a
 * reader sees the old or the new one, never a mix.
 */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "spec.h"

#define STORE_REV_MAX    72
#define STORE_NAME_MAX   63
#define STORE_EVENTS_MAX (4 * 1024 * 1024) /* bytes of events read back */
#define STORE_STATE_MAX  (1024 * 1024)     /* bytes of one state document */

/* One resource as stored. A valid one has inv != NULL and errors == NULL;
 * an invalid one (a hand-written file that does not parse or validate,
 * or a name that two files define) has inv == NULL and errors set. */
struct store_spec {
    char *name; /* metadata.name; for an invalid file, its base name
                   without .yaml/.yml */
    char *key;  /* where it lives: the file path for the directory */
    char *data; /* the raw bytes of the whole file (NUL-terminated) */
    size_t len;
    char rev[STORE_REV_MAX];
    size_t docs;                 /* documents in that file (1 usually) */
    struct spec_invocation *inv; /* owned; NULL when invalid */
    struct spec_errors *errors;  /* owned; NULL when valid */
    bool terminating; /* deleted, its cleanup pending (store_terminating) */
};

/* Every resource, sorted by name (then key). */
struct store_list {
    struct store_spec *items;
    size_t n;
};

enum store_change_kind {
    STORE_CHANGE_PUT,    /* created or changed (maybe now invalid) */
    STORE_CHANGE_DELETE, /* gone */
    STORE_CHANGE_RESYNC, /* changes were lost (queue overflow): list all */
};

struct store_change {
    enum store_change_kind kind;
    char name[STORE_NAME_MAX + 1]; /* "" for RESYNC */
};

/* Kinds of per-name state documents (JSON objects). */
enum store_doc {
    STORE_DOC_STATUS,  /* status/<name>.json: written by the controller */
    STORE_DOC_META,    /* meta/<name>.json: uid, generation, ... */
    STORE_DOC_APPLIED, /* applied/<name>: what agentctl apply wrote */
    STORE_DOC_POOL,    /* pool/<controller-id>.json: the controller's warm
                          pool, written by it (docs/warm-pool.md) */
};

/* uid, generation and creation time of a name (metadata the user does not
 * write). */
struct store_meta {
    char uid[37];                /* UUID v4 */
    uint64_t generation;         /* advances when the spec hash changes */
    char creation_timestamp[32]; /* RFC 3339 UTC, e.g. 2026-12-02T09:00:00Z */
    char spec_hash[65];          /* hash the generation was counted for */
};

struct store;

/* One name's status write of store_status_write_many(): what to write
 * (status NULL: the events only; remove: the events, then the name's
 * status and metadata documents deleted, as when its spec is gone and
 * its objects too) and, after the call, how it went. */
struct store_status_item {
    const char *name;
    const char *status;
    size_t len;
    char *const *events;
    size_t n_events;
    bool remove;
    int rc; /* out: 0, or -1 with err */
    struct err err;
};

/* One name's claim or release of store_claim_many(), and how it went. */
struct store_claim_item {
    const char *name;
    bool release;  /* drop the claim bound to the lease, else take it */
    int rc;        /* out: 0, or -1 with err (store_claim()'s meaning) */
    bool was_free; /* out, a claim taken: nobody held the name before */
    struct err err;
};

/* The answer of a request sent without blocking: rc 0, or -1 with e. */
typedef void store_done_fn(void *arg, int rc, const struct err *e);
/* The answer of store_lease_grant_async(): rc 0 with the lease, or -1
 * with e. */
typedef void store_lease_fn(void *arg, int rc, int64_t lease,
                            const struct err *e);

struct store_ops {
    int (*list)(struct store *s, struct store_list *out, struct err *e);
    /* optional: one name without a list (NULL: store_get lists) */
    int (*get)(struct store *s, const char *name, struct store_spec *out,
               struct err *e);
    int (*put)(struct store *s, const char *name, const char *data, size_t len,
               const char *expect_rev, char new_rev[STORE_REV_MAX],
               struct err *e);
    int (*del)(struct store *s, const char *name, const char *expect_rev,
               struct err *e);
    int (*watch_fd)(struct store *s, struct err *e);
    int (*watch_read)(struct store *s, struct store_change *out, size_t max,
                      size_t *n, struct err *e);
    int (*lock)(struct store *s, struct err *e);
    void (*unlock)(struct store *s);
    int (*doc_get)(struct store *s, enum store_doc kind, const char *name,
                   char **data, size_t *len, struct err *e);
    int (*doc_put)(struct store *s, enum store_doc kind, const char *name,
                   const char *data, size_t len, struct err *e);
    int (*doc_create)(struct store *s, enum store_doc kind, const char *name,
                      const char *data, size_t len, struct err *e);
    int (*doc_del)(struct store *s, enum store_doc kind, const char *name,
                   struct err *e);
    int (*doc_names)(struct store *s, enum store_doc kind, char ***names,
                     size_t *n, struct err *e);
    int (*event_append)(struct store *s, const char *name, const char *line,
                        struct err *e);
    int (*event_read)(struct store *s, const char *name, char **data,
                      size_t *len, struct err *e);
    int (*output_path)(struct store *s, const char *name, char *path,
                       size_t size, struct err *e);
    void (*close)(struct store *s);
    /* Claims and leases (optional: NULL in the directory store, whose one
     * controller owns every invocation). See store_claim() below. */
    int (*lease_grant)(struct store *s, int ttl_s, int64_t *lease,
                       struct err *e);
    int (*lease_keepalive)(struct store *s, int64_t lease, struct err *e);
    /* optional: store_lease_keepalive_async() */
    int (*lease_keepalive_async)(struct store *s, int64_t lease,
                                 store_done_fn *done, void *arg,
                                 struct err *e);
    /* optional: store_lease_grant_async() */
    int (*lease_grant_async)(struct store *s, int ttl_s, store_lease_fn *done,
                             void *arg, struct err *e);
    /* optional: store_doc_put_async() */
    int (*doc_put_async)(struct store *s, enum store_doc kind,
                         const char *name, const char *data, size_t len,
                         store_done_fn *done, void *arg, struct err *e);
    /* optional: store_watch_primed() (NULL: primed once watch_fd is) */
    bool (*watch_primed)(struct store *s);
    int (*claim)(struct store *s, const char *name, const char *holder,
                 int64_t lease, struct err *e);
    int (*claim_holder)(struct store *s, const char *name, char *holder,
                        size_t size, struct err *e);
    int (*release)(struct store *s, const char *name, int64_t lease,
                   struct err *e);
    /* optional: store_claim_many() in few requests */
    void (*claim_many)(struct store *s, const char *holder, int64_t lease,
                       struct store_claim_item *it, size_t n);
    /* optional: store_claim_many_async() */
    int (*claim_many_async)(struct store *s, const char *holder, int64_t lease,
                            struct store_claim_item *it, size_t n,
                            store_done_fn *done, void *arg, struct err *e);
    /* optional: store_status_write() in one request */
    int (*status_write)(struct store *s, const char *name, const char *status,
                        size_t len, char *const *events, size_t n,
                        struct err *e);
    /* optional: store_status_write_many() in few requests */
    void (*status_write_many)(struct store *s, struct store_status_item *it,
                              size_t n);
    /* optional: store_async_wait() */
    void (*async_wait)(struct store *s, long ms);
    /* optional: store_status_write_many_async() */
    int (*status_write_many_async)(struct store *s,
                                   struct store_status_item *it, size_t n,
                                   store_done_fn *done, void *arg,
                                   struct err *e);
    /* optional: store_batch_begin() / store_batch_end() */
    int (*batch_begin)(struct store *s, struct err *e);
    int (*batch_end)(struct store *s, struct err *e);
    /* optional: store_batch_item_end() */
    void (*batch_item_end)(struct store *s);
};

/* Called once per request to a remote store (etcd: each POST of the
 * JSON gateway, not the watch stream), with its operation ("kv_range",
 * "kv_txn", "lease_keepalive", ...), how long it took and whether it
 * succeeded, and whether the caller waited for it (blocking: the
 * blocking client; false: sent on the watch's connections and answered
 * from a later store_watch_read()). The directory store makes no
 * requests. For a latency histogram and the controller's count of
 * blocking requests; must not block. */
typedef void store_observe_fn(void *arg, const char *operation,
                              double seconds, bool ok, bool blocking);

/* Backends embed this as their first member. */
struct store {
    const struct store_ops *ops;
    const char *backend; /* "dir", "etcd", "kube" */
    store_observe_fn *observe; /* store_set_observer(); NULL: none */
    void *observe_arg;
};

void store_set_observer(struct store *s, store_observe_fn *fn, void *arg);

/* Open the directory store. specs_dir must exist; state_dir NULL means
 * the location the controller recorded in <specs_dir>/.agentctl-state
 * (store_dir_record_state), else "<specs_dir>/.agentctl"; it and its
 * subdirectories are created when missing. Returns NULL and fills e on
 * failure. */
struct store *store_dir_open(const char *specs_dir, const char *state_dir,
                             struct err *e);

/* store_dir_open() for a reader (agentctl get, describe, logs, wait,
 * changes): nothing is created, so a user who may read the state
 * directory but not write it can use it, and a state directory or folder
 * that is missing reads as empty. Writes are still attempted (a first
 * sight's metadata) and fail where the user may not write. */
struct store *store_dir_open_read(const char *specs_dir, const char *state_dir,
                                  struct err *e);

/* The controller's side of that default: record state_dir (made
 * absolute) in <specs_dir>/.agentctl-state, or with state_dir NULL remove
 * the record. -1 with e filled when it cannot be written. */
int store_dir_record_state(const char *specs_dir, const char *state_dir,
                           struct err *e);

/* Open the etcd store (docs/store-etcd.md): urls is one or more
 * comma-separated http(s) endpoints, tried in turn; prefix NULL means
 * "/agentctl"; state_dir (where captured output stays) NULL means
 * /var/lib/agentctl/<prefix, '/' as '_'>. Nothing is sent until the
 * first request, so a down etcd fails the first call, not the open. */
struct store *store_etcd_open(const char *urls, const char *prefix,
                              const char *state_dir, struct err *e);

/* TLS and auth of the etcd store (docs/store-etcd.md "TLS and auth"):
 * ca_file verifies https endpoints (default: the system CAs), cert_file
 * and key_file (together) are the client certificate, user and password
 * authenticate (password may be NULL for an empty one, or be read from
 * password_file). NULL fields are
 * not used. Call before the first request; the strings are copied. */
struct store_etcd_security {
    const char *ca_file, *cert_file, *key_file;
    const char *user, *password;
    const char *password_file; /* instead of password: its first line */
};
int store_etcd_set_security(struct store *s,
                            const struct store_etcd_security *sec,
                            struct err *e);

/* The controller's informer cache of the etcd store (docs/store-etcd.md
 * "The controller's cache"): once store_watch_fd() was called, the specs,
 * status and metadata documents and claim holders are listed once and
 * then kept from watch events, and reads of them come from memory. on
 * false sends those reads to etcd again (the watch still runs): the
 * negative control of the tests. A no-op on another store. */
void store_etcd_set_cache(struct store *s, bool on);

/* on: the requests the controller's loop sends without blocking (a lease
 * grant, the pool document, the lists that start the watches) are made
 * the blocking way again, as before (store_etcd_loop.c): the negative
 * control of tests/integration/scaleout/test_etcd_stall.sh. A no-op on
 * another store. */
void store_etcd_set_loop_blocking(struct store *s, bool on);

/* Open the Kubernetes API server store (docs/store-kube.md): specs are
 * AgentInvocation objects of the server the kubeconfig file names
 * (context NULL: its current context), or, with kubeconfig NULL or "",
 * of the cluster whose pod this is (its service account). state_dir
 * (where captured output stays) NULL means /var/lib/agentctl/kube.
 * Nothing is sent until the first request. */
struct store *store_kube_open(const char *kubeconfig, const char *context,
                              const char *state_dir, struct err *e);
/* The controller ID whose Lease agentctl-controller-<holder> the store's
 * lease calls grant and renew (docs/store-kube.md "Leases and claims").
 * check_holders false: every claim looks free, whoever holds it (the
 * negative control of tests/integration/kube/test_kube_leases.sh). A
 * no-op on another store. */
void store_kube_set_holder(struct store *s, const char *holder,
                           bool check_holders);
/* on: the lease grant and the claims the controller's loop sends without
 * blocking (store_kube_claim_async.c) go the blocking way again, as
 * before: the negative control of test_kube_leases.sh's count of the
 * requests the loop waited for. A no-op on another store. */
void store_kube_set_loop_blocking(struct store *s, bool on);

/* Close and free; NULL is a no-op. */
void store_close(struct store *s);

/* Every resource in the store; free with store_list_cleanup(). */
int store_list(struct store *s, struct store_list *out, struct err *e);
void store_list_cleanup(struct store_list *l);

/* The resource called name (valid or invalid): out is filled and the
 * caller calls store_spec_cleanup(). -1 with ERR_NOTFOUND when absent. */
int store_get(struct store *s, const char *name, struct store_spec *out,
              struct err *e);
void store_spec_cleanup(struct store_spec *sp);

/* Write the bytes of one resource called name, atomically (a reader sees
 * the old or the new bytes). expect_rev NULL writes unconditionally, ""
 * only creates, anything else must equal the current revision, else -1
 * with ERR_CONFLICT. ERR_CONFLICT also when the name lives in a file the
 * store cannot rewrite for it (another file name, several documents).
 * new_rev (may be NULL) gets the new revision. */
int store_put(struct store *s, const char *name, const char *data, size_t len,
              const char *expect_rev, char new_rev[STORE_REV_MAX],
              struct err *e);

/* Remove the resource called name (CAS as for put). ERR_NOTFOUND when
 * absent; ERR_CONFLICT when its file also holds other documents. */
int store_del(struct store *s, const char *name, const char *expect_rev,
              struct err *e);

/* A file descriptor that becomes readable when specs change (inotify for
 * the directory); owned by the store. -1 on failure. */
int store_watch_fd(struct store *s, struct err *e);

/* etcd: store_watch_fd() lists every cached key directory without
 * blocking; until those lists are answered the cache cannot serve a
 * list, and store_list() would ask etcd the blocking way. false until
 * then; a caller that waits for it gets a RESYNC from store_watch_read()
 * once it is true, and lists then (from the cache). true on a store with
 * nothing to wait for (the directory). */
bool store_watch_primed(struct store *s);

/* Drain pending notifications into at most max changes (*n of them) and
 * never block. A temp dot-file being written is never reported; a file
 * that does not parse is reported as a PUT of an invalid resource (list
 * or get says so). When more changes are pending than fit, a RESYNC is
 * reported. */
int store_watch_read(struct store *s, struct store_change *out, size_t max,
                     size_t *n, struct err *e);

/* A batch of spec and document writes from one command (agentctl apply):
 * between begin and end every write is checked as usual, but is made
 * durable and visible only at end, all at once (the directory store:
 * one syncfs() and one fsync per directory instead of two fsyncs per
 * file; each file is still replaced atomically). A write in a batch is
 * not seen by reads until end. end reports the first failure; a store
 * closed without end drops the batch. On etcd: spec, metadata and
 * applied-record writes are queued and sent as one txn per 128 (each
 * write's compare kept; a refused txn is retried write by write, so only
 * the stale ones fail), metadata is read once at begin, and any other
 * request sends the queue first (store_etcd_batch.c). */
int store_batch_begin(struct store *s, struct err *e);
int store_batch_end(struct store *s, struct err *e);
/* The writes queued since the last call belong to one item (a spec, its
 * applied record, its metadata): they go in the same txn. Otherwise a
 * spec could land in one txn and its metadata in the next, and a
 * controller that saw the spec first creates the metadata itself: the
 * next txn's create-only compare fails and all its writes go again one by
 * one (seconds for an apply of 1,000). Nothing outside a batch. */
void store_batch_item_end(struct store *s);

/* Serialise read-compare-write sequences between processes (flock on
 * <state>/lock for the directory). Nested calls on one store count. */
int store_lock(struct store *s, struct err *e);
void store_unlock(struct store *s);

/* State documents. get: *data is the caller's (NUL-terminated), -1 with
 * ERR_NOTFOUND when absent. put: atomic replace. create: only when absent,
 * else -1 with ERR_CONFLICT, and two racing creators cannot both win.
 * del: absent is not an error. names: every name holding a document of
 * that kind, sorted; free with store_names_free(). */
int store_doc_get(struct store *s, enum store_doc kind, const char *name,
                  char **data, size_t *len, struct err *e);
int store_doc_put(struct store *s, enum store_doc kind, const char *name,
                  const char *data, size_t len, struct err *e);
int store_doc_create(struct store *s, enum store_doc kind, const char *name,
                     const char *data, size_t len, struct err *e);
int store_doc_del(struct store *s, enum store_doc kind, const char *name,
                  struct err *e);
int store_doc_names(struct store *s, enum store_doc kind, char ***names,
                    size_t *n, struct err *e);
void store_names_free(char **names, size_t n);

/* Deleted invocations whose cleanup is pending ("Terminating"): the
 * controller deletes a deleted invocation's status last, once every
 * Docker object of it is gone (docs/status.md), so a status whose name
 * has no spec is one. Each as a store_spec with terminating set, no key
 * and no data, inv the spec its attempt was captured from
 * (status.captured; NULL when nothing was captured). list adds them to
 * l (from store_list), which stays sorted by name; get is one name's,
 * ERR_NOTFOUND when it has a spec or no status. */
int store_terminating_list(struct store *s, struct store_list *l,
                           struct err *e);
int store_terminating_get(struct store *s, const char *name,
                          struct store_spec *out, struct err *e);

/* JSON helpers over the documents: get parses (ERR_SYNTAX when the
 * document is not a JSON object; caller deletes), put prints compactly. */
int store_json_get(struct store *s, enum store_doc kind, const char *name,
                   cJSON **out, struct err *e);
int store_json_put(struct store *s, enum store_doc kind, const char *name,
                   const cJSON *doc, struct err *e);

/* Events: append one JSON object as one line (no newline in line), and
 * read back the whole log (caller frees; at most STORE_EVENTS_MAX bytes,
 * the newest kept). A missing log reads as empty. */
int store_event_append(struct store *s, const char *name, const char *line,
                       struct err *e);
/* A status document (NULL: none) and the events that led to it (n
 * lines, each as store_event_append() takes it) written together: on
 * etcd one txn, so a pass's status and events cost one request; else
 * the events, then the status. The events are appended even when the
 * status write fails after them (they happened). */
int store_status_write(struct store *s, const char *name, const char *status,
                       size_t len, char *const *events, size_t n,
                       struct err *e);
/* store_status_write() for several names at once: on etcd as few txns
 * as etcd's limits allow (a refused one is written name by name), so
 * every item gets its own rc; elsewhere one by one. */
void store_status_write_many(struct store *s, struct store_status_item *it,
                             size_t n);
/* store_status_write_many() without blocking the caller's loop (etcd: a
 * txn per chunk on the watch's connection pool, answered from a later
 * store_watch_read()). it[0..n), the names, texts and events it points
 * to belong to the store until done, which gets 0: every item has its rc
 * (a txn etcd refused is tried again name by name; one it did not answer
 * fails its items with its error). A store that cannot (no watch yet, no
 * grouping) writes the blocking way and calls done before returning. -1
 * (done never called, every item says why) when nothing could be sent. */
int store_status_write_many_async(struct store *s, struct store_status_item *it,
                                  size_t n, store_done_fn *done, void *arg,
                                  struct err *e);
/* Block up to ms while requests sent without blocking (the *_async
 * calls) are answered, their callbacks run: for a caller about to close
 * the store that must know how its last writes went. */
void store_async_wait(struct store *s, long ms);
/* Whether store_status_write_many() saves requests (etcd): a caller may
 * gather writes for it. */
bool store_groups_status(const struct store *s);
int store_event_read(struct store *s, const char *name, char **data,
                     size_t *len, struct err *e);

/* Path of the captured output of name (the file may not exist yet). */
int store_output_path(struct store *s, const char *name, char *path,
                      size_t size, struct err *e);

/* Path of the egress audit of name (the file may not exist yet): the
 * credential gateway's request lines and the egress proxy's tunnel lines
 * of the last attempt, beside its output (output/<name>.egress.jsonl),
 * written by the controller when it removes the box. Always local. */
int store_egress_path(struct store *s, const char *name, char *path,
                      size_t size, struct err *e);

/* A file of name beside its output: output/<name><ext> (ext ".egress.jsonl",
 * ".changes.json", ...). Always local. */
int store_beside_output(struct store *s, const char *name, const char *ext,
                        char *path, size_t size, struct err *e);

/* Claims (docs/store-etcd.md "Claims and leases"): on a store with
 * claims, each invocation is worked on by the one controller whose claim
 * key <prefix>/claims/<name> is bound to its live lease.
 * has_claims: false for the directory store (one controller owns all;
 * every other claim call is then a no-op returning 0).
 * lease_grant: a new lease of ttl_s seconds. lease_keepalive: renew it;
 * -1 with ERR_NOTFOUND when the lease has expired (its claims are gone).
 * claim: take name for holder under lease (create-only); 0 also when
 * holder already holds it (under any lease: a restarted controller takes
 * its own claims over); -1 ERR_CONFLICT when another holder has it.
 * claim_holder: who holds name; -1 ERR_NOTFOUND when nobody.
 * release: drop the claim when it is bound to lease (else nothing). */
bool store_has_claims(const struct store *s);
int store_lease_grant(struct store *s, int ttl_s, int64_t *lease,
                      struct err *e);
int store_lease_keepalive(struct store *s, int64_t lease, struct err *e);
/* The keep-alive without blocking the caller's loop (etcd: on the watch's
 * connection pool, answered from a later store_watch_read(), so call
 * store_watch_fd() first). done gets what store_lease_keepalive() would
 * return. A store that cannot (no watch yet) renews the blocking way and
 * calls done before returning. -1 (done never called) when nothing could
 * be started. */
int store_lease_keepalive_async(struct store *s, int64_t lease,
                                store_done_fn *done, void *arg, struct err *e);
/* A new lease without blocking (etcd, as the keep-alive); a store that
 * cannot grants the blocking way and calls done before returning. -1
 * (done never called) when nothing could be started. */
int store_lease_grant_async(struct store *s, int ttl_s, store_lease_fn *done,
                            void *arg, struct err *e);
/* store_doc_put() without blocking (etcd: the pool document; a kind the
 * store caches, or a store that cannot, writes the blocking way and calls
 * done before returning). The store keeps its own copy of data. */
int store_doc_put_async(struct store *s, enum store_doc kind, const char *name,
                        const char *data, size_t len, store_done_fn *done,
                        void *arg, struct err *e);
int store_claim(struct store *s, const char *name, const char *holder,
                int64_t lease, struct err *e);
int store_claim_holder(struct store *s, const char *name, char *holder,
                       size_t size, struct err *e);
int store_release(struct store *s, const char *name, int64_t lease,
                  struct err *e);
/* store_claim() and store_release() of several names at once (each name
 * at most once): on etcd one txn per 64 names, each claim or release won
 * or lost on its own; elsewhere one by one. Every item gets its own rc;
 * was_free tells a claim that created the key from one holder already
 * had (the controller's NodeLost rule tells the two apart). */
void store_claim_many(struct store *s, const char *holder, int64_t lease,
                      struct store_claim_item *it, size_t n);
/* store_claim_many() without blocking the caller's loop, at most
 * STORE_CLAIMS_ASYNC_MAX items (etcd: one txn on the watch's connection
 * pool, answered from a later store_watch_read()). it[0..n) belongs to
 * the store until done, which gets 0: every item has its rc (a request
 * etcd did not answer fails every item with its error). A store that
 * cannot (no watch yet, no claims) claims the blocking way and calls done
 * before returning. -1 (done never called, the items untouched) when
 * nothing could be started. */
#define STORE_CLAIMS_ASYNC_MAX 64
int store_claim_many_async(struct store *s, const char *holder, int64_t lease,
                           struct store_claim_item *it, size_t n,
                           store_done_fn *done, void *arg, struct err *e);

/* The metadata of name, assigned when first seen: a new UUID v4,
 * generation 1 and the creation time; later calls advance the generation
 * by one when spec_hash differs from the recorded one. Race-safe: two
 * processes seeing a name at once get the same uid. */
int store_meta_observe(struct store *s, const char *name, const char *spec_hash,
                       struct store_meta *out, struct err *e);

/* Read the metadata without changing it; ERR_NOTFOUND when never seen. */
int store_meta_get(struct store *s, const char *name, struct store_meta *out,
                   struct err *e);

/* A random UUID v4 from /dev/urandom into out. */
int store_uuid4(char out[37], struct err *e);

/* true when name is a DNS-1123 label (the only names the store accepts,
 * so a name can never be a path). */
bool store_name_ok(const char *name);

/* true when name may name a document of kind: a DNS-1123 label
 * (store_name_ok), except STORE_DOC_POOL, named by a controller ID:
 * 1-63 of [A-Za-z0-9._-], not starting with '.' (never "." or "..", nor
 * a hidden or temp file of the directory store), still never a path. */
bool store_doc_name_ok(enum store_doc kind, const char *name);

#endif
