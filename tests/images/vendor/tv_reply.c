/* tv_reply.c - the test vendor's scripted model (tv_reply.h): find the
 * CALL lines and tool results in a request, answer with tool calls or the
 * final text, as Anthropic Messages SSE events or OpenAI Responses SSE
 * events. Test-only.
 */
#include "tv_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TV_MAX_CALLS 8
#define TV_MAX_RESULT 4000

struct tv_call {
    char *name;
    char *args; /* the JSON object as written in the prompt */
    int round;  /* 1 for CALL lines, 2 for CALL2 lines */
};

/* What one request says: the script's calls, the results so far, the
 * tools the CLI offered. */
struct tv_turn {
    struct tv_call calls[TV_MAX_CALLS];
    int ncalls;
    struct tvb results;    /* "VENDOR-DONE:" text built from them */
    int nresults;
    struct tvb tools;      /* JSON array elements: "name",... */
    int ntools;
    char task[64];         /* the word after "TASK " in the prompt */
    /* what the answer says it billed: "USAGE <in> <out> <cacheRead>
     * <cacheWrite>" in the prompt, else 10 10 0 0 */
    long long usage[4];
    /* "ANSWER <text>" (the rest of the line) or "ANSWERFILL <n> <char>"
     * (n copies, at most TV_MAX_FILL): the turn's final text instead of
     * VENDOR-OK / VENDOR-DONE (a result test chooses what the CLI
     * returns) */
    struct tvb answer;
    int has_answer;
    int fail; /* a line "FAIL": every model request gets a 400 */
};

#define TV_MAX_FILL (256LL * 1024 * 1024)

static void
turn_free(struct tv_turn *t)
{
    for (int i = 0; i < t->ncalls; i++) {
        free(t->calls[i].name);
        free(t->calls[i].args);
    }
    tvb_free(&t->results);
    tvb_free(&t->tools);
    tvb_free(&t->answer);
}

static int
has_call(const struct tv_turn *t, const char *name, const char *args)
{
    for (int i = 0; i < t->ncalls; i++)
        if (!strcmp(t->calls[i].name, name) && !strcmp(t->calls[i].args, args))
            return 1;
    return 0;
}

/* One script line "CALL name {json}" (s points after "CALL "). */
static void
take_call(struct tv_turn *t, int round, const char *s, size_t n)
{
    const char *sp = memchr(s, ' ', n);
    struct tvj *j;
    char *name, *args;

    if (!sp || t->ncalls == TV_MAX_CALLS)
        return;
    name = strndup(s, (size_t)(sp - s));
    args = strndup(sp + 1, n - (size_t)(sp + 1 - s));
    j = name && args ? tvj_parse(args, strlen(args)) : NULL;
    if (!j || j->type != TVJ_OBJ || has_call(t, name, args)) {
        free(name);
        free(args);
    } else {
        t->calls[t->ncalls].name = name;
        t->calls[t->ncalls].args = args;
        t->calls[t->ncalls].round = round;
        t->ncalls++;
    }
    tvj_free(j);
}

/* "ANSWERFILL <n> <char>": n copies of the character as the answer. */
static void
take_fill(struct tv_turn *t, const char *s)
{
    long long n = 0;
    char c = 'x';
    char chunk[4096];

    if (sscanf(s, "%lld %c", &n, &c) < 1 || n < 0 || n > TV_MAX_FILL)
        return;
    memset(chunk, c, sizeof(chunk));
    for (long long done = 0; done < n; done += (long long)sizeof(chunk))
        tvb_add(&t->answer, chunk,
                n - done < (long long)sizeof(chunk) ? (size_t)(n - done)
                                                    : sizeof(chunk));
    t->has_answer = 1;
}

/* The turn's final text: the scripted answer, or what the tool results
 * said, or VENDOR-OK. */
static const char *
final_text(const struct tv_turn *t)
{
    if (t->has_answer)
        return t->answer.p ? t->answer.p : "";
    return t->results.p ? t->results.p : "VENDOR-OK";
}

