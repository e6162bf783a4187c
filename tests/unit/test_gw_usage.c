/* test_gw_usage.c - the gateway's usage reader (proxy/gw_usage.h): every
 * response shape of both vendors, plain and streamed, fed whole, split at
 * every byte, byte by byte and chunked on the wire; a huge body in
 * constant memory; a model's output posing as a count; malformed JSON and
 * coded bodies read as "unknown". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_http.h"
#include "gw_usage.h"

struct shape {
    const char *name;
    enum gw_api api;
    bool sse;
    const char *body;
    bool known;
    struct gw_tokens want;
};

static const struct shape shapes[] = {
    { "anthropic json",
      GW_API_ANTHROPIC,
      false,
      "{\"id\":\"msg_1\",\"type\":\"message\",\"content\":[{\"type\":\"text\","
      "\"text\":\"usage: {\\\"input_tokens\\\": 99}\"}],\"usage\":{"
      "\"input_tokens\":12,\"cache_creation_input_tokens\":3,"
      "\"cache_read_input_tokens\":40,\"cache_creation\":{"
      "\"ephemeral_5m_input_tokens\":3},\"output_tokens\":7,"
      "\"server_tool_use\":null,\"service_tier\":\"standard\"}}",
      true,
      { 12, 7, 40, 3 } },
    { "anthropic sse",
      GW_API_ANTHROPIC,
      true,
      "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
      "\"content\":[],\"usage\":{\"input_tokens\":25,"
      "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":100,"
      "\"output_tokens\":1}}}\n\n"
      ": a comment\n"
      "event: ping\ndata: {\"type\": \"ping\"}\n\n"
      "event: content_block_delta\r\n"
      "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
      "\"type\":\"text_delta\",\"text\":\"{\\\"usage\\\":{\\\"output_tokens\\\""
      ":1}}\"}}\r\n\r\n"
      "event: message_delta\r"
      "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"},\"usage\":{\"output_tokens\":15}}\r\r"
      "event: message_delta\n"
      "data: {\"type\":\"message_delta\",\"delta\":{},\n"
      "data: \"usage\":{\"output_tokens\":42}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
      true,
      { 25, 42, 100, 0 } },
    { "anthropic sse, long strings",
      GW_API_ANTHROPIC,
      true,
      "data: {\"type\":\"message_start\",\"message\":{\"usage\":{"
      "\"input_tokens\":3,\"output_tokens\":1}}}\r\n\r\n"
      "data: {\"type\":\"content_block_delta\",\"delta\":{\"partial_json\":"
      "\"a string longer than forty bytes, passed over in bulk: "
      "\\\"}}\\n\\u0022usage\\\":{\\\"output_tokens\\\":99} and on\"}}\r\n"
      "\r\n"
      "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":"
      "8},\"pad\":\"ever so slightly more than forty bytes of padding\"}\n\n",
      true,
      { 3, 8, 0, 0 } },
    { "openai responses json",
      GW_API_OPENAI,
      false,
      "{\"id\":\"resp_1\",\"object\":\"response\",\"output\":[{\"type\":"
      "\"function_call\",\"arguments\":\"{}\",\"usage\":{\"input_tokens\":1}}],"
      "\"usage\":{\"input_tokens\":300,\"input_tokens_details\":{"
      "\"cached_tokens\":256},\"output_tokens\":20,\"output_tokens_details\":"
      "{\"reasoning_tokens\":8},\"total_tokens\":320}}",
      true,
      { 300, 20, 256, 0 } },
    { "openai responses sse",
      GW_API_OPENAI,
      true,
      "event: response.created\n"
      "data: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n"
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n"
      "event: response.completed\n"
      "data: {\"type\":\"response.completed\",\"sequence_number\":9,"
      "\"response\":{\"id\":\"r\",\"output\":[{\"content\":[{\"usage\":{"
      "\"input_tokens\":5}}]}],\"usage\":{\"input_tokens\":1000,"
      "\"input_tokens_details\":{\"cached_tokens\":900},\"output_tokens\":"
      "77,\"total_tokens\":1077}}}\n\n",
      true,
      { 1000, 77, 900, 0 } },
    { "openai responses sse incomplete",
      GW_API_OPENAI,
      true,
      "data: {\"type\":\"response.incomplete\",\"response\":{\"usage\":{"
      "\"input_tokens\":4,\"output_tokens\":2}}}\n\n",
      true,
      { 4, 2, 0, 0 } },
    { "chat json",
      GW_API_OPENAI,
      false,
      "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[],\"usage\":"
      "{\"prompt_tokens\":9,\"completion_tokens\":12,\"total_tokens\":21,"
      "\"prompt_tokens_details\":{\"cached_tokens\":0}}}",
      true,
      { 9, 12, 0, 0 } },
    { "chat sse",
      GW_API_OPENAI,
      true,
      "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":"
      "{\"content\":\"a\"}}],\"usage\":null}\n\n"
      "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],"
      "\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3,"
      "\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\n"
      "data: [DONE]\n\n",
      true,
      { 11, 3, 8, 0 } },
    { "anthropic error body",
      GW_API_ANTHROPIC,
      false,
      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
      false,
      { 0 } },
    { "a stream without its usage event",
      GW_API_OPENAI,
      true,
      "data: {\"type\":\"response.created\"}\n\n",
      false,
      { 0 } },
    { "malformed json",
      GW_API_ANTHROPIC,
      false,
      "{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}",
      false,
      { 0 } },
    { "closer of the wrong kind",
      GW_API_ANTHROPIC,
      false,
      "{\"usage\":{\"input_tokens\":1,\"output_tokens\":2]}",
      false,
      { 0 } },
    { "bad literal",
      GW_API_OPENAI,
      false,
      "{\"x\":nul,\"usage\":{\"input_tokens\":1}}",
      false,
      { 0 } },
    { "bad escape",
      GW_API_OPENAI,
      false,
      "{\"x\":\"\\q\",\"usage\":{\"input_tokens\":1}}",
      false,
      { 0 } },
    { "trailing bytes",
      GW_API_OPENAI,
      false,
      "{\"usage\":{\"input_tokens\":1}} x",
      false,
      { 0 } },
    { "malformed event",
      GW_API_ANTHROPIC,
      true,
      "data: {\"type\":\"message_start\",\"message\":{\"usage\":{"
      "\"input_tokens\":5}}}\n\n"
      "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":}}\n\n",
      false,
      { 0 } },
    { "not a count",
      GW_API_OPENAI,
      false,
      "{\"usage\":{\"input_tokens\":1.5,\"output_tokens\":-2,"
      "\"prompt_tokens\":1234567890123456789012}}",
      false,
      { 0 } },
};

static const struct shape *
shape(const char *name)
{
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        if (strcmp(shapes[i].name, name) == 0)
            return &shapes[i];
    fail_msg("no shape %s", name);
    return NULL;
}

static bool
run(const struct shape *s, size_t split, struct gw_tokens *t)
{
    struct gw_usage u;
    size_t n = strlen(s->body);

    gw_usage_init(&u, s->api, s->sse, false);
    gw_usage_feed(&u, s->body, split);
    gw_usage_feed(&u, s->body + split, n - split);
    return gw_usage_finish(&u, t);
}

static void
check(const struct shape *s, bool known, const struct gw_tokens *t)
{
    if (known != s->known)
        fail_msg("%s: known %d, want %d", s->name, known, s->known);
    if (!known)
        return;
    if (memcmp(t, &s->want, sizeof(*t)) != 0)
        fail_msg("%s: in %llu out %llu cr %llu cw %llu", s->name,
                 (unsigned long long)t->input, (unsigned long long)t->output,
                 (unsigned long long)t->cache_read,
                 (unsigned long long)t->cache_write);
}

static void
test_every_shape_split_at_every_byte(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        size_t n = strlen(shapes[i].body);

        for (size_t split = 0; split <= n; split++) {
            struct gw_tokens t = { 0 };

            check(&shapes[i], run(&shapes[i], split, &t), &t);
        }
    }
}

static void
test_every_shape_byte_by_byte(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const struct shape *s = &shapes[i];
        struct gw_usage u;
        struct gw_tokens t = { 0 };

        gw_usage_init(&u, s->api, s->sse, false);
        for (const char *p = s->body; *p != '\0'; p++)
            gw_usage_feed(&u, p, 1);
        check(s, gw_usage_finish(&u, &t), &t);
    }
}

/* The response tracker hands the reader the de-chunked data. */
static void
on_data(void *arg, const char *p, size_t n)
{
    gw_usage_feed(arg, p, n);
}

