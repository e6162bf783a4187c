/* gw_usage.h - the tokens a vendor's response says it billed, read as the
 * response passes (docs/gateway.md "Token accounting").
 *
 * Pure code. The response is forwarded untouched and at once; this is a
 * second reader fed with the body's bytes (de-chunked) as they go by, in
 * pieces of any size. It keeps no copy of the body: an incremental JSON
 * scanner remembers only the keys of the first GW_USAGE_PATH levels, the
 * container kinds of the first GW_USAGE_DEPTH, and the digits of the number
 * it is in, so its memory is the same for a 100-byte answer and for a
 * 100 MiB one.
 *
 * Shapes read (every other field, and every "usage" below the places
 * named, is passed over: a model's output, a tool's input, cannot pose as
 * the vendor's count):
 *
 * - Anthropic JSON: usage.{input_tokens, output_tokens,
 *   cache_creation_input_tokens, cache_read_input_tokens}.
 * - Anthropic SSE: the message_start event's message.usage, then every
 *   message_delta event's usage fields, each overriding (they are
 *   cumulative; the last one wins).
 * - OpenAI Responses JSON: usage.{input_tokens, output_tokens,
 *   input_tokens_details.cached_tokens}; SSE: the response.usage of a
 *   response.completed, response.incomplete or response.failed event.
 * - OpenAI Chat Completions: usage.{prompt_tokens, completion_tokens,
 *   prompt_tokens_details.cached_tokens}, of the body or of a stream's
 *   chunk that carries it.
 *
 * Any malformed JSON document in the response (a body, or an SSE event
 * whose data starts with '{') makes the whole response's usage unknown,
 * as does a body with a content coding; events whose data is not an
 * object ("[DONE]") are passed over.
 */
#ifndef GW_USAGE_H
#define GW_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_body.h"

/* Keys remembered per open container, from the top: enough for
 * response.usage.input_tokens_details.cached_tokens. */
#define GW_USAGE_PATH 4
/* Containers whose kind ('{' or '[') is checked against its closer;
 * deeper ones are counted only. */
#define GW_USAGE_DEPTH 256
/* The longest key (or "type" value) compared; longer ones match nothing. */
#define GW_USAGE_KEY_MAX 40

/* What a response billed. OpenAI's cached input is part of its input
 * (cache_read <= input); Anthropic's cache reads and writes are not. */
struct gw_tokens {
    uint64_t input, output, cache_read, cache_write;
};

/* The counts one JSON document held at the places read (top: usage.*;
 * nested: message.usage.* or response.usage.*). */
struct gw_usage_found {
    uint64_t v[4]; /* input, output, cache_read, cache_write */
    unsigned have; /* bit i: v[i] was present */
};

/* The incremental JSON scanner's state (one document). */
struct gw_usage_json {
    int state;
    uint32_t depth;                     /* containers open */
    uint8_t arrays[GW_USAGE_DEPTH / 8]; /* bit set: that level is '[' */
    char keys[GW_USAGE_PATH][GW_USAGE_KEY_MAX + 1]; /* "" = none usable */
    char str[GW_USAGE_KEY_MAX + 1]; /* the key or string being read */
    size_t str_len;
    bool str_bad; /* too long or escaped: matches nothing */
    bool str_is_key;
    unsigned hex;    /* \u digits still to come */
    const char *lit; /* the rest of true / false / null */
    uint64_t num;
    unsigned num_digits;
    bool num_plain;                  /* digits only so far */
    char type[GW_USAGE_KEY_MAX + 1]; /* the top-level "type" value */
    struct gw_usage_found top, nested;
};

struct gw_usage {
    enum gw_api api;
    bool sse;    /* text/event-stream */
    bool failed; /* unknown for good: malformed, or coded */
    bool known;  /* t holds a count the vendor sent */
    struct gw_tokens t;
    struct gw_usage_json js;
    /* SSE: the line being read */
    char field[8];
    size_t field_len;
    int line;     /* where in the line (gw_usage.c) */
    bool cr;      /* the last byte was CR: an LF after it is no line */
    bool ev_data; /* the event has a data line */
    bool ev_json; /* its data is a JSON object being scanned */
    bool ev_skip; /* its data is not an object: passed over */
};

/* The API whose usage a response to path (before any '?') carries:
 * GW_API_ANTHROPIC for /v1/messages (count_tokens bills nothing),
 * GW_API_OPENAI for /v1/responses and /v1/chat/completions, GW_API_NONE
 * for any other path. */
enum gw_api gw_usage_api(const char *path, size_t len);

/* Start reading one response body of api: sse when its Content-Type is
 * text/event-stream, coded when it has a Content-Encoding other than
 * identity (then the usage is unknown). */
void gw_usage_init(struct gw_usage *u, enum gw_api api, bool sse, bool coded);

/* n more body bytes (transfer coding removed). */
void gw_usage_feed(struct gw_usage *u, const char *p, size_t n);

/* The body ended (or was cut): true with *t when the response said what
 * it billed. A JSON body must be complete; a stream counts the events
 * that were complete. */
bool gw_usage_finish(struct gw_usage *u, struct gw_tokens *t);

/* The tokens the budget counts: everything the vendor bills for the
 * request. Anthropic: input + cache_creation + cache_read + output;
 * OpenAI: input (its cached part included) + output. */
uint64_t gw_tokens_billed(enum gw_api api, const struct gw_tokens *t);

#endif
