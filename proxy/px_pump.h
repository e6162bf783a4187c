/* px_pump.h - one direction of a tunnel (src -> dst) and the pump that
 * moves its bytes: splice(2) through a kernel pipe (zero-copy), or
 * recv/send through the loop's scratch buffer where splice cannot be used.
 *
 * A direction holds a pipe only while the pipe holds bytes its dst has
 * not taken yet; an empty pipe goes back to the loop's small pool (or is
 * closed), so an idle tunnel holds none (2 descriptors per pipe; a tunnel
 * holds at most 2 pipes, 6 descriptors with its two sockets). While a
 * direction holds bytes (pipe or buffer) its src is not read: the
 * back-pressure reaches the sender.
 */
#ifndef PX_PUMP_H
#define PX_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct px;

/* What a tunnel direction's pipe is sized to (F_SETPIPE_SZ, up to
 * /proc/sys/fs/pipe-max-size, 1 MiB by default; a pipe keeps the
 * kernel's 64 KiB when the call is refused, e.g. past the user's
 * pipe-user-pages-soft): the most one splice moves, and the most one
 * direction holds (kernel memory, not the proxy's RSS) while its reader
 * is slow. 64 KiB, 256 KiB and 1 MiB measured side by side: 1 MiB spends
 * the least CPU per byte (fewer calls), docs/bench-proxy.md. */
#ifndef PX_PIPE_SIZE /* -D for a benchmark's variant */
#define PX_PIPE_SIZE (1024 * 1024)
#endif
/* Empty pipes the loop keeps for the next direction that needs one, and
 * for how long after the last was given back: a quiet proxy holds no
 * pipe. A pipe counts against its user's pipe-user-pages-soft (64 MiB of
 * pipe buffers by default, for every process of the uid together: the
 * proxies of all boxes run as nobody); past it new pipes get 2 pages. */
#define PX_PIPE_SPARE 2
#define PX_PIPE_LINGER 1.0

/* Test hooks (struct px's test_faults; never set by the daemon). */
enum px_fault {
    /* every splice fails with EINVAL: the copying fallback is used */
    PX_FAULT_SPLICE_EINVAL = 1 << 0,
    /* the protection broken on purpose: at EOF the pump passes the EOF
     * on at once and drops what the direction's pipe still holds */
    PX_FAULT_EOF_DROPS_PIPE = 1 << 1,
};

struct px_kpipe {
    int rd, wr; /* -1 when none */
    uint32_t size; /* its capacity in bytes (F_GETPIPE_SZ) */
};

/* One direction: bytes read from src waiting to be written to dst. */
struct px_dir {
    char *buf;         /* copied bytes (fallback, answers); owned */
    uint32_t off;      /* first unsent byte in buf */
    uint32_t len;      /* unsent bytes from off */
    struct px_kpipe pipe; /* holds `held` bytes; rd -1 when none */
    uint32_t held;     /* bytes in pipe, not yet written to dst */
    bool copy;         /* splice refused (EINVAL): recv/send from now on */
    bool eof;          /* src sent EOF */
    bool shut;         /* dst has been shut down for writing */
    uint64_t bytes;    /* written to dst */
};

/* Bytes the direction holds (in its buffer or its pipe). */
static inline size_t
px_dir_pending(const struct px_dir *d)
{
    return (size_t)d->len + d->held;
}

/* Move src -> dst until src is dry, dst is full, src ends (then dst is
 * shut down for writing once everything is out) or a budget is spent (one
 * busy tunnel cannot starve the others). Returns the bytes read from src
 * (0: none), or -1 on a hard error (reset, out of memory). */
ssize_t px__pump(struct px *px, struct px_dir *d, int src, int dst);

/* Send data to fd now; keep what fd does not take in d's buffer. Only
 * when d holds nothing. fd -1: keep all. -1 on a hard error or out of
 * memory. */
int px__dir_send(struct px_dir *d, int fd, const char *data, size_t n);

/* Send what d's buffer holds to fd; -1 on a hard error. */
int px__dir_flush(struct px_dir *d, int fd);

/* Drop what d holds: free its buffer, give its pipe back. */
void px__dir_cleanup(struct px *px, struct px_dir *d);

/* Close the loop's spare pipes (and stop their timer). */
void px__pipes_free(struct px *px);

#endif