static void
test_chunked_response_through_the_tracker(void **state)
{
    const struct shape *s = shape("anthropic sse");
    size_t n = strlen(s->body);
    struct buf wire;
    struct gw_resp r;
    struct gw_usage u;
    struct gw_tokens t = { 0 };

    (void)state;
    buf_init(&wire, 1 << 16);
    assert_int_equal(buf_puts(&wire,
                              "HTTP/1.1 200 OK\r\nContent-Type: "
                              "text/event-stream; charset=utf-8\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n",
                              NULL),
                     0);
    for (size_t off = 0; off < n; off += 7) { /* 7-byte chunks */
        size_t k = n - off < 7 ? n - off : 7;

        assert_int_equal(buf_printf(&wire, NULL, "%zx\r\n", k), 0);
        assert_int_equal(buf_append(&wire, s->body + off, k, NULL), 0);
        assert_int_equal(buf_puts(&wire, "\r\n", NULL), 0);
    }
    assert_int_equal(buf_puts(&wire, "0\r\n\r\n", NULL), 0);
    for (size_t split = 1; split < wire.len; split += 13) {
        size_t used, off = 0;
        enum gw_feed f = GW_FEED_MORE;

        gw_resp_init(&r, false);
        r.on_data = on_data;
        r.data_arg = &u;
        gw_usage_init(&u, GW_API_ANTHROPIC, true, false);
        while (f == GW_FEED_MORE && off < wire.len) {
            size_t k = wire.len - off < split ? wire.len - off : split;

            f = gw_resp_feed(&r, wire.data + off, k, &used);
            off += used;
        }
        assert_int_equal(f, GW_FEED_DONE);
        assert_true(r.event_stream);
        assert_false(r.coded);
        check(s, gw_usage_finish(&u, &t), &t);
        gw_resp_cleanup(&r);
    }
    buf_cleanup(&wire);
}

