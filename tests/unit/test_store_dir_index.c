/* test_store_dir_index.c - the directory store's index
 * (store/dir/store_dir_index.c): a file is parsed once per change of its
 * bytes, a change is seen whatever the writer did to the timestamps, a
 * put does not parse the other files, duplicates across files come from
 * the index. Negative controls show each fixture defeats the weaker rule
 * (an mtime-only key, no racy window). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"

struct fixture {
    char dir[64];
    struct store *s;
    int64_t racy_ns; /* the window before the test */
};

static int
setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_store_dir_index.XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    fx->s = store_dir_open(fx->dir, NULL, NULL);
    assert_non_null(fx->s);
    fx->racy_ns = store__dir_racy_ns;
    *state = fx;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *fx = *state;
    char cmd[128];

    store__dir_racy_ns = fx->racy_ns;
    store_close(fx->s);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
    assert_int_equal(system(cmd), 0);
    free(fx);
    return 0;
}

/* A spec whose text has the same length for every deadline of 3 digits,
 * so a rewrite can keep the size. */
static char *
spec_text(const char *name, int deadline)
{
    char *t = NULL;

    assert_true(asprintf(&t,
                         "apiVersion: agentctl.dev/v1alpha1\n"
                         "kind: AgentInvocation\n"
                         "metadata:\n  name: %s\n"
                         "spec:\n  vendor: fake\n  phase: execute\n"
                         "  image: agentctl/demo-agent:0.1.0\n"
                         "  command: [demo-agent]\n"
                         "  deadlineSeconds: %d\n",
                         name, deadline) > 0);
    return t;
}

/* Write path in place (no rename: the inode stays). */
static void
write_in_place(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(close(fd), 0);
}

static void
write_spec(struct fixture *fx, const char *base, const char *name,
           int deadline)
{
    char path[256], *t = spec_text(name, deadline);

    snprintf(path, sizeof(path), "%s/%s", fx->dir, base);
    write_in_place(path, t);
    free(t);
}

static uint32_t
deadline_of(struct store *s, const char *name)
{
    struct store_spec sp;
    struct err e = { 0 };
    uint32_t d;

    assert_int_equal(store_get(s, name, &sp, &e), 0);
    assert_non_null(sp.inv);
    d = sp.inv->deadline_seconds;
    store_spec_cleanup(&sp);
    return d;
}

/* The parsed invocation the index holds for base (its address tells
 * whether the file was parsed again). */
static const struct spec_invocation *
held_inv(struct store *s, const char *base)
{
    struct store_dir_file *f = store__dir_file((struct store_dir *)s, base);

    assert_non_null(f);
    assert_true(f->specs.n > 0);
    return f->specs.items[0].inv;
}

static void
key_of_path(const char *path, struct store_dir_key *k)
{
    struct stat st;

    assert_int_equal(lstat(path, &st), 0);
    memset(k, 0, sizeof(*k));
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    k->size = st.st_size;
    k->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL +
                  st.st_mtim.tv_nsec;
    k->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000LL +
                  st.st_ctim.tv_nsec;
}

static void
pause_ms(long ms)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = ms * 1000000L };

    nanosleep(&ts, NULL);
}

static void
test_index_parses_a_file_once_per_change(void **state)
{
    struct fixture *fx = *state;
    struct store_list l;
    const struct spec_invocation *first;
    struct err e = { 0 };
    char path[256];

    store__dir_racy_ns = 0; /* only the key decides here */
    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    store_list_cleanup(&l);
    first = held_inv(fx->s, "a.yaml");
    /* looking again: no parse */
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    store_list_cleanup(&l);
    assert_ptr_equal(held_inv(fx->s, "a.yaml"), first);
    /* touched, same bytes: read and hashed, still not parsed */
    snprintf(path, sizeof(path), "%s/a.yaml", fx->dir);
    pause_ms(20);
    assert_int_equal(utimensat(AT_FDCWD, path, NULL, 0), 0);
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    assert_ptr_equal(held_inv(fx->s, "a.yaml"), first);
    /* new bytes: parsed */
    write_spec(fx, "a.yaml", "a", 200);
    assert_int_equal(deadline_of(fx->s, "a"), 200);
}

