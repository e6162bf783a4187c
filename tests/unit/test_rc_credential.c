/* test_rc_credential.c - the credential reader accepts only a private
 * regular file with one line, says how to fix anything else, and never
 * puts the value in a message. */
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

#include "rc_credential.h"

#define SECRET "sk-test-Secr3t-Value-42"

struct dir {
    char path[64];
};

static int
setup(void **state)
{
    struct dir *d = calloc(1, sizeof(*d));

    if (d == NULL)
        return -1;
    snprintf(d->path, sizeof(d->path), "/tmp/rc-cred-XXXXXX");
    if (mkdtemp(d->path) == NULL) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static int
teardown(void **state)
{
    struct dir *d = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    if (system(cmd) != 0)
        return -1;
    free(d);
    return 0;
}

/* Write name with content and mode inside the temp dir. */
static void
put(const struct dir *d, const char *name, const char *content, size_t n,
    mode_t mode)
{
    char p[128];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", d->path, name);
    f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(p, mode), 0);
}

/* Expect a refusal with code c whose message holds want and not SECRET. */
static void
refused(const struct dir *d, const char *name, enum err_code c,
        const char *want)
{
    struct err e = { 0 };
    char *v = (char *)"untouched";

    assert_int_equal(rc_credential_read(d->path, name, &v, &e), -1);
    assert_string_equal(v, "untouched");
    assert_int_equal(e.code, c);
    if (strstr(e.msg, want) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
    assert_null(strstr(e.msg, SECRET));
    assert_null(strstr(e.msg, "Secr3t"));
}

static void
test_rc_credential_private_file_is_read_and_newline_stripped(void **state)
{
    struct dir *d = *state;
    struct err e = { 0 };
    char *v = NULL;

    put(d, "anthropic", SECRET "\n", strlen(SECRET) + 1, 0600);
    assert_int_equal(rc_credential_read(d->path, "anthropic", &v, &e), 0);
    assert_string_equal(v, SECRET);
    rc_credential_free(v);

    put(d, "crlf", SECRET "\r\n\n", strlen(SECRET) + 3, 0400);
    assert_int_equal(rc_credential_read(d->path, "crlf", &v, &e), 0);
    assert_string_equal(v, SECRET);
    rc_credential_free(v);

    put(d, "bare", SECRET, strlen(SECRET), 0600);
    assert_int_equal(rc_credential_read(d->path, "bare", &v, &e), 0);
    assert_string_equal(v, SECRET);
    rc_credential_free(v);
    rc_credential_free(NULL);
}

static void
test_rc_credential_shared_modes_are_refused_with_the_fix(void **state)
{
    struct dir *d = *state;
    char fix[160];

    put(d, "g", SECRET, strlen(SECRET), 0640);
    snprintf(fix, sizeof(fix), "chmod 600 %s/g", d->path);
    refused(d, "g", ERR_INVALID, fix);
    refused(d, "g", ERR_INVALID, "group-readable");

    put(d, "w", SECRET, strlen(SECRET), 0604);
    refused(d, "w", ERR_INVALID, "world-readable");

    put(d, "gw", SECRET, strlen(SECRET), 0660);
    refused(d, "gw", ERR_INVALID, "group-writable");
    refused(d, "gw", ERR_INVALID, "chmod 600");

    put(d, "ww", SECRET, strlen(SECRET), 0602);
    refused(d, "ww", ERR_INVALID, "world-writable");
}

static void
test_rc_credential_symlink_and_non_regular_are_refused(void **state)
{
    struct dir *d = *state;
    char target[128], link[128];

    put(d, "real", SECRET, strlen(SECRET), 0600);
    snprintf(target, sizeof(target), "%s/real", d->path);
    snprintf(link, sizeof(link), "%s/link", d->path);
    assert_int_equal(symlink(target, link), 0);
    refused(d, "link", ERR_INVALID, "symlink");

    snprintf(link, sizeof(link), "%s/sub", d->path);
    assert_int_equal(mkdir(link, 0700), 0);
    refused(d, "sub", ERR_INVALID, "not a regular file");

    snprintf(link, sizeof(link), "%s/fifo", d->path);
    assert_int_equal(mkfifo(link, 0600), 0);
    refused(d, "fifo", ERR_INVALID, "not a regular file");

    refused(d, "missing", ERR_NOTFOUND, "does not exist");
}

static void
test_rc_credential_foreign_owner_is_refused(void **state)
{
    struct dir *d = *state;
    char p[128];

    if (geteuid() != 0)
        skip();
    put(d, "theirs", SECRET, strlen(SECRET), 0600);
    snprintf(p, sizeof(p), "%s/theirs", d->path);
    assert_int_equal(chown(p, 12345, 12345), 0);
    refused(d, "theirs", ERR_INVALID, "owned by uid 12345");
    refused(d, "theirs", ERR_INVALID, "chown 0");
}

static void
test_rc_credential_bad_content_is_refused(void **state)
{
    struct dir *d = *state;
    static const char mid[] = SECRET "\n" SECRET "\n";
    static const char nul[] = SECRET "\0" SECRET;
    static const char cr[] = SECRET "\r" SECRET;

    put(d, "empty", "", 0, 0600);
    refused(d, "empty", ERR_INVALID, "is empty");
    put(d, "nl", "\n\n", 2, 0600);
    refused(d, "nl", ERR_INVALID, "is empty");
    put(d, "mid", mid, sizeof(mid) - 1, 0600);
    refused(d, "mid", ERR_INVALID, "line break");
    put(d, "cr", cr, sizeof(cr) - 1, 0600);
    refused(d, "cr", ERR_INVALID, "line break");
    put(d, "nul", nul, sizeof(nul) - 1, 0600);
    refused(d, "nul", ERR_INVALID, "NUL");
}

static void
test_rc_credential_size_cap(void **state)
{
    struct dir *d = *state;
    char *big = malloc(RC_CREDENTIAL_MAX_BYTES + 1);
    struct err e = { 0 };
    char *v = NULL;

    assert_non_null(big);
    memset(big, 'k', RC_CREDENTIAL_MAX_BYTES + 1);
    put(d, "at", big, RC_CREDENTIAL_MAX_BYTES, 0600);
    assert_int_equal(rc_credential_read(d->path, "at", &v, &e), 0);
    assert_int_equal(strlen(v), RC_CREDENTIAL_MAX_BYTES);
    rc_credential_free(v);
    put(d, "over", big, RC_CREDENTIAL_MAX_BYTES + 1, 0600);
    refused(d, "over", ERR_LIMIT, "larger than");
    free(big);
}

static void
test_rc_credential_bad_names_are_refused(void **state)
{
    struct dir *d = *state;

    put(d, ".hidden", SECRET, strlen(SECRET), 0600);
    refused(d, ".hidden", ERR_INVALID, "not a plain file name");
    refused(d, "../x", ERR_INVALID, "not a plain file name");
    refused(d, "a/b", ERR_INVALID, "not a plain file name");
    refused(d, "", ERR_INVALID, "not a plain file name");
    refused(d, "..", ERR_INVALID, "not a plain file name");
    refused(d, "sp ace", ERR_INVALID, "not a plain file name");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_rc_credential_private_file_is_read_and_newline_stripped, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_credential_shared_modes_are_refused_with_the_fix, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_credential_symlink_and_non_regular_are_refused, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_credential_foreign_owner_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_credential_bad_content_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rc_credential_size_cap, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_rc_credential_bad_names_are_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