/* 16 MiB of content before the count: read in constant memory. */
static void
test_huge_body(void **state)
{
    static const char head[] = "{\"content\":[{\"type\":\"text\",\"text\":\"";
    static const char tail[] =
        "\"}],\"usage\":{\"input_tokens\":7,\"output_tokens\":65536}}";
    char *chunk = malloc(1 << 20);
    struct gw_usage u;
    struct gw_tokens t = { 0 };

    (void)state;
    assert_non_null(chunk);
    memset(chunk, 'a', 1 << 20);
    gw_usage_init(&u, GW_API_ANTHROPIC, false, false);
    gw_usage_feed(&u, head, sizeof(head) - 1);
    for (int i = 0; i < 16; i++)
        gw_usage_feed(&u, chunk, 1 << 20);
    gw_usage_feed(&u, tail, sizeof(tail) - 1);
    assert_true(gw_usage_finish(&u, &t));
    assert_int_equal(t.output, 65536);
    free(chunk);
}

/* Deeper than the kinds kept: still read, the count after it found. */
static void
test_deep_nesting(void **state)
{
    enum { D = 1000 };
    struct gw_usage u;
    struct gw_tokens t = { 0 };
    static const char tail[] = ",\"usage\":{\"input_tokens\":3}}";

    (void)state;
    gw_usage_init(&u, GW_API_OPENAI, false, false);
    gw_usage_feed(&u, "{\"x\":", 5);
    for (int i = 0; i < D; i++)
        gw_usage_feed(&u, i % 2 ? "[" : "{\"k\":", i % 2 ? 1 : 5);
    for (int i = D - 1; i >= 0; i--)
        gw_usage_feed(&u, i % 2 ? "]" : "}", 1);
    gw_usage_feed(&u, tail, sizeof(tail) - 1);
    assert_true(gw_usage_finish(&u, &t));
    assert_int_equal(t.input, 3);
}

