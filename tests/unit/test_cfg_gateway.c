/* test_cfg_gateway.c - the controller config's vendor profiles beyond
 * test_cfg.c: the built-in table's errors said as what they are, and the
 * gateway's organization and project settings. */
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cfg_builtin_vendor_error_is_named),
        cmocka_unit_test(test_cfg_builtin_vendors_pass),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
