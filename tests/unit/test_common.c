/* test_common.c - struct err formatting and the capped buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "err.h"
#include "log.h"

static void
test_err_format_prints_file_line_col_field_message(void **state)
{
    struct err e;
    char out[512];

    (void)state;
    assert_int_equal(err_set_at(&e, ERR_INVALID, "a.yaml", 3, 9,
                                "spec.workspace.size",
                                "expected a quantity such as 512Mi, got \"%s\"",
                                "lots"),
                     -1);
    assert_string_equal(err_format(&e, out, sizeof(out)),
                        "a.yaml:3:9: spec.workspace.size: expected a quantity "
                        "such as 512Mi, got \"lots\"");
}

static void
test_err_format_leaves_out_unknown_parts(void **state)
{
    struct err e;
    char out[64];

    (void)state;
    err_set(&e, ERR_IO, "daemon down");
    err_prefix(&e, "apply %s: ", "web");
    assert_string_equal(err_format(&e, out, sizeof(out)),
                        "apply web: daemon down");
    assert_int_equal(err_set(NULL, ERR_IO, "x"), -1);
}

static void
test_err_format_truncates_safely(void **state)
{
    struct err e;
    char out[8];

    (void)state;
    err_set_at(&e, ERR_INVALID, "long-file-name.yaml", 1, 1, "f", "m");
    err_format(&e, out, sizeof(out));
    assert_int_equal(strlen(out), 7);
}

static void
test_buf_refuses_append_past_cap_and_keeps_content(void **state)
{
    struct buf b;
    struct err e;

    (void)state;
    buf_init(&b, 8);
    assert_int_equal(buf_puts(&b, "12345", &e), 0);
    assert_int_equal(buf_puts(&b, "6789", &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_string_equal(b.data, "12345");
    assert_int_equal(buf_printf(&b, &e, "%d", 678), 0);
    assert_string_equal(b.data, "12345678");
    buf_cleanup(&b);
}

static void
test_buf_take_hands_over_memory(void **state)
{
    struct buf b;
    char *s;

    (void)state;
    buf_init(&b, 1024);
    s = buf_take(&b);
    assert_string_equal(s, "");
    free(s);
    buf_puts(&b, "abc", NULL);
    s = buf_take(&b);
    assert_string_equal(s, "abc");
    assert_null(b.data);
    free(s);
}

static void
test_log_json_escape_escapes_quotes_and_controls(void **state)
{
    char out[64];

    (void)state;
    log_json_escape(out, sizeof(out), "a\"b\\c\n\x01");
    assert_string_equal(out, "a\\\"b\\\\c\\n\\u0001");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_format_prints_file_line_col_field_message),
        cmocka_unit_test(test_err_format_leaves_out_unknown_parts),
        cmocka_unit_test(test_err_format_truncates_safely),
        cmocka_unit_test(test_buf_refuses_append_past_cap_and_keeps_content),
        cmocka_unit_test(test_buf_take_hands_over_memory),
        cmocka_unit_test(test_log_json_escape_escapes_quotes_and_controls),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
