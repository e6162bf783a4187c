/* test_rc_drift_wait.c - container.waiting (plan/rc_drift_wait.c) on the
 * drift fixture's agent (tests/unit/fixtures/drift/agent.json, running):
 * with the record saying the agent waits, an inspect whose label and
 * Entrypoint carry the same nonce holds; stopped, paused, restarting,
 * OOM-killed or a label of another nonce is drift on State.* or the
 * label; with waiting false (an agent that took its order) and with the
 * rule switched off (the negative control) none of that is reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "drift_fixture.h"
#include "rc_drift.h"

#define NONCE "00112233445566778899aabbccddeeff"

/* The fixture's agent inspect as a waiting agent shows: the label and the
 * launcher's wait with nonce in its Entrypoint. */
static cJSON *
waiting_inspect(const struct drift_fx *fx, const char *label)
{
    cJSON *o = cJSON_Duplicate(fx->obj[RC_ROLE_AGENT], 1);
    cJSON *cfg = cJSON_GetObjectItem(o, "Config");
    const char *w[] = { "/etc/agentctl/agent/bin/agent-launch", "--wait",
                        "/etc/agentctl/agent/order.json", "--order-nonce",
                        NONCE, "--wait-seconds", "600" };

    cJSON_ReplaceItemInObject(cfg, "Entrypoint", cJSON_CreateStringArray(w, 7));
    cJSON_AddStringToObject(cJSON_GetObjectItem(cfg, "Labels"),
                            RC_LABEL_ORDER_NONCE, label);
    return o;
}

/* Whether container.waiting reported drift; *field its field if so. */
static bool
waiting_drift(const struct drift_fx *fx, const cJSON *inspect, bool waiting,
              bool disabled, char *field)
{
    struct rc_drift_expect x = { 0 };
    struct rc_drift_report r;
    int bit = rc_drift_rule_by_id("container.waiting");
    const cJSON *images = fx->images, *im;

    assert_true(bit >= 0);
    x.id = cJSON_GetObjectItem(inspect, "Id")->valuestring;
    x.image_id = cJSON_GetObjectItem(inspect, "Image")->valuestring;
    cJSON_ArrayForEach(im, images)
    {
        if (strcmp(cJSON_GetObjectItem(im, "Id")->valuestring, x.image_id) == 0)
            x.image_config = cJSON_GetObjectItem(im, "Config");
    }
    assert_non_null(x.image_config);
    x.waiting = waiting;
    if (disabled)
        rc_drift_set_add(&x.disabled_rules, (size_t)bit);
    assert_true(rc_drift_check(fx->d, RC_ROLE_AGENT, inspect, &x, &r) >= 0);
    if (!rc_drift_set_has(&r.drifted, (size_t)bit))
        return false;
    if (strcmp(r.rule, "container.waiting") == 0)
        strcpy(field, r.field);
    return true;
}

static void
test_waiting_holds(void **state)
{
    const struct drift_fx *fx = *state;
    cJSON *o = waiting_inspect(fx, NONCE);
    char field[RC_DRIFT_FIELD_MAX] = "";

    assert_false(waiting_drift(fx, o, true, false, field));
    cJSON_Delete(o);
}

static void
test_waiting_state_drift(void **state)
{
    static const struct {
        const char *key;
        bool value;
    } cases[] = {
        { "Running", false },
        { "Paused", true },
        { "Restarting", true },
        { "OOMKilled", true },
    };
    const struct drift_fx *fx = *state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *o = waiting_inspect(fx, NONCE);
        char field[RC_DRIFT_FIELD_MAX] = "", want[64];

        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(o, "State"),
                                  cases[i].key,
                                  cJSON_CreateBool(cases[i].value));
        snprintf(want, sizeof(want), "State.%s", cases[i].key);
        assert_true(waiting_drift(fx, o, true, false, field));
        if (field[0] != '\0')
            assert_string_equal(field, want);
        /* an agent that took its order may end; the switch turns it off */
        assert_false(waiting_drift(fx, o, false, false, field));
        assert_false(waiting_drift(fx, o, true, true, field));
        cJSON_Delete(o);
    }
}

static void
test_waiting_nonce_drift(void **state)
{
    const struct drift_fx *fx = *state;
    cJSON *o = waiting_inspect(fx, "ffeeddccbbaa99887766554433221100");
    char field[RC_DRIFT_FIELD_MAX] = "";

    assert_true(waiting_drift(fx, o, true, false, field));
    assert_false(waiting_drift(fx, o, true, true, field));
    cJSON_Delete(o);
    /* the fixture's own agent: no wait in its Entrypoint, no label */
    o = cJSON_Duplicate(fx->obj[RC_ROLE_AGENT], 1);
    assert_true(waiting_drift(fx, o, true, false, field));
    assert_false(waiting_drift(fx, o, false, false, field));
    cJSON_Delete(o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_holds),
        cmocka_unit_test(test_waiting_state_drift),
        cmocka_unit_test(test_waiting_nonce_drift),
    };

    return cmocka_run_group_tests(tests, drift_fx_setup, drift_fx_teardown);
}
