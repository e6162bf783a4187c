/* test_rc_result.c - a CLI's result read strictly (hostio/rc_result.h):
 * Claude Code's envelope and Codex's file, each bound, strict UTF-8, the
 * nesting scan (a deep bomb fails in one pass), the schema, the archive
 * of one file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "rc_result.h"

#define SCHEMA                                                                 \
    "{\"type\":\"object\",\"required\":[\"verdict\"],\"properties\":"        \
    "{\"verdict\":{\"enum\":[\"pass\",\"fail\"]}}}"

static const struct rc_result_opts with_schema = { .max_bytes = 1024,
                                                   .schema = SCHEMA };
static const struct rc_result_opts no_schema = { .max_bytes = 1024 };

static void
claude(const char *out, const struct rc_result_opts *o, struct rc_result *r)
{
    rc_result_claude(out, strlen(out), o, r);
}

static void
text(const char *out, const struct rc_result_opts *o, struct rc_result *r)
{
    rc_result_text(out, strlen(out), o, r);
}

static void
test_claude_envelope(void **state)
{
    struct rc_result r;
    cJSON *st;

    (void)state;
    claude("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
           "\"result\":\"{\\\"verdict\\\":\\\"pass\\\"}\",\"num_turns\":3,"
           "\"permission_denials\":[{\"tool_name\":\"Bash\"}]}\n",
           &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_string_equal(r.text, "{\"verdict\":\"pass\"}");
    assert_true(r.valid);
    assert_string_equal(cJSON_GetObjectItem(r.json, "verdict")->valuestring,
                        "pass");
    st = rc_result_status(&r);
    assert_int_equal(cJSON_GetObjectItem(st, "turns")->valuedouble, 3);
    assert_int_equal(cJSON_GetObjectItem(st, "permissionDenials")->valuedouble,
                     1);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(st, "isError")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "valid")));
    assert_null(cJSON_GetObjectItem(st, "problem"));
    cJSON_Delete(st);
    rc_result_cleanup(&r);
}

/* --json-schema: the answer is structured_output; a fenced text too */
static void
test_claude_structured_and_fenced(void **state)
{
    struct rc_result r;

    (void)state;
    claude("{\"type\":\"result\",\"is_error\":false,\"result\":\"done\","
           "\"structured_output\":{\"verdict\":\"fail\"}}",
           &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_string_equal(cJSON_GetObjectItem(r.json, "verdict")->valuestring,
                        "fail");
    rc_result_cleanup(&r);
    claude("{\"type\":\"result\",\"result\":\"```json\\n{\\\"verdict\\\":"
           "\\\"pass\\\"}\\n```\\n\"}",
           &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_true(r.valid);
    rc_result_cleanup(&r);
}

static void
expect(enum rc_result_problem p, const struct rc_result *r, const char *detail)
{
    if (r->problem != p || strstr(r->detail, detail) == NULL)
        fail_msg("problem %s \"%s\", want %s \"%s\"",
                 rc_result_problem_name(r->problem), r->detail,
                 rc_result_problem_name(p), detail);
}

static void
test_claude_problems(void **state)
{
    struct rc_result r;
    char *big = malloc(2048);
    cJSON *st;

    (void)state;
    claude("", &no_schema, &r);
    expect(RC_RESULT_MISSING, &r, "no envelope");
    rc_result_cleanup(&r);
    claude("hello", &no_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "the envelope is not JSON");
    rc_result_cleanup(&r);
    claude("{\"type\":\"system\"}", &no_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "not a result envelope");
    rc_result_cleanup(&r);
    claude("{\"type\":\"result\",\"result\":\"\xff\"}", &no_schema, &r);
    expect(RC_RESULT_NOT_UTF8, &r, "stdout is not strict UTF-8 (byte 27)");
    rc_result_cleanup(&r);
    rc_result_claude("{\"type\":\"result\"}\0[[[[", 23, &no_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "stdout holds a NUL byte");
    rc_result_cleanup(&r);
    rc_result_text("ab\0cd", 5, &no_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "the result holds a NUL byte");
    rc_result_cleanup(&r);
    claude("{\"type\":\"result\",\"result\":\"\xed\xa0\x80\"}", &no_schema, &r);
    expect(RC_RESULT_NOT_UTF8, &r, "not strict UTF-8");
    rc_result_cleanup(&r);
    snprintf(big, 2048, "{\"type\":\"result\",\"result\":\"%01100d\"}", 0);
    claude(big, &no_schema, &r);
    expect(RC_RESULT_OVERSIZED, &r, "1100 bytes, over spec.output.maxResultBytes (1024)");
    rc_result_cleanup(&r);
    claude("{\"type\":\"result\",\"result\":\"{\\\"verdict\\\":\\\"maybe\\\"}\"}",
           &with_schema, &r);
    expect(RC_RESULT_INVALID, &r, "$.verdict: is not one of");
    st = rc_result_status(&r);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(st, "valid")));
    assert_null(cJSON_GetObjectItem(st, "json"));
    assert_string_equal(cJSON_GetObjectItem(st, "problem")->valuestring,
                        "invalid");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"),
                                               0),
                            "path")
            ->valuestring,
        "$.verdict");
    cJSON_Delete(st);
    rc_result_cleanup(&r);
    claude("{\"type\":\"result\",\"result\":\"no json here\"}", &with_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "the answer is not JSON");
    rc_result_cleanup(&r);
    free(big);
}

