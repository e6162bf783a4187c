/* test_crd_descriptions.c - every node of the CRD's schema has a
 * description, so `agentctl explain` (which prints it, cli/cli_explain.c)
 * never shows <empty>, and neither does `kubectl explain` on a cluster.
 * The walk is the one explain takes: the root, every property, and the
 * properties of a list's items; a description is what explain prints
 * (the CRD's, or agentctl's own for the root metadata, which an API
 * server does not let the CRD describe). A field added to the CRD without a
 * description fails here, naming it. Negative control: a schema with one
 * node left undescribed is reported with exactly that path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "spec_node.h"
#include "spec_schema.h"

struct missing {
    char paths[64][128];
    size_t n;
    size_t nodes;
};

static const struct spec_node *walk_root;

/* What explain prints: the CRD's description, or agentctl's own for the
 * root metadata (cli_explain_desc.c). */
static bool
described(const struct spec_node *s)
{
    return cli_explain_description(walk_root, s) != NULL;
}

static void walk(const struct spec_node *s, const char *path,
                 struct missing *m);

static void
walk_properties(const struct spec_node *props, const char *path,
                struct missing *m)
{
    if (props == NULL || props->kind != SPEC_NODE_MAP)
        return;
    for (size_t i = 0; i < props->n; i++) {
        char sub[128];

        snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "",
                 props->pairs[i].key->value);
        walk(props->pairs[i].value, sub, m);
    }
}

static void
walk(const struct spec_node *s, const char *path, struct missing *m)
{
    m->nodes++;
    if (!described(s) && m->n < 64)
        snprintf(m->paths[m->n++], sizeof(m->paths[0]), "%s",
                 path[0] ? path : "<root>");
    walk_properties(spec_node_get(s, "properties"), path, m);
    walk_properties(spec_node_get(spec_node_get(s, "items"), "properties"),
                    path, m);
}

static const struct spec_node *
builtin_root(void)
{
    const struct spec_crd *crd = spec_crd_builtin(NULL);
    const struct spec_node *ver;

    assert_non_null(crd);
    ver = spec_node_get(spec_node_get(crd->stream.docs[0], "spec"), "versions");
    assert_non_null(ver);
    return spec_node_get(spec_node_get(ver->items[0], "schema"),
                         "openAPIV3Schema");
}

static void
every_node_of_the_crd_is_described(void **state)
{
    struct missing m = { 0 };

    (void)state;
    walk_root = builtin_root();
    walk(walk_root, "", &m);
    for (size_t i = 0; i < m.n; i++)
        fprintf(stderr, "no description: %s\n", m.paths[i]);
    assert_true(m.nodes >= 35); /* the walk reached the whole schema */
    assert_int_equal(m.n, 0);
}

static void
control_an_undescribed_node_is_named(void **state)
{
    static const char text[] =
        "description: root\ntype: object\nproperties:\n"
        "  spec:\n    description: the spec\n    type: object\n"
        "    properties:\n"
        "      size:\n        type: string\n"
        "      list:\n        description: a list\n        type: array\n"
        "        items:\n          type: object\n          properties:\n"
        "            leaf: {type: string}\n";
    struct spec_stream st = { 0 };
    struct spec_errors es = { 0 };
    struct missing m = { 0 };

    (void)state;
    assert_int_equal(spec_yaml_parse("t.yaml", text, strlen(text), &st, &es),
                     0);
    walk_root = st.docs[0];
    walk(walk_root, "", &m);
    assert_int_equal(m.nodes, 5);
    assert_int_equal(m.n, 2);
    assert_string_equal(m.paths[0], "spec.size");
    assert_string_equal(m.paths[1], "spec.list.leaf");
    spec_stream_cleanup(&st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_node_of_the_crd_is_described),
        cmocka_unit_test(control_an_undescribed_node_is_named),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
