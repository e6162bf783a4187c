/* px_answer.h - the proxy's fixed answers: the status line and headers it
 * sends for 200 and for every refusal. Pure code. */
#ifndef PX_ANSWER_H
#define PX_ANSWER_H

#include <stddef.h>

/* The largest answer px_answer_format() writes, terminating NUL included. */
#define PX_ANSWER_MAX 128

/* The reason phrase of a status the proxy answers ("Forbidden"); "Error"
 * for any other. */
const char *px_answer_reason(int status);

/* Write the answer for an error status (`HTTP/1.1 403 Forbidden`,
 * `Content-Length: 0`, `Connection: close`) into buf. Returns its length,
 * or 0 when size is too small. */
size_t px_answer_format(char *buf, size_t size, int status);

#endif
