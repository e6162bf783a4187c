/* dk_engine.h - the Engine API calls agentctl makes, typed: the one place
 * request paths, query parameters and methods are written.
 *
 * Every call is asynchronous and follows the rules of dk.h: a call that
 * cannot start returns NULL with e filled and never runs cb; one that
 * starts runs cb exactly once, later, unless it is cancelled. References
 * (IDs, names, image references) are percent-escaped here, so callers pass
 * them as Docker reports them.
 */
#ifndef DK_ENGINE_H
#define DK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "dk.h"
#include "err.h"

/* The kinds of object the controller creates, inspects, lists and
 * removes (images are only inspected). */
enum dk_kind {
    DK_CONTAINER,
    DK_NETWORK,
    DK_VOLUME,
    DK_IMAGE,
};

/* "container", "network", "volume", "image". */
const char *dk_kind_name(enum dk_kind kind);

/* Optional knobs of a call; NULL or zeroed = dk.h's defaults. */
struct dk_call {
    long timeout_ms; /* 0: DK_DEFAULT_TIMEOUT_MS; DK_NO_TIMEOUT: none */
    size_t max_body; /* 0: DK_DEFAULT_MAX_BODY */
    bool wipe_body;  /* the request body holds a secret: zero the printed
                        copy once it is handed over */
};

/* GET the object's inspect document: /containers/{ref}/json,
 * /networks/{ref}, /volumes/{ref}, /images/{ref}/json. ref is an ID or a
 * name (a volume has only its name). */
struct dk_req *dk_inspect(struct dk *dk, enum dk_kind kind, const char *ref,
                          dk_done_fn *cb, void *arg, struct err *e);

/* DELETE the object. A container is removed with force=1 (a running one
 * is killed first). Images are never removed: ERR_INVALID. */
struct dk_req *dk_remove(struct dk *dk, enum dk_kind kind, const char *ref,
                         dk_done_fn *cb, void *arg, struct err *e);

/* POST the create body. name goes into the query for containers
 * (?name=...) and must be NULL for networks and volumes, whose body names
 * them. call may be NULL. */
struct dk_req *dk_create(struct dk *dk, enum dk_kind kind, const char *name,
                         const cJSON *body, const struct dk_call *call,
                         dk_done_fn *cb, void *arg, struct err *e);

/* GET the list of objects (containers: all=1, stopped ones too) whose
 * filter key holds one of values[0..n): filters={"<key>":[values...]}.
 * key NULL lists everything. */
struct dk_req *dk_list(struct dk *dk, enum dk_kind kind, const char *key,
                       const char *const *values, size_t n, dk_done_fn *cb,
                       void *arg, struct err *e);

/* POST /containers/{id}/start (304 when it runs already counts as ok). */
struct dk_req *dk_container_start(struct dk *dk, const char *id, dk_done_fn *cb,
                                  void *arg, struct err *e);

/* POST /containers/{id}/wait: the answer comes when the container exits
 * ({"StatusCode": n}). timeout_ms: DK_NO_TIMEOUT to wait as long as it
 * runs. */
struct dk_req *dk_container_wait(struct dk *dk, const char *id, long timeout_ms,
                                 dk_done_fn *cb, void *arg, struct err *e);

/* The exit code in a successful /wait answer; -1 when it has none. */
long dk_wait_status(const struct dk_response *r);

/* GET the container's stdout and stderr so far, as one multiplexed body
 * (dk_logs_demux_*). */
struct dk_req *dk_container_logs(struct dk *dk, const char *id, dk_done_fn *cb,
                                 void *arg, struct err *e);

/* The last `lines` lines of each stream, in a body of at most max_body
 * bytes (0: DK_DEFAULT_MAX_BODY): a log that grew without bound is read
 * in bounded memory. */
struct dk_req *dk_container_logs_tail(struct dk *dk, const char *id,
                                      unsigned lines, size_t max_body,
                                      dk_done_fn *cb, void *arg, struct err *e);

/* The same, followed: on_data gets the multiplexed bytes as they come,
 * on_done runs at the end of the stream (the container stopped) or on
 * error. No total deadline. */
struct dk_req *dk_container_follow_logs(struct dk *dk, const char *id,
                                        dk_data_fn *on_data,
                                        dk_done_fn *on_done, void *arg,
                                        struct err *e);

/* What dk_container_read_logs() asks for: one stream of a Tty:false
 * container's log, each line prefixed with Docker's timestamp
 * (RFC3339Nano, 9 digits, and a space) when timestamps is set. */
