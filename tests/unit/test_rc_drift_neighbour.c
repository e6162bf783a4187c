/* test_rc_drift_neighbour.c - containers that are not the attempt's,
 * judged against its boxes (rc_drift_check_neighbour): one that joins the
 * agent's or the proxy's network, PID or IPC namespace is container.joined
 * on the joined role, one that mounts an attempt's volume (by -v or
 * --volumes-from: both show as Mounts[].Name) is volume.foreign-mount on
 * the volume's role; an unrelated container, one that joins another
 * container, and one that mounts another volume are not reported; each
 * rule's bit switches its finding off (the negative control the
 * integration tests rely on); the report never holds the credential. The
 * entries are shaped as dockerd 20.10's GET /containers/json and inspect
 * show them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "drift_fixture.h"
#include "rc_drift.h"

static struct rc_drift_neighbours
ours(void)
{
    struct rc_drift_neighbours n;

    memset(&n, 0, sizeof(n));
    n.container_ids[RC_ROLE_PROXY] = PROXY_ID;
    n.container_ids[RC_ROLE_AGENT] = AGENT_ID;
    return n;
}

/* A container entry: HostConfig (JSON object text) and Mounts (array). */
static cJSON *
entry(const char *hostconfig, const char *mounts)
{
    char buf[1024];
    cJSON *j;

    snprintf(buf, sizeof(buf),
             "{\"Id\":\"%s\",\"Names\":[\"/x\"],\"HostConfig\":%s,"
             "\"Mounts\":%s}",
             OTHER_ID, hostconfig, mounts);
    j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

static struct rc_drift_set
bit(const char *rule)
{
    struct rc_drift_set s = { { 0 } };
    int i = rc_drift_rule_by_id(rule);

    assert_true(i >= 0);
    rc_drift_set_add(&s, (size_t)i);
    return s;
}

static const struct rc_drift_set none = { { 0 } };

/* other must be reported as rule on role, and not with the rule off. */
static void
assert_reported(const struct drift_fx *fx, cJSON *other, const char *rule,
                enum rc_role role)
{
    struct rc_drift_neighbours n = ours();
    struct rc_drift_report r;

    struct rc_drift_set off = bit(rule);

    assert_int_equal(rc_drift_check_neighbour(fx->d, other, &n, &none, &r), 1);
    print_message("%s: %s\n", r.rule, r.message);
    assert_string_equal(r.rule, rule);
    assert_int_equal(r.role, role);
    assert_int_equal(r.count, 1);
    assert_true(memcmp(&r.drifted, &off, sizeof(off)) == 0);
    assert_string_equal(r.observed, OTHER_ID);
    assert_non_null(strstr(r.message, rc_desired_object(fx->d, role)->name));
    assert_non_null(strstr(r.message, "eeeeeeeeeeee"));
    assert_int_equal(rc_drift_check_neighbour(fx->d, other, &n, &off, &r), 0);
    cJSON_Delete(other);
}

static void
assert_quiet(const struct drift_fx *fx, cJSON *other)
{
    struct rc_drift_neighbours n = ours();
    struct rc_drift_report r;

    assert_int_equal(rc_drift_check_neighbour(fx->d, other, &n, &none, &r), 0);
    cJSON_Delete(other);
}

static void
test_network_namespace_of_the_agent_is_joined(void **state)
{
    assert_reported(*state,
                    entry("{\"NetworkMode\":\"container:" AGENT_ID "\"}", "[]"),
                    "container.joined", RC_ROLE_AGENT);
}

static void
test_pid_namespace_of_the_agent_is_joined(void **state)
{
    assert_reported(*state,
                    entry("{\"NetworkMode\":\"default\",\"PidMode\":"
                          "\"container:" AGENT_ID "\",\"IpcMode\":\"private\"}",
                          "[]"),
                    "container.joined", RC_ROLE_AGENT);
}

static void
test_ipc_namespace_of_the_proxy_is_joined(void **state)
{
    assert_reported(*state,
                    entry("{\"NetworkMode\":\"default\",\"PidMode\":\"\","
                          "\"IpcMode\":\"container:" PROXY_ID "\"}",
                          "[]"),
                    "container.joined", RC_ROLE_PROXY);
}

static void
test_workspace_volume_mounted_elsewhere(void **state)
{
    const struct drift_fx *fx = *state;
    char mounts[512];

    snprintf(mounts, sizeof(mounts),
             "[{\"Type\":\"volume\",\"Name\":\"%s\",\"Destination\":\"/x\","
             "\"RW\":true}]",
             rc_desired_object(fx->d, RC_ROLE_WORKSPACE)->name);
    assert_reported(*state, entry("{\"NetworkMode\":\"default\"}", mounts),
                    "volume.foreign-mount", RC_ROLE_WORKSPACE);
}

/* Found by fuzz_rc_drift: the other container's ID and mount path went
 * into the report as the reply had them, so a reply holding the
 * credential put it into the Drifted condition. */
static void
test_report_is_scrubbed_of_the_credential(void **state)
{
    const struct drift_fx *fx = *state;
    struct rc_drift_neighbours n = ours();
    struct rc_drift_report r;
    char buf[1024];
    cJSON *j;

    snprintf(buf, sizeof(buf),
             "{\"Id\":\"0123456789ab" SECRET "\",\"HostConfig\":{},"
             "\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"%s\","
             "\"Destination\":\"/" SECRET "\"}]}",
             rc_desired_object(fx->d, RC_ROLE_WORKSPACE)->name);
    j = cJSON_Parse(buf);
    assert_non_null(j);
    assert_int_equal(rc_drift_check_neighbour(fx->d, j, &n, &none, &r), 1);
    assert_string_equal(r.rule, "volume.foreign-mount");
    assert_null(strstr(r.observed, SECRET));
    assert_null(strstr(r.message, SECRET));
    assert_null(strstr(r.field, SECRET));
    assert_non_null(strstr(r.observed, "0123456789ab<redacted>"));
    assert_non_null(strstr(r.message, "mounts it at /<redacted>"));
    cJSON_Delete(j);
}

static void
test_unrelated_containers_are_quiet(void **state)
{
    assert_quiet(*state, entry("{\"NetworkMode\":\"default\"}", "[]"));
    assert_quiet(*state,
                 entry("{\"NetworkMode\":\"container:" OTHER_ID "\","
                       "\"PidMode\":\"host\",\"IpcMode\":\"shareable\"}",
                       "[{\"Type\":\"volume\",\"Name\":\"someone-else\","
                       "\"Destination\":\"/x\"},{\"Type\":\"bind\","
                       "\"Source\":\"/srv\",\"Destination\":\"/y\"}]"));
    /* a prefix of our ID is not our ID */
    assert_quiet(*state,
                 entry("{\"NetworkMode\":\"container:2d0e76472d09\"}", "[]"));
}

static void
test_list_entry_needs_inspect_for_pid_mode(void **state)
{
    cJSON *listed = entry("{\"NetworkMode\":\"default\"}", "[]");
    cJSON *inspected =
        entry("{\"NetworkMode\":\"default\",\"PidMode\":\"\"}", "[]");

    (void)state;
    assert_true(rc_drift_neighbour_needs_inspect(listed));
    assert_false(rc_drift_neighbour_needs_inspect(inspected));
    cJSON_Delete(listed);
    cJSON_Delete(inspected);
}

static void
test_bad_arguments(void **state)
{
    const struct drift_fx *fx = *state;
    struct rc_drift_neighbours n = ours();
    struct rc_drift_report r;
    cJSON *arr = cJSON_CreateArray();

    assert_int_equal(rc_drift_check_neighbour(NULL, arr, &n, &none, &r), -1);
    assert_int_equal(rc_drift_check_neighbour(fx->d, arr, &n, &none, &r), -1);
    assert_int_equal(rc_drift_check_neighbour(fx->d, NULL, &n, &none, &r), -1);
    assert_int_equal(rc_drift_check_neighbour(fx->d, arr, &n, NULL, &r), -1);
    cJSON_Delete(arr);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_network_namespace_of_the_agent_is_joined),
        cmocka_unit_test(test_pid_namespace_of_the_agent_is_joined),
        cmocka_unit_test(test_ipc_namespace_of_the_proxy_is_joined),
        cmocka_unit_test(test_workspace_volume_mounted_elsewhere),
        cmocka_unit_test(test_report_is_scrubbed_of_the_credential),
        cmocka_unit_test(test_unrelated_containers_are_quiet),
        cmocka_unit_test(test_list_entry_needs_inspect_for_pid_mode),
        cmocka_unit_test(test_bad_arguments),
    };

    return cmocka_run_group_tests(tests, drift_fx_setup, drift_fx_teardown);
}
