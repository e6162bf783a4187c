/* test_cli_parse.c - agentctl's pure parts: the table-driven argument
 * parser (flags before and after arguments, --, =, repeated, unknown),
 * durations as kubectl takes them, label selectors, JSONPath templates,
 * the resource type get's first argument names (get pool), and pool
 * documents as rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "duration.h"

/* cli_jsonpath_check with a buffer of the test's (why, or NULL). */
static const char *
jp_check(const char *tmpl)
{
    static char why[160];

    return cli_jsonpath_check(tmpl, why, sizeof(why));
}

static const struct cli_opt opts[] = {
    { "filename", 'f', CLI_OPT_LIST, "PATH", "input", CLI_COMPLETE_FILE, NULL },
    { "output", 'o', CLI_OPT_VALUE, "FORMAT", "format", CLI_COMPLETE_NONE,
      NULL },
    { "follow", 'F', CLI_OPT_FLAG, NULL, "follow", CLI_COMPLETE_NONE, NULL },
    { "dry-run", 0, CLI_OPT_OPTIONAL, "client", "dry", CLI_COMPLETE_NONE,
      NULL },
    { NULL, 0, CLI_OPT_FLAG, NULL, NULL, CLI_COMPLETE_NONE, NULL },
};

/* Parse a NULL-terminated argv copy (getopt permutes it). */
static int
parse(struct cli_args *a, char **argv)
{
    int argc = 0;

    while (argv[argc] != NULL)
        argc++;
    return cli_args_parse(a, "test", opts, argc, argv);
}

static void
test_flags_before_after_and_between_arguments(void **state)
{
    char *argv[] = { "get", "-o", "json", "a", "--follow", "b", "-fx.yaml",
                     "--filename=y.yaml", "--specs", "/s", NULL };
    struct cli_args a;
    size_t n;
    char *const *f;

    (void)state;
    assert_int_equal(parse(&a, argv), 0);
    assert_string_equal(cli_args_get(&a, "output", NULL), "json");
    assert_true(cli_args_has(&a, "follow"));
    f = cli_args_list(&a, "filename", &n);
    assert_int_equal(n, 2);
    assert_string_equal(f[0], "x.yaml");
    assert_string_equal(f[1], "y.yaml");
    assert_string_equal(cli_args_get(&a, "specs", NULL), "/s");
    assert_int_equal(a.npos, 2);
    assert_string_equal(a.pos[0], "a");
    assert_string_equal(a.pos[1], "b");
    cli_args_cleanup(&a);
}

static void
test_double_dash_ends_flags(void **state)
{
    char *argv[] = { "logs", "--", "-o", "--follow", NULL };
    struct cli_args a;

    (void)state;
    assert_int_equal(parse(&a, argv), 0);
    assert_false(cli_args_has(&a, "follow"));
    assert_null(cli_args_get(&a, "output", NULL));
    assert_int_equal(a.npos, 2);
    assert_string_equal(a.pos[0], "-o");
    cli_args_cleanup(&a);
}

static void
test_last_value_wins_and_optional_value(void **state)
{
    char *argv[] = { "x", "-o", "a", "--output=b", "--dry-run", NULL };
    char *argv2[] = { "x", "--dry-run=none", "n", NULL };
    struct cli_args a;

    (void)state;
    assert_int_equal(parse(&a, argv), 0);
    assert_string_equal(cli_args_get(&a, "output", NULL), "b");
    assert_string_equal(cli_args_get(&a, "dry-run", NULL), "");
    cli_args_cleanup(&a);
    /* an optional value never takes the next word */
    assert_int_equal(parse(&a, argv2), 0);
    assert_string_equal(cli_args_get(&a, "dry-run", NULL), "none");
    assert_int_equal(a.npos, 1);
    cli_args_cleanup(&a);
}

static void
test_unknown_flag_and_missing_value_are_usage_errors(void **state)
{
    char *unknown[] = { "x", "--nope", NULL };
    char *unknown_short[] = { "x", "-z", NULL };
    char *missing[] = { "x", "-o", NULL };
    struct cli_args a;

    (void)state;
    assert_int_equal(parse(&a, unknown), -1);
    cli_args_cleanup(&a);
    assert_int_equal(parse(&a, unknown_short), -1);
    cli_args_cleanup(&a);
    assert_int_equal(parse(&a, missing), -1);
    cli_args_cleanup(&a);
}

static void
test_help_is_a_flag_of_every_command(void **state)
{
    char *argv[] = { "x", "a", "-h", NULL };
    struct cli_args a;

    (void)state;
    assert_int_equal(parse(&a, argv), 0);
    assert_true(a.help);
    cli_args_cleanup(&a);
}

