/* err.h - the error value every fallible function fills.
 *
 * A function that can fail returns 0 or -1 and fills an optional
 * `struct err *`; constructors return NULL and fill it. The err_set*()
 * helpers return -1 so a failure path reads `return err_set(e, ...)`.
 * Every helper accepts e == NULL and then only returns -1.
 */
#ifndef ERR_H
#define ERR_H

#include <stddef.h>

enum err_code {
    ERR_OK = 0,
    ERR_NOMEM,    /* an allocation failed */
    ERR_IO,       /* a system call failed: see sys_errno */
    ERR_SYNTAX,   /* input is not well-formed (YAML, JSON, HTTP) */
    ERR_INVALID,  /* well-formed input that breaks a rule */
    ERR_NOTFOUND, /* the named thing does not exist */
    ERR_CONFLICT, /* someone else changed or holds it */
    ERR_LIMIT,    /* a size, count or depth cap was reached */
    ERR_REMOTE,   /* a peer (dockerd, etcd) answered with an error */
    ERR_TIMEOUT,  /* a deadline passed */
    ERR_UNAVAIL,  /* a peer could not be reached */
    ERR_DENIED,   /* a peer refused us the verb (HTTP 401, 403) */
};

/* Which peer a connection error is about. A process that talks to more
 * than one (the controller: Docker and etcd) must blame the right one:
 * "Docker is unreachable" marks running agents lost, so an etcd timeout
 * may never read as that. Set by the client that made the connection;
 * err_set() clears it. */
enum err_peer {
    ERR_PEER_NONE = 0,
    ERR_PEER_DOCKER, /* the Engine API socket (docker/dk_finish.c) */
};

struct err {
    enum err_code code;
    int sys_errno;      /* errno if a syscall failed, else 0 */
    char msg[256];      /* one sentence, no trailing newline */
    char file[128];     /* input file; "" when not about a file */
    char field[128];    /* field path, e.g. "spec.resources.memory" */
    unsigned line, col; /* 1-based; 0 = unknown */
    enum err_peer peer; /* whose connection failed; ERR_PEER_NONE else */
};

#define ERR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Set code and message; clears the location. Returns -1. */
int err_set(struct err *e, enum err_code c, const char *fmt, ...)
    ERR_PRINTF(3, 4);

/* Like err_set() for a failed system call: records errno and appends
 * ": strerror(errno)" to the message. Returns -1. */
int err_sys(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Set an error about a place in an input file. line and col are 1-based
 * (0 when unknown); field may be NULL. Returns -1. */
int err_set_at(struct err *e, enum err_code c, const char *file,
               unsigned line, unsigned col, const char *field,
               const char *fmt, ...) ERR_PRINTF(7, 8);

/* Put "<prefix>" in front of the message, e.g. "apply web: ". */
void err_prefix(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Render "file:line:col: field: msg" (parts that are unknown are left
 * out) into buf, always NUL-terminated. Returns buf. */
const char *err_format(const struct err *e, char *buf, size_t size);

/* Name of a code, e.g. "invalid", for logs and tests. */
const char *err_code_name(enum err_code c);

#endif
