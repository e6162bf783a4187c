/* test_hostport.c - host:port parsing and normalisation, table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hostport.h"

struct good_case {
    const char *in;
    enum hostport_kind kind;
    const char *host;
    unsigned port;
};

static const struct good_case good[] = {
    { "vendor.test:443", HOSTPORT_NAME, "vendor.test", 443 },
    { "Vendor.TEST:443", HOSTPORT_NAME, "vendor.test", 443 },
    { "vendor.test.:443", HOSTPORT_NAME, "vendor.test", 443 },
    { "localhost:1", HOSTPORT_NAME, "localhost", 1 },
    { "a-b_c.example:65535", HOSTPORT_NAME, "a-b_c.example", 65535 },
    { "1a.example:80", HOSTPORT_NAME, "1a.example", 80 },
    { "example.1a:80", HOSTPORT_NAME, "example.1a", 80 },
    { "127.0.0.1:8080", HOSTPORT_IPV4, "127.0.0.1", 8080 },
    { "[::1]:443", HOSTPORT_IPV6, "::1", 443 },
    { "[0:0:0:0:0:0:0:1]:443", HOSTPORT_IPV6, "::1", 443 },
    { "[2001:DB8::1]:443", HOSTPORT_IPV6, "2001:db8::1", 443 },
    { "[::ffff:127.0.0.1]:443", HOSTPORT_IPV6, "::ffff:127.0.0.1", 443 },
};

static const char *const bad[] = {
    "",
    "vendor.test",            /* no port */
    "vendor.test:",           /* empty port */
    "vendor.test:0",          /* port 0 */
    "vendor.test:65536",      /* port too big */
    "vendor.test:0443",       /* leading zero */
    "vendor.test:+443",       /* sign */
    "vendor.test:44a",        /* not digits */
    "vendor.test:123456",     /* too long */
    ":443",                   /* empty host */
    ".:443",                  /* only the root dot */
    "vendor.test..:443",      /* two trailing dots */
    "vendor..test:443",       /* empty label */
    ".vendor.test:443",       /* leading empty label */
    "-vendor.test:443",       /* label starts with '-' */
    "vendor-.test:443",       /* label ends with '-' */
    "ven dor.test:443",       /* space */
    "ven%64or.test:443",      /* percent-encoding */
    "http://vendor.test:443", /* absolute form */
    "vendor.test:443/",       /* path */
    "user@vendor.test:443",   /* userinfo */
    "user:pw@vendor.test:443",
    "::1:443",            /* unbracketed IPv6 */
    "[::1]443",           /* no colon after bracket */
    "[::1]:",             /* empty port */
    "[::1:443",           /* no closing bracket */
    "[]:443",             /* empty literal */
    "[fe80::1%eth0]:443", /* zone id */
    "[127.0.0.1]:443",    /* v4 in brackets */
    "127.1:443",          /* short IPv4 */
    "127.0.0.1.:443",     /* dotted quad with trailing dot */
    "1.2.3:443",          /* numeric name */
    "0x7f.0.0.1:443",     /* hex is a name whose last label is numeric */
    "256.0.0.1:443",      /* octet too big */
    "example.123:443",    /* numeric last label */
};

static void
test_hostport_parse_accepts_and_normalises(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct hostport a;
        struct err e = { 0 };
        int rc = hostport_parse(good[i].in, strlen(good[i].in), &a, &e);

        if (rc != 0)
            fail_msg("%s: %s", good[i].in, e.msg);
        assert_int_equal(a.kind, good[i].kind);
        assert_string_equal(a.host, good[i].host);
        assert_int_equal(a.port, good[i].port);
    }
}

static void
test_hostport_parse_refuses_malformed_with_syntax_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct hostport a;
        struct err e = { 0 };

        if (hostport_parse(bad[i], strlen(bad[i]), &a, &e) != -1)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(e.code, ERR_SYNTAX);
        assert_true(e.msg[0] != '\0');
    }
}

static void
test_hostport_parse_limits_name_length(void **state)
{
    char name[300];
    struct hostport a;
    size_t n = 0;

    (void)state;
    /* 4 x 63-byte labels + 3 dots = 255 > 253 */
    for (int l = 0; l < 4; l++) {
        memset(name + n, 'a', 63);
        n += 63;
        name[n++] = l < 3 ? '.' : ':';
    }
    memcpy(name + n, "443", 4);
    assert_int_equal(hostport_parse(name, strlen(name), &a, NULL), -1);
    /* drop 2 bytes from the first label: 253 exactly */
    assert_int_equal(hostport_parse(name + 2, strlen(name + 2), &a, NULL),
                     0);
    assert_int_equal(strlen(a.host), 253);
    /* a 64-byte label */
    memset(name, 'b', 64);
    memcpy(name + 64, ".x:1", 5);
    assert_int_equal(hostport_parse(name, strlen(name), &a, NULL), -1);
}

static void
test_hostport_format_brackets_ipv6(void **state)
{
    struct hostport a;
    char out[300];

    (void)state;
    assert_int_equal(hostport_parse("[::1]:8443", 10, &a, NULL), 0);
    assert_string_equal(hostport_format(&a, out, sizeof(out)),
                        "[::1]:8443");
    assert_int_equal(hostport_parse("Host.Example.:80", 16, &a, NULL), 0);
    assert_string_equal(hostport_format(&a, out, sizeof(out)),
                        "host.example:80");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostport_parse_accepts_and_normalises),
        cmocka_unit_test(
            test_hostport_parse_refuses_malformed_with_syntax_error),
        cmocka_unit_test(test_hostport_parse_limits_name_length),
        cmocka_unit_test(test_hostport_format_brackets_ipv6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
