/* test_rc_git_digest.c - the git metadata digest (hostio/rc_tar_digest.c)
 * and the adapter's config archive (rc_adapter_tar.c).
 *
 * The digest of a tree's .git taken three ways must agree: from the
 * directory (rc_workspace_digest), from the archive the controller uploads
 * (rc_workspace_tar_digest over rc_workspace_tar), and from that archive
 * with Docker's naming (".git/..." entries, the top directory included).
 * Negative controls: one byte changed, one mode changed, one file renamed,
 * one added: each changes the digest; a file outside .git does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "rc_adapter.h"
#include "rc_workspace.h"

struct tree {
    char root[64];
};

static void
put(const char *root, const char *rel, const char *text, mode_t mode)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void
dir(const char *root, const char *rel)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

static int
setup(void **state)
{
    struct tree *t = calloc(1, sizeof(*t));

    snprintf(t->root, sizeof(t->root), "/tmp/agentctl-gitd-XXXXXX");
    assert_non_null(mkdtemp(t->root));
    dir(t->root, "src");
    dir(t->root, "src/.git");
    dir(t->root, "src/.git/refs");
    dir(t->root, "src/.git/refs/heads");
    dir(t->root, "src/.git/objects");
    dir(t->root, "src/.git/objects-x"); /* sorts after objects/ only by component */
    put(t->root, "src/.git/HEAD", "ref: refs/heads/main\n", 0644);
    put(t->root, "src/.git/config", "[core]\n\tbare = false\n", 0644);
    put(t->root, "src/.git/refs/heads/main", "0123abcd\n", 0644);
    put(t->root, "src/.git/objects/ab", "blob", 0444);
    put(t->root, "src/.git/objects-x/z", "z", 0644);
    put(t->root, "src/app.py", "print('hi')\n", 0644);
    *state = t;
    return 0;
}

static int
teardown(void **state)
{
    struct tree *t = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
    assert_int_equal(system(cmd), 0);
    free(t);
    return 0;
}

/* Digest of src/.git from the upload archive. */
static void
upload_digest(const struct tree *t, char out[65])
{
    struct buf tar;
    struct err e = { 0 };

    buf_init(&tar, 1 << 20);
    if (rc_workspace_tar(t->root, "src", 1000, 1000, NULL, &tar, &e) != 0)
        fail_msg("tar: %s", e.msg);
    if (rc_workspace_tar_digest(tar.data, tar.len, ".git", out, &e) != 0)
        fail_msg("digest: %s", e.msg);
    buf_cleanup(&tar);
}

static void
test_three_ways_agree(void **state)
{
    struct tree *t = *state;
    char from_dir[65], from_tar[65], from_docker[65];
    struct buf tar;
    struct err e = { 0 };

    assert_int_equal(rc_workspace_digest(t->root, "src/.git", from_dir, &e), 0);
    upload_digest(t, from_tar);
    assert_string_equal(from_dir, from_tar);
    /* Docker's archive of /work/.git: entries ".git/", ".git/HEAD", ... */
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_workspace_tar(t->root, "src", 0, 0, "app.py", &tar, &e),
                     0);
    assert_int_equal(
        rc_workspace_tar_digest(tar.data, tar.len, ".git", from_docker, &e), 0);
    assert_string_equal(from_docker, from_tar); /* owners do not count */
    buf_cleanup(&tar);
}

