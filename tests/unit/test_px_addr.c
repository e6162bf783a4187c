/* test_px_addr.c - address classes for the private-range check. The
 * public examples are data only: nothing here opens a socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "px_addr.h"

struct addr_case {
    const char *addr;
    enum px_addr_class cls;
};

static const struct addr_case cases[] = {
    { "0.0.0.0", PX_ADDR_UNSPECIFIED },
    { "0.1.2.3", PX_ADDR_UNSPECIFIED },
    { "127.0.0.1", PX_ADDR_LOOPBACK },
    { "127.255.255.254", PX_ADDR_LOOPBACK },
    { "10.0.0.1", PX_ADDR_PRIVATE },
    { "10.213.250.7", PX_ADDR_PRIVATE },
    { "172.16.0.1", PX_ADDR_PRIVATE },
    { "172.31.255.255", PX_ADDR_PRIVATE },
    { "172.15.255.255", PX_ADDR_PUBLIC },
    { "172.32.0.0", PX_ADDR_PUBLIC },
    { "192.168.1.1", PX_ADDR_PRIVATE },
    { "192.169.0.1", PX_ADDR_PUBLIC },
    { "100.64.0.1", PX_ADDR_CGNAT },
    { "100.127.255.255", PX_ADDR_CGNAT },
    { "100.63.255.255", PX_ADDR_PUBLIC },
    { "100.128.0.0", PX_ADDR_PUBLIC },
    { "169.254.169.254", PX_ADDR_LINK_LOCAL },
    { "224.0.0.1", PX_ADDR_MULTICAST },
    { "239.255.255.255", PX_ADDR_MULTICAST },
    { "240.0.0.1", PX_ADDR_RESERVED },
    { "255.255.255.255", PX_ADDR_RESERVED },
    { "93.184.216.34", PX_ADDR_PUBLIC },
    { "8.8.8.8", PX_ADDR_PUBLIC },
    { "::", PX_ADDR_UNSPECIFIED },
    { "::1", PX_ADDR_LOOPBACK },
    { "fc00::1", PX_ADDR_PRIVATE },
    { "fd12:3456::1", PX_ADDR_PRIVATE },
    { "fe80::1", PX_ADDR_LINK_LOCAL },
    { "febf::1", PX_ADDR_LINK_LOCAL },
    { "fec0::1", PX_ADDR_LINK_LOCAL },
    { "ff02::1", PX_ADDR_MULTICAST },
    { "::ffff:127.0.0.1", PX_ADDR_LOOPBACK },
    { "::ffff:10.1.2.3", PX_ADDR_PRIVATE },
    { "::ffff:192.168.0.1", PX_ADDR_PRIVATE },
    { "::ffff:100.64.0.1", PX_ADDR_CGNAT },
    { "::ffff:169.254.1.1", PX_ADDR_LINK_LOCAL },
    { "::ffff:224.0.0.1", PX_ADDR_MULTICAST },
    { "::ffff:0.0.0.0", PX_ADDR_UNSPECIFIED },
    { "::ffff:8.8.8.8", PX_ADDR_PUBLIC },
    { "::127.0.0.1", PX_ADDR_LOOPBACK },
    { "64:ff9b::10.0.0.1", PX_ADDR_PRIVATE },
    { "64:ff9b::8.8.8.8", PX_ADDR_PUBLIC },
    { "2002:7f00:1::", PX_ADDR_LOOPBACK },
    { "2002:c0a8:101::1", PX_ADDR_PRIVATE },
    { "2606:4700::6810:84e5", PX_ADDR_PUBLIC },
    { "2001:db8::1", PX_ADDR_PUBLIC },
};

static void
test_px_addr_class_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sockaddr_in s4 = { 0 };
        struct sockaddr_in6 s6 = { 0 };
        const struct sockaddr *sa;
        enum px_addr_class got;

        if (inet_pton(AF_INET, cases[i].addr, &s4.sin_addr) == 1) {
            s4.sin_family = AF_INET;
            sa = (const struct sockaddr *)&s4;
        } else {
            assert_int_equal(inet_pton(AF_INET6, cases[i].addr, &s6.sin6_addr),
                             1);
            s6.sin6_family = AF_INET6;
            sa = (const struct sockaddr *)&s6;
        }
        got = px_addr_class(sa);
        if (got != cases[i].cls)
            fail_msg("%s: expected %s, got %s", cases[i].addr,
                     px_addr_class_name(cases[i].cls), px_addr_class_name(got));
    }
}

static void
test_px_addr_class_refuses_other_families(void **state)
{
    struct sockaddr sa = { 0 };

    (void)state;
    sa.sa_family = AF_UNIX;
    assert_int_equal(px_addr_class(&sa), PX_ADDR_UNSUPPORTED);
    assert_string_equal(px_addr_class_name(PX_ADDR_LOOPBACK), "loopback");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_px_addr_class_table),
        cmocka_unit_test(test_px_addr_class_refuses_other_families),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
