/* tv_reply.h - what the TLS test vendor answers to one model request, and
 * what it records about it (tls_vendor.c does the HTTP and TLS).
 *
 * The vendor follows a script written in the prompt. Every line of the
 * user's text of the form
 *
 *     CALL <tool name> <JSON object>
 *
 * is a tool call the vendor asks for (all of them at once, in one
 * response), whether the CLI offered that tool or not. For the Responses
 * API a JSON object of exactly {"input": "<text>"} asks for a freeform
 * (custom) tool call with that text, as Codex's code-mode `exec` takes
 * (JavaScript that calls tools.exec_command and the like). Lines
 * "CALL2 <tool> <JSON>" are a second round, asked for once the results of
 * the first are back (to look at what the first round did). Once the
 * conversation holds tool results, the vendor ends the turn with the text
 * "VENDOR-DONE:" followed by every result the CLI sent back, in order; a request
 * with no CALL line (or an Anthropic request that offers no tools: the
 * CLI's side requests) gets the text "VENDOR-OK". A line "TASK <word>"
 * names the invocation: the word goes into the record's "task", so a test
 * can tell whose requests it reads. A line "ANSWER <text>" makes the
 * rest of that line the final text instead (a result test chooses what
 * the CLI returns: JSON, a schema-breaking answer), "ANSWERFILL <n>
 * <char>" n copies of the character (a hostile 100 MB line); a line
 * "FAIL" answers every model request with a 400 (the CLI reports an
 * error). Test-only.
 */
#ifndef TV_REPLY_H
#define TV_REPLY_H

#include "tv_json.h"

struct tv_reply {
    int status;            /* HTTP status */
    const char *type;      /* Content-Type */
    struct tvb body;       /* the response body */
    struct tvb record;     /* JSON members to add to the request record:
                              ,"api":..,"model":..,"tools":[..],... */
};

/* tv_reply_anthropic: POST .../v1/messages (Messages API, streaming when
 * the body says "stream": true). tv_reply_openai: POST .../responses
 * (Responses API, streaming). body is the parsed request body (NULL when
 * it did not parse: a 400). */
void tv_reply_anthropic(const struct tvj *body, struct tv_reply *r);
void tv_reply_openai(const struct tvj *body, struct tv_reply *r);
void tv_reply_free(struct tv_reply *r);

#endif