static double
dur(const char *s)
{
    double v = -1;

    return duration_parse(s, &v) == 0 ? v : -1;
}

static void
test_durations_go_style(void **state)
{
    (void)state;
    assert_true(dur("1h30m") == 5400);
    assert_true(dur("90") == 90);
    assert_true(dur("30s") == 30);
    assert_true(dur("1m0s") == 60);
    assert_true(dur("2.5s") == 2.5);
    assert_true(dur("500ms") == 0.5);
    assert_true(dur("1h1m1s500ms") > 3661.49 && dur("1h1m1s500ms") < 3661.51);
    assert_true(dur("0") == 0);
    assert_true(dur("") == -1);
    assert_true(dur("-1s") == -1);
    assert_true(dur("5x") == -1);
    assert_true(dur("1h 30m") == -1);
    assert_true(dur("h") == -1);
    assert_true(dur("1h30") == -1); /* a bare number only on its own */
}

static struct spec_kvlist *
labels(void)
{
    static struct spec_kv kv[] = { { "kind", "review" }, { "team", "web" } };
    static struct spec_kvlist l = { kv, 2 };

    return &l;
}

static bool
matches(const char *sel)
{
    struct cli_selector *s = cli_selector_parse(sel);
    bool ok;

    assert_non_null(s);
    ok = cli_selector_match(s, labels());
    cli_selector_free(s);
    return ok;
}

static void
test_selectors(void **state)
{
    (void)state;
    assert_true(matches("team=web"));
    assert_true(matches("team==web"));
    assert_false(matches("team=api"));
    assert_true(matches("team!=api"));
    assert_true(matches("owner!=x")); /* absent key: != matches */
    assert_true(matches("team"));
    assert_false(matches("!team"));
    assert_true(matches("!owner"));
    assert_true(matches("team in (api, web)"));
    assert_false(matches("team notin (api,web)"));
    assert_true(matches("team=web,kind=review"));
    assert_false(matches("team=web,kind=fix"));
    assert_null(cli_selector_parse(""));
    assert_null(cli_selector_parse("a b"));
    assert_null(cli_selector_parse("team in web"));
    assert_null(cli_selector_parse("=x"));
}

static char *
jp(const char *tmpl, const char *json)
{
    cJSON *doc = cJSON_Parse(json);
    char *out = cli_jsonpath(tmpl, doc);

    cJSON_Delete(doc);
    return out;
}

static void
test_jsonpath(void **state)
{
    static const char list[] =
        "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"a\"},"
        "\"status\":{\"phase\":\"Running\"}},{\"metadata\":{\"name\":\"b\"},"
        "\"spec\":{\"n\":3}}]}";
    char *s;

    (void)state;
    s = jp("{.items[0].metadata.name}", list);
    assert_string_equal(s, "a");
    free(s);
    s = jp("{.items[*].metadata.name}", list);
    assert_string_equal(s, "a b");
    free(s);
    s = jp("{range .items[*]}{.metadata.name}={.status.phase}{\"\\n\"}{end}",
           list);
    assert_string_equal(s, "a=Running\nb=\n");
    free(s);
    s = jp("n: {.items[1].spec}", list);
    assert_string_equal(s, "n: {\"n\":3}");
    free(s);
    s = jp("{.items[-1].metadata['name']}", list);
    assert_string_equal(s, "b");
    free(s);
    assert_null(jp("{.items[x]}", list));
    assert_null(jp("{.items", list));
    assert_string_equal(jp_check("{range .items[*]}{.a}"),
                        "{range} without its {end}");
    assert_null(jp_check("{.a}"));
    assert_string_equal(jp_check("{.a"), "unclosed action \"{.a\"");
}

/* Why a template failed is the call's own: a later check, failing or
 * not, leaves an earlier one's answer alone (it was one static buffer). */
static void
test_jsonpath_why_is_per_call(void **state)
{
    char a[160], b[160];

    (void)state;
    assert_ptr_equal(cli_jsonpath_check("{.a", a, sizeof(a)), a);
    assert_ptr_equal(cli_jsonpath_check("{end}", b, sizeof(b)), b);
    assert_null(cli_jsonpath_check("{.ok}", b, sizeof(b)));
    assert_string_equal(a, "unclosed action \"{.a\"");
    assert_string_equal(cli_jsonpath_check("{.x", b, 8), "unclose");
}