/* is_error: reported as it is, never validated (there is no answer) */
static void
test_claude_is_error(void **state)
{
    struct rc_result r;

    (void)state;
    claude("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
           "\"result\":\"API Error: 401\"}",
           &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_true(r.is_error);
    assert_string_equal(r.text, "API Error: 401");
    assert_null(r.json);
    rc_result_cleanup(&r);
}

/* a nesting bomb: refused by the scan, whatever a parser would do */
static void
test_deep_nesting_bomb(void **state)
{
    size_t n = 1000000;
    char *s = malloc(2 * n + 100);
    struct rc_result r;

    (void)state;
    memset(s, '[', n);
    memset(s + n, ']', n);
    s[2 * n] = '\0';
    rc_result_text(s, 2 * n, &(struct rc_result_opts){ .max_bytes = 4 * n,
                                                       .schema = SCHEMA },
                   &r);
    expect(RC_RESULT_TOO_DEEP, &r, "nests deeper than 64");
    rc_result_cleanup(&r);
    /* brackets inside a string are not nesting */
    snprintf(s, 2 * n, "{\"verdict\":\"pass\",\"x\":\"%s\"}", "[[[[[[[[[[");
    rc_result_text(s, strlen(s), &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    rc_result_cleanup(&r);
    free(s);
}

/* What a reader cannot agree on, or a status cannot hold: refused
 * before validation (the review's cases) */
static void
test_ambiguous_or_bloating_json(void **state)
{
    const struct rc_result_opts big = { .max_bytes = 2 * 1024 * 1024,
                                        .schema = SCHEMA };
    size_t n = 1200 * 1024, i;
    char *s = malloc(n + 64);
    struct rc_result r;
    cJSON *st;
    char *printed;

    (void)state;
    /* {"verdict":"fail","verdict":"pass"}: cJSON reads fail, jq pass */
    text("{\"verdict\":\"fail\",\"verdict\":\"pass\"}", &with_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "repeats the member name \"verdict\"");
    rc_result_cleanup(&r);
    /* nested too, among many members */
    text("{\"verdict\":\"pass\",\"x\":[{\"a\":1,\"b\":2,\"a\":3}]}",
         &with_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "repeats the member name \"a\"");
    rc_result_cleanup(&r);
    /* a raw control byte in a string: cJSON prints it as six bytes */
    text("{\"verdict\":\"pass\",\"x\":\"a\001b\"}", &with_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "raw control byte in a string (at byte 24)");
    rc_result_cleanup(&r);
    /* \u0000 would end the string cJSON keeps */
    text("{\"verdict\":\"pass\",\"x\":\"a\\u0000b\"}", &with_schema, &r);
    expect(RC_RESULT_MALFORMED, &r, "\\u0000 escape");
    rc_result_cleanup(&r);
    /* escaped text that is fine: \u0001 and \" are not refused */
    text("{\"verdict\":\"pass\",\"x\":\"\\u0001\\\"\"}", &with_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    rc_result_cleanup(&r);
    /* an answer whose status would not fit (a bound above the spec's
     * 256 KiB, to reach it): the JSON left out, the rest kept */
    strcpy(s, "{\"verdict\":\"pass\",\"x\":\"");
    for (i = strlen(s); i + 2 <= n; i += 2)
        memcpy(s + i, "\\\\", 2); /* one backslash, escaped */
    strcpy(s + i, "\"}");
    text(s, &big, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_true(r.valid);
    st = rc_result_status(&r);
    assert_null(cJSON_GetObjectItem(st, "json"));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "jsonOmitted")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "valid")));
    printed = cJSON_PrintUnformatted(st);
    assert_true(strlen(printed) <= RC_RESULT_STATUS_MAX);
    free(printed);
    cJSON_Delete(st);
    rc_result_cleanup(&r);
    /* num_turns far past long's range: clamped, not undefined */
    claude("{\"type\":\"result\",\"is_error\":false,\"result\":\"x\","
           "\"num_turns\":1e300}", &no_schema, &r);
    assert_int_equal(r.turns, 1000000000L);
    rc_result_cleanup(&r);
    free(s);
}