/* Every CALL line of a user text. */
static void
scan_text(struct tv_turn *t, const char *text)
{
    while (text && *text) {
        const char *eol = strchr(text, '\n');
        size_t n = eol ? (size_t)(eol - text) : strlen(text);
        const char *s = text;

        while (n && (*s == ' ' || *s == '\t')) {
            s++;
            n--;
        }
        while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
            n--;
        if (n > 5 && !strncmp(s, "CALL ", 5))
            take_call(t, 1, s + 5, n - 5);
        else if (n > 6 && !strncmp(s, "CALL2 ", 6))
            take_call(t, 2, s + 6, n - 6);
        else if (n > 6 && !strncmp(s, "USAGE ", 6))
            sscanf(s + 6, "%lld %lld %lld %lld", &t->usage[0], &t->usage[1],
                   &t->usage[2], &t->usage[3]);
        else if (n > 7 && !strncmp(s, "ANSWER ", 7) && !t->has_answer) {
            tvb_add(&t->answer, s + 7, n - 7);
            t->has_answer = 1;
        } else if (n > 11 && !strncmp(s, "ANSWERFILL ", 11) && !t->has_answer)
            take_fill(t, s + 11);
        else if (n == 4 && !strncmp(s, "FAIL", 4))
            t->fail = 1;
        else if (n > 5 && !strncmp(s, "TASK ", 5) && !t->task[0])
            snprintf(t->task, sizeof(t->task), "%.*s", (int)(n - 5), s + 5);
        text = eol ? eol + 1 : NULL;
    }
}

/* A tool result's text: a string, or the text of an array of blocks. */
static void
add_result(struct tv_turn *t, const struct tvj *content, int is_error)
{
    struct tvb one = {0};

    if (content && content->type == TVJ_STR) {
        tvb_puts(&one, content->str);
    } else if (content && content->type == TVJ_ARR) {
        for (const struct tvj *b = content->child; b; b = b->next) {
            const char *s = tvj_str(b, "text");

            if (s)
                tvb_puts(&one, s);
        }
    }
    tvb_puts(&t->results, t->nresults ? "\n---\n" : "VENDOR-DONE:\n");
    if (is_error)
        tvb_puts(&t->results, "[error] ");
    tvb_add(&t->results, one.p ? one.p : "",
            one.len > TV_MAX_RESULT ? TV_MAX_RESULT : one.len);
    t->nresults++;
    tvb_free(&one);
}

static int
round_size(const struct tv_turn *t, int round)
{
    int n = 0;

    for (int i = 0; i < t->ncalls; i++)
        n += t->calls[i].round == round;
    return n;
}

/* The round of calls to ask for now (0: none, end the turn): round 1
 * before any result, round 2 once round 1's results are all in. Keeps
 * only that round's calls in t->calls. */
static int
pick_round(struct tv_turn *t)
{
    int r1 = round_size(t, 1), r2 = round_size(t, 2), round, k = 0;

    if (!t->nresults && r1)
        round = 1;
    else if (r2 && t->nresults == r1)
        round = 2;
    else
        return 0;
    for (int i = 0; i < t->ncalls; i++) {
        if (t->calls[i].round == round) {
            t->calls[k++] = t->calls[i];
        } else {
            free(t->calls[i].name);
            free(t->calls[i].args);
        }
    }
    t->ncalls = k;
    return round;
}

static void
add_tool(struct tv_turn *t, const char *name)
{
    if (t->ntools++)
        tvb_puts(&t->tools, ",");
    tvb_json_str(&t->tools, name);
}