/* An invalid file (here a large flow mapping, the kind that is costly to
 * parse) is parsed once: its errors are kept, not found again on every
 * list or get, and the other names are served beside it. */
static void
test_index_invalid_file_parsed_once(void **state)
{
    struct fixture *fx = *state;
    struct store_dir_file *f;
    const struct spec_errors *errs;
    struct store_list l;
    struct err e = { 0 };
    char path[256];
    FILE *fp;

    store__dir_racy_ns = 0;
    snprintf(path, sizeof(path), "%s/bad.yaml", fx->dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{", fp);
    for (int i = 0; i < 5000; i++)
        fprintf(fp, "%sk%d: %d", i ? ", " : "", i, i);
    fputs("}\n", fp);
    fclose(fp);
    write_spec(fx, "good.yaml", "good", 100);
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    assert_int_equal(l.n, 2);
    store_list_cleanup(&l);
    f = store__dir_file((struct store_dir *)fx->s, "bad.yaml");
    assert_non_null(f);
    assert_null(f->specs.items[0].inv);
    errs = f->specs.items[0].errors;
    assert_non_null(errs);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(store_list(fx->s, &l, &e), 0);
        store_list_cleanup(&l);
        assert_int_equal(deadline_of(fx->s, "good"), 100);
    }
    f = store__dir_file((struct store_dir *)fx->s, "bad.yaml");
    assert_ptr_equal(f->specs.items[0].errors, errs);
}

/* A write in place that keeps the size, with mtime set back by the
 * writer: ctime still tells. */
static void
test_index_sees_a_change_with_mtime_set_back(void **state)
{
    struct fixture *fx = *state;
    struct store_dir_key before, after;
    struct timespec times[2];
    struct stat st;
    char path[256];

    store__dir_racy_ns = 0; /* the key alone must catch it */
    snprintf(path, sizeof(path), "%s/a.yaml", fx->dir);
    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    assert_int_equal(lstat(path, &st), 0);
    key_of_path(path, &before);
    pause_ms(20); /* a later clock tick for ctime */
    write_spec(fx, "a.yaml", "a", 200);
    times[0] = st.st_atim;
    times[1] = st.st_mtim;
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
    key_of_path(path, &after);
    /* negative control: an (dev, inode, size, mtime) key calls it the
     * same file - only ctime differs */
    assert_true(before.dev == after.dev && before.ino == after.ino &&
                before.size == after.size &&
                before.mtime_ns == after.mtime_ns);
    assert_false(store__dir_key_same(&before, &after));
    assert_int_equal(deadline_of(fx->s, "a"), 200);
}

/* A second write within the clock tick of the first read keeps every
 * field of the key: the racy window makes the next look hash the bytes. */
static void
test_index_racy_file_is_hashed_again(void **state)
{
    struct fixture *fx = *state;
    struct store_dir_file *f;
    struct store_dir_key k;
    char path[256];

    snprintf(path, sizeof(path), "%s/a.yaml", fx->dir);
    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(deadline_of(fx->s, "a"), 100); /* read: racy */
    f = store__dir_file((struct store_dir *)fx->s, "a.yaml");
    assert_true(f->racy);
    write_spec(fx, "a.yaml", "a", 200);
    /* as if both writes fell in one tick: the key the index holds is the
     * file's key now */
    key_of_path(path, &k);
    f->key = k;
    assert_int_equal(deadline_of(fx->s, "a"), 200);

    /* negative control: without the racy mark the same situation is
     * missed (the old bytes are served) */
    write_spec(fx, "a.yaml", "a", 300);
    f = store__dir_file((struct store_dir *)fx->s, "a.yaml");
    key_of_path(path, &k);
    f->key = k;
    f->racy = false;
    assert_int_equal(deadline_of(fx->s, "a"), 200);
}

static void
test_index_racy_window(void **state)
{
    struct store_dir_key k = { 0 };
    int64_t now = 1800000000LL * 1000000000LL;

    (void)state;
    k.mtime_ns = k.ctime_ns = now - 1000000; /* 1 ms before the read */
    assert_true(store__dir_key_racy(&k, now));
    k.mtime_ns = k.ctime_ns = now - 3 * 1000000000LL;
    assert_false(store__dir_key_racy(&k, now));
    k.ctime_ns = now; /* mtime set back, changed just now */
    assert_true(store__dir_key_racy(&k, now));
}

/* A rename over the file with the same size and mtime: a new inode. */
static void
test_index_sees_a_rename_over_the_file(void **state)
{
    struct fixture *fx = *state;
    struct store_dir_key before, after;
    struct timespec times[2];
    struct stat st;
    char path[256], tmp[256];
    char *t = spec_text("a", 200);

    store__dir_racy_ns = 0;
    snprintf(path, sizeof(path), "%s/a.yaml", fx->dir);
    snprintf(tmp, sizeof(tmp), "%s/.a.yaml.tmp", fx->dir);
    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    assert_int_equal(lstat(path, &st), 0);
    key_of_path(path, &before);
    write_in_place(tmp, t);
    times[0] = st.st_atim;
    times[1] = st.st_mtim;
    assert_int_equal(utimensat(AT_FDCWD, tmp, times, 0), 0);
    assert_int_equal(rename(tmp, path), 0);
    key_of_path(path, &after);
    assert_true(before.size == after.size &&
                before.mtime_ns == after.mtime_ns);
    assert_true(before.ino != after.ino);
    assert_int_equal(deadline_of(fx->s, "a"), 200);
    free(t);
}

/* A put finds its file through the index: the other files are not
 * parsed again, and the put's own file is. */
static void
test_index_put_parses_no_other_file(void **state)
{
    struct fixture *fx = *state;
    const struct spec_invocation *held[20];
    struct err e = { 0 };
    char name[16], *t;

    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        t = spec_text(name, 100);
        assert_int_equal(store_put(fx->s, name, t, strlen(t), "", NULL, &e),
                         0);
        free(t);
    }
    for (int i = 0; i < 20; i++) {
        char base[24];

        snprintf(base, sizeof(base), "n%d.yaml", i);
        held[i] = held_inv(fx->s, base);
    }
    t = spec_text("n3", 200);
    assert_int_equal(store_put(fx->s, "n3", t, strlen(t), NULL, NULL, &e), 0);
    free(t);
    assert_int_equal(deadline_of(fx->s, "n3"), 200);
    for (int i = 0; i < 20; i++) {
        char base[24];

        snprintf(base, sizeof(base), "n%d.yaml", i);
        if (i != 3)
            assert_ptr_equal(held_inv(fx->s, base), held[i]);
    }
}

