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
    { "2001:db8::1", PX_ADDR_DOCUMENTATION },
    /* IPv4 special-purpose registry */
    { "192.0.0.1", PX_ADDR_PROTOCOL },
    { "192.0.0.9", PX_ADDR_PROTOCOL }, /* global anycast, refused with its /24 */
    { "192.0.0.255", PX_ADDR_PROTOCOL },
    { "192.0.1.0", PX_ADDR_PUBLIC },
    { "192.0.2.1", PX_ADDR_DOCUMENTATION },
    { "198.51.100.7", PX_ADDR_DOCUMENTATION },
    { "203.0.113.255", PX_ADDR_DOCUMENTATION },
    { "198.18.0.1", PX_ADDR_BENCHMARK },
    { "198.19.255.255", PX_ADDR_BENCHMARK },
    { "198.17.255.255", PX_ADDR_PUBLIC },
    { "198.20.0.0", PX_ADDR_PUBLIC },
    { "192.88.99.1", PX_ADDR_RESERVED },
    { "192.31.196.1", PX_ADDR_PUBLIC },  /* AS112: globally reachable */
    { "192.52.193.1", PX_ADDR_PUBLIC },  /* AMT: globally reachable */
    { "192.175.48.1", PX_ADDR_PUBLIC },  /* AS112: globally reachable */
    /* IPv6 special-purpose registry */
    { "64:ff9b:1::1", PX_ADDR_TRANSLATION },
    { "64:ff9b:1::8.8.8.8", PX_ADDR_TRANSLATION },
    { "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", PX_ADDR_TRANSLATION },
    { "64:ff9b:2::1", PX_ADDR_RESERVED },
    { "::ffff:0:10.0.0.1", PX_ADDR_PRIVATE },   /* SIIT */
    { "::ffff:0:127.0.0.1", PX_ADDR_LOOPBACK }, /* SIIT */
    { "::ffff:0:8.8.8.8", PX_ADDR_TRANSLATION }, /* SIIT: not routable */
    { "::8.8.8.8", PX_ADDR_RESERVED },          /* deprecated compatible */
    { "2001::1", PX_ADDR_TEREDO },
    { "2001:0:4136:e378:8000:63bf:3fff:fdd2", PX_ADDR_TEREDO },
    { "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", PX_ADDR_TEREDO },
    { "2001:1::1", PX_ADDR_PROTOCOL },
    { "2001:2::1", PX_ADDR_BENCHMARK },
    { "2001:3::1", PX_ADDR_PROTOCOL },
    { "2001:1ff:ffff::1", PX_ADDR_PROTOCOL },
    { "2001:200::1", PX_ADDR_PUBLIC }, /* first past 2001::/23 */
    { "3fff::1", PX_ADDR_DOCUMENTATION },
    { "3fff:fff::1", PX_ADDR_DOCUMENTATION },
    { "3fff:1000::1", PX_ADDR_PUBLIC },
    { "100::1", PX_ADDR_RESERVED },
    { "100:0:0:1::1", PX_ADDR_RESERVED },
    { "5f00::1", PX_ADDR_RESERVED },
    { "1fff::1", PX_ADDR_RESERVED },
    { "4000::1", PX_ADDR_RESERVED },
    { "e000::1", PX_ADDR_RESERVED },
    { "2002:6464:1::1", PX_ADDR_CGNAT },
    { "2002:c612:1::1", PX_ADDR_BENCHMARK },
    { "2002:808:808::1", PX_ADDR_PUBLIC },
    /* ISATAP identifiers under a global prefix */
    { "2606:4700::5efe:10.0.0.1", PX_ADDR_PRIVATE },
    { "2606:4700::200:5efe:127.0.0.1", PX_ADDR_LOOPBACK },
    { "2606:4700::5efe:8.8.8.8", PX_ADDR_PUBLIC },
    { "2606:4700::100:5efe:10.0.0.1", PX_ADDR_PUBLIC }, /* not ISATAP */
    { "2600::1", PX_ADDR_PUBLIC },
    { "3ffe::1", PX_ADDR_PUBLIC },
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