/* The record members shared by both APIs. */
static void
record_turn(struct tv_reply *r, const char *api, const struct tvj *body,
            const struct tv_turn *t, int calls_sent)
{
    const char *model = tvj_str(body, "model");
    const struct tvj *stream = tvj_get(body, "stream");

    tvb_printf(&r->record, ",\"api\":\"%s\",\"task\":", api);
    tvb_json_str(&r->record, t->task);
    tvb_puts(&r->record, ",\"model\":");
    tvb_json_str(&r->record, model ? model : "");
    tvb_printf(&r->record, ",\"stream\":%s,\"tools\":[%s],\"results\":%d",
               stream && stream->type == TVJ_BOOL && stream->truth ? "true"
                                                                  : "false",
               t->tools.p ? t->tools.p : "", t->nresults);
    tvb_puts(&r->record, ",\"calls\":[");
    for (int i = 0; calls_sent && i < t->ncalls; i++) {
        if (i)
            tvb_puts(&r->record, ",");
        tvb_json_str(&r->record, t->calls[i].name);
    }
    tvb_puts(&r->record, "],\"keys\":[");
    /* the body's top-level fields and its tools' types: what a request
     * policy (the gateway's --body-policy) must admit for this CLI */
    for (const struct tvj *m = body->child; m != NULL; m = m->next) {
        tvb_json_str(&r->record, m->key ? m->key : "");
        if (m->next != NULL)
            tvb_puts(&r->record, ",");
    }
    tvb_puts(&r->record, "],\"toolTypes\":[");
    {
        const struct tvj *tools = tvj_get(body, "tools");
        int n = 0;

        for (const struct tvj *x = tools ? tools->child : NULL; x != NULL;
             x = x->next) {
            const char *type = tvj_str(x, "type");

            tvb_puts(&r->record, n++ ? "," : "");
            tvb_json_str(&r->record, type ? type : "(none)");
        }
    }
    /* the counts the answer carried, as the gateway's audit line names
     * them (OpenAI: cacheRead is the cached part of input) */
    tvb_printf(&r->record, "],\"usage\":{\"input\":%lld,\"output\":%lld,"
                           "\"cacheRead\":%lld,\"cacheWrite\":%lld",
               t->usage[0], t->usage[1], t->usage[2], t->usage[3]);
    tvb_puts(&r->record, "},\"answer\":");
    tvb_json_str(&r->record, t->results.p ? t->results.p
                             : calls_sent ? "tool calls" : "VENDOR-OK");
}

static void
bad_request(struct tv_reply *r, const char *why)
{
    r->status = 400;
    r->type = "application/json";
    tvb_puts(&r->body, "{\"type\":\"error\",\"error\":{\"type\":"
                       "\"invalid_request_error\",\"message\":");
    tvb_json_str(&r->body, why);
    tvb_puts(&r->body, "}}");
    tvb_puts(&r->record, ",\"api\":\"invalid\"");
}

/* ---- Anthropic Messages ---- */

static void
anthropic_scan(const struct tvj *body, struct tv_turn *t)
{
    const struct tvj *msgs = tvj_get(body, "messages");
    const struct tvj *tools = tvj_get(body, "tools");

    t->usage[0] = t->usage[1] = 10;
    for (const struct tvj *tl = tools ? tools->child : NULL; tl; tl = tl->next) {
        const char *name = tvj_str(tl, "name");

        add_tool(t, name ? name : tvj_str(tl, "type") ? tvj_str(tl, "type")
                                                       : "?");
    }
    for (const struct tvj *m = msgs ? msgs->child : NULL; m; m = m->next) {
        const char *role = tvj_str(m, "role");
        const struct tvj *c = tvj_get(m, "content");

        if (!role || strcmp(role, "user") != 0 || !c)
            continue;
        if (c->type == TVJ_STR) {
            scan_text(t, c->str);
            continue;
        }
        for (const struct tvj *b = c->type == TVJ_ARR ? c->child : NULL; b;
             b = b->next) {
            const char *type = tvj_str(b, "type");
            const struct tvj *err = tvj_get(b, "is_error");

            if (type && !strcmp(type, "text"))
                scan_text(t, tvj_str(b, "text"));
            else if (type && !strcmp(type, "tool_result"))
                add_result(t, tvj_get(b, "content"),
                           err && err->type == TVJ_BOOL && err->truth);
        }
    }
}

static void
sse(struct tvb *b, const char *event, const char *data)
{
    tvb_printf(b, "event: %s\ndata: %s\n\n", event, data);
}

/* The content blocks of the answer, as a JSON array (non-streaming) or
 * as block events (streaming). */
