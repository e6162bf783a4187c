/* test_rc_adapter_result.c - the result's documented channel in the
 * adapters: spec.output.schema reaches Claude Code as --json-schema and
 * Codex as --output-schema FILE; codex writes its last message into the
 * scratch volume (--output-last-message), except for an attempt an older
 * version captured (result_unread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rc_adapter.h"

#define SCHEMA "{\"type\":\"object\",\"required\":[\"verdict\"]}"

static struct rc_adapter_out *
build(const char *adapter, const char *schema, bool unread)
{
    struct rc_adapter_box box = { .proxy_port = 3128, .runner_timeout = 60,
                                  .runner_max_bytes = 1024,
                                  .runner_dir = "/work",
                                  .output_schema = schema,
                                  .result_unread = unread };
    struct err e = { 0 };
    struct rc_adapter_out *o = rc_adapter_build(
        adapter, adapter, SPEC_PHASE_PLANNING, "hi", NULL, &box, &e);

    if (o == NULL)
        fail_msg("%s: %s", adapter, e.msg);
    return o;
}

/* the argument after `flag`, or "--flag=value"'s value; NULL */
static const char *
arg_of(const struct rc_adapter_out *o, const char *flag)
{
    size_t n = strlen(flag);

    for (size_t i = 0; i < o->argc; i++) {
        if (strcmp(o->argv[i], flag) == 0 && i + 1 < o->argc)
            return o->argv[i + 1];
        if (strncmp(o->argv[i], flag, n) == 0 && o->argv[i][n] == '=')
            return o->argv[i] + n + 1;
    }
    return NULL;
}

static const char *
file_of(const struct rc_adapter_out *o, const char *path)
{
    for (size_t i = 0; i < o->n_files; i++)
        if (strcmp(o->files[i].path, path) == 0)
            return o->files[i].content;
    return NULL;
}

static void
test_claude_json_schema(void **state)
{
    struct rc_adapter_out *o = build("claude", SCHEMA, false);

    (void)state;
    assert_string_equal(arg_of(o, "--json-schema"), SCHEMA);
    assert_string_equal(arg_of(o, "--output-format"), "json");
    rc_adapter_out_free(o);
    o = build("claude", NULL, false);
    assert_null(arg_of(o, "--json-schema"));
    rc_adapter_out_free(o);
}

static void
test_codex_output_schema_and_file(void **state)
{
    struct rc_adapter_out *o = build("codex", SCHEMA, false);

    (void)state;
    assert_string_equal(arg_of(o, "--output-last-message"),
                        RC_CODEX_RESULT_FILE);
    assert_string_equal(arg_of(o, "--output-schema"), RC_CODEX_SCHEMA_FILE);
    assert_string_equal(file_of(o, RC_CODEX_SCHEMA_FILE), SCHEMA "\n");
    /* the options come before the prompt's "--", the last argument but
     * one (the launcher's own "--" comes before codex) */
    assert_string_equal(o->argv[o->argc - 2], "--");
    assert_string_equal(o->argv[o->argc - 1], "hi");
    rc_adapter_out_free(o);
    o = build("codex", NULL, false);
    assert_non_null(arg_of(o, "--output-last-message"));
    assert_null(arg_of(o, "--output-schema"));
    assert_null(file_of(o, RC_CODEX_SCHEMA_FILE));
    rc_adapter_out_free(o);
}

/* an attempt captured before results were read keeps its argv */
static void
test_codex_result_unread(void **state)
{
    struct rc_adapter_out *o = build("codex", NULL, true);

    (void)state;
    assert_null(arg_of(o, "--output-last-message"));
    rc_adapter_out_free(o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claude_json_schema),
        cmocka_unit_test(test_codex_output_schema_and_file),
        cmocka_unit_test(test_codex_result_unread),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
