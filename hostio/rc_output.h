/* rc_output.h - bounded, validated capture of an agent's stdout+stderr
 * (docs/design.md "output over maxBytes (output-limit), output that is not
 * strict UTF-8 (capture-failure)" and status.output {bytes,truncated,
 * sha256}).
 *
 * A sink in caller memory: open it on a file, feed it the bytes as they
 * arrive (cut anywhere), close it once. On the way to the file the bytes
 * go through, in this order:
 *   1. redaction (optional): each occurrence of the secret becomes
 *      "<redacted>";
 *   2. the limit: the byte at stream offset max_bytes (counted after
 *      redaction) sets `truncated` and stops the capture;
 *   3. strict UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above
 *      U+10FFFF, no sequence cut at the end): the first ill-formed
 *      sequence stops the capture; bad_offset is the offset of its first
 *      byte.
 * Only whole, valid characters reach the file: a character is held back
 * until its last byte arrives, so the file is always strict UTF-8 and
 * never longer than max_bytes, and everything before the stopping point
 * is kept. sha256 covers exactly the bytes in the file.
 *
 * Redaction keeps the last len(secret)-1 bytes pending, because they may
 * be the start of a secret that the next chunk completes; they are let go
 * when the next chunk shows they are not, or at close. Matches are found
 * leftmost first and do not overlap. Only the exact bytes are redacted
 * (not base64 or JSON-escaped forms of the secret).
 */
#ifndef RC_OUTPUT_H
#define RC_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "dk.h"
#include "err.h"

#define RC_OUTPUT_REDACTED   "<redacted>"
#define RC_OUTPUT_NO_BAD     UINT64_MAX /* bad_offset when none */
#define RC_OUTPUT_CHUNK      16384      /* bytes batched per write(2) */
#define RC_OUTPUT_SECRET_MAX (64u * 1024)

enum rc_output_status {
    RC_OUTPUT_OK = 0,          /* capturing; everything so far is stored */
    RC_OUTPUT_LIMIT,           /* max_bytes reached: stopReason output-limit */
    RC_OUTPUT_CAPTURE_FAILURE, /* not strict UTF-8, or a broken log frame:
                                  stopReason capture-failure */
    RC_OUTPUT_IO_ERROR,        /* the file could not be written */
};

struct rc_output {
    int fd;
    uint64_t max_bytes;
    uint64_t in_off;              /* bytes accepted into the UTF-8 stage */
    uint64_t written;             /* bytes in the file (== sha256 input) */
    enum rc_output_status status; /* sticky: once set, input is dropped */
    int truncated;
    uint64_t bad_offset;        /* RC_OUTPUT_NO_BAD unless capture failed */
    struct err err;             /* why the status is not OK; read-only */
    unsigned char seq[4];       /* the character being gathered */
    unsigned seq_len, seq_need; /* bytes held, bytes it will have */
    unsigned char out[RC_OUTPUT_CHUNK]; /* valid bytes not yet written */
    size_t out_len;
    void *sha;             /* EVP_MD_CTX */
    unsigned char *secret; /* owned copy, NULL when not redacting */
    size_t secret_len;
    unsigned char *work;        /* redaction window: pending tail + input */
    size_t work_len;            /* pending bytes at the front of work */
    struct dk_logs_demux demux; /* for rc_output_feed_logs() */
    int demuxing;               /* rc_output_feed_logs() was used */
};

struct rc_output_result {
    uint64_t bytes;  /* bytes in the file */
    int truncated;   /* the limit cut the output */
    char sha256[65]; /* hex digest of the file's bytes */
    enum rc_output_status status;
    uint64_t bad_offset; /* offset of the first byte of the first
                            ill-formed sequence in the (redacted) stream,
                            or RC_OUTPUT_NO_BAD */
};

/* Create (or truncate) path with mode 0600, not following a symlink, and
 * start an empty capture of at most max_bytes. On success the caller must
 * call rc_output_close() exactly once. */
int rc_output_open(const char *path, uint64_t max_bytes, struct rc_output *o,
                   struct err *e);

/* Redact every occurrence of secret[0..len) from here on. Call before the
 * first write; the secret is copied and zeroed at close. ERR_INVALID for
 * an empty secret or one over RC_OUTPUT_SECRET_MAX. */
int rc_output_redact(struct rc_output *o, const void *secret, size_t len,
                     struct err *e);

/* Feed n bytes. Returns the status after them; once not RC_OUTPUT_OK,
 * further input is ignored and the same status is returned. o->err says
 * why in words. */
enum rc_output_status rc_output_write(struct rc_output *o, const void *p,
                                      size_t n);

/* Feed a chunk of a Tty:false Docker logs body (docs/docker-notes.md section
 * 7): the frames are decoded with dk_logs_demux and the stdout and stderr
 * payloads go to rc_output_write() in arrival order. A malformed frame
 * header is RC_OUTPUT_CAPTURE_FAILURE. */
enum rc_output_status rc_output_feed_logs(struct rc_output *o, const void *p,
                                          size_t n);

/* Flush the pending bytes (a secret prefix that never completed; a
 * character cut by the end is a capture failure), close the file and fill
 * *r. Returns -1 with e filled when the file could not be written or
 * closed (r is still filled); a limit or a UTF-8 failure is not an error
 * of close: it is in r->status. A second close only returns -1
 * (ERR_INVALID) with r->status RC_OUTPUT_IO_ERROR. */
int rc_output_close(struct rc_output *o, struct rc_output_result *r,
                    struct err *e);

/* "ok", "output-limit", "capture-failure", "io-error". */
const char *rc_output_status_name(enum rc_output_status s);

#endif