static void
test_coded_or_cut_is_unknown(void **state)
{
    const struct shape *s = shape("anthropic json");
    struct gw_usage u;
    struct gw_tokens t = { 0 };

    (void)state;
    gw_usage_init(&u, s->api, false, true); /* Content-Encoding: gzip */
    gw_usage_feed(&u, s->body, strlen(s->body));
    assert_false(gw_usage_finish(&u, &t));
    /* a JSON body cut short says nothing */
    gw_usage_init(&u, s->api, false, false);
    gw_usage_feed(&u, s->body, strlen(s->body) - 1);
    assert_false(gw_usage_finish(&u, &t));
    /* a stream cut after its usage event counts what came */
    s = shape("openai responses sse");
    gw_usage_init(&u, s->api, true, false);
    gw_usage_feed(&u, s->body, strlen(s->body));
    gw_usage_feed(&u, "data: {\"type\":", 14);
    assert_true(gw_usage_finish(&u, &t));
    assert_int_equal(t.output, 77);
}

static void
test_garbage_never_crashes(void **state)
{
    unsigned seed = 1;

    (void)state;
    for (int round = 0; round < 2000; round++) {
        char text[256];
        struct gw_usage u;
        struct gw_tokens t;
        const char alphabet[] = "{}[]\":,\\u0123456789 \n\rdata:eventusage";

        for (size_t i = 0; i < sizeof(text); i++) {
            seed = seed * 1103515245u + 12345u;
            if (round % 3 == 0)
                text[i] = (char)((seed >> 16) & 0xff);
            else
                text[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
        }
        gw_usage_init(&u, round % 2 ? GW_API_OPENAI : GW_API_ANTHROPIC,
                      round % 4 < 2, false);
        gw_usage_feed(&u, text, sizeof(text));
        (void)gw_usage_finish(&u, &t);
    }
}

static void
test_paths_and_billing(void **state)
{
    const struct gw_tokens a = { 10, 5, 100, 20 };

    (void)state;
    assert_int_equal(gw_usage_api("/v1/messages", 12), GW_API_ANTHROPIC);
    assert_int_equal(gw_usage_api("/v1/messages/count_tokens", 25),
                     GW_API_NONE);
    assert_int_equal(gw_usage_api("/v1/responses", 13), GW_API_OPENAI);
    assert_int_equal(gw_usage_api("/v1/chat/completions", 20), GW_API_OPENAI);
    assert_int_equal(gw_usage_api("/v1/models", 10), GW_API_NONE);
    assert_int_equal(gw_tokens_billed(GW_API_ANTHROPIC, &a), 135);
    assert_int_equal(gw_tokens_billed(GW_API_OPENAI, &a), 15);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_shape_split_at_every_byte),
        cmocka_unit_test(test_every_shape_byte_by_byte),
        cmocka_unit_test(test_chunked_response_through_the_tracker),
        cmocka_unit_test(test_huge_body),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_coded_or_cut_is_unknown),
        cmocka_unit_test(test_garbage_never_crashes),
        cmocka_unit_test(test_paths_and_billing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
