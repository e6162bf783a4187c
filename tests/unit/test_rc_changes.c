/* test_rc_changes.c - the change set (hostio/rc_changes.h): a base
 * packed by the workspace tar writer with its manifest, an archive of
 * /work "read back" as Docker writes it (entries under "work/"), made
 * here entry by entry so that hostile ones can be planted; then the
 * summary, the JSON, the diff, and the apply onto a copy of the base. */
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
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>

#include "rc_changes_int.h"
#include "rc_workspace_int.h"

struct fx {
    char dir[64];   /* the temp dir */
    char base[128]; /* <dir>/root/ws: the uploaded workspace */
    char out[128];  /* <dir>/out/set */
    char manifest[128], after[128];
    struct archive *a;
    struct archive_entry *ae;
};

static void
put_file(const char *dir, const char *rel, const char *data, mode_t mode)
{
    char p[512];
    int fd;

    snprintf(p, sizeof(p), "%s/%s", dir, rel);
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
    close(fd);
    chmod(p, mode);
}

static char *
slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0;

    if (f == NULL)
        return NULL;
    if (getdelim(&text, &cap, '\0', f) < 0) {
        free(text);
        text = strdup("");
    }
    fclose(f);
    return text;
}

static int
no_out(const void *p, size_t n, void *arg, struct err *e)
{
    (void)p, (void)n, (void)arg, (void)e;
    return 0;
}

/* The base: a.txt, b.txt, c.txt, run.sh (0644), d/x; its manifest as
 * the upload writes it. */
static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    char p[256];
    struct rc__ws_tar_opts o = { .max_bytes = 1 << 20, .out = no_out };
    struct err e;

    strcpy(f->dir, "/tmp/test_rc_changes.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(p, sizeof(p), "%s/root", f->dir);
    mkdir(p, 0755);
    snprintf(f->base, sizeof(f->base), "%s/root/ws", f->dir);
    mkdir(f->base, 0755);
    snprintf(p, sizeof(p), "%s/out", f->dir);
    mkdir(p, 0755);
    snprintf(f->out, sizeof(f->out), "%s/out/set", f->dir);
    snprintf(f->manifest, sizeof(f->manifest), "%s/out/base.jsonl", f->dir);
    snprintf(f->after, sizeof(f->after), "%s/out/after.tar", f->dir);
    put_file(f->base, "a.txt", "one\ntwo\nthree\n", 0644);
    put_file(f->base, "b.txt", "keep\n", 0644);
    put_file(f->base, "c.txt", "gone\n", 0644);
    put_file(f->base, "run.sh", "echo hi\n", 0644);
    snprintf(p, sizeof(p), "%s/d", f->base);
    mkdir(p, 0755);
    put_file(f->base, "d/x", "x\n", 0644);
    o.base = rc_changes_base_open(f->manifest, &e);
    assert_non_null(o.base);
    assert_int_equal(rc__ws_tar_run(f->dir, "root/ws", &o, &e), 0);
    assert_int_equal(rc_changes_base_close(o.base, &e), 0);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* ---- the archive read back ------------------------------------------- */

static void
after_open(struct fx *f)
{
    f->a = archive_write_new();
    f->ae = archive_entry_new();
    archive_write_set_format_pax_restricted(f->a);
    assert_int_equal(archive_write_open_filename(f->a, f->after), ARCHIVE_OK);
}

static void
after_add(struct fx *f, const char *name, unsigned type, unsigned mode,
          const char *data)
{
    archive_entry_clear(f->ae);
    archive_entry_copy_pathname(f->ae, name);
    archive_entry_set_filetype(f->ae, type);
    archive_entry_set_perm(f->ae, mode);
    archive_entry_set_size(f->ae, type == AE_IFREG ? (la_int64_t)strlen(data)
                                                   : 0);
    if (type == AE_IFLNK)
        archive_entry_copy_symlink(f->ae, data);
    assert_true(archive_write_header(f->a, f->ae) >= ARCHIVE_WARN);
    if (type == AE_IFREG && data[0] != '\0')
        assert_int_equal(archive_write_data(f->a, data, strlen(data)),
                         (la_ssize_t)strlen(data));
}

static void
after_hardlink(struct fx *f, const char *name, const char *to)
{
    archive_entry_clear(f->ae);
    archive_entry_copy_pathname(f->ae, name);
    archive_entry_set_filetype(f->ae, AE_IFREG);
    archive_entry_set_perm(f->ae, 0644);
    archive_entry_copy_hardlink(f->ae, to);
    archive_entry_set_size(f->ae, 0);
    assert_true(archive_write_header(f->a, f->ae) >= ARCHIVE_WARN);
}

static void
after_close(struct fx *f)
{
    assert_int_equal(archive_write_close(f->a), ARCHIVE_OK);
    archive_write_free(f->a);
    archive_entry_free(f->ae);
}

/* The agent's work: a.txt edited, b.txt kept, c.txt deleted, run.sh
 * made executable, n.txt and bin.dat added, d/x kept, .git ignored. */
static void
after_agent(struct fx *f, const char *a_txt)
{
    after_open(f);
    after_add(f, "work/", AE_IFDIR, 0755, "");
    after_add(f, "work/.git/", AE_IFDIR, 0755, "");
    after_add(f, "work/.git/HEAD", AE_IFREG, 0644, "ref: x\n");
    after_add(f, "work/a.txt", AE_IFREG, 0644, a_txt);
    after_add(f, "work/b.txt", AE_IFREG, 0644, "keep\n");
    after_add(f, "work/bin.dat", AE_IFREG, 0644, "");
    after_add(f, "work/d/", AE_IFDIR, 0755, "");
    after_add(f, "work/d/x", AE_IFREG, 0644, "x\n");
    after_add(f, "work/n.txt", AE_IFREG, 0644, "new\n");
    after_add(f, "work/run.sh", AE_IFREG, 0755, "echo hi\n");
    after_close(f);
}

static struct rc_changes_opts
opts(struct fx *f)
{
    struct rc_changes_opts o = {
        .base = f->manifest,
        .after = f->after,
        .root = f->dir,
        .source = "root/ws",
        .out = f->out,
        .max_file_bytes = 1 << 20,
        .max_total_bytes = 1 << 20,
    };
    return o;
}

static cJSON *
load_json(struct fx *f)
{
    char p[160];
    char *text;
    cJSON *j;

    snprintf(p, sizeof(p), "%s.json", f->out);
    text = slurp(p);
    assert_non_null(text);
    j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static const char *
list_path(cJSON *j, const char *list, int i)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(j, list), i), "path"));
}