static void
test_codex_text(void **state)
{
    struct rc_result r;

    (void)state;
    rc_result_text(NULL, 0, &no_schema, &r);
    expect(RC_RESULT_MISSING, &r, "no --output-last-message file");
    rc_result_cleanup(&r);
    rc_result_text("", 0, &no_schema, &r);
    expect(RC_RESULT_MISSING, &r, "file is empty");
    rc_result_cleanup(&r);
    rc_result_text("plain words", 11, &no_schema, &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_null(r.json);
    assert_false(r.has_is_error);
    rc_result_cleanup(&r);
    rc_result_text("{\"verdict\":\"pass\"}", 18,
                   &(struct rc_result_opts){ .max_bytes = 17,
                                             .schema = SCHEMA },
                   &r);
    expect(RC_RESULT_OVERSIZED, &r, "18 bytes");
    rc_result_cleanup(&r);
    /* the negative control: validation off accepts the broken answer */
    rc_result_text("{\"verdict\":1}", 13,
                   &(struct rc_result_opts){ .max_bytes = 99, .schema = SCHEMA,
                                             .skip_validation = true },
                   &r);
    assert_int_equal(r.problem, RC_RESULT_OK);
    assert_non_null(r.json);
    rc_result_cleanup(&r);
    rc_result_text("{\"verdict\":1}", 13, &with_schema, &r);
    expect(RC_RESULT_INVALID, &r, "$.verdict");
    rc_result_cleanup(&r);
}

/* a tar of one entry, as Docker's archive of a path is */
static size_t
make_tar(char *buf, size_t cap, const char *name, int type, const char *data)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    size_t used = 0;

    archive_write_set_format_pax_restricted(a);
    archive_write_open_memory(a, buf, cap, &used);
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, (unsigned)type);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)strlen(data) : 0);
    archive_write_header(a, e);
    if (type == AE_IFREG)
        archive_write_data(a, data, strlen(data));
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    return used;
}

static void
test_untar(void **state)
{
    static char tar[16384];
    size_t len = make_tar(tar, sizeof(tar), ".agentctl-last-message", AE_IFREG,
                          "the answer");
    struct err e = { 0 };
    char *data;
    size_t n;

    (void)state;
    assert_int_equal(rc_result_untar(tar, len, 100, &data, &n, &e), 0);
    assert_string_equal(data, "the answer");
    assert_int_equal(n, 10);
    free(data);
    assert_int_equal(rc_result_untar(tar, len, 9, &data, &n, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_null(data);
    len = make_tar(tar, sizeof(tar), "d", AE_IFDIR, NULL);
    assert_int_equal(rc_result_untar(tar, len, 100, &data, &n, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(rc_result_untar("junk", 4, 100, &data, &n, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
}

static void
test_status_text_bounded(void **state)
{
    size_t n = RC_RESULT_TEXT_IN_STATUS + 10;
    char *s = malloc(n + 1);
    struct rc_result r;
    cJSON *st;

    (void)state;
    memset(s, 'a', n);
    memcpy(s + RC_RESULT_TEXT_IN_STATUS - 1, "\xc3\xa9", 2); /* cut inside */
    s[n] = '\0';
    rc_result_text(s, n, &(struct rc_result_opts){ .max_bytes = n }, &r);
    st = rc_result_status(&r);
    assert_int_equal(strlen(cJSON_GetObjectItem(st, "text")->valuestring),
                     RC_RESULT_TEXT_IN_STATUS - 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "textTruncated")));
    assert_int_equal(cJSON_GetObjectItem(st, "bytes")->valuedouble, n);
    cJSON_Delete(st);
    rc_result_cleanup(&r);
    free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claude_envelope),
        cmocka_unit_test(test_claude_structured_and_fenced),
        cmocka_unit_test(test_claude_problems),
        cmocka_unit_test(test_claude_is_error),
        cmocka_unit_test(test_deep_nesting_bomb),
        cmocka_unit_test(test_ambiguous_or_bloating_json),
        cmocka_unit_test(test_codex_text),
        cmocka_unit_test(test_untar),
        cmocka_unit_test(test_status_text_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