/* [?(TEST)]: kubectl's filters, on the names of the matching items. */
static void
test_jsonpath_filter(void **state)
{
    static const char list[] =
        "{\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":{\"team\":"
        "\"web\"}},\"spec\":{\"n\":3,\"on\":true}},{\"metadata\":{\"name\":"
        "\"b\"},\"spec\":{\"n\":30}},{\"metadata\":{\"name\":\"c\","
        "\"labels\":{\"team\":\"ops\"}},\"spec\":{\"n\":300}}]}";
    static const struct {
        const char *tmpl, *want;
    } rows[] = {
        { "{.items[?(@.metadata.labels.team==\"web\")].metadata.name}", "a" },
        { "{.items[?(@.metadata.labels.team == 'ops')].metadata.name}", "c" },
        /* an item without the path matches no comparison, != included */
        { "{.items[?(@.metadata.labels.team!=\"web\")].metadata.name}", "c" },
        { "{.items[?(@.spec.n>3)].metadata.name}", "b c" },
        { "{.items[?(@.spec.n>=3)].metadata.name}", "a b c" },
        { "{.items[?(@.spec.n<30)].metadata.name}", "a" },
        { "{.items[?(@.spec.n<=30)].metadata.name}", "a b" },
        { "{.items[?(@.spec.on==true)].metadata.name}", "a" },
        { "{.items[?(@.metadata.labels)].metadata.name}", "a c" },
        { "{.items[?(@.metadata['name']=='b')].spec.n}", "30" },
        /* a string is never equal to a number */
        { "{.items[?(@.spec.n==\"3\")].metadata.name}", "" },
        { "{range .items[?(@.spec.n>10)]}{.metadata.name};{end}", "b;c;" },
        /* strings order by bytes ('c' - 'a' is 2: no "unordered" slip) */
        { "{.items[?(@.metadata.name>'a')].metadata.name}", "b c" },
        { "{.items[?(@.metadata.name<'c')].metadata.name}", "a b" },
        { "{.items[?(@.metadata.name>='b')].metadata.name}", "b c" },
        /* an index past int is past the array, not wrapped to [0] */
        { "{.items[?(@.metadata.name[4294967296]=='a')].metadata.name}", "" },
    };
    char *s;

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        s = jp(rows[i].tmpl, list);
        assert_non_null(s);
        if (strcmp(s, rows[i].want) != 0)
            fail_msg("%s: got [%s], want [%s]", rows[i].tmpl, s, rows[i].want);
        free(s);
    }
    /* malformed tests are refused even where there is nothing to filter */
    assert_string_equal(jp_check("{.items[?(@.x=)]}"),
                        "malformed filter \"?(@.x=)\"");
    assert_non_null(jp_check("{.items[?(x==1)]}"));
    assert_non_null(jp_check("{.items[?(@.x==1]}"));
    assert_non_null(jp_check("{.items[?(@.x==bare)]}"));
    assert_null(jp_check("{.items[?(@.x==1)]}"));
}

/* get's resource: pos (after the command and its flags) as parsed. */
static enum cli_resource
get_res(char **argv, size_t *skip, size_t *npos)
{
    struct cli_args a;
    enum cli_resource r;

    assert_int_equal(parse(&a, argv), 0);
    r = cli_get_resource(a.pos, a.npos, skip);
    *npos = a.npos - *skip;
    cli_args_cleanup(&a);
    return r;
}

static void
test_get_pool_is_the_pool_not_a_name(void **state)
{
    char *none[] = { "get", "-o", "wide", NULL };
    char *pool[] = { "get", "-o", "wide", "pool", NULL };
    char *pools_after[] = { "get", "pools", "--output=json", NULL };
    char *dashed[] = { "get", "--", "pool", NULL };
    size_t skip, n;

    (void)state;
    assert_int_equal(get_res(none, &skip, &n), CLI_RES_INVOCATION);
    assert_int_equal(skip, 0);
    assert_int_equal(get_res(pool, &skip, &n), CLI_RES_POOL);
    assert_int_equal(skip, 1);
    assert_int_equal(n, 0);
    assert_int_equal(get_res(pools_after, &skip, &n), CLI_RES_POOL);
    assert_int_equal(n, 0);
    assert_int_equal(get_res(dashed, &skip, &n), CLI_RES_POOL);
}

static void
test_get_invocation_called_pool(void **state)
{
    char *typed[] = { "get", "agentinvocation", "pool", NULL };
    char *shortname[] = { "get", "ai", "pool", "web", "-o", "json", NULL };
    char *names[] = { "get", "web", "pool", NULL };
    char *caps[] = { "get", "Pool", NULL };
    struct cli_args a;
    size_t skip, n;

    (void)state;
    assert_int_equal(parse(&a, typed), 0);
    assert_int_equal(cli_get_resource(a.pos, a.npos, &skip),
                     CLI_RES_INVOCATION);
    assert_int_equal(skip, 1);
    assert_int_equal(a.npos - skip, 1);
    assert_string_equal(a.pos[skip], "pool");
    cli_args_cleanup(&a);
    assert_int_equal(get_res(shortname, &skip, &n), CLI_RES_INVOCATION);
    assert_int_equal(skip, 1);
    assert_int_equal(n, 2);
    /* control: a first argument that is no type is a name, as before */
    assert_int_equal(get_res(names, &skip, &n), CLI_RES_INVOCATION);
    assert_int_equal(skip, 0);
    assert_int_equal(n, 2);
    assert_int_equal(get_res(caps, &skip, &n), CLI_RES_INVOCATION);
    assert_int_equal(skip, 0);
    /* explain shares the words */
    assert_string_equal(cli_invocation_words[0], "agentinvocation");
}