static void
test_agent_work(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };
    char p[160], *diff;
    cJSON *j;

    after_agent(f, "one\nTWO\nthree\n");
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    assert_int_equal(s.added, 2);
    assert_int_equal(s.modified, 1);
    assert_int_equal(s.deleted, 1);
    assert_int_equal(s.mode_changed, 1);
    assert_int_equal(s.refused, 0);
    assert_int_equal(s.bytes, strlen("one\nTWO\nthree\n") + strlen("new\n"));
    assert_int_equal(strlen(s.diff_sha256), 64);
    j = load_json(f);
    assert_string_equal(list_path(j, "added", 0), "bin.dat");
    assert_string_equal(list_path(j, "added", 1), "n.txt");
    assert_string_equal(list_path(j, "modified", 0), "a.txt");
    assert_string_equal(list_path(j, "deleted", 0), "c.txt");
    assert_string_equal(list_path(j, "modeChanged", 0), "run.sh");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(j, "partial")));
    cJSON_Delete(j);
    snprintf(p, sizeof(p), "%s.diff", f->out);
    diff = slurp(p);
    assert_non_null(diff);
    assert_non_null(strstr(diff, "diff --git a/a.txt b/a.txt\nindex "));
    assert_non_null(strstr(diff, " 100644\n--- a/a.txt\n+++ b/a.txt\n"));
    assert_non_null(strstr(diff, "-two\n+TWO\n"));
    assert_non_null(strstr(diff, "diff --git a/n.txt b/n.txt\nnew file mode "
                                 "100644\n"));
    assert_non_null(strstr(diff, "+new\n"));
    assert_non_null(strstr(diff, "diff --git a/c.txt b/c.txt\ndeleted file "
                                 "mode 100644\n"));
    assert_non_null(strstr(diff, "-gone\n"));
    assert_non_null(strstr(diff, "diff --git a/run.sh b/run.sh\nold mode "
                                 "100644\nnew mode 100755\n"));
    assert_null(strstr(diff, ".git/HEAD"));
    assert_null(strstr(diff, "b.txt"));
    free(diff);
}