/* The index across a lock: what another writer did before the lock was
 * taken is seen (one scan per lock), with no parse of unchanged files. */
/* Many files, then half of them gone: a scan finds every file left by its
 * base name and none of the gone ones (the hash over base names is
 * rebuilt after the drops moved files around), and a listing holds
 * exactly the names left. */
static void
test_index_many_files_then_half_gone(void **state)
{
    struct fixture *fx = *state;
    struct store_dir *d = (struct store_dir *)fx->s;
    struct store_list l;
    struct err e = { 0 };
    char base[64], name[64], path[256];

    for (int i = 0; i < 300; i++) {
        snprintf(base, sizeof(base), "f%d.yaml", i);
        snprintf(name, sizeof(name), "n%d", i);
        write_spec(fx, base, name, 100);
    }
    assert_int_equal(store__dir_scan(d, &e), 0);
    assert_int_equal(d->nfiles, 300);
    for (int i = 0; i < 300; i += 2) {
        snprintf(path, sizeof(path), "%s/f%d.yaml", fx->dir, i);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(store__dir_scan(d, &e), 0);
    assert_int_equal(d->nfiles, 150);
    for (int i = 0; i < 300; i++) {
        struct store_dir_file *f;

        snprintf(base, sizeof(base), "f%d.yaml", i);
        f = store__dir_file(d, base);
        if (i % 2 == 0) {
            assert_null(f);
            continue;
        }
        assert_non_null(f);
        assert_string_equal(f->base, base);
    }
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    assert_int_equal(l.n, 150);
    store_list_cleanup(&l);
}

static void
test_index_lock_rescans(void **state)
{
    struct fixture *fx = *state;
    struct store_spec sp;
    struct err e = { 0 };

    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    /* a name defined in a file the index has not looked at */
    write_spec(fx, "other.yaml", "b", 100);
    assert_int_equal(store_lock(fx->s, &e), 0);
    assert_int_equal(store_get(fx->s, "b", &sp, &e), 0);
    assert_string_equal(sp.name, "b");
    store_spec_cleanup(&sp);
    store_unlock(fx->s);
}

static void
test_index_duplicates_across_files(void **state)
{
    struct fixture *fx = *state;
    struct store_spec sp;
    struct err e = { 0 };
    char path[256];

    write_spec(fx, "a.yaml", "x", 100);
    write_spec(fx, "b.yaml", "x", 200);
    assert_int_equal(store_get(fx->s, "x", &sp, &e), 0);
    assert_null(sp.inv);
    assert_non_null(sp.errors);
    assert_non_null(strstr(sp.errors->items[0].msg, "b.yaml"));
    assert_non_null(strstr(sp.key, "a.yaml"));
    store_spec_cleanup(&sp);
    /* a put cannot pick one of them */
    char *t = spec_text("x", 300);
    assert_int_equal(store_put(fx->s, "x", t, strlen(t), NULL, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    free(t);
    snprintf(path, sizeof(path), "%s/b.yaml", fx->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(store_lock(fx->s, &e), 0); /* a rescan */
    store_unlock(fx->s);
    assert_int_equal(deadline_of(fx->s, "x"), 100);
}

/* A spec out of the index is the index's own, shared, not a copy (one
 * parse, one copy in memory for any number of readers). Each holder lets
 * go on its own: freeing the reader's leaves the index whole, and a
 * reader keeps the spec it got after the file changed and the index let
 * go of it (valgrind and ASan see a use after free here). */
static void
test_index_spec_is_shared(void **state)
{
    struct fixture *fx = *state;
    const struct spec_invocation *held;
    struct store_spec sp, old;
    struct err e = { 0 };

    write_spec(fx, "a.yaml", "a", 100);
    assert_int_equal(store_get(fx->s, "a", &sp, &e), 0);
    held = held_inv(fx->s, "a.yaml");
    assert_ptr_equal(sp.inv, held);
    store_spec_cleanup(&sp);
    assert_int_equal(deadline_of(fx->s, "a"), 100);
    assert_ptr_equal(held_inv(fx->s, "a.yaml"), held);

    assert_int_equal(store_get(fx->s, "a", &old, &e), 0);
    write_spec(fx, "a.yaml", "a", 200);
    assert_int_equal(deadline_of(fx->s, "a"), 200);
    assert_ptr_not_equal(held_inv(fx->s, "a.yaml"), old.inv);
    assert_int_equal(old.inv->deadline_seconds, 100);
    assert_string_equal(old.inv->command.argv[0], "demo-agent");
    assert_non_null(strstr(old.inv->resource_json, "\"deadlineSeconds\":100"));
    store_spec_cleanup(&old);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_index_parses_a_file_once_per_change),
        T(test_index_invalid_file_parsed_once),
        T(test_index_sees_a_change_with_mtime_set_back),
        T(test_index_racy_file_is_hashed_again),
        T(test_index_racy_window),
        T(test_index_sees_a_rename_over_the_file),
        T(test_index_put_parses_no_other_file),
        T(test_index_lock_rescans),
        T(test_index_many_files_then_half_gone),
        T(test_index_duplicates_across_files),
        T(test_index_spec_is_shared),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
