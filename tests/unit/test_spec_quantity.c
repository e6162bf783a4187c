/* test_spec_quantity.c - Kubernetes quantities as exact integers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "spec_quantity.h"

struct qcase {
    const char *text;
    int rc;
    uint64_t value; /* whole units, rounded up */
    uint64_t milli;
    enum err_code code;
};

static const struct qcase cases[] = {
    { "512Mi", 0, 536870912ULL, 536870912000ULL, ERR_OK },
    { "1Gi", 0, 1073741824ULL, 1073741824000ULL, ERR_OK },
    { "100k", 0, 100000, 100000000, ERR_OK },
    { "1.5", 0, 2, 1500, ERR_OK },
    { "500m", 0, 1, 500, ERR_OK },
    { "1500m", 0, 2, 1500, ERR_OK },
    { "1.5Gi", 0, 1610612736ULL, 1610612736000ULL, ERR_OK },
    { "0.5Ki", 0, 512, 512000, ERR_OK },
    { "1048576", 0, 1048576, 1048576000, ERR_OK },
    { "0.0001", 0, 1, 1, ERR_OK }, /* rounds up, never down to zero */
    { "7Pi", 0, 7881299347898368ULL, 7881299347898368000ULL, ERR_OK },
    /* 18 fraction digits: the product needs more than 64 bits on the way */
    { "1.999999999999999999Ki", 0, 2048, 2048000, ERR_OK },
    { "0.000000000000000001Ki", 0, 1, 1, ERR_OK },
    { "15.999999999999999999Pi", 0, 18014398509481984ULL,
      18014398509481983999ULL, ERR_OK },
    { "9.999999999999999999P", 0, 10000000000000000ULL,
      9999999999999999999ULL, ERR_OK },
    { "16.999999999999999999Pi", -1, 0, 0, ERR_LIMIT },
    { "1.0000000000000000001", -1, 0, 0, ERR_INVALID }, /* 19 digits */
    { "lots", -1, 0, 0, ERR_INVALID },
    { "", -1, 0, 0, ERR_INVALID },
    { "-1", -1, 0, 0, ERR_INVALID },
    { "1e3", -1, 0, 0, ERR_INVALID },
    { "1.", -1, 0, 0, ERR_INVALID },
    { "1 Gi", -1, 0, 0, ERR_INVALID },
    { "1gi", -1, 0, 0, ERR_INVALID },
    { "99999999999999999999", -1, 0, 0, ERR_LIMIT },
    { "99999999999999999999Gi", -1, 0, 0, ERR_LIMIT },
    { "20000000Ti", -1, 0, 0, ERR_LIMIT },
    { "1Ei", -1, 0, 0, ERR_LIMIT },
};

static void
test_spec_quantity_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct qcase *c = &cases[i];
        uint64_t v = 0, m = 0;
        struct err e = { 0 };
        int rc = spec_quantity_parse(c->text, &v, &e);

        print_message("quantity \"%s\"\n", c->text);
        assert_int_equal(rc, c->rc);
        if (rc == 0) {
            assert_int_equal(v, c->value);
            assert_int_equal(spec_quantity_parse_milli(c->text, &m, NULL), 0);
            assert_int_equal(m, c->milli);
        } else {
            assert_int_equal(e.code, c->code);
            assert_true(e.msg[0] != '\0');
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_quantity_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
