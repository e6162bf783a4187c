/* inv_auditline.h - the pure parts of the live egress audit
 * (out_egress.c): Docker's log lines framed under a cap, the timestamp
 * Docker puts in front of each, the resume rule, and an audit line judged
 * (strict UTF-8 JSON object) and rewritten for egress.jsonl.
 *
 * The resume rule. Each source (the gateway's stdout, the proxy's stderr)
 * is read with timestamps=1, and its position is the timestamp of the
 * last line taken (`at`) and how many lines with exactly that timestamp
 * were taken (`seen`). A read starts with since=`at`: Docker gives every
 * line at or after it, in the log's order, so the first `seen` lines at
 * `at` are the ones already taken and are passed over, and every other
 * line is new. Within a read the same holds: Docker's follow re-sends
 * lines across a log rotation (with their own, older timestamps); a line
 * before `at` means it reads from an earlier point again, so it and the
 * `seen` lines at `at` that come again are passed over. Limits: the
 * timestamps are Docker's (nanoseconds, the daemon's clock when it got
 * the line); a clock stepped back between two lines of one container
 * puts the later one before `at`, and it is passed over as already taken
 * (never written twice, but lost). */
#ifndef INV_AUDITLINE_H
#define INV_AUDITLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

/* "2026-12-07T12:13:58.123456789Z": RFC3339Nano as Docker writes it,
 * fixed width, so that two compare as strings. */
#define CTL_AUDIT_TS_LEN 30
/* The longest audit line kept (the proxy's are at most 2400 bytes, the
 * gateway's 1536); longer is dropped and counted. */
#define CTL_AUDIT_LINE_MAX 4096
/* With Docker's timestamp (a zone "+HH:MM" at most) and its space. */
#define CTL_AUDIT_FRAME_MAX (CTL_AUDIT_LINE_MAX + CTL_AUDIT_TS_LEN + 6)

/* Where a source's log was read up to (the resume rule above). */
struct inv_audit_pos {
    char at[CTL_AUDIT_TS_LEN + 1]; /* "" before the first line */
    unsigned long seen;            /* lines taken at `at` */
    unsigned long skip;            /* of those, still to pass over in the
                                      read under way */
};

/* A read starts (since = p->at): the lines at `at` already taken will
 * come again and are passed over. */
void inv_audit_pos_begin(struct inv_audit_pos *p);

/* A line with timestamp ts came: true when it is new (and p now says it
 * was taken), false when it was taken before (passed over). */
bool inv_audit_pos_take(struct inv_audit_pos *p, const char *ts);

/* ts starts with a timestamp in the canonical form above
 * (CTL_AUDIT_TS_LEN bytes, UTC, "Z"). */
bool inv_audit_ts_valid(const char *ts, size_t len);

/* The timestamp Docker put in front of a log line (timestamps=1): RFC
 * 3339 with 9 decimals, in the daemon's time zone ("Z" or "+HH:MM"),
 * then a space. Writes its canonical UTC form to out and returns the
 * bytes it took, space included; 0 when line does not start with one. */
size_t inv_audit_ts_take(const char *line, size_t len,
                         char out[CTL_AUDIT_TS_LEN + 1]);

/* Docker's since= for ts: "SECONDS.NANOSECONDS". -1 (ERR_INVALID) when ts
 * is not valid. */
int inv_audit_since(const char *ts, char *out, size_t size, struct err *e);

/* Lines out of a byte stream cut anywhere, at most CTL_AUDIT_FRAME_MAX
 * bytes kept of each: a longer line is reported once, cut, with over
 * set. A line without its '\n' at the end of the stream stays pending. */
typedef void inv_audit_line_fn(const char *line, size_t len, bool over,
                               void *arg);

struct inv_audit_framer {
    char buf[CTL_AUDIT_FRAME_MAX + 1]; /* NUL-terminated line */
    size_t len;
    bool over; /* the line under way passed the cap */
};

void inv_audit_framer_init(struct inv_audit_framer *f);
void inv_audit_framer_feed(struct inv_audit_framer *f, const char *p, size_t n,
                           inv_audit_line_fn *cb, void *arg);

enum inv_audit_verdict {
    CTL_AUDIT_OTHER, /* not an audit line (another log line): ignored */
    CTL_AUDIT_KEEP,  /* an audit line, one strict JSON object */
    CTL_AUDIT_BAD,   /* carries the marker, but is no strict UTF-8 JSON
                        object: dropped and counted */
};

/* Judge line[0..len) (NUL-terminated at len), without Docker's
 * timestamp: an audit line holds marker (e.g. "\"msg\":\"tunnel\""). */
enum inv_audit_verdict inv_audit_judge(const char *line, size_t len,
                                       const char *marker);

/* Append the line (one inv_audit_judge() kept) as egress.jsonl holds it:
 * {"source":"<source>", then the line after its '{', every occurrence of
 * secret (may be NULL) replaced by <redacted>, then '\n'. -1 when out
 * does not take it (ERR_LIMIT) or the redaction left no JSON object
 * (ERR_SYNTAX); out is then as it was. */
int inv_audit_render(struct buf *out, const char *source, const char *line,
                     const char *secret, struct err *e);

#endif
