/* test_gw_key.c - the key file: mode 0400 taken, anything group or
 * others may use refused, trailing newline trimmed, bytes that cannot go
 * into a header refused, and no key byte in an error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gw_key.h"

static char dir[] = "/tmp/test_gw_key.XXXXXX";

static const char *
key_file(const char *name, const char *text, mode_t mode)
{
    static char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
    return path;
}

static int
setup(void **state)
{
    (void)state;
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[160];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
test_gw_key_loads_a_0400_file(void **state)
{
    struct gw_key k;

    (void)state;
    assert_int_equal(
        gw_key_load(&k, key_file("ok", "sk-ant-123\n", 0400), NULL), 0);
    assert_int_equal(k.len, 10);
    assert_memory_equal(k.data, "sk-ant-123", 10);
    gw_key_wipe(&k);
    assert_null(k.data);
    assert_int_equal(k.len, 0);
    gw_key_wipe(&k); /* twice is harmless */
}

static void
test_gw_key_refuses_files_others_may_read(void **state)
{
    static const mode_t modes[] = { 0644, 0440, 0404, 0402, 0600 | 0020 };
    struct err e = { 0 };
    struct gw_key k;

    (void)state;
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        assert_int_equal(
            gw_key_load(&k, key_file("open", "sk-secret-9", modes[i]), &e), -1);
        assert_int_equal(e.code, ERR_INVALID);
        assert_non_null(strstr(e.msg, "want 0400"));
        assert_null(strstr(e.msg, "sk-secret-9"));
        assert_null(k.data);
    }
}

static void
test_gw_key_refuses_bad_text(void **state)
{
    struct err e = { 0 };
    struct gw_key k;
    char big[GW_KEY_MAX + 16];

    (void)state;
    assert_int_equal(gw_key_load(&k, key_file("empty", "\n", 0400), &e), -1);
    assert_int_equal(
        gw_key_load(&k, key_file("crlf", "a\r\nX-Evil: 1", 0400), &e), -1);
    assert_null(strstr(e.msg, "X-Evil"));
    assert_int_equal(gw_key_load(&k, key_file("space", "a b", 0400), &e), -1);
    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(gw_key_load(&k, key_file("big", big, 0400), &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_int_equal(gw_key_load(&k, "/nonexistent/key", &e), -1);
    assert_int_equal(e.code, ERR_IO);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gw_key_loads_a_0400_file),
        cmocka_unit_test(test_gw_key_refuses_files_others_may_read),
        cmocka_unit_test(test_gw_key_refuses_bad_text),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