static void
test_changes_change_it(void **state)
{
    struct tree *t = *state;
    char base[65], now[65];
    char a[512], b[512];

    upload_digest(t, base);
    /* outside .git: no change */
    put(t->root, "src/app.py", "print('changed')\n", 0644);
    upload_digest(t, now);
    assert_string_equal(base, now);
    /* one byte */
    put(t->root, "src/.git/HEAD", "ref: refs/heads/mainX\n", 0644);
    upload_digest(t, now);
    assert_string_not_equal(base, now);
    put(t->root, "src/.git/HEAD", "ref: refs/heads/main\n", 0644);
    upload_digest(t, now);
    assert_string_equal(base, now);
    /* a mode (a hook made executable) */
    put(t->root, "src/.git/config", "[core]\n\tbare = false\n", 0755);
    upload_digest(t, now);
    assert_string_not_equal(base, now);
    put(t->root, "src/.git/config", "[core]\n\tbare = false\n", 0644);
    /* a rename */
    snprintf(a, sizeof(a), "%s/src/.git/refs/heads/main", t->root);
    snprintf(b, sizeof(b), "%s/src/.git/refs/heads/evil", t->root);
    assert_int_equal(rename(a, b), 0);
    upload_digest(t, now);
    assert_string_not_equal(base, now);
    assert_int_equal(rename(b, a), 0);
    /* an added hook */
    dir(t->root, "src/.git/hooks");
    put(t->root, "src/.git/hooks/post-checkout", "#!/bin/sh\n", 0755);
    upload_digest(t, now);
    assert_string_not_equal(base, now);
}

static void
test_broken_archive_refused(void **state)
{
    char out[65];
    struct err e = { 0 };
    char junk[1024];

    (void)state;
    memset(junk, 'x', sizeof(junk));
    assert_int_equal(
        rc_workspace_tar_digest(junk, sizeof(junk), ".git", out, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
}

static void
test_config_tar(void **state)
{
    struct rc_adapter_file files[] = {
        { "/etc/agentctl/agent/claude/settings.json", "{\"a\":1}", 0444 },
        { "/etc/agentctl/agent/claude/mcp.json", "{}", 0444 },
    };
    struct rc_adapter_out o = { .files = files, .n_files = 2 };
    struct archive *a = archive_read_new();
    struct archive_entry *en;
    struct buf tar;
    struct err e = { 0 };
    const char *want[] = { "claude/", "claude/settings.json",
                           "claude/mcp.json", "bin/", "bin/agent-launch" };
    static const char launcher[] = "\x7f" "ELF-launcher";
    size_t n = 0;
    char data[32];

    (void)state;
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_adapter_files_tar(&o, "/etc/agentctl/agent", launcher,
                                          sizeof(launcher) - 1, &tar, &e),
                     0);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, tar.data, tar.len), ARCHIVE_OK);
    while (archive_read_next_header(a, &en) == ARCHIVE_OK) {
        assert_true(n < 5);
        assert_string_equal(archive_entry_pathname(en), want[n]);
        assert_int_equal(archive_entry_uid(en), 0);
        if (n == 1) {
            assert_int_equal(archive_entry_perm(en), 0444);
            memset(data, 0, sizeof(data));
            assert_int_equal(archive_read_data(a, data, sizeof(data)), 7);
            assert_string_equal(data, "{\"a\":1}");
        }
        if (n == 4) { /* the launcher: executable, its bytes as given */
            assert_int_equal(archive_entry_perm(en), 0555);
            memset(data, 0, sizeof(data));
            assert_int_equal(archive_read_data(a, data, sizeof(data)),
                             sizeof(launcher) - 1);
            assert_memory_equal(data, launcher, sizeof(launcher) - 1);
        }
        n++;
    }
    assert_int_equal(n, 5);
    archive_read_free(a);
    buf_cleanup(&tar);
    /* a file outside the directory is refused, not written elsewhere */
    files[1].path = "/etc/passwd";
    buf_init(&tar, 1 << 20);
    assert_int_equal(rc_adapter_files_tar(&o, "/etc/agentctl/agent", NULL, 0,
                                          &tar, &e),
                     -1);
    assert_int_equal(e.code, ERR_INVALID);
    buf_cleanup(&tar);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_three_ways_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changes_change_it, setup,
                                        teardown),
        cmocka_unit_test(test_broken_archive_refused),
        cmocka_unit_test(test_config_tar),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
