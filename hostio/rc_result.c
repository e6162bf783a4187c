/* rc_result.c - read a CLI's result strictly (rc_result.h): bounded,
 * strict UTF-8, nesting scanned before parsing, validated against the
 * spec's schema. The Codex file's archive is read with libarchive. */
#include "rc_result.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "spec_jschema.h"
#include "utf8.h"

static void
problem(struct rc_result *r, enum rc_result_problem p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
problem(struct rc_result *r, enum rc_result_problem p, const char *fmt, ...)
{
    va_list ap;

    if (r->problem != RC_RESULT_OK)
        return; /* the first problem is the one reported */
    r->problem = p;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
    va_end(ap);
}

/* The problems a scan of JSON text finds before any parser sees it. */
enum json_scan { JSON_SCAN_OK, JSON_SCAN_DEEP, JSON_SCAN_CONTROL, JSON_SCAN_NUL };

/* One pass over the bytes, no recursion, so a bomb costs its length:
 * nesting at most max deep, and inside strings no raw control byte
 * (RFC 8259 7 forbids them; cJSON takes them and prints each as six
 * bytes, so 256 KiB of them would print as 1.5 MiB, past what a status
 * document may hold) and no \u0000 (cJSON's strings end there: the text
 * kept would not be the text given). *at: the offending byte. */
static enum json_scan
json_scan(const char *s, size_t n, unsigned max, size_t *at)
{
    unsigned depth = 0;
    bool in_string = false;

    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        *at = i;
        if (in_string) {
            if ((unsigned char)c < 0x20)
                return JSON_SCAN_CONTROL;
            if (c == '\\' && i + 5 < n && memcmp(s + i + 1, "u0000", 5) == 0)
                return JSON_SCAN_NUL;
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max)
                return JSON_SCAN_DEEP;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return JSON_SCAN_OK;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first member name that an object of j repeats, or NULL. Readers
 * differ on a repeated name (cJSON and agentctl's jsonpath take the
 * first, jq the last), so {"verdict":"fail","verdict":"pass"} would be
 * two answers: refused. Sorted, not compared pairwise (an object of
 * 40,000 members). The recursion is bounded by the scan's depth. */
static const char *
repeated_name(const cJSON *j)
{
    const char *dup = NULL;
    const cJSON *m;
    size_t n = 0, k = 0;
    const char **names;

    if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
        return NULL;
    cJSON_ArrayForEach(m, j)
    {
        if ((dup = repeated_name(m)) != NULL)
            return dup;
        n++;
    }
    if (!cJSON_IsObject(j) || n < 2)
        return NULL;
    if ((names = malloc(n * sizeof(*names))) == NULL)
        return "(out of memory)";
    cJSON_ArrayForEach(m, j) names[k++] = m->string != NULL ? m->string : "";
    qsort(names, n, sizeof(*names), by_name);
    for (k = 1; k < n && dup == NULL; k++)
        if (strcmp(names[k - 1], names[k]) == 0)
            dup = names[k];
    free(names);
    return dup;
}

/* Parse text (NUL-terminated, len bytes) as one JSON value, nothing but
 * white space after it. NULL with the problem recorded. */
static cJSON *
parse_json(struct rc_result *r, const char *text, size_t len, unsigned depth,
           const char *what)
{
    const char *end = NULL, *dup;
    size_t at = 0;
    cJSON *j;

    switch (json_scan(text, len, depth, &at)) {
    case JSON_SCAN_DEEP:
        problem(r, RC_RESULT_TOO_DEEP, "%s nests deeper than %u levels", what,
                depth);
        return NULL;
    case JSON_SCAN_CONTROL:
        problem(r, RC_RESULT_MALFORMED, "%s has a raw control byte in a "
                "string (at byte %zu)", what, at);
        return NULL;
    case JSON_SCAN_NUL:
        problem(r, RC_RESULT_MALFORMED, "%s has a \\u0000 escape in a "
                "string (at byte %zu)", what, at);
        return NULL;
    case JSON_SCAN_OK:
        break;
    }
    j = cJSON_ParseWithOpts(text, &end, true);
    if (j == NULL) {
        problem(r, RC_RESULT_MALFORMED, "%s is not JSON (at byte %td)", what,
                end != NULL && end >= text ? end - text : (ptrdiff_t)0);
        return NULL;
    }
    if ((dup = repeated_name(j)) != NULL) {
        problem(r, RC_RESULT_MALFORMED, "%s repeats the member name "
                "\"%.64s\" in one object", what, dup);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* A model may fence its JSON answer (```json ... ```): the inside. */
static char *
unfenced(const char *text, size_t *len)
{
    const char *p = text, *q;
    size_t n;

    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (strncmp(p, "```", 3) != 0 || (p = strchr(p, '\n')) == NULL)
        return NULL;
    q = text + *len;
    while (q > p && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\r'))
        q--;
    if (q - p < 3 || strncmp(q - 3, "```", 3) != 0)
        return NULL;
    n = (size_t)(q - 3 - (p + 1));
    *len = n;
    return strndup(p + 1, n);
}

/* The answer against the schema: r->json when it validates. */
static void
validate_answer(struct rc_result *r, const struct rc_result_opts *o,
                cJSON *answer)
{
    cJSON *schema = cJSON_Parse(o->schema);
    const cJSON *first;

    r->errors = cJSON_CreateArray();
    if (schema == NULL || r->errors == NULL) {
        problem(r, RC_RESULT_MALFORMED, "out of memory validating the answer");
        cJSON_Delete(schema);
        cJSON_Delete(answer);
        return;
    }
    r->nerrors = o->skip_validation
                     ? 0
                     : spec_jschema_validate(schema, answer, r->errors,
                                             SPEC_JSCHEMA_MAX_ERRORS);
    cJSON_Delete(schema);
    r->valid = r->nerrors == 0;
    if (r->valid) {
        r->json = answer;
        return;
    }
    cJSON_Delete(answer);
    first = cJSON_GetArrayItem(r->errors, 0);
    problem(r, RC_RESULT_INVALID,
            "the answer breaks spec.output.schema (%zu problem%s): %s: %s",
            r->nerrors, r->nerrors == 1 ? "" : "s",
            cJSON_GetStringValue(cJSON_GetObjectItem(first, "path")),
            cJSON_GetStringValue(cJSON_GetObjectItem(first, "message")));
}

/* The answer text as JSON (fenced or not), validated. */
static void
answer_from_text(struct rc_result *r, const struct rc_result_opts *o)
{
    size_t len = r->text_len;
    char *inner = unfenced(r->text, &len);
    cJSON *j = parse_json(r, inner != NULL ? inner : r->text,
                          inner != NULL ? len : r->text_len,
                          RC_RESULT_MAX_DEPTH, "the answer");

    free(inner);
    if (j != NULL)
        validate_answer(r, o, j);
}

static int
take_text(struct rc_result *r, const struct rc_result_opts *o,
          const char *text, size_t len)
{
    size_t bad;

    if (len > o->max_bytes) {
        problem(r, RC_RESULT_OVERSIZED,
                "the result is %zu bytes, over spec.output.maxResultBytes "
                "(%" PRIu64 ")",
                len, o->max_bytes);
        return -1;
    }
    bad = utf8_bad_offset(text, len);
    if (bad < len) {
        problem(r, RC_RESULT_NOT_UTF8,
                "the result is not strict UTF-8 (byte %zu)", bad);
        return -1;
    }
    if (memchr(text, '\0', len) != NULL) { /* no text holds one */
        problem(r, RC_RESULT_MALFORMED, "the result holds a NUL byte");
        return -1;
    }
    r->text = strndup(text, len);
    r->text_len = len;
    if (r->text == NULL) {
        problem(r, RC_RESULT_MALFORMED, "out of memory keeping the result");
        return -1;
    }
    return 0;
}

static void
result_init(struct rc_result *r, const struct rc_result_opts *o,
            const char *channel)
{
    memset(r, 0, sizeof(*r));
    r->channel = channel;
    r->denials = -1;
    r->has_schema = o->schema != NULL;
}

void
rc_result_text(const char *text, size_t len, const struct rc_result_opts *o,
               struct rc_result *r)
{
    result_init(r, o, "output-last-message");
    if (text == NULL) {
        problem(r, RC_RESULT_MISSING,
                "the CLI wrote no --output-last-message file");
        return;
    }
    if (len == 0) { /* codex writes one on a failure too (measured) */
        problem(r, RC_RESULT_MISSING,
                "the --output-last-message file is empty: the CLI gave no "
                "final message");
        return;
    }
    if (take_text(r, o, text, len) == 0 && o->schema != NULL)
        answer_from_text(r, o);
}

/* The envelope's members; its answer taken and checked. */
static void
read_envelope(struct rc_result *r, const struct rc_result_opts *o,
              const cJSON *env)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(env, "result");
    const cJSON *is_error = cJSON_GetObjectItemCaseSensitive(env, "is_error");
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(env, "num_turns");
    const cJSON *denials =
        cJSON_GetObjectItemCaseSensitive(env, "permission_denials");
    const cJSON *structured =
        cJSON_GetObjectItemCaseSensitive(env, "structured_output");

    r->has_is_error = cJSON_IsBool(is_error);
    r->is_error = cJSON_IsTrue(is_error);
    r->has_turns = cJSON_IsNumber(turns);
    /* clamped before the cast: a double past long's range is undefined */
    r->turns = !r->has_turns ? 0
               : turns->valuedouble >= 1e9 ? 1000000000L
               : turns->valuedouble > 0 ? (long)turns->valuedouble : 0;
    if (cJSON_IsArray(denials))
        r->denials = (long)cJSON_GetArraySize(denials);
    if (cJSON_IsString(result) &&
        take_text(r, o, result->valuestring, strlen(result->valuestring)) == -1)
        return;
    if (r->text == NULL && !r->is_error) {
        problem(r, RC_RESULT_MISSING, "the envelope has no result");
        return;
    }
    if (o->schema == NULL || r->is_error)
        return; /* an error is reported as it is: there is no answer */
    if (structured != NULL)
        validate_answer(r, o, cJSON_Duplicate(structured, true));
    else
        answer_from_text(r, o);
}

void
rc_result_claude(const char *out, size_t len, const struct rc_result_opts *o,
                 struct rc_result *r)
{
    char *copy;
    const char *type;
    cJSON *env;
    size_t bad;

    result_init(r, o, "stdout-envelope");
    if (len == 0) {
        problem(r, RC_RESULT_MISSING, "the CLI printed no envelope on stdout");
        return;
    }
    if (len > o->max_bytes + RC_RESULT_ENVELOPE_SLACK) {
        problem(r, RC_RESULT_OVERSIZED,
                "stdout passed %" PRIu64 " bytes: the result is over "
                "spec.output.maxResultBytes (%" PRIu64 ")",
                o->max_bytes + RC_RESULT_ENVELOPE_SLACK, o->max_bytes);
        return;
    }
    if ((bad = utf8_bad_offset(out, len)) < len) {
        problem(r, RC_RESULT_NOT_UTF8,
                "stdout is not strict UTF-8 (byte %zu)", bad);
        return;
    }
    if (memchr(out, '\0', len) != NULL) { /* JSON text never holds one */
        problem(r, RC_RESULT_MALFORMED, "stdout holds a NUL byte");
        return;
    }
    if ((copy = strndup(out, len)) == NULL) {
        problem(r, RC_RESULT_MALFORMED, "out of memory reading the envelope");
        return;
    }
    /* the envelope's own level and structured_output's */
    env = parse_json(r, copy, len, RC_RESULT_MAX_DEPTH + 2, "the envelope");
    free(copy);
    if (env == NULL)
        return;
    type = cJSON_GetStringValue(cJSON_GetObjectItem(env, "type"));
    if (!cJSON_IsObject(env) || type == NULL || strcmp(type, "result") != 0)
        problem(r, RC_RESULT_MALFORMED,
                "stdout is not a result envelope ({\"type\":\"result\",...})");
    else
        read_envelope(r, o, env);
    cJSON_Delete(env);
}

int
rc_result_untar(const void *tar, size_t len, uint64_t max, char **data,
                size_t *n, struct err *e)
{
    struct archive *a = archive_read_new();
    struct archive_entry *ent;
    int rc = -1;
    la_ssize_t got;

    *data = NULL;
    *n = 0;
    if (a == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    archive_read_support_format_tar(a);
    if (archive_read_open_memory(a, tar, len) != ARCHIVE_OK ||
        archive_read_next_header(a, &ent) != ARCHIVE_OK) {
        err_set(e, ERR_SYNTAX, "not a tar archive: %s", archive_error_string(a));
        goto out;
    }
    if (archive_entry_filetype(ent) != AE_IFREG) {
        err_set(e, ERR_INVALID, "the path is not a regular file");
        goto out;
    }
    if (archive_entry_size(ent) < 0 || (uint64_t)archive_entry_size(ent) > max) {
        err_set(e, ERR_LIMIT, "the file is %jd bytes, over %" PRIu64,
                (intmax_t)archive_entry_size(ent), max);
        goto out;
    }
    *data = malloc((size_t)archive_entry_size(ent) + 1);
    if (*data == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    while (*n < (size_t)archive_entry_size(ent) &&
           (got = archive_read_data(a, *data + *n,
                                    (size_t)archive_entry_size(ent) - *n)) > 0)
        *n += (size_t)got;
    (*data)[*n] = '\0';
    if (*n != (size_t)archive_entry_size(ent)) {
        err_set(e, ERR_SYNTAX, "the archive ends inside the file");
        free(*data);
        *data = NULL;
        goto out;
    }
    rc = 0;
out:
    archive_read_free(a);
    return rc;
}

const char *
rc_result_problem_name(enum rc_result_problem p)
{
    static const char *const names[] = {
        [RC_RESULT_OK] = "",
        [RC_RESULT_MISSING] = "missing",
        [RC_RESULT_OVERSIZED] = "oversized",
        [RC_RESULT_NOT_UTF8] = "not-utf8",
        [RC_RESULT_MALFORMED] = "malformed",
        [RC_RESULT_TOO_DEEP] = "too-deep",
        [RC_RESULT_INVALID] = "invalid",
    };

    return names[p];
}

/* The text as the status holds it: at most RC_RESULT_TEXT_IN_STATUS
 * bytes, cut before a character, never inside one. */
static void
add_text(cJSON *o, const struct rc_result *r)
{
    size_t n = r->text_len;
    char *cut;

    if (n <= RC_RESULT_TEXT_IN_STATUS) {
        cJSON_AddStringToObject(o, "text", r->text);
        return;
    }
    n = RC_RESULT_TEXT_IN_STATUS;
    while (n > 0 && ((unsigned char)r->text[n] & 0xC0) == 0x80)
        n--;
    if ((cut = strndup(r->text, n)) != NULL)
        cJSON_AddStringToObject(o, "text", cut);
    free(cut);
    cJSON_AddBoolToObject(o, "textTruncated", true);
}

/* A status document holds at most STORE_STATE_MAX (1 MiB) with the rest
 * of the status: status.result is kept under RC_RESULT_STATUS_MAX
 * printed. Over it, the JSON answer is left out (text, validity and
 * errors stay; agentctl result says so): else the status could not be
 * written at all, and an invocation whose status cannot be written is
 * never cleaned up. */
static cJSON *
fit_status(cJSON *o)
{
    char *printed = cJSON_PrintUnformatted(o);
    size_t n = printed != NULL ? strlen(printed) : 0;

    free(printed);
    if (n <= RC_RESULT_STATUS_MAX || !cJSON_HasObjectItem(o, "json"))
        return o;
    cJSON_DeleteItemFromObjectCaseSensitive(o, "json");
    cJSON_AddBoolToObject(o, "jsonOmitted", true);
    return o;
}

cJSON *
rc_result_status(const struct rc_result *r)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "channel", r->channel);
    if (r->text != NULL) {
        add_text(o, r);
        cJSON_AddNumberToObject(o, "bytes", (double)r->text_len);
    }
    if (r->json != NULL)
        cJSON_AddItemToObject(o, "json", cJSON_Duplicate(r->json, true));
    if (r->has_is_error)
        cJSON_AddBoolToObject(o, "isError", r->is_error);
    if (r->has_turns)
        cJSON_AddNumberToObject(o, "turns", (double)r->turns);
    if (r->denials >= 0)
        cJSON_AddNumberToObject(o, "permissionDenials", (double)r->denials);
    if (r->has_schema && r->errors != NULL) {
        cJSON_AddBoolToObject(o, "valid", r->valid);
        cJSON_AddNumberToObject(o, "errorCount", (double)r->nerrors);
        if (r->nerrors > 0)
            cJSON_AddItemToObject(o, "errors", cJSON_Duplicate(r->errors, true));
    }
    if (r->problem != RC_RESULT_OK) {
        cJSON_AddStringToObject(o, "problem", rc_result_problem_name(r->problem));
        cJSON_AddStringToObject(o, "detail", r->detail);
    }
    return fit_status(o);
}

void
rc_result_cleanup(struct rc_result *r)
{
    free(r->text);
    cJSON_Delete(r->json);
    cJSON_Delete(r->errors);
    memset(r, 0, sizeof(*r));
}
