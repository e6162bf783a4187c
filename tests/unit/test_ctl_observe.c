/* test_ctl_observe.c - the observation points of controller/obs/obs_observe.c
 * as a scrape shows them: a failed SIGHUP reload turns
 * agentctl_config_last_reload_successful to 0 and the next good one back
 * to 1; an attempt's gateway usage adds its token budget refusals by
 * vendor and phase; without --metrics (no registry) both are no-ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ctl.h"
#include "obs_metrics.h"
#include "obs_observe.h"
#include "obs_usage.h"

static char *
scrape(struct obs_metrics *m)
{
    struct buf b;
    struct err e = { 0 };

    buf_init(&b, 1 << 20);
    assert_int_equal(buf_puts(&b, "", &e), 0);
    assert_int_equal(obs_metrics_render(m, &b, &e), 0);
    return buf_take(&b);
}

static void
assert_scrape_has(struct obs_metrics *m, const char *want, bool present)
{
    char *out = scrape(m);

    if ((strstr(out, want) != NULL) != present)
        fail_msg("%s %s in:\n%s", present ? "missing" : "unexpected", want,
                 out);
    free(out);
}

static void
test_observe_config_reload_fails_to_0_and_recovers_to_1(void **state)
{
    struct ctl c;
    struct err e = { 0 };

    (void)state;
    memset(&c, 0, sizeof(c));
    c.metrics = obs_metrics_new();
    assert_non_null(c.metrics);
    assert_int_equal(obs_metrics_register_agentctl(c.metrics, "1", &e), 0);
    assert_scrape_has(c.metrics, "\nagentctl_config_last_reload_successful 1\n",
                      true);
    obs_observe_config_reload(&c, false);
    assert_scrape_has(c.metrics, "\nagentctl_config_last_reload_successful 0\n",
                      true);
    assert_scrape_has(c.metrics, "\nagentctl_config_last_reload_successful 1\n",
                      false);
    obs_observe_config_reload(&c, true);
    assert_scrape_has(c.metrics, "\nagentctl_config_last_reload_successful 1\n",
                      true);
    obs_metrics_free(c.metrics);
}

static void
test_observe_usage_counts_token_budget_refusals(void **state)
{
    struct ctl c;
    struct err e = { 0 };
    struct obs_usage u = { .requests = 5, .refused = 3, .token_spent = 2 };
    struct obs_usage none = { .requests = 1 };

    (void)state;
    memset(&c, 0, sizeof(c));
    c.metrics = obs_metrics_new();
    assert_non_null(c.metrics);
    assert_int_equal(obs_metrics_register_agentctl(c.metrics, "1", &e), 0);
    obs_observe_usage(&c, "claude", "execute", &u);
    obs_observe_usage(&c, "claude", "execute", &u);
    obs_observe_usage(&c, "codex", "review", &none);
    assert_scrape_has(c.metrics,
                      "\nagentctl_vendor_token_budget_refusals_total{"
                      "phase=\"execute\",vendor=\"claude\"} 4\n",
                      true);
    /* An attempt that spent no budget shows a series at 0, not 1. */
    assert_scrape_has(c.metrics,
                      "\nagentctl_vendor_token_budget_refusals_total{"
                      "phase=\"review\",vendor=\"codex\"} 0\n",
                      true);
    assert_scrape_has(c.metrics,
                      "\nagentctl_vendor_requests_total{phase=\"execute\","
                      "result=\"refused\",vendor=\"claude\"} 6\n",
                      true);
    obs_metrics_free(c.metrics);
}

static void
test_observe_without_metrics_is_a_no_op(void **state)
{
    struct ctl c;
    struct obs_usage u = { .token_spent = 1 };

    (void)state;
    memset(&c, 0, sizeof(c));
    obs_observe_config_reload(&c, false);
    obs_observe_usage(&c, "claude", "execute", &u);
    assert_null(c.metrics);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_observe_config_reload_fails_to_0_and_recovers_to_1),
        cmocka_unit_test(test_observe_usage_counts_token_budget_refusals),
        cmocka_unit_test(test_observe_without_metrics_is_a_no_op),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
