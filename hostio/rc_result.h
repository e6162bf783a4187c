/* rc_result.h - the result a vendor CLI returns through its documented
 * channel, read strictly (docs/status.md "result"):
 *   - Claude Code: the JSON envelope `-p --output-format json` prints on
 *     stdout (`type: result`, `result`, `is_error`, `num_turns`,
 *     `permission_denials`, and `structured_output` with --json-schema);
 *   - Codex: the file `--output-last-message` wrote, read back from the
 *     keeper as Docker's archive of that one path (rc_result_untar).
 * Every input is bounded (maxResultBytes), strict UTF-8, nested at most
 * RC_RESULT_MAX_DEPTH deep (checked by a scan before any parser sees it:
 * a deeply nested bomb fails in one pass, never recursing), parsed and,
 * with a schema, validated (model/spec_jschema.h).
 */
#ifndef RC_RESULT_H
#define RC_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"

#define RC_RESULT_MAX_DEPTH 64 /* JSON nesting of an answer */
/* The envelope around Claude Code's answer (usage, ids, denials) may add
 * this much to maxResultBytes before the stdout counts as oversized. */
#define RC_RESULT_ENVELOPE_SLACK (64u * 1024)
#define RC_RESULT_TEXT_IN_STATUS (32u * 1024) /* status.result.text */
/* status.result printed, at most: over it the JSON answer is omitted
 * (jsonOmitted: true), so the status document always fits its 1 MiB */
#define RC_RESULT_STATUS_MAX (512u * 1024)

enum rc_result_problem {
    RC_RESULT_OK = 0,
    RC_RESULT_MISSING,   /* no result at all */
    RC_RESULT_OVERSIZED, /* over maxResultBytes */
    RC_RESULT_NOT_UTF8,  /* not strict UTF-8 */
    RC_RESULT_MALFORMED, /* not the documented envelope, or no JSON answer
                            where a schema asks for one */
    RC_RESULT_TOO_DEEP,  /* JSON nested deeper than RC_RESULT_MAX_DEPTH */
    RC_RESULT_INVALID,   /* the answer breaks spec.output.schema */
};

struct rc_result_opts {
    uint64_t max_bytes;  /* spec.output.maxResultBytes */
    const char *schema;  /* spec.output.schema as JSON, or NULL */
    bool skip_validation; /* the test hooks' negative control only */
};

struct rc_result {
    enum rc_result_problem problem;
    char detail[300];  /* what the problem is, in words; "" when none */
    const char *channel; /* "stdout-envelope", "output-last-message" */
    char *text;        /* the answer (strict UTF-8), NULL when none */
    size_t text_len;
    bool has_is_error, is_error;
    bool has_turns;
    long turns;
    long denials;      /* permission_denials entries; -1 when none given */
    cJSON *json;       /* the answer as JSON when a schema is given and it
                          validates; else NULL */
    bool has_schema, valid;
    size_t nerrors;    /* every problem found */
    cJSON *errors;     /* the first SPEC_JSCHEMA_MAX_ERRORS, with paths */
};

/* Read Claude Code's stdout (len bytes, all of it) into r. r is filled
 * either way; r->problem says what was wrong. Free with
 * rc_result_cleanup. */
void rc_result_claude(const char *out, size_t len,
                      const struct rc_result_opts *o, struct rc_result *r);

/* Read Codex's last message (the file's bytes; NULL: there was no file)
 * into r. An empty file is missing too: codex 0.171.0 writes one when the
 * turn failed. */
void rc_result_text(const char *text, size_t len,
                    const struct rc_result_opts *o, struct rc_result *r);

/* The one regular file in a tar archive of len bytes (Docker's archive of
 * a single path), at most max bytes: *data (malloc'd, NUL-terminated)
 * and *n. ERR_LIMIT when larger (the whole file is not read), ERR_INVALID
 * when the archive holds no regular file (a directory, a symlink),
 * ERR_SYNTAX when it is not a tar archive. */
int rc_result_untar(const void *tar, size_t len, uint64_t max, char **data,
                    size_t *n, struct err *e);

/* The members of status.result this reading gives (text, json, isError,
 * turns, permissionDenials, valid, errors, errorCount, channel, bytes,
 * problem), as a new object the caller merges and deletes. NULL when out
 * of memory. */
cJSON *rc_result_status(const struct rc_result *r);

/* "missing", "oversized", ...; "" for RC_RESULT_OK. */
const char *rc_result_problem_name(enum rc_result_problem p);

void rc_result_cleanup(struct rc_result *r);

#endif
