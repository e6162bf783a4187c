/* test_dk_info.c - GET /info's SecurityOptions read by
 * dk_security_from_info(): dockerd 20.10's answer on a host without
 * AppArmor (as measured) passes with profile "default", a host with
 * AppArmor is seen, and a daemon without seccomp - none listed, profile
 * unconfined, no SecurityOptions at all - is refused with an error that
 * says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dk_engine.h"

static int
read_info(const char *json, struct dk_security *s, struct err *e)
{
    cJSON *info = cJSON_Parse(json);
    int rc;

    assert_non_null(info);
    rc = dk_security_from_info(info, s, e);
    cJSON_Delete(info);
    return rc;
}

static void
test_dk_info_default_seccomp_no_apparmor(void **state)
{
    struct dk_security s;
    struct err e = { 0 };

    (void)state;
    assert_int_equal(read_info("{\"ServerVersion\":\"20.10.24+dfsg1\","
                               "\"SecurityOptions\":"
                               "[\"name=seccomp,profile=default\"]}",
                               &s, &e),
                     0);
    assert_true(s.seccomp);
    assert_string_equal(s.seccomp_profile, "default");
    assert_false(s.apparmor);
}

static void
test_dk_info_apparmor_host(void **state)
{
    struct dk_security s;
    struct err e = { 0 };

    (void)state;
    assert_int_equal(read_info("{\"SecurityOptions\":[\"name=apparmor\","
                               "\"name=seccomp,profile=default\","
                               "\"name=cgroupns\"]}",
                               &s, &e),
                     0);
    assert_true(s.seccomp);
    assert_true(s.apparmor);
}

static void
test_dk_info_without_seccomp_is_refused(void **state)
{
    static const char *const bad[] = {
        "{\"SecurityOptions\":[\"name=apparmor\"]}",
        "{\"SecurityOptions\":[\"name=seccomp,profile=unconfined\"]}",
        "{\"SecurityOptions\":[]}",
        "{}",
        "{\"SecurityOptions\":[\"name=seccompx\",7]}",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct dk_security s;
        struct err e = { 0 };

        assert_int_equal(read_info(bad[i], &s, &e), -1);
        assert_int_equal(e.code, ERR_INVALID);
        assert_non_null(strstr(e.msg, "seccomp"));
        assert_non_null(strstr(e.msg, "refusing"));
        assert_false(s.seccomp);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dk_info_default_seccomp_no_apparmor),
        cmocka_unit_test(test_dk_info_apparmor_host),
        cmocka_unit_test(test_dk_info_without_seccomp_is_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
