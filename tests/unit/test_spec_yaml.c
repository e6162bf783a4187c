/* test_spec_yaml.c - hostile YAML: each case gets a clear error at the
 * right line:col, and nothing crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "spec_test_util.h"

struct ycase {
    const char *name;
    const char *text;
    unsigned line, col;
    const char *needle;
};

static const struct ycase cases[] = {
    { "duplicate key", "a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key \"a\" (first at line 1)" },
    { "anchor", "a: &x [1, 2]\nb: 1\n", 1, 4, "anchors and aliases" },
    { "alias", "a: [1]\nb: *x\n", 2, 4, "" },
    { "tab indent", "a:\n\tb: 1\n", 2, 1, "tab characters" },
    { "non-scalar key", "? [a]\n: 1\n", 1, 3, "mapping keys must be plain strings" },
    { "explicit tag", "a: !!binary aGVsbG8=\n", 1, 4, "explicit tags" },
    { "invalid utf-8", "a: b\nc: \"\xc3\x28\"\n", 2, 5, "invalid UTF-8 (byte 0xc3)" },
    { "overlong utf-8", "a: \xc0\xaf\n", 1, 4, "invalid UTF-8" },
    { "surrogate utf-8", "a: \xed\xa0\x80\n", 1, 4, "invalid UTF-8" },
    { "unclosed flow", "a: [1, 2\n", 2, 1, "" },
    { "empty file", "", 1, 1, "file holds no documents" },
    { "comments only", "# nothing\n", 1, 1, "file holds no documents" },
    { "empty document", "---\n---\na: 1\n", 1, 1, "empty document" },
    { "scalar document", "hello\n", 1, 1, "expected a mapping" },
    { "list document", "[1]\n", 1, 1, "got array" },
    { "leading zero", "a: 1\nb: 060\n", 2, 4, "060: an integer with a leading zero" },
    { "signed leading zero", "a: -07\n", 1, 4, "leading zero" },
    { "leading zero key", "00: x\n", 1, 1, "leading zero" },
    { "control character", "a: b\nc: d\x01e\n", 2, 5, "control characters" },
};

static void
test_spec_yaml_hostile_inputs_report_line_col(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct spec_file f;

        print_message("case: %s\n", cases[i].name);
        assert_true(spec_test_load(cases[i].text, &f) > 0);
        assert_true(spec_test_has_error(&f, cases[i].line, cases[i].col, NULL,
                                        cases[i].needle));
        assert_int_equal(f.n, 0);
        spec_file_cleanup(&f);
    }
}

/* Many documents, each nesting one level deeper: the 65th level fails. */
static void
test_spec_yaml_nesting_deeper_than_64_is_refused(void **state)
{
    char text[400];
    struct spec_file f;
    size_t n = 0;

    (void)state;
    for (int i = 0; i < 65; i++)
        text[n++] = '[';
    for (int i = 0; i < 65; i++)
        text[n++] = ']';
    text[n] = '\0';
    assert_true(spec_test_load(text, &f) > 0);
    assert_true(spec_test_has_error(&f, 1, 65, NULL, "nesting deeper than 64"));
    spec_file_cleanup(&f);
    /* 64 levels parse (and then fail the schema, not the parser) */
    text[64] = '\0';
    memset(text + 64, ']', 64);
    text[128] = '\0';
    assert_true(spec_test_load(text + 0, &f) > 0);
    assert_false(spec_test_has_error(&f, 0, 0, NULL, "nesting"));
    spec_file_cleanup(&f);
}

/* The billion-laughs shape is refused at its first anchor, before any
 * expansion could happen. */
static void
test_spec_yaml_billion_laughs_refused_at_first_anchor(void **state)
{
    const char *text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\"]\n"
                       "b: &b [*a,*a,*a,*a,*a,*a,*a,*a]\n"
                       "c: &c [*b,*b,*b,*b,*b,*b,*b,*b]\n";
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load(text, &f), 1);
    assert_true(spec_test_has_error(&f, 1, 4, NULL, "anchors"));
    spec_file_cleanup(&f);
}

static void
test_spec_yaml_file_over_1mib_is_refused_before_parsing(void **state)
{
    size_t len = SPEC_MAX_FILE_BYTES + 1;
    char *text = malloc(len + 1);
    struct spec_file f;

    (void)state;
    memset(text, '#', len);
    text[len] = '\0';
    spec_load_buffer("big.yaml", text, len, &f);
    assert_int_equal(f.errors.n, 1);
    assert_non_null(strstr(f.errors.items[0].msg, "over the 1 MiB limit"));
    spec_file_cleanup(&f);
    free(text);
}

static void
test_spec_yaml_too_many_nodes_is_refused(void **state)
{
    size_t len = 4 * 25000 + 16, n = 0;
    char *text = malloc(len);
    struct spec_file f;

    (void)state;
    n += (size_t)sprintf(text, "a: [");
    for (int i = 0; i < 25000; i++)
        n += (size_t)sprintf(text + n, "1,");
    sprintf(text + n, "1]\n");
    spec_test_load(text, &f);
    assert_true(spec_test_has_error(&f, 0, 0, NULL, "too many nodes"));
    spec_file_cleanup(&f);
    free(text);
}