/* Each hostile entry refused by name, and the good change kept. */
static void
test_hostile_refused(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };
    char big[200];
    cJSON *j, *it;
    int seen = 0;

    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    o.max_file_bytes = 100;
    after_open(f);
    after_add(f, "work/a.txt", AE_IFREG, 0644, "one\ntwo\nthree\n");
    after_add(f, "work/b.txt", AE_IFREG, 0644, "keep\n");
    after_add(f, "work/c.txt", AE_IFREG, 0644, "gone\n");
    after_add(f, "work/d/", AE_IFDIR, 0755, "");
    after_add(f, "work/d/x", AE_IFREG, 0644, "x\n");
    after_add(f, "work/run.sh", AE_IFREG, 0644, "echo hi\n");
    after_add(f, "work/evil", AE_IFLNK, 0777, "/etc/passwd");
    after_add(f, "work/d/up", AE_IFLNK, 0777, "../../x");
    after_add(f, "work/d/in", AE_IFLNK, 0777, "../a.txt");
    after_hardlink(f, "work/h", "work/a.txt");
    after_add(f, "work/fifo", AE_IFIFO, 0644, "");
    after_add(f, "work/dev", AE_IFCHR, 0644, "");
    after_add(f, "work/../escape", AE_IFREG, 0644, "x");
    after_add(f, "work/big", AE_IFREG, 0644, big);
    after_add(f, "work/ok.txt", AE_IFREG, 0644, "fine\n");
    after_close(f);
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    assert_int_equal(s.refused, 7);
    assert_int_equal(s.added, 2); /* ok.txt and the in-tree link d/in */
    assert_int_equal(s.deleted, 0);
    j = load_json(f);
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "refused"))
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(it, "path"));
        const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(it, "reason"));

        assert_non_null(r);
        if (strcmp(p, "evil") == 0)
            seen |= 1, assert_non_null(strstr(r, "absolute"));
        if (strcmp(p, "d/up") == 0)
            seen |= 2, assert_non_null(strstr(r, "leaves the tree"));
        if (strcmp(p, "h") == 0)
            seen |= 4, assert_non_null(strstr(r, "hard link"));
        if (strcmp(p, "fifo") == 0)
            seen |= 8, assert_string_equal(r, "a FIFO");
        if (strcmp(p, "dev") == 0)
            seen |= 16, assert_string_equal(r, "a device");
        if (strcmp(p, "../escape") == 0)
            seen |= 32, assert_non_null(strstr(r, "\"..\""));
        if (strcmp(p, "big") == 0)
            seen |= 64, assert_non_null(strstr(r, "over the workspace's"));
    }
    assert_int_equal(seen, 127);
    assert_string_equal(list_path(j, "added", 0), "d/in");
    assert_string_equal(list_path(j, "added", 1), "ok.txt");
    cJSON_Delete(j);
}

static void
test_total_bound(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };

    o.max_total_bytes = 16; /* a.txt (14) fits, n.txt (4) does not */
    o.partial = true;
    after_agent(f, "one\nTWO\nthree\n");
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    assert_int_equal(s.modified, 1);
    assert_int_equal(s.refused, 1);
    assert_int_equal(s.added, 1); /* bin.dat: empty */
    cJSON *j = load_json(f);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "partial")));
    assert_string_equal(list_path(j, "refused", 0), "n.txt");
    cJSON_Delete(j);
}

static void
copy_base(struct fx *f, char *to, size_t size)
{
    char cmd[400];

    snprintf(to, size, "%s/checkout", f->dir);
    snprintf(cmd, sizeof(cmd), "cp -a %s %s", f->base, to);
    assert_int_equal(system(cmd), 0);
}