struct dk_logs_query {
    int stream;        /* 1 stdout, 2 stderr */
    bool follow;       /* keep the stream open for what is written next */
    bool timestamps;   /* timestamps=1 */
    const char *since; /* "SECONDS.NANOSECONDS" (Docker keeps lines at or
                          after it), or NULL: from the first line */
    unsigned tail;     /* the last `tail` lines only; 0: all (after since) */
    long timeout_ms;   /* 0: none (DK_NO_TIMEOUT) */
};

/* GET one stream of the log as it is read (on_data: the multiplexed
 * bytes), with no body held: a log of any size is read in bounded
 * memory. on_done runs at the end (followed: the container stopped) or
 * on error. */
struct dk_req *dk_container_read_logs(struct dk *dk, const char *id,
                                      const struct dk_logs_query *q,
                                      dk_data_fn *on_data, dk_done_fn *on_done,
                                      void *arg, struct err *e);

/* PUT a tar archive into the directory dir of the container. */
struct dk_req *dk_container_put_archive(struct dk *dk, const char *id,
                                        const char *dir, const void *tar,
                                        size_t len, dk_done_fn *cb, void *arg,
                                        struct err *e);

/* The same for an archive that holds a secret (the gateway's key): the
 * client's copy of it is zeroed when the request ends. */
struct dk_req *dk_container_put_secret(struct dk *dk, const char *id,
                                       const char *dir, const void *tar,
                                       size_t len, dk_done_fn *cb, void *arg,
                                       struct err *e);

/* The same, the archive read from src as it is made (dk.h
 * dk_body_stream): bounded memory whatever its size. call's timeout_ms
 * bounds the whole upload (0: DK_DEFAULT_TIMEOUT_MS). */
struct dk_req *dk_container_put_archive_stream(
    struct dk *dk, const char *id, const char *dir,
    const struct dk_body_stream *src, const struct dk_call *call,
    dk_done_fn *cb, void *arg, struct err *e);

/* GET the directory dir of the container as a tar archive (the body),
 * capped at max_body bytes (0: DK_DEFAULT_MAX_BODY). */
struct dk_req *dk_container_get_archive(struct dk *dk, const char *id,
                                        const char *dir, size_t max_body,
                                        dk_done_fn *cb, void *arg,
                                        struct err *e);

/* The same, handed to on_data as it comes (DK_STREAM_RAW), never held
 * whole: for a directory as large as a workspace. No total deadline; it
 * fails (ERR_TIMEOUT) after idle_ms without a byte from the daemon. */
struct dk_req *dk_container_stream_archive(struct dk *dk, const char *id,
                                           const char *dir, long idle_ms,
                                           dk_data_fn *on_data,
                                           dk_done_fn *cb, void *arg,
                                           struct err *e);

/* POST /networks/{ref}/connect with the endpoint body
 * ({"Container": id, "EndpointConfig": ...}). */
struct dk_req *dk_network_connect(struct dk *dk, const char *ref,
                                  const cJSON *body, dk_done_fn *cb, void *arg,
                                  struct err *e);

/* GET /events since the Unix time since, with filters (a JSON object of
 * key -> [values]), one JSON event per on_line call. No total deadline. */
struct dk_req *dk_events(struct dk *dk, long since, const cJSON *filters,
                         dk_data_fn *on_line, dk_done_fn *on_done, void *arg,
                         struct err *e);

/* GET /info: the daemon's configuration (SecurityOptions, ...). */
struct dk_req *dk_info(struct dk *dk, dk_done_fn *cb, void *arg,
                       struct err *e);

/* What GET /info's SecurityOptions say about the boxes' confinement
 * ("name=seccomp,profile=default", "name=apparmor", ...). */
struct dk_security {
    bool seccomp;          /* a seccomp profile applies to containers */
    char seccomp_profile[64]; /* its name: "default", a file, ... */
    bool apparmor;         /* the host has AppArmor */
};

/* Read info's SecurityOptions into out (zeroed first). -1 with e
 * (ERR_INVALID) when the daemon runs containers without seccomp: none
 * listed, or profile "unconfined" - the controller refuses to run then.
 * out is filled either way. */
int dk_security_from_info(const cJSON *info, struct dk_security *out,
                          struct err *e);

/* GET /_ping. fresh: on a new connection, closed after, which proves the
 * daemon accepts connections now (a stopping dockerd closes its listener
 * but still answers on connections already open). */
struct dk_req *dk_ping(struct dk *dk, bool fresh, dk_done_fn *cb, void *arg,
                       struct err *e);

#endif
