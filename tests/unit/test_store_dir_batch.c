/* test_store_dir_batch.c - a batch of writes on the directory store
 * (store_batch_begin/end, store/dir/store_fs.c): checked as they come,
 * invisible until the end, then all in place; a second put of one name
 * in a batch compares with the first one's bytes; a batch never ended
 * leaves nothing behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "store_dir_fixture.h"

static int
put(struct store *s, const char *name, int deadline, const char *expect,
    struct err *e)
{
    char *t = store_dir_fixture_spec(name, deadline);
    int rc = store_put(s, name, t, strlen(t), expect, NULL, e);

    free(t);
    return rc;
}

/* Entries of dir whose name starts with a dot, other than . and .. and
 * the state directory: temp files. */
static int
temp_files(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    int n = 0;

    assert_non_null(dp);
    while ((de = readdir(dp)) != NULL)
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") != 0 &&
            strcmp(de->d_name, "..") != 0 &&
            strcmp(de->d_name, ".agentctl") != 0)
            n++;
    closedir(dp);
    return n;
}

static void
test_batch_writes_appear_at_end(void **state)
{
    struct fixture *fx = *state;
    struct store *other = store_dir_open(fx->dir, NULL, NULL);
    struct store_spec sp;
    struct store_meta m;
    struct err e = { 0 };

    assert_non_null(other);
    assert_int_equal(store_batch_begin(fx->s, &e), 0);
    assert_int_equal(put(fx->s, "a", 100, "", &e), 0);
    assert_int_equal(put(fx->s, "b", 100, "", &e), 0);
    assert_int_equal(store_meta_observe(fx->s, "a", "h1", &m, &e), 0);
    /* not there yet, for anyone */
    assert_int_equal(store_get(other, "a", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_int_equal(store_meta_get(other, "a", &m, &e), -1);
    assert_int_equal(temp_files(fx->dir), 2);
    assert_int_equal(store_batch_end(fx->s, &e), 0);
    assert_int_equal(temp_files(fx->dir), 0);
    assert_int_equal(store_get(other, "a", &sp, &e), 0);
    store_spec_cleanup(&sp);
    assert_int_equal(store_get(fx->s, "b", &sp, &e), 0);
    store_spec_cleanup(&sp);
    assert_int_equal(store_meta_get(other, "a", &m, &e), 0);
    assert_int_equal(m.generation, 1);
    store_close(other);
}

/* Checks still run at the put: a create of a name that exists fails
 * then, not at the end. */
static void
test_batch_checks_at_put(void **state)
{
    struct fixture *fx = *state;
    struct err e = { 0 };

    assert_int_equal(put(fx->s, "a", 100, "", &e), 0);
    assert_int_equal(store_batch_begin(fx->s, &e), 0);
    assert_int_equal(put(fx->s, "a", 200, "", &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_int_equal(store_batch_end(fx->s, &e), 0);
}

/* A second put of one name in a batch: the first one's bytes go to disk
 * first, so the compare-and-swap sees them. */
static void
test_batch_second_put_sees_the_first(void **state)
{
    struct fixture *fx = *state;
    struct store_spec sp;
    struct err e = { 0 };

    assert_int_equal(store_batch_begin(fx->s, &e), 0);
    assert_int_equal(put(fx->s, "a", 100, "", &e), 0);
    /* "only create" must now fail: a exists (the first put's bytes) */
    assert_int_equal(put(fx->s, "a", 200, "", &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_int_equal(put(fx->s, "a", 300, NULL, &e), 0);
    assert_int_equal(store_batch_end(fx->s, &e), 0);
    assert_int_equal(store_get(fx->s, "a", &sp, &e), 0);
    assert_int_equal(sp.inv->deadline_seconds, 300);
    store_spec_cleanup(&sp);
}

static void
test_batch_never_ended_leaves_nothing(void **state)
{
    struct fixture *fx = *state;
    struct store *other;
    struct store_spec sp;
    struct err e = { 0 };

    assert_int_equal(store_batch_begin(fx->s, &e), 0);
    assert_int_equal(put(fx->s, "a", 100, "", &e), 0);
    store_close(fx->s);
    fx->s = store_dir_open(fx->dir, NULL, NULL);
    assert_non_null(fx->s);
    assert_int_equal(temp_files(fx->dir), 0);
    other = fx->s;
    assert_int_equal(store_get(other, "a", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
}

#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, store_dir_fixture_setup,                \
                                    store_dir_fixture_teardown)

int
main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_batch_writes_appear_at_end),
        T(test_batch_checks_at_put),
        T(test_batch_second_put_sees_the_first),
        T(test_batch_never_ended_leaves_nothing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
