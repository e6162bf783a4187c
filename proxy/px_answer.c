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

size_t
px_answer_format(char *buf, size_t size, int status)
{
    int n = snprintf(buf, size,
                     "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n"
                     "Connection: close\r\n\r\n",
                     status, px_answer_reason(status));

    return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}
