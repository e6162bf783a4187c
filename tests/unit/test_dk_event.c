/* test_dk_event.c - one line of Docker's event stream read
 * (dk_event_parse): the fields of container, network and volume events as
 * dockerd 20.10 writes them, absent or non-string fields as NULL, a line
 * that is no JSON object refused, and a "time" a long cannot hold taken
 * as no time at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dk_event.h"

static int
parse(const char *line, struct dk_event *ev)
{
    return dk_event_parse(line, strlen(line), ev);
}

static void
test_container_event_fields(void **state)
{
    struct dk_event ev;

    (void)state;
    assert_int_equal(
        parse("{\"status\":\"start\",\"id\":\"c1\",\"Type\":\"container\","
              "\"Action\":\"start\",\"Actor\":{\"ID\":\"c1\",\"Attributes\":"
              "{\"agentctl.dev/uid\":\"u1\",\"agentctl.dev/role\":\"agent\","
              "\"name\":\"box-agent\"}},\"scope\":\"local\","
              "\"time\":1764669901,\"timeNano\":1764669901123456789}",
              &ev),
        0);
    assert_string_equal(ev.type, "container");
    assert_string_equal(ev.action, "start");
    assert_string_equal(ev.id, "c1");
    assert_string_equal(ev.uid, "u1");
    assert_string_equal(ev.role, "agent");
    assert_string_equal(ev.name, "box-agent");
    assert_null(ev.container);
    assert_true(ev.has_time);
    assert_int_equal(ev.time, 1764669901);
    dk_event_cleanup(&ev);
}

static void
test_network_event_names_the_container(void **state)
{
    struct dk_event ev;

    (void)state;
    assert_int_equal(parse("{\"Type\":\"network\",\"Action\":\"connect\","
                           "\"Actor\":{\"ID\":\"n1\",\"Attributes\":{"
                           "\"container\":\"c1\",\"name\":\"net\","
                           "\"type\":\"bridge\"}}}",
                           &ev),
                     0);
    assert_string_equal(ev.container, "c1");
    assert_string_equal(ev.name, "net");
    assert_null(ev.uid);
    assert_false(ev.has_time);
    dk_event_cleanup(&ev);
}

static void
test_odd_fields_are_null_and_non_objects_refused(void **state)
{
    static const char *const refused[] = { "",      "null",       "[1,2]",
                                           "\"x\"", "{\"Type\":", "7" };
    struct dk_event ev;

    (void)state;
    assert_int_equal(parse("{\"Type\":1,\"Actor\":[],\"time\":\"x\"}", &ev), 0);
    assert_null(ev.type);
    assert_null(ev.id);
    assert_false(ev.has_time);
    dk_event_cleanup(&ev);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        assert_int_equal(parse(refused[i], &ev), -1);
        assert_null(ev.root);
        dk_event_cleanup(&ev);
    }
}

/* Found by fuzz_dk_events: "time" went through (long) unchecked, which is
 * undefined for inf or 1e300 (UBSan), and on x86 gave LONG_MIN. */
static void
test_time_out_of_range_is_no_time(void **state)
{
    static const char *const bad[] = {
        "{\"time\":1e300}", "{\"time\":-1e300}", "{\"time\":1e19}",
        "{\"time\":-1}",    "{\"time\":-0.5e1}",
    };
    struct dk_event ev;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(parse(bad[i], &ev), 0);
        assert_false(ev.has_time);
        dk_event_cleanup(&ev);
    }
    assert_int_equal(parse("{\"time\":0}", &ev), 0);
    assert_true(ev.has_time);
    assert_int_equal(ev.time, 0);
    dk_event_cleanup(&ev);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_container_event_fields),
        cmocka_unit_test(test_network_event_names_the_container),
        cmocka_unit_test(test_odd_fields_are_null_and_non_objects_refused),
        cmocka_unit_test(test_time_out_of_range_is_no_time),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