static void
test_apply_reproduces(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };
    char co[200], p[300], *t;
    struct stat st;

    after_agent(f, "one\nTWO\nthree\n");
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    copy_base(f, co, sizeof(co));
    assert_int_equal(rc_changes_apply(f->out, co, NULL, &e), 0);
    snprintf(p, sizeof(p), "%s/a.txt", co);
    t = slurp(p);
    assert_string_equal(t, "one\nTWO\nthree\n");
    free(t);
    snprintf(p, sizeof(p), "%s/n.txt", co);
    t = slurp(p);
    assert_string_equal(t, "new\n");
    free(t);
    snprintf(p, sizeof(p), "%s/c.txt", co);
    assert_int_equal(stat(p, &st), -1);
    snprintf(p, sizeof(p), "%s/run.sh", co);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    snprintf(p, sizeof(p), "%s/bin.dat", co);
    assert_int_equal(stat(p, &st), 0);
    /* a second apply: the base is gone, a conflict */
    assert_int_equal(rc_changes_apply(f->out, co, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
}

/* A checkout whose a.txt is not the base: nothing is changed. */
static void
test_apply_conflict_changes_nothing(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };
    char co[200], p[300], *t;
    struct stat st;

    after_agent(f, "one\nTWO\nthree\n");
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    copy_base(f, co, sizeof(co));
    put_file(co, "a.txt", "someone else's\n", 0644);
    assert_int_equal(rc_changes_apply(f->out, co, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "a.txt"));
    snprintf(p, sizeof(p), "%s/n.txt", co);
    assert_int_equal(stat(p, &st), -1);
    snprintf(p, sizeof(p), "%s/c.txt", co);
    t = slurp(p);
    assert_string_equal(t, "gone\n");
    free(t);
}

/* A symlink in the checkout is never followed: an added d/n.txt whose
 * d is a link elsewhere is a conflict. */
static void
test_apply_never_follows(void **state)
{
    struct fx *f = *state;
    struct rc_changes_opts o = opts(f);
    struct rc_changes_summary s;
    struct err e = { 0 };
    char co[200], p[300], cmd[800];

    after_open(f);
    after_add(f, "work/a.txt", AE_IFREG, 0644, "one\ntwo\nthree\n");
    after_add(f, "work/b.txt", AE_IFREG, 0644, "keep\n");
    after_add(f, "work/c.txt", AE_IFREG, 0644, "gone\n");
    after_add(f, "work/d/", AE_IFDIR, 0755, "");
    after_add(f, "work/d/n.txt", AE_IFREG, 0644, "planted\n");
    after_add(f, "work/d/x", AE_IFREG, 0644, "x\n");
    after_add(f, "work/run.sh", AE_IFREG, 0644, "echo hi\n");
    after_close(f);
    assert_int_equal(rc_changes_build(&o, &s, &e), 0);
    assert_int_equal(s.added, 1);
    copy_base(f, co, sizeof(co));
    snprintf(cmd, sizeof(cmd), "rm -rf %s/d && mkdir %s/elsewhere && ln -s "
             "../elsewhere %s/d", co, f->dir, co);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rc_changes_apply(f->out, co, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    snprintf(p, sizeof(p), "%s/elsewhere/n.txt", f->dir);
    assert_int_equal(access(p, F_OK), -1);
}

static void
test_path_rules(void **state)
{
    (void)state;
    assert_null(rc__changes_path_refusal("a/b.txt"));
    assert_non_null(rc__changes_path_refusal("/etc/passwd"));
    assert_non_null(rc__changes_path_refusal("a/../../b"));
    assert_non_null(rc__changes_path_refusal("a//b"));
    assert_non_null(rc__changes_path_refusal("a/"));
    assert_non_null(rc__changes_path_refusal("./a"));
    assert_null(rc__changes_link_refusal("a/l", "../b"));
    assert_non_null(rc__changes_link_refusal("a/l", "../../b"));
    assert_non_null(rc__changes_link_refusal("l", "x/../../b"));
    assert_non_null(rc__changes_link_refusal("l", "/b"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_agent_work, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_total_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_reproduces, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_apply_conflict_changes_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_never_follows, setup,
                                        teardown),
        cmocka_unit_test(test_path_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