static void
anthropic_blocks(struct tvb *out, const struct tv_turn *t, int calls,
                 const char *text, int streaming)
{
    int n = calls ? t->ncalls : 1;

    for (int i = 0; i < n; i++) {
        struct tvb blk = {0}, ev = {0};

        if (calls) {
            /* ids stay unique over the rounds of one conversation */
            tvb_printf(&blk, "{\"type\":\"tool_use\",\"id\":\"toolu_vendor_%d\""
                             ",\"name\":", t->nresults + i + 1);
            tvb_json_str(&blk, t->calls[i].name);
        } else {
            tvb_puts(&blk, "{\"type\":\"text\"");
        }
        if (!streaming) {
            if (i)
                tvb_puts(out, ",");
            tvb_add(out, blk.p, blk.len);
            if (calls) {
                tvb_printf(out, ",\"input\":%s}", t->calls[i].args);
            } else {
                tvb_puts(out, ",\"text\":");
                tvb_json_str(out, text);
                tvb_puts(out, "}");
            }
            tvb_free(&blk);
            continue;
        }
        tvb_printf(&ev, "{\"type\":\"content_block_start\",\"index\":%d,"
                        "\"content_block\":%s,%s}}", i, blk.p,
                   calls ? "\"input\":{}" : "\"text\":\"\"");
        sse(out, "content_block_start", ev.p);
        ev.len = 0;
        tvb_printf(&ev, "{\"type\":\"content_block_delta\",\"index\":%d,"
                        "\"delta\":{\"type\":\"%s\",\"%s\":", i,
                   calls ? "input_json_delta" : "text_delta",
                   calls ? "partial_json" : "text");
        tvb_json_str(&ev, calls ? t->calls[i].args : text);
        tvb_puts(&ev, "}}");
        sse(out, "content_block_delta", ev.p);
        ev.len = 0;
        tvb_printf(&ev, "{\"type\":\"content_block_stop\",\"index\":%d}", i);
        sse(out, "content_block_stop", ev.p);
        tvb_free(&ev);
        tvb_free(&blk);
    }
}

void
tv_reply_anthropic(const struct tvj *body, struct tv_reply *r)
{
    struct tv_turn t = {0};
    const struct tvj *stream = tvj_get(body, "stream");
    const char *model = tvj_str(body, "model");
    int streaming = stream && stream->type == TVJ_BOOL && stream->truth;
    int calls;
    const char *text, *stop;
    struct tvb msg = {0};

    if (!body || body->type != TVJ_OBJ || !tvj_get(body, "messages")) {
        bad_request(r, "the body is not a Messages request");
        return;
    }
    anthropic_scan(body, &t);
    if (t.fail) {
        bad_request(r, "scripted failure (FAIL)");
        turn_free(&t);
        return;
    }
    /* side requests (titles, summaries) offer no tools: plain text */
    calls = t.ntools && pick_round(&t);
    text = final_text(&t);
    stop = calls ? "tool_use" : "end_turn";
    r->status = 200;
    tvb_puts(&msg, "{\"id\":\"msg_vendor\",\"type\":\"message\",\"role\":"
                   "\"assistant\",\"model\":");
    tvb_json_str(&msg, model ? model : "vendor-model");
    if (streaming) {
        struct tvb ev = {0};

        r->type = "text/event-stream";
        tvb_printf(&ev, "{\"type\":\"message_start\",\"message\":%s,"
                        "\"content\":[],\"stop_reason\":null,"
                        "\"stop_sequence\":null,\"usage\":{\"input_tokens\":"
                        "%lld,\"cache_creation_input_tokens\":%lld,"
                        "\"cache_read_input_tokens\":%lld,\"output_tokens\":1}}}",
                   msg.p, t.usage[0], t.usage[3], t.usage[2]);
        sse(&r->body, "message_start", ev.p);
        anthropic_blocks(&r->body, &t, calls, text, 1);
        ev.len = 0;
        tvb_printf(&ev, "{\"type\":\"message_delta\",\"delta\":{"
                        "\"stop_reason\":\"%s\",\"stop_sequence\":null},"
                        "\"usage\":{\"output_tokens\":%lld}}", stop,
                   t.usage[1]);
        sse(&r->body, "message_delta", ev.p);
        sse(&r->body, "message_stop", "{\"type\":\"message_stop\"}");
        tvb_free(&ev);
    } else {
        r->type = "application/json";
        tvb_add(&r->body, msg.p, msg.len);
        tvb_puts(&r->body, ",\"content\":[");
        anthropic_blocks(&r->body, &t, calls, text, 0);
        tvb_printf(&r->body, "],\"stop_reason\":\"%s\",\"stop_sequence\":"
                             "null,\"usage\":{\"input_tokens\":%lld,"
                             "\"cache_creation_input_tokens\":%lld,"
                             "\"cache_read_input_tokens\":%lld,"
                             "\"output_tokens\":%lld}}",
                   stop, t.usage[0], t.usage[3], t.usage[2], t.usage[1]);
    }
    record_turn(r, "anthropic", body, &t, calls);
    tvb_free(&msg);
    turn_free(&t);
}