static cJSON *
json(const char *text)
{
    cJSON *j = cJSON_Parse(text);

    assert_non_null(j);
    return j;
}

static void
test_pool_rows_sorted_across_documents(void **state)
{
    cJSON *a = json("{\"controller\":\"agentctl-1\",\"boxes\":["
                    "{\"name\":\"p-b\",\"vendor\":\"fake\",\"state\":"
                    "\"Ready\",\"subnet\":\"10.0.2.0/24\",\"createdAt\":"
                    "\"2026-12-07T00:09:58Z\"},{\"name\":\"p-a\"}]}");
    cJSON *b = json("{\"boxes\":[{\"name\":\"p-0\",\"state\":"
                    "\"Building\"}]}");
    cJSON *empty = json("{\"controller\":\"c\",\"boxes\":[]}");
    cJSON *nobox = json("{\"controller\":\"c\",\"boxes\":null}");
    struct cli_pool_rows r = { 0 };
    struct err e = { 0 };

    (void)state;
    assert_int_equal(cli_pool_add(&r, a, "agentctl-1", &e), 0);
    assert_int_equal(cli_pool_add(&r, b, "Node.B_2", &e), 0);
    assert_int_equal(cli_pool_add(&r, empty, "c", &e), 0);
    assert_int_equal(cli_pool_add(&r, nobox, "c", &e), 0);
    assert_int_equal(r.n, 3);
    cli_pool_sort(&r);
    assert_string_equal(r.v[0].name, "p-0");
    assert_string_equal(r.v[0].controller, "Node.B_2"); /* the id */
    assert_string_equal(r.v[0].state, "Building");
    assert_string_equal(r.v[0].vendor, "<none>");
    assert_null(r.v[0].created_at);
    assert_string_equal(r.v[1].name, "p-a");
    assert_string_equal(r.v[2].name, "p-b");
    assert_string_equal(r.v[2].controller, "agentctl-1");
    assert_string_equal(r.v[2].subnet, "10.0.2.0/24");
    assert_string_equal(r.v[2].created_at, "2026-12-07T00:09:58Z");
    cli_pool_rows_cleanup(&r);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(empty);
    cJSON_Delete(nobox);
}

static void
test_pool_bad_document_adds_nothing(void **state)
{
    static const char *const bad[] = {
        "{\"boxes\":{}}",
        "{\"boxes\":[{\"name\":\"ok\"},{\"vendor\":\"fake\"}]}",
        "{\"boxes\":[{\"name\":\"ok\"},7]}",
        "[]",
    };
    cJSON *good = json("{\"boxes\":[{\"name\":\"g\"}]}");
    struct cli_pool_rows r = { 0 };
    struct err e = { 0 };

    (void)state;
    assert_int_equal(cli_pool_add(&r, good, "c", &e), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cJSON *d = json(bad[i]);

        e.code = ERR_OK;
        assert_int_equal(cli_pool_add(&r, d, "c", &e), -1);
        assert_int_equal(e.code, ERR_SYNTAX);
        assert_int_equal(r.n, 1); /* all or nothing */
        cJSON_Delete(d);
    }
    assert_string_equal(r.v[0].name, "g");
    cli_pool_rows_cleanup(&r);
    cJSON_Delete(good);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jsonpath_why_is_per_call),
        cmocka_unit_test(test_flags_before_after_and_between_arguments),
        cmocka_unit_test(test_double_dash_ends_flags),
        cmocka_unit_test(test_last_value_wins_and_optional_value),
        cmocka_unit_test(test_unknown_flag_and_missing_value_are_usage_errors),
        cmocka_unit_test(test_help_is_a_flag_of_every_command),
        cmocka_unit_test(test_durations_go_style),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_jsonpath),
        cmocka_unit_test(test_jsonpath_filter),
        cmocka_unit_test(test_get_pool_is_the_pool_not_a_name),
        cmocka_unit_test(test_get_invocation_called_pool),
        cmocka_unit_test(test_pool_rows_sorted_across_documents),
        cmocka_unit_test(test_pool_bad_document_adds_nothing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
