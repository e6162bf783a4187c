/* fuzz_gw_script.c - see fuzz_gw_script.h. */
#include "fuzz_gw_script.h"

#include <stdio.h>
#include <string.h>

#define MODEL_BODY                                                             \
    "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\","     \
    "\"content\":\"hi\"}]}"
#define TOOL_BODY                                                              \
    "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[],\"tools\":[{\"type\":"  \
    "\"web_search_20250305\",\"name\":\"web_search\"}]}"

static const char *const requests[] = {
    "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: "
    "application/json\r\nx-api-key: placeholder\r\nContent-Length: "
    "73\r\n\r\n" MODEL_BODY,
    "GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer other\r\n\r\n",
    "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: "
    "103\r\n\r\n" TOOL_BODY,
    "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
    "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "DELETE /v1/files/f1 HTTP/1.1\r\nHost: x\r\n\r\n",
    "POST /v1/messages HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
    "Content-Length: 73\r\n\r\n" MODEL_BODY,
    "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/models HTTP/1.1\r\n"
    "Host: x\r\n\r\n",
    "POST /v1/messages/batches HTTP/1.1\r\nHost: x\r\nContent-Length: "
    "2\r\n\r\n{}",
    "POST /v1/messages HTTP/1.1\r\nHost: x\r\nanthropic-beta: "
    "mcp-client-2025-04-04\r\nContent-Length: 73\r\n\r\n" MODEL_BODY,
};

static const char *const answers[] = {
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    "57\r\n\r\n{\"id\":\"m1\",\"usage\":{\"input_tokens\":10,\"output_tokens\":"
    "5}}",
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: "
    "chunked\r\n\r\n5d\r\nevent: message_start\ndata: "
    "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":"
    "25}}}\n\n\r\n0\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\n",
    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the close",
    "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *
gw_script_request(unsigned i, size_t *n)
{
    const char *s = requests[i % N(requests)];

    *n = strlen(s);
    return s;
}

const char *
gw_script_answer(unsigned i, size_t *n)
{
    const char *s = answers[i % N(answers)];

    *n = strlen(s);
    return s;
}

static bool
value_is(const struct gw_field *f, const char *v)
{
    return f->value_len == strlen(v) && memcmp(f->value, v, f->value_len) == 0;
}

size_t
gw_script_cred_count(const struct gw_req_head *h, enum gw_auth auth,
                     const char *key)
{
    char bearer[256];
    size_t count = 0;

    snprintf(bearer, sizeof(bearer), "Bearer %s", key);
    for (size_t i = 0; i < h->nfields; i++) {
        const struct gw_field *f = &h->fields[i];
        bool ours = (auth == GW_AUTH_API_KEY && gw_field_is(f, "x-api-key") &&
                     value_is(f, key)) ||
                    (auth == GW_AUTH_BEARER &&
                     gw_field_is(f, "authorization") && value_is(f, bearer));

        if (ours) {
            count++;
            continue;
        }
        if (gw_field_is(f, "x-api-key") || gw_field_is(f, "authorization") ||
            gw_field_is(f, "api-key") || gw_field_is(f, "x-goog-api-key") ||
            gw_field_is(f, "cookie"))
            return 0; /* the client's own credential went through */
    }
    return count;
}

bool
gw_script_body_refused(const struct gw_body_policy *p, const char *body,
                       size_t n)
{
    char why[256];

    return gw_body_check(p, body, n, why, sizeof(why)) != NULL;
}
