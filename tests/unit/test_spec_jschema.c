/* test_spec_jschema.c - spec.output.schema: the subset check at load
 * (file:line:col errors, bounds) and the validator of a result against it
 * (model/spec_jschema.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec.h"
#include "spec_jschema.h"

#define HEAD                                                                   \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: r}\n"                                                    \
    "spec:\n"                                                                  \
    "  vendor: claude\n"                                                       \
    "  phase: review\n"                                                        \
    "  image: x:1\n"                                                           \
    "  prompt: hi\n"                                                           \
    "  deadlineSeconds: 60\n"

static size_t
load(const char *text, struct spec_file *f)
{
    spec_load_buffer("t.yaml", text, strlen(text), f);
    return f->errors.n;
}

static void
test_schema_kept_as_json(void **state)
{
    struct spec_file f = { 0 };

    (void)state;
    assert_int_equal(load(HEAD "  output:\n"
                               "    schema:\n"
                               "      type: object\n"
                               "      required: [verdict]\n"
                               "      properties:\n"
                               "        verdict: {enum: [pass, fail]}\n",
                          &f),
                     0);
    assert_string_equal(f.items[0]->output_schema,
                        "{\"properties\":{\"verdict\":{\"enum\":[\"pass\","
                        "\"fail\"]}},\"required\":[\"verdict\"],\"type\":"
                        "\"object\"}");
    assert_int_equal(f.items[0]->output_max_result_bytes, SPEC_RESULT_DEFAULT);
    spec_file_cleanup(&f);
}

static void
test_no_schema_no_default_written(void **state)
{
    struct spec_file f = { 0 };

    (void)state;
    assert_int_equal(load(HEAD "  output: {maxResultBytes: 1Ki}\n", &f), 0);
    assert_null(f.items[0]->output_schema);
    assert_int_equal(f.items[0]->output_max_result_bytes, 1024);
    spec_file_cleanup(&f);
    /* the default is the controller's: the canonical spec does not grow */
    assert_int_equal(load(HEAD, &f), 0);
    assert_null(strstr(f.items[0]->resource_json, "maxResultBytes"));
    spec_file_cleanup(&f);
}

static void
expect_error(const char *text, const char *want)
{
    struct spec_file f = { 0 };
    char msg[1024];

    assert_true(load(text, &f) >= 1);
    err_format(&f.errors.items[0], msg, sizeof(msg));
    if (strstr(msg, want) == NULL)
        fail_msg("got \"%s\", want \"%s\"", msg, want);
    spec_file_cleanup(&f);
}

static void
test_outside_subset_refused(void **state)
{
    (void)state;
    expect_error(HEAD "  output:\n    schema:\n      type: object\n"
                      "      patternProperties: {}\n",
                 "t.yaml:13:7: spec.output.schema.patternProperties: "
                 "patternProperties is not in the subset");
    expect_error(HEAD "  output:\n    schema: {type: [string, null]}\n",
                 "spec.output.schema.type: must be one of");
    expect_error(HEAD "  output:\n    schema:\n      properties:\n"
                      "        a: {minLength: -1}\n",
                 "spec.output.schema.properties.a.minLength: must be a whole");
    expect_error(HEAD "  output:\n    schema: {enum: []}\n",
                 "spec.output.schema.enum: must be a non-empty list");
    expect_error(HEAD "  output:\n    schema: {items: [a]}\n",
                 "spec.output.schema.items: a schema must be a mapping");
    expect_error(HEAD "  output: {maxResultBytes: 257Ki}\n",
                 "spec.output.maxResultBytes: must be between 1 and 262144");
}

/* 20 levels of items: past SPEC_JSCHEMA_MAX_DEPTH, refused, not walked */
static void
test_deep_schema_refused(void **state)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof(text), "%s  output:\n    schema: ",
                                HEAD);

    (void)state;
    for (int i = 0; i < 20; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "{items: ");
    n += (size_t)snprintf(text + n, sizeof(text) - n, "{type: string}");
    for (int i = 0; i < 20; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "}");
    snprintf(text + n, sizeof(text) - n, "\n");
    expect_error(text, "nested too deep");
}

static void
test_big_schema_refused(void **state)
{
    size_t cap = 200000, n;
    char *text = malloc(cap);

    (void)state;
    n = (size_t)snprintf(text, cap, "%s  output:\n    schema:\n"
                                    "      properties:\n", HEAD);
    for (int i = 0; i < 1200; i++)
        n += (size_t)snprintf(text + n, cap - n, "        p%d: {type: string}\n",
                              i);
    expect_error(text, "spec.output.schema: too large (at most 2000");
    free(text);
}