/* ---- OpenAI Responses ---- */

/* Tool names a code-mode `exec` description declares: its "### `name`"
 * headings, recorded as "tools.<name>". */
static void
add_code_mode_tools(struct tv_turn *t, const char *desc)
{
    const char *p = desc;

    while (p && (p = strstr(p, "### `"))) {
        const char *end = strchr(p + 5, '`');
        char name[128];

        if (!end || end - (p + 5) >= (long)sizeof(name) - 7)
            break;
        snprintf(name, sizeof(name), "tools.%.*s", (int)(end - (p + 5)),
                 p + 5);
        add_tool(t, name);
        p = end;
    }
}

/* An additional_tools item (Codex): namespaces of tools, recorded as
 * "<namespace>.<name>", plus what a code-mode exec declares. */
static void
add_namespaced(struct tv_turn *t, const struct tvj *tools)
{
    for (const struct tvj *ns = tools ? tools->child : NULL; ns; ns = ns->next) {
        const char *nsname = tvj_str(ns, "name");
        const struct tvj *inner = tvj_get(ns, "tools");

        for (const struct tvj *tl = inner ? inner->child : NULL; tl;
             tl = tl->next) {
            const char *name = tvj_str(tl, "name");
            char full[256];

            snprintf(full, sizeof(full), "%s.%s", nsname ? nsname : "?",
                     name ? name : tvj_str(tl, "type") ? tvj_str(tl, "type")
                                                        : "?");
            add_tool(t, full);
            if (name && !strcmp(name, "exec"))
                add_code_mode_tools(t, tvj_str(tl, "description"));
        }
    }
}

static void
openai_scan(const struct tvj *body, struct tv_turn *t)
{
    const struct tvj *input = tvj_get(body, "input");
    const struct tvj *tools = tvj_get(body, "tools");

    t->usage[0] = t->usage[1] = 10;
    for (const struct tvj *tl = tools ? tools->child : NULL; tl; tl = tl->next) {
        const char *name = tvj_str(tl, "name");

        add_tool(t, name ? name : tvj_str(tl, "type") ? tvj_str(tl, "type")
                                                       : "?");
    }
    if (input && input->type == TVJ_STR)
        scan_text(t, input->str);
    for (const struct tvj *it = input && input->type == TVJ_ARR ? input->child
                                                                : NULL;
         it; it = it->next) {
        const char *type = tvj_str(it, "type");

        if (type && !strcmp(type, "additional_tools"))
            add_namespaced(t, tvj_get(it, "tools"));
    }
    for (const struct tvj *it = input && input->type == TVJ_ARR ? input->child
                                                                : NULL;
         it; it = it->next) {
        const char *type = tvj_str(it, "type");
        const char *role = tvj_str(it, "role");
        const struct tvj *c = tvj_get(it, "content");

        if (type && strstr(type, "call_output")) {
            add_result(t, tvj_get(it, "output"), 0);
            continue;
        }
        if (!role || strcmp(role, "user") != 0 || !c)
            continue;
        if (c->type == TVJ_STR)
            scan_text(t, c->str);
        for (const struct tvj *b = c->type == TVJ_ARR ? c->child : NULL; b;
             b = b->next)
            scan_text(t, tvj_str(b, "text"));
    }
}

static void
openai_item(struct tvb *out, int index, const char *item)
{
    struct tvb ev = {0};

    tvb_printf(&ev, "{\"type\":\"response.output_item.added\","
                    "\"output_index\":%d,\"item\":%s}", index, item);
    sse(out, "response.output_item.added", ev.p);
    ev.len = 0;
    tvb_printf(&ev, "{\"type\":\"response.output_item.done\","
                    "\"output_index\":%d,\"item\":%s}", index, item);
    sse(out, "response.output_item.done", ev.p);
    tvb_free(&ev);
}

/* A CALL whose JSON is exactly {"input": "<text>"} is a call of a
 * freeform (custom) tool such as Codex's code-mode `exec`: the text,
 * newly allocated; else NULL. */
static char *
custom_input(const char *args)
{
    struct tvj *j = tvj_parse(args, strlen(args));
    const char *in = tvj_str(j, "input");
    char *out = in && !j->child->next ? strdup(in) : NULL;

    tvj_free(j);
    return out;
}