/* Write `count` distinct keys of three letters, comma-separated ("aaa,aab,
 * ..."), the shape of the hostile flow mappings; returns bytes written. */
static size_t
put_flow_keys(char *out, size_t count)
{
    size_t n = 0;

    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            out[n++] = ',';
        out[n++] = (char)('a' + i / 676 % 26);
        out[n++] = (char)('a' + i / 26 % 26);
        out[n++] = (char)('a' + i % 26);
    }
    return n;
}

/* The repeat found is the first in file order, whatever the keys sort
 * like: both for a short mapping (pairwise) and a long one (sorted). */
static void
test_spec_yaml_duplicate_key_reports_the_first_repeat(void **state)
{
    size_t cap = 5000 * 12 + 64, n = 0;
    char *text = malloc(cap);
    struct spec_file f;

    (void)state;
    assert_int_equal(spec_test_load("a: 1\nz: 2\nz: 3\na: 4\n", &f), 1);
    assert_true(spec_test_has_error(&f, 3, 1, NULL,
                                    "duplicate key \"z\" (first at line 2)"));
    spec_file_cleanup(&f);

    /* 5,000 keys k0000..; line 4001 repeats line 3000 (k2999) and line
     * 4500 repeats line 1 (k0000), which sorts first. */
    for (int i = 0; i < 5000; i++) {
        int k = i == 4000 ? 2999 : i == 4499 ? 0 : i;

        n += (size_t)snprintf(text + n, cap - n, "k%04d: %d\n", k, i);
    }
    spec_load_buffer("t.yaml", text, n, &f);
    assert_int_equal(f.errors.n, 1);
    assert_true(spec_test_has_error(
        &f, 4001, 1, NULL, "duplicate key \"k2999\" (first at line 3000)"));
    spec_file_cleanup(&f);
    free(text);
}

/* A file of documents that each fit the per-document budget is still
 * refused once all of them together pass the per-file one: a budget
 * that reset at `---` would parse every document. */
static void
test_spec_yaml_node_budget_is_per_file_not_per_document(void **state)
{
    /* 1 mapping + 9,999 keys + 9,999 values + the document = 20,000 */
    size_t cap = 21 * (9999 * 4 + 8), n = 0;
    char *text = malloc(cap);
    struct spec_file f;

    (void)state;
    for (int d = 0; d < 21; d++) {
        n += (size_t)sprintf(text + n, "--- {");
        n += put_flow_keys(text + n, 9999);
        n += (size_t)sprintf(text + n, "}\n");
    }
    spec_load_buffer("t.yaml", text, n, &f);
    assert_int_equal(f.errors.n + f.errors.dropped, 1);
    assert_true(spec_test_has_error(
        &f, 6, 1, NULL,
        "file has too many nodes (limit 100000 in all its documents)"));
    assert_int_equal(f.n, 0);
    spec_file_cleanup(&f);
    free(text);
}

/* Empty documents count too (a document and libyaml's empty scalar). */
static void
test_spec_yaml_empty_documents_count_against_the_file_budget(void **state)
{
    size_t docs = SPEC_MAX_FILE_NODES, n = 0;
    char *text = malloc(docs * 4 + 1);
    struct spec_file f;

    (void)state;
    for (size_t i = 0; i < docs; i++)
        n += (size_t)sprintf(text + n, "---\n");
    spec_load_buffer("t.yaml", text, n, &f);
    assert_int_equal(f.errors.n + f.errors.dropped, 1);
    assert_true(spec_test_has_error(&f, SPEC_MAX_FILE_NODES / 2 + 1, 1, NULL,
                                    "file has too many nodes"));
    spec_file_cleanup(&f);
    free(text);
}

/* The budget leaves room for what people apply: 1,000 full specs in one
 * file (about 70 nodes each) load. */
static void
test_spec_yaml_thousand_specs_in_one_file_fit_the_budget(void **state)
{
    const char *full = SPEC_TEST_FULL;
    const char *name = strstr(full, "fix-login-bug");
    size_t n = 0;
    char *text = malloc(1000 * (strlen(full) + 8) + 1);
    struct spec_file f;

    (void)state;
    for (int i = 0; i < 1000; i++) /* each its own name: spec-NNN */
        n += (size_t)sprintf(text + n, "---\n%.*sspec-%03d%s",
                             (int)(name - full), full, i,
                             name + strlen("fix-login-bug"));
    assert_true(n < SPEC_MAX_FILE_BYTES);
    spec_load_buffer("t.yaml", text, n, &f);
    assert_int_equal(f.errors.n + f.errors.dropped, 0);
    assert_int_equal(f.n, 1000);
    spec_file_cleanup(&f);
    free(text);
}