/* ---- the validator ------------------------------------------------------ */

static const char review_schema[] =
    "{\"type\":\"object\",\"required\":[\"verdict\",\"files\"],"
    "\"additionalProperties\":false,\"properties\":{"
    "\"verdict\":{\"type\":\"string\",\"enum\":[\"pass\",\"fail\"]},"
    "\"score\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMaximum\":1},"
    "\"note\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":3},"
    "\"files\":{\"type\":\"array\",\"maxItems\":2,"
    "\"items\":{\"type\":\"string\"}}}}";

static size_t
check(const char *value, cJSON *errors)
{
    cJSON *s = cJSON_Parse(review_schema), *v = cJSON_Parse(value);
    size_t n;

    assert_non_null(s);
    assert_non_null(v);
    n = spec_jschema_validate(s, v, errors, SPEC_JSCHEMA_MAX_ERRORS);
    cJSON_Delete(s);
    cJSON_Delete(v);
    return n;
}

static void
expect_path(const char *value, const char *path, const char *msg)
{
    cJSON *errors = cJSON_CreateArray();
    const cJSON *first;

    assert_true(check(value, errors) >= 1);
    first = cJSON_GetArrayItem(errors, 0);
    assert_string_equal(cJSON_GetObjectItem(first, "path")->valuestring, path);
    if (strstr(cJSON_GetObjectItem(first, "message")->valuestring, msg) == NULL)
        fail_msg("message \"%s\", want \"%s\"",
                 cJSON_GetObjectItem(first, "message")->valuestring, msg);
    cJSON_Delete(errors);
}

static void
test_validate_accepts(void **state)
{
    (void)state;
    assert_int_equal(check("{\"verdict\":\"pass\",\"files\":[\"a.c\"],"
                           "\"score\":10,\"ratio\":0.5,\"note\":\"\xc3\xa9\xc3\xa9\xc3\xa9\"}",
                           NULL),
                     0);
}

static void
test_validate_paths(void **state)
{
    (void)state;
    expect_path("{\"files\":[]}", "$.verdict", "is required");
    expect_path("{\"verdict\":\"maybe\",\"files\":[]}", "$.verdict",
                "not one of the values of enum");
    expect_path("{\"verdict\":\"pass\",\"files\":[\"a\",7]}", "$.files[1]",
                "must be a string, not integer");
    expect_path("{\"verdict\":\"pass\",\"files\":[],\"score\":1.5}", "$.score",
                "must be an integer, not number");
    expect_path("{\"verdict\":\"pass\",\"files\":[],\"score\":11}", "$.score",
                "more than the maximum 10");
    expect_path("{\"verdict\":\"pass\",\"files\":[],\"ratio\":1}", "$.ratio",
                "is not less than 1");
    expect_path("{\"verdict\":\"pass\",\"files\":[],\"note\":\"abcd\"}",
                "$.note", "has 4 characters, at most 3");
    expect_path("{\"verdict\":\"pass\",\"files\":[\"a\",\"b\",\"c\"]}",
                "$.files", "has 3 items, at most 2");
    expect_path("{\"verdict\":\"pass\",\"files\":[],\"x y\":1}", "$[\"x y\"]",
                "is not allowed");
    expect_path("[1]", "$", "must be an object, not array");
}

/* every problem counts, only the first few are kept */
static void
test_validate_keeps_first(void **state)
{
    cJSON *errors = cJSON_CreateArray();
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof(text), "{\"verdict\":\"pass\","
                                                    "\"files\":[]");

    (void)state;
    for (int i = 0; i < 30; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, ",\"x%d\":1", i);
    snprintf(text + n, sizeof(text) - n, "}");
    assert_int_equal(check(text, errors), 30);
    assert_int_equal(cJSON_GetArraySize(errors), SPEC_JSCHEMA_MAX_ERRORS);
    cJSON_Delete(errors);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_kept_as_json),
        cmocka_unit_test(test_no_schema_no_default_written),
        cmocka_unit_test(test_outside_subset_refused),
        cmocka_unit_test(test_deep_schema_refused),
        cmocka_unit_test(test_big_schema_refused),
        cmocka_unit_test(test_validate_accepts),
        cmocka_unit_test(test_validate_paths),
        cmocka_unit_test(test_validate_keeps_first),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
