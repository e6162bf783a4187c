/* buf.h - a growable byte buffer with a hard cap (curl DYNBUF.md "toobig").
 *
 * Every buffer that grows with peer input (a Docker response body, a spec
 * file, a JSON document) is a struct buf with a cap set at init: an append
 * past the cap fails with ERR_LIMIT and leaves the buffer as it was. The
 * data is always NUL-terminated so text can be used in place.
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>

#include "err.h"

struct buf {
    char *data; /* NULL until the first append; owned */
    size_t len; /* bytes used, not counting the terminating NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* most bytes the buffer may ever hold */
};

/* Prepare an empty buffer that may hold up to max bytes. */
void buf_init(struct buf *b, size_t max);

/* Free the memory and reset to empty (the cap is kept). */
void buf_cleanup(struct buf *b);

/* Forget the contents, keep the memory. */
void buf_reset(struct buf *b);

/* Allocate room for n bytes now: appends that stay within it never move
 * the data (for buffers that must be wiped where they are). -1 with
 * ERR_LIMIT past the cap, ERR_NOMEM on failure. */
int buf_preallocate(struct buf *b, size_t n, struct err *e);

/* Append n bytes. -1 with ERR_LIMIT past the cap, ERR_NOMEM on failure. */
int buf_append(struct buf *b, const void *p, size_t n, struct err *e);

/* Append a NUL-terminated string. */
int buf_puts(struct buf *b, const char *s, struct err *e);

/* Append printf-style text. */
int buf_printf(struct buf *b, struct err *e, const char *fmt, ...)
    ERR_PRINTF(3, 4);

/* Hand the data to the caller (who frees it) and reset the buffer. Returns
 * an empty string when nothing was appended; NULL only when out of memory. */
char *buf_take(struct buf *b);

#endif
