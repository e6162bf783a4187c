/* px_answer.h - the proxy's fixed answers: the status line and headers it
 * sends for 200 and for every refusal. Pure code. */
#ifndef PX_ANSWER_H
#define PX_ANSWER_H

#include <stddef.h>

/* The largest answer px_answer_format() writes, terminating NUL included. */
#define PX_ANSWER_MAX 320

/* The reason phrase of a status the proxy answers ("Forbidden"); "Error"
 * for any other. */
const char *px_answer_reason(int status);

/* The RFC 9209 error type of a refusal with this status when the caller
 * has no finer one: http_request_denied (403, 405), http_request_error
 * (other 4xx), connection_limit_reached (503), connection_timeout (504),
 * destination_unavailable (any other). */
const char *px_answer_error(int status);

/* Write the answer for an error status into buf: the status line, a
 * Proxy-Status field naming the refusal (RFC 9209: `agentctl-egress-proxy;
 * error=<error>; details="<details>"`, so an agent - or a model reading
 * its output - can tell a policy refusal from a network fault),
 * `Content-Length: 0`, `Connection: close`. error NULL: px_answer_error();
 * details NULL: none. details must be printable ASCII without '"' or '\'
 * (the callers pass fixed text). Returns its length, or 0 when size is
 * too small. */
size_t px_answer_format(char *buf, size_t size, int status, const char *error,
                        const char *details);

#endif
