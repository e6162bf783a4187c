/* test_store_dir.c - the directory store: specs as files with CAS
 * revisions, atomic writes, the inotify watch, and per-name metadata. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store.h"
#include "store_dir_fixture.h"

static void
put_ok(struct store *s, const char *name, int deadline, const char *expect,
       char rev[STORE_REV_MAX])
{
    char *t = store_dir_fixture_spec(name, deadline);
    struct err e = { 0 };

    assert_int_equal(store_put(s, name, t, strlen(t), expect, rev, &e), 0);
    free(t);
}

static void
write_file(const char *dir, const char *base, const char *text)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, base);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void
test_store_dir_put_get_list_delete(void **state)
{
    struct fixture *fx = *state;
    char rev[STORE_REV_MAX];
    struct store_spec sp;
    struct store_list l;
    struct err e = { 0 };

    put_ok(fx->s, "web", 60, "", rev);
    assert_int_equal(store_get(fx->s, "web", &sp, &e), 0);
    assert_non_null(sp.inv);
    assert_null(sp.errors);
    assert_int_equal(sp.inv->deadline_seconds, 60);
    assert_string_equal(sp.rev, rev);
    assert_int_equal(sp.docs, 1);
    assert_non_null(strstr(sp.key, "/web.yaml"));
    store_spec_cleanup(&sp);

    put_ok(fx->s, "api", 30, "", NULL);
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.items[0].name, "api"); /* sorted */
    assert_string_equal(l.items[1].name, "web");
    store_list_cleanup(&l);

    assert_int_equal(store_del(fx->s, "web", rev, &e), 0);
    assert_int_equal(store_get(fx->s, "web", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_int_equal(store_del(fx->s, "web", NULL, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
}

static void
test_store_dir_cas_refuses_stale_revision(void **state)
{
    struct fixture *fx = *state;
    char rev1[STORE_REV_MAX], rev2[STORE_REV_MAX];
    char *t = store_dir_fixture_spec("web", 90);
    struct store_spec sp;
    struct err e = { 0 };

    put_ok(fx->s, "web", 60, "", rev1);
    put_ok(fx->s, "web", 70, rev1, rev2);
    assert_string_not_equal(rev1, rev2);
    /* stale: someone wrote rev2 after we read rev1 */
    assert_int_equal(store_put(fx->s, "web", t, strlen(t), rev1, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    /* create-only on an existing name */
    assert_int_equal(store_put(fx->s, "web", t, strlen(t), "", NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_int_equal(store_del(fx->s, "web", rev1, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_int_equal(store_get(fx->s, "web", &sp, &e), 0);
    assert_int_equal(sp.inv->deadline_seconds, 70); /* nothing clobbered */
    store_spec_cleanup(&sp);
    free(t);
}

static void
test_store_dir_atomic_write_leaves_no_temp_files(void **state)
{
    struct fixture *fx = *state;
    struct dirent *de;
    DIR *d;
    int files = 0;

    for (int i = 1; i <= 5; i++)
        put_ok(fx->s, "web", i, NULL, NULL);
    d = opendir(fx->dir);
    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        /* only the spec and the state dir: no .web.yaml.tmp.* left */
        if (strcmp(de->d_name, ".agentctl") != 0)
            assert_string_equal(de->d_name, "web.yaml");
        files++;
    }
    closedir(d);
    assert_int_equal(files, 2);
}

static void
test_store_dir_name_in_other_file_is_a_conflict(void **state)
{
    struct fixture *fx = *state;
    char *t = store_dir_fixture_spec("y", 10);
    struct store_list l;
    struct err e = { 0 };

    write_file(fx->dir, "x.yaml", t); /* hand-dropped, holds "y" */
    assert_int_equal(store_put(fx->s, "y", t, strlen(t), NULL, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "x.yaml"));
    /* the same name in two files: both are reported invalid */
    write_file(fx->dir, "y.yaml", t);
    assert_int_equal(store_list(fx->s, &l, &e), 0);
    assert_int_equal(l.n, 2);
    for (size_t i = 0; i < l.n; i++) {
        assert_null(l.items[i].inv);
        assert_non_null(l.items[i].errors);
    }
    store_list_cleanup(&l);
    free(t);
}

static void
test_store_dir_invalid_file_is_listed_with_errors(void **state)
{
    struct fixture *fx = *state;
    struct store_spec sp;
    struct err e = { 0 };

    write_file(fx->dir, "broken.yml", "apiVersion: [\n");
    write_file(fx->dir, "notes.txt", "not a spec\n");
    assert_int_equal(store_get(fx->s, "broken", &sp, &e), 0);
    assert_null(sp.inv);
    assert_non_null(sp.errors);
    assert_true(sp.errors->n > 0);
    store_spec_cleanup(&sp);
    assert_int_equal(store_get(fx->s, "notes", &sp, &e), -1);
}

/* Drain the watch into out; returns how many changes. */
static size_t
drain(struct store *s, struct store_change *out, size_t max)
{
    size_t n = 0;
    struct err e = { 0 };

    assert_int_equal(store_watch_read(s, out, max, &n, &e), 0);
    return n;
}

static void
test_store_dir_watch_reports_put_and_delete(void **state)
{
    struct fixture *fx = *state;
    struct store_change ch[16];
    struct err e = { 0 };
    char path[256];

    put_ok(fx->s, "old", 5, "", NULL);
    assert_true(store_watch_fd(fx->s, &e) >= 0);
    assert_int_equal(drain(fx->s, ch, 16), 0);

    put_ok(fx->s, "web", 60, "", NULL);
    assert_int_equal(drain(fx->s, ch, 16), 1);
    assert_int_equal(ch[0].kind, STORE_CHANGE_PUT);
    assert_string_equal(ch[0].name, "web");

    /* ignored: dot-files, other suffixes, the state dir */
    write_file(fx->dir, ".hidden.yaml", "x: 1\n");
    write_file(fx->dir, "README.txt", "hello\n");
    write_file(fx->dir, ".agentctl/stray.yaml", "x: 1\n");
    assert_int_equal(store_doc_put(fx->s, STORE_DOC_STATUS, "web", "{}", 2, &e),
                     0);
    assert_int_equal(drain(fx->s, ch, 16), 0);

    /* a hand-written file that does not parse is a PUT of an invalid one */
    write_file(fx->dir, "bad.yaml", "kind: [\n");
    assert_int_equal(drain(fx->s, ch, 16), 1);
    assert_int_equal(ch[0].kind, STORE_CHANGE_PUT);
    assert_string_equal(ch[0].name, "bad");

    /* deleting a file names what it held (known from before the watch) */
    snprintf(path, sizeof(path), "%s/old.yaml", fx->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(drain(fx->s, ch, 16), 1);
    assert_int_equal(ch[0].kind, STORE_CHANGE_DELETE);
    assert_string_equal(ch[0].name, "old");

    assert_int_equal(store_del(fx->s, "web", NULL, &e), 0);
    assert_int_equal(drain(fx->s, ch, 16), 1);
    assert_int_equal(ch[0].kind, STORE_CHANGE_DELETE);
    assert_string_equal(ch[0].name, "web");
}

/* Many files known before the watch (past the first sizes of its file
 * map and table): each deletion still names what that file held. */
static void
test_store_dir_watch_knows_many_files(void **state)
{
    struct fixture *fx = *state;
    struct store_change ch[4];
    struct err e = { 0 };
    char name[32], path[256];

    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "many%d", i);
        put_ok(fx->s, name, 5, "", NULL);
    }
    assert_true(store_watch_fd(fx->s, &e) >= 0);
    assert_int_equal(drain(fx->s, ch, 4), 0);
    for (int i = 299; i >= 0; i -= 7) {
        snprintf(name, sizeof(name), "many%d", i);
        snprintf(path, sizeof(path), "%s/%s.yaml", fx->dir, name);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(drain(fx->s, ch, 4), 1);
        assert_int_equal(ch[0].kind, STORE_CHANGE_DELETE);
        assert_string_equal(ch[0].name, name);
    }
}

/* An editor writing in place: nothing is reported until the file is
 * closed, so a half-written spec is never acted on. */
static void
test_store_dir_watch_ignores_half_written_file(void **state)
{
    struct fixture *fx = *state;
    struct store_change ch[4];
    struct err e = { 0 };
    char path[256], *t = store_dir_fixture_spec("slow", 5);
    size_t half = strlen(t) / 2;
    int fd;

    assert_true(store_watch_fd(fx->s, &e) >= 0);
    snprintf(path, sizeof(path), "%s/slow.yaml", fx->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, t, half), (ssize_t)half);
    assert_int_equal(drain(fx->s, ch, 4), 0);
    assert_int_equal(write(fd, t + half, strlen(t) - half),
                     (ssize_t)(strlen(t) - half));
    assert_int_equal(drain(fx->s, ch, 4), 0);
    assert_int_equal(close(fd), 0);
    assert_int_equal(drain(fx->s, ch, 4), 1);
    assert_int_equal(ch[0].kind, STORE_CHANGE_PUT);
    assert_string_equal(ch[0].name, "slow");
    free(t);
}

static void
test_store_dir_watch_overflow_asks_for_resync(void **state)
{
    struct fixture *fx = *state;
    struct store_change ch[3];
    struct err e = { 0 };
    char name[16];

    assert_true(store_watch_fd(fx->s, &e) >= 0);
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "w%d", i);
        put_ok(fx->s, name, 5, "", NULL);
    }
    assert_int_equal(drain(fx->s, ch, 3), 3);
    assert_int_equal(ch[2].kind, STORE_CHANGE_RESYNC);
}

static void
test_store_dir_generation_advances_only_on_spec_change(void **state)
{
    struct fixture *fx = *state;
    struct store_meta m1, m2, m3, m4;
    struct err e = { 0 };

    assert_int_equal(store_meta_get(fx->s, "web", &m1, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_int_equal(store_meta_observe(fx->s, "web", "h1", &m1, &e), 0);
    assert_int_equal(m1.generation, 1);
    assert_int_equal(strlen(m1.uid), 36);
    assert_int_equal(m1.uid[14], '4');
    assert_int_equal(store_meta_observe(fx->s, "web", "h1", &m2, &e), 0);
    assert_int_equal(m2.generation, 1);
    assert_int_equal(store_meta_observe(fx->s, "web", "h2", &m3, &e), 0);
    assert_int_equal(m3.generation, 2);
    assert_int_equal(store_meta_observe(fx->s, "web", "h2", &m4, &e), 0);
    assert_int_equal(m4.generation, 2);
    assert_string_equal(m1.uid, m4.uid);
    assert_string_equal(m1.creation_timestamp, m4.creation_timestamp);
}

/* Two processes see a new name at the same moment: one uid wins. */
static void
test_store_dir_uid_creation_is_race_safe(void **state)
{
    struct fixture *fx = *state;

    for (int round = 0; round < 20; round++) {
        char name[16], uids[2][37] = { { 0 } };
        int go[2], res[2][2];
        pid_t pid[2];

        snprintf(name, sizeof(name), "race%d", round);
        assert_int_equal(pipe(go), 0);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(pipe(res[k]), 0);
            pid[k] = fork();
            assert_true(pid[k] >= 0);
            if (pid[k] == 0) {
                struct store *s = store_dir_open(fx->dir, NULL, NULL);
                struct store_meta m;
                char c;

                close(go[1]);
                (void)!read(go[0], &c, 1); /* wait for the start line */
                if (s == NULL || store_meta_observe(s, name, "h", &m, NULL))
                    _exit(1);
                (void)!write(res[k][1], m.uid, 36);
                _exit(0);
            }
            close(res[k][1]);
        }
        close(go[0]);
        close(go[1]); /* both children start now */
        for (int k = 0; k < 2; k++) {
            int st;

            assert_int_equal(read(res[k][0], uids[k], 36), 36);
            close(res[k][0]);
            assert_int_equal(waitpid(pid[k], &st, 0), pid[k]);
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        assert_string_equal(uids[0], uids[1]);
    }
}

/* The losing side of the race: the document exists when we create. */
static void
test_store_dir_meta_create_conflict_keeps_first_uid(void **state)
{
    struct fixture *fx = *state;
    const char *doc = "{\"uid\":\"11111111-2222-4333-8444-555555555555\","
                      "\"generation\":1,\"creationTimestamp\":"
                      "\"2026-01-01T00:00:00Z\",\"specHash\":\"h\"}";
    struct store_meta m;
    struct err e = { 0 };

    assert_int_equal(
        store_doc_create(fx->s, STORE_DOC_META, "web", doc, strlen(doc), &e),
        0);
    assert_int_equal(
        store_doc_create(fx->s, STORE_DOC_META, "web", "{}", 2, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_int_equal(store_meta_observe(fx->s, "web", "h", &m, &e), 0);
    assert_string_equal(m.uid, "11111111-2222-4333-8444-555555555555");
}

static void
test_store_dir_state_docs_and_events(void **state)
{
    struct fixture *fx = *state;
    char *data, path[256], **names;
    size_t len, n;
    cJSON *j;
    struct err e = { 0 };

    assert_int_equal(
        store_doc_get(fx->s, STORE_DOC_STATUS, "web", &data, &len, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    j = cJSON_Parse("{\"phase\":\"Running\"}");
    assert_int_equal(store_json_put(fx->s, STORE_DOC_STATUS, "web", j, &e), 0);
    cJSON_Delete(j);
    assert_int_equal(store_json_get(fx->s, STORE_DOC_STATUS, "web", &j, &e), 0);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(j, "phase")->valuestring, "Running");
    cJSON_Delete(j);
    assert_int_equal(store_doc_names(fx->s, STORE_DOC_STATUS, &names, &n, &e),
                     0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "web");
    store_names_free(names, n);
    assert_int_equal(store_doc_del(fx->s, STORE_DOC_STATUS, "web", &e), 0);
    assert_int_equal(store_doc_del(fx->s, STORE_DOC_STATUS, "web", &e), 0);

    assert_int_equal(store_event_read(fx->s, "web", &data, &len, &e), 0);
    assert_int_equal(len, 0);
    free(data);
    assert_int_equal(store_event_append(fx->s, "web", "{\"a\":1}", &e), 0);
    assert_int_equal(store_event_append(fx->s, "web", "{\"b\":2}", &e), 0);
    assert_int_equal(store_event_append(fx->s, "web", "x\ny", &e), -1);
    assert_int_equal(store_event_read(fx->s, "web", &data, &len, &e), 0);
    assert_string_equal(data, "{\"a\":1}\n{\"b\":2}\n");
    free(data);

    assert_int_equal(store_output_path(fx->s, "web", path, sizeof(path), &e),
                     0);
    assert_non_null(strstr(path, "/.agentctl/output/web.log"));
    /* names are DNS labels, so no name can be a path */
    assert_int_equal(
        store_doc_put(fx->s, STORE_DOC_STATUS, "../x", "{}", 2, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
}

/* The state directory the controller records is agentctl's default; a
 * record that is not an absolute path to a directory is ignored, and
 * removing the record brings the default back. */
static void
test_store_dir_state_default_follows_the_record(void **state)
{
    struct fixture *fx = *state;
    char other[128], path[512];
    struct err e = { 0 };
    struct store *s;

    snprintf(other, sizeof(other), "%s/.agentctl/../elsewhere", fx->dir);
    assert_int_equal(mkdir(other, 0755), 0);
    assert_int_equal(store_dir_record_state(fx->dir, other, &e), 0);
    s = store_dir_open(fx->dir, NULL, &e);
    assert_non_null(s);
    assert_int_equal(store_output_path(s, "web", path, sizeof(path), &e), 0);
    assert_non_null(strstr(path, "/elsewhere/output/web.log"));
    assert_null(strstr(path, "..")); /* recorded absolute and resolved */
    store_close(s);

    write_file(fx->dir, ".agentctl-state", "relative/dir\n");
    s = store_dir_open(fx->dir, NULL, &e);
    assert_int_equal(store_output_path(s, "web", path, sizeof(path), &e), 0);
    assert_non_null(strstr(path, "/.agentctl/output/web.log"));
    store_close(s);

    assert_int_equal(store_dir_record_state(fx->dir, other, &e), 0);
    assert_int_equal(store_dir_record_state(fx->dir, NULL, &e), 0);
    snprintf(path, sizeof(path), "%s/.agentctl-state", fx->dir);
    assert_int_equal(access(path, F_OK), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, store_dir_fixture_setup,                \
                                    store_dir_fixture_teardown)
        T(test_store_dir_put_get_list_delete),
        T(test_store_dir_cas_refuses_stale_revision),
        T(test_store_dir_atomic_write_leaves_no_temp_files),
        T(test_store_dir_name_in_other_file_is_a_conflict),
        T(test_store_dir_invalid_file_is_listed_with_errors),
        T(test_store_dir_watch_reports_put_and_delete),
        T(test_store_dir_watch_knows_many_files),
        T(test_store_dir_watch_ignores_half_written_file),
        T(test_store_dir_watch_overflow_asks_for_resync),
        T(test_store_dir_generation_advances_only_on_spec_change),
        T(test_store_dir_uid_creation_is_race_safe),
        T(test_store_dir_meta_create_conflict_keeps_first_uid),
        T(test_store_dir_state_docs_and_events),
        T(test_store_dir_state_default_follows_the_record),
#undef T
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
