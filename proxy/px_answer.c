/* px_answer.c - the proxy's fixed answers (see px_answer.h). */
#include "px_answer.h"

#include <stdio.h>

const char *
px_answer_reason(int status)
{
    switch (status) {
    case 200:
        return "Connection established";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}

const char *
px_answer_error(int status)
{
    if (status == 403 || status == 405)
        return "http_request_denied";
    if (status >= 400 && status < 500)
        return "http_request_error";
    if (status == 503)
        return "connection_limit_reached";
    if (status == 504)
        return "connection_timeout";
    return "destination_unavailable";
}

size_t
px_answer_format(char *buf, size_t size, int status, const char *error,
                 const char *details)
{
    int n = snprintf(buf, size,
                     "HTTP/1.1 %d %s\r\nProxy-Status: agentctl-egress-proxy; "
                     "error=%s%s%s%s\r\nContent-Length: 0\r\n"
                     "Connection: close\r\n\r\n",
                     status, px_answer_reason(status),
                     error ? error : px_answer_error(status),
                     details ? "; details=\"" : "", details ? details : "",
                     details ? "\"" : "");

    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}