void
tv_reply_openai(const struct tvj *body, struct tv_reply *r)
{
    struct tv_turn t = {0};
    struct tvb item = {0}, items = {0}, usage = {0}, ev = {0};
    const struct tvj *stream = tvj_get(body, "stream");
    /* SSE unless "stream": false (as before JSON answers were served) */
    int streaming = !(stream && stream->type == TVJ_BOOL && !stream->truth);
    int calls;

    if (!body || body->type != TVJ_OBJ || !tvj_get(body, "input")) {
        bad_request(r, "the body is not a Responses request");
        return;
    }
    openai_scan(body, &t);
    if (t.fail) {
        bad_request(r, "scripted failure (FAIL)");
        turn_free(&t);
        return;
    }
    calls = pick_round(&t) != 0;
    r->status = 200;
    r->type = streaming ? "text/event-stream" : "application/json";
    if (streaming)
        sse(&r->body, "response.created",
        "{\"type\":\"response.created\",\"response\":{\"id\":"
        "\"resp_vendor\",\"status\":\"in_progress\"}}");
    for (int i = 0; i < (calls ? t.ncalls : 1); i++) {
        item.len = 0;
        if (calls && custom_input(t.calls[i].args)) {
            char *in = custom_input(t.calls[i].args);

            tvb_printf(&item, "{\"type\":\"custom_tool_call\",\"id\":"
                              "\"ctc_vendor_%d\",\"call_id\":\"call_vendor_%d\""
                              ",\"status\":\"completed\",\"name\":", t.nresults + i + 1,
                       t.nresults + i + 1);
            tvb_json_str(&item, t.calls[i].name);
            tvb_puts(&item, ",\"namespace\":\"functions\",\"input\":");
            tvb_json_str(&item, in);
            tvb_puts(&item, "}");
            free(in);
        } else if (calls) {
            tvb_printf(&item, "{\"type\":\"function_call\",\"id\":"
                              "\"fc_vendor_%d\",\"call_id\":\"call_vendor_%d\""
                              ",\"status\":\"completed\",\"name\":",
                       t.nresults + i + 1, t.nresults + i + 1);
            tvb_json_str(&item, t.calls[i].name);
            tvb_puts(&item, ",\"arguments\":");
            tvb_json_str(&item, t.calls[i].args);
            tvb_puts(&item, "}");
        } else {
            tvb_puts(&item, "{\"type\":\"message\",\"id\":\"msg_vendor\","
                            "\"role\":\"assistant\",\"status\":\"completed\","
                            "\"content\":[{\"type\":\"output_text\","
                            "\"annotations\":[],\"text\":");
            tvb_json_str(&item, final_text(&t));
            tvb_puts(&item, "}]}");
        }
        if (streaming)
            openai_item(&r->body, i, item.p);
        tvb_puts(&items, i ? "," : "");
        tvb_add(&items, item.p, item.len);
    }
    tvb_printf(&usage, "\"usage\":{\"input_tokens\":%lld,"
                       "\"input_tokens_details\":{\"cached_tokens\":%lld},"
                       "\"output_tokens\":%lld,\"output_tokens_details\":{"
                       "\"reasoning_tokens\":0},\"total_tokens\":%lld}",
               t.usage[0], t.usage[2], t.usage[1], t.usage[0] + t.usage[1]);
    /* the completed response holds its output too, as the API's does:
     * a model's text in it must not read as a count */
    tvb_printf(&ev, "{\"id\":\"resp_vendor\",\"object\":\"response\","
                    "\"status\":\"completed\",\"output\":[%s],%s}",
               items.p ? items.p : "", usage.p);
    if (streaming) {
        struct tvb done = {0};

        tvb_printf(&done, "{\"type\":\"response.completed\",\"response\":%s}",
                   ev.p);
        sse(&r->body, "response.completed", done.p);
        tvb_free(&done);
    } else {
        tvb_add(&r->body, ev.p, ev.len);
    }
    record_turn(r, "openai", body, &t, calls);
    tvb_free(&item);
    tvb_free(&items);
    tvb_free(&usage);
    tvb_free(&ev);
    turn_free(&t);
}

void
tv_reply_free(struct tv_reply *r)
{
    tvb_free(&r->body);
    tvb_free(&r->record);
}
