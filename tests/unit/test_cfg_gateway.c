/* test_cfg_gateway.c - the controller config's vendor profiles beyond
 * test_cfg.c: the built-in table's errors said as what they are, and the
 * gateway's organization and project settings (gateway.organization,
 * gateway.project). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "cfg_int.h"
#include "spec.h"

/* A built-in profile the rules refuse is reported at its place in the
 * built-in text, with the rule it breaks, not as "out of memory" (what
 * cfg__defaults said before: its parse kept the errors to itself). */
static void
test_cfg_builtin_vendor_error_is_named(void **state)
{
    static const char bad[] = "claude:\n"
                              "  hosts: [\"api.anthropic.com:443\"]\n"
                              "  gateway:\n"
                              "    authHeader: basic\n"
                              "    allow: [\"POST /v1/messages\"]\n";
    struct spec_errors *es = calloc(1, sizeof(*es));
    struct cfg *cfg;

    (void)state;
    assert_non_null(es);
    cfg = cfg__defaults(es);
    assert_non_null(cfg);
    assert_int_equal(es->n, 0);
    assert_int_equal(
        cfg__builtin_vendors_read(cfg, bad, sizeof(bad) - 1, es), -1);
    assert_true(es->n >= 1);
    assert_string_equal(es->items[0].file, "built-in vendors");
    assert_int_equal(es->items[0].line, 4);
    assert_int_equal(es->items[0].col, 17);
    assert_string_equal(es->items[0].field,
                        "vendors.claude.gateway.authHeader");
    assert_non_null(strstr(es->items[0].msg, "x-api-key, bearer"));
    assert_null(strstr(es->items[0].msg, "out of memory"));
    cfg_free(cfg);
    free(es);
}

/* The table that ships passes the rules (the same reader). */
static void
test_cfg_builtin_vendors_pass(void **state)
{
    struct spec_errors *es = calloc(1, sizeof(*es));
    struct cfg *cfg;

    (void)state;
    assert_non_null(es);
    cfg = cfg__defaults(es);
    assert_non_null(cfg);
    assert_int_equal(es->n, 0);
    assert_non_null(cfg_find_vendor(cfg, "claude"));
    assert_non_null(cfg_find_vendor(cfg, "codex"));
    cfg_free(cfg);
    free(es);
}

/* gateway.organization, gateway.project: kept as given; a value that
 * is not an ID (it would go into a header line) is refused at its place,
 * file:line:col: field: problem, with the gateway's own rule. */
static void
test_cfg_gateway_org_and_project(void **state)
{
    static const char good[] =
        "vendors:\n"
        "  oai:\n"
        "    hosts: [\"api.openai.com:443\"]\n"
        "    credentialEnv: OPENAI_API_KEY\n"
        "    gateway:\n"
        "      authHeader: bearer\n"
        "      allow: [\"POST /v1/responses\"]\n"
        "      organization: org-AbC123\n"
        "      project: proj_0123\n";
    static const char bad[] =
        "vendors:\n"
        "  oai:\n"
        "    hosts: [\"api.openai.com:443\"]\n"
        "    credentialEnv: OPENAI_API_KEY\n"
        "    gateway:\n"
        "      authHeader: bearer\n"
        "      allow: [\"POST /v1/responses\"]\n"
        "      organization: \"org-a\\r\\nX-Api-Key: k\"\n"
        "      project: [proj_0123]\n";
    struct spec_errors *es = calloc(1, sizeof(*es));
    const struct cfg_vendor *v;
    struct cfg *cfg;
    char line[600];

    (void)state;
    assert_non_null(es);
    cfg = cfg_parse("c.yaml", good, strlen(good), es);
    assert_non_null(cfg);
    v = cfg_find_vendor(cfg, "oai");
    assert_non_null(v);
    assert_string_equal(v->gateway_organization, "org-AbC123");
    assert_string_equal(v->gateway_project, "proj_0123");
    cfg_free(cfg);
    cfg = cfg_parse("c.yaml", bad, strlen(bad), es);
    assert_null(cfg);
    assert_int_equal(es->n, 2);
    assert_string_equal(err_format(&es->items[0], line, sizeof(line)),
                        "c.yaml:8:21: vendors.oai.gateway.organization: "
                        "\"org-a\r\nX-Api-Key: k\": letters, digits, '-' "
                        "and '_' only");
    assert_int_equal(es->items[1].line, 9);
    assert_string_equal(es->items[1].field, "vendors.oai.gateway.project");
    /* the built-in profiles set neither */
    cfg = cfg_parse("c.yaml", "", 0, es);
    assert_non_null(cfg);
    assert_null(cfg_find_vendor(cfg, "codex")->gateway_organization);
    assert_null(cfg_find_vendor(cfg, "codex")->gateway_project);
    cfg_free(cfg);
    free(es);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cfg_builtin_vendor_error_is_named),
        cmocka_unit_test(test_cfg_builtin_vendors_pass),
        cmocka_unit_test(test_cfg_gateway_org_and_project),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