static void
test_spec_yaml_scalar_types_follow_yaml_1_2_core(void **state)
{
    const char *text = "a: yes\nb: true\nc: 12\nd: \"12\"\ne: 1.5\nf: ~\ng: "
                       "-7\nh: 0x10\n";
    struct spec_stream st;
    struct spec_errors es = { .n = 0 };
    struct spec_node *d;

    (void)state;
    assert_int_equal(spec_yaml_parse("t", text, strlen(text), &st, &es), 0);
    d = st.docs[0];
    assert_int_equal(spec_node_get(d, "a")->type, SPEC_SCALAR_STRING);
    assert_int_equal(spec_node_get(d, "b")->type, SPEC_SCALAR_BOOL);
    assert_int_equal(spec_node_get(d, "c")->type, SPEC_SCALAR_INT);
    assert_int_equal(spec_node_get(d, "d")->type, SPEC_SCALAR_STRING);
    assert_int_equal(spec_node_get(d, "e")->type, SPEC_SCALAR_FLOAT);
    assert_int_equal(spec_node_get(d, "f")->type, SPEC_SCALAR_NULL);
    assert_int_equal(spec_node_get(d, "g")->type, SPEC_SCALAR_INT);
    assert_int_equal(spec_node_get(d, "h")->type, SPEC_SCALAR_STRING);
    spec_stream_cleanup(&st);
}

/* A raw NUL (the reader's own refusal used to say 1:1) at its position,
 * on a later line and after multi-byte characters. */
static void
test_spec_yaml_raw_nul_reported_at_its_position(void **state)
{
    static const char text[] = "a: b\nc: \xc3\xa9\xc3\xa9\0x\n";
    struct spec_stream st;
    struct spec_errors es = { .n = 0 };

    (void)state;
    assert_int_equal(
        spec_yaml_parse("t", text, sizeof(text) - 1, &st, &es), -1);
    assert_int_equal(es.n, 1);
    assert_int_equal(es.items[0].line, 2);
    assert_int_equal(es.items[0].col, 6);
    assert_non_null(strstr(es.items[0].msg, "NUL"));
    spec_stream_cleanup(&st);
}

/* A UTF-8 BOM is skipped and positions count from after it; only a BOM at
 * the very start is special. */
static void
test_spec_yaml_bom_is_skipped(void **state)
{
    static const char text[] = "\xef\xbb\xbf" "a: 1\nb: [x\n";
    static const char good[] = "\xef\xbb\xbf" "a: 1\nb: 2\n";
    struct spec_stream st;
    struct spec_errors es = { .n = 0 };

    (void)state;
    assert_int_equal(spec_yaml_parse("t", good, sizeof(good) - 1, &st, &es),
                     0);
    assert_int_equal(spec_node_get(st.docs[0], "a")->type, SPEC_SCALAR_INT);
    assert_int_equal(st.docs[0]->pairs[0].key->line, 1);
    assert_int_equal(st.docs[0]->pairs[0].key->col, 1);
    spec_stream_cleanup(&st);
    assert_int_equal(spec_yaml_parse("t", text, sizeof(text) - 1, &st, &es),
                     -1);
    assert_int_equal(es.items[0].line, 3);
    spec_stream_cleanup(&st);
}

/* Zero itself, quoted zeros and floats are not the octal ambiguity. */
static void
test_spec_yaml_leading_zero_only_refuses_integers(void **state)
{
    static const char text[] = "a: 0\nb: \"060\"\nc: 0.5\nd: -0\ne: 0x10\n"
                               "f: '007'\n";
    struct spec_stream st;
    struct spec_errors es = { .n = 0 };

    (void)state;
    assert_int_equal(spec_yaml_parse("t", text, strlen(text), &st, &es), 0);
    assert_int_equal(spec_node_get(st.docs[0], "a")->type, SPEC_SCALAR_INT);
    assert_int_equal(spec_node_get(st.docs[0], "b")->type, SPEC_SCALAR_STRING);
    assert_int_equal(spec_node_get(st.docs[0], "c")->type, SPEC_SCALAR_FLOAT);
    assert_int_equal(spec_node_get(st.docs[0], "d")->type, SPEC_SCALAR_INT);
    assert_int_equal(spec_node_get(st.docs[0], "f")->type, SPEC_SCALAR_STRING);
    spec_stream_cleanup(&st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_yaml_hostile_inputs_report_line_col),
        cmocka_unit_test(test_spec_yaml_nesting_deeper_than_64_is_refused),
        cmocka_unit_test(test_spec_yaml_billion_laughs_refused_at_first_anchor),
        cmocka_unit_test(test_spec_yaml_file_over_1mib_is_refused_before_parsing),
        cmocka_unit_test(test_spec_yaml_too_many_nodes_is_refused),
        cmocka_unit_test(test_spec_yaml_duplicate_key_reports_the_first_repeat),
        cmocka_unit_test(test_spec_yaml_node_budget_is_per_file_not_per_document),
        cmocka_unit_test(
            test_spec_yaml_empty_documents_count_against_the_file_budget),
        cmocka_unit_test(
            test_spec_yaml_thousand_specs_in_one_file_fit_the_budget),
        cmocka_unit_test(test_spec_yaml_scalar_types_follow_yaml_1_2_core),
        cmocka_unit_test(test_spec_yaml_raw_nul_reported_at_its_position),
        cmocka_unit_test(test_spec_yaml_bom_is_skipped),
        cmocka_unit_test(test_spec_yaml_leading_zero_only_refuses_integers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
