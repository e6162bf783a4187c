/* test_rc_workspace.c - the workspace checker, tar builder and digest on
 * real trees in a mkdtemp() directory: exact stats, every unsafe shape
 * refused with its path, limits exact, the tar read back with libarchive;
 * and the worker (rc_ws_job): its streamed archive and .git digest equal
 * the buffered ones, a tree changed mid-stream fails with ERR_CONFLICT.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "rc_workspace.h"
#include "rc_ws_job.h"

struct fx {
    char root[64];
};

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return -1;
    snprintf(f->root, sizeof(f->root), "/tmp/rc-ws-XXXXXX");
    if (mkdtemp(f->root) == NULL) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static const char *
at(const struct fx *f, const char *rel)
{
    static char p[4][600];
    static int i;

    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", f->root, rel);
    return p[i];
}

static void
mkd(const struct fx *f, const char *rel)
{
    assert_int_equal(mkdir(at(f, rel), 0755), 0);
}

static void
mkf(const struct fx *f, const char *rel, const char *content, mode_t mode)
{
    FILE *fp = fopen(at(f, rel), "wb");

    assert_non_null(fp);
    assert_int_equal(fwrite(content, 1, strlen(content), fp), strlen(content));
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(at(f, rel), mode), 0);
}

static void
mkl(const struct fx *f, const char *target, const char *rel)
{
    assert_int_equal(symlink(target, at(f, rel)), 0);
}

/* ws/: a.txt(5) dir/ dir/b.bin(100) dir/sub/ link->dir/b.bin
 * dir/up->../a.txt self->. */
static void
good_tree(const struct fx *f, const char *top)
{
    char rel[128], body[101];

    memset(body, 'b', 100);
    body[100] = '\0';
    mkd(f, top);
#define P(s) (snprintf(rel, sizeof(rel), "%s/%s", top, s), rel)
    mkf(f, P("a.txt"), "hello", 0644);
    mkd(f, P("dir"));
    mkf(f, P("dir/b.bin"), body, 0755);
    mkd(f, P("dir/sub"));
    mkl(f, "dir/b.bin", P("link"));
    mkl(f, "../a.txt", P("dir/up"));
    mkl(f, ".", P("self"));
#undef P
}

static void
test_rc_workspace_good_tree_exact_stats(void **state)
{
    struct fx *f = *state;
    struct rc_workspace_stats st;
    struct err e = { 0 };

    good_tree(f, "ws");
    assert_int_equal(
        rc_workspace_check(f->root, "ws", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    assert_int_equal(st.inodes, 8);
    assert_int_equal(st.files, 2);
    assert_int_equal(st.dirs, 3);
    assert_int_equal(st.symlinks, 3);
    assert_int_equal(st.bytes, 105 + 8 * RC_WS_ENTRY_BYTES);
    /* "./ws/" spells the same directory. */
    assert_int_equal(
        rc_workspace_check(f->root, "./ws/", UINT64_MAX, UINT64_MAX, &st, &e),
        0);
    assert_int_equal(st.inodes, 8);
}

/* Check ws and expect an UnsafeWorkspace error whose message holds want. */
static void
unsafe(const struct fx *f, const char *source, const char *want)
{
    struct rc_workspace_stats st = { 0 };
    struct err e = { 0 };

    assert_int_equal(
        rc_workspace_check(f->root, source, UINT64_MAX, UINT64_MAX, &st, &e),
        -1);
    if (strstr(e.msg, want) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
    assert_int_equal(e.code, ERR_INVALID);
    assert_string_equal(rc_workspace_reason_name(rc_workspace_reason(&e)),
                        "UnsafeWorkspace");
    assert_int_equal(st.inodes, 0); /* out untouched */
}

static void
test_rc_workspace_absolute_symlinks_refused(void **state)
{
    struct fx *f = *state;

    good_tree(f, "ws");
    mkd(f, "ws/lib");
    mkl(f, "/etc/passwd", "ws/lib/evil");
    unsafe(f, "ws", "symlink \"lib/evil\" is absolute (\"/etc/passwd\")");
    good_tree(f, "ws2");
    mkl(f, "/", "ws2/root");
    unsafe(f, "ws2", "symlink \"root\" is absolute (\"/\")");
    /* A name with a line break and a quote is escaped in the message. */
    good_tree(f, "ws3");
    mkl(f, "/x\"y", "ws3/a\nb");
    unsafe(f, "ws3", "symlink \"a\\x0ab\" is absolute (\"/x\\x22y\")");
}

static void
test_rc_workspace_escaping_symlinks_refused(void **state)
{
    struct fx *f = *state;

    good_tree(f, "ws");
    mkd(f, "ws/lib");
    mkl(f, "../../etc", "ws/lib/evil");
    unsafe(f, "ws",
           "symlink \"lib/evil\" points outside the workspace (\"../../etc\")");
    /* Dangling, but still outside. */
    good_tree(f, "ws2");
    mkl(f, "dir/../../nope", "ws2/d");
    unsafe(f, "ws2", "symlink \"d\" points outside the workspace");
}

static void
test_rc_workspace_symlink_chain_escape_refused(void **state)
{
    struct fx *f = *state;

    /* b -> . is the top itself; a -> b/.. reads as the top lexically but
     * is the top's parent once b is followed. */
    good_tree(f, "ws");
    mkl(f, ".", "ws/b");
    mkl(f, "b/..", "ws/a");
    unsafe(f, "ws", "symlink \"a\" points outside the workspace (\"b/..\")");
    /* Same through a deeper link: sub/up -> .. then e -> sub/up/.. */
    good_tree(f, "ws2");
    mkd(f, "ws2/sub");
    mkl(f, "..", "ws2/sub/up");
    mkl(f, "sub/up/../ws", "ws2/e");
    unsafe(f, "ws2", "symlink \"e\" points outside the workspace");
    /* Negative control: the same links used inside pass. */
    good_tree(f, "ws3");
    mkd(f, "ws3/sub");
    mkl(f, "..", "ws3/sub/up");
    mkl(f, "sub/up/a.txt", "ws3/e");
    mkl(f, "sub/up/dir/../dir/up", "ws3/g");
    struct rc_workspace_stats st;
    struct err e = { 0 };
    assert_int_equal(
        rc_workspace_check(f->root, "ws3", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    /* A loop is refused, not followed forever. */
    good_tree(f, "ws4");
    mkl(f, "l2", "ws4/l1");
    mkl(f, "l1", "ws4/l2");
    unsafe(f, "ws4", "does not resolve");
}

static void
test_rc_workspace_special_files_and_hard_links_refused(void **state)
{
    struct fx *f = *state;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int s;

    good_tree(f, "ws");
    assert_int_equal(mkfifo(at(f, "ws/dir/p"), 0644), 0);
    unsafe(f, "ws", "\"dir/p\" is a fifo");

    good_tree(f, "ws2");
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at(f, "ws2/sock"));
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
    close(s);
    unsafe(f, "ws2", "\"sock\" is a socket");

    good_tree(f, "ws3");
    assert_int_equal(link(at(f, "ws3/a.txt"), at(f, "ws3/dir/hard")), 0);
    unsafe(f, "ws3", "file \"a.txt\" has 2 hard links");
}

static void
test_rc_workspace_bad_sources_refused(void **state)
{
    struct fx *f = *state;

    good_tree(f, "ws");
    mkf(f, "file", "x", 0644);
    mkl(f, "ws", "wslink");
    unsafe(f, "../x", "leaves the workspace root");
    unsafe(f, "ws/../..", "leaves the workspace root");
    unsafe(f, "/etc", "must be a path relative to the workspace root");
    unsafe(f, "", "must be a path relative");
    unsafe(f, "wslink", "\"wslink\" is a symlink, not a directory");
    unsafe(f, "file", "is a file, not a directory");
    unsafe(f, "missing", "does not exist");
    /* A symlinked directory in the middle of the source too. */
    unsafe(f, "wslink/dir", "is a symlink");
}

static void
test_rc_workspace_limits_exact(void **state)
{
    struct fx *f = *state;
    struct rc_workspace_stats st;
    struct err e = { 0 };
    uint64_t bytes = 105 + 8 * RC_WS_ENTRY_BYTES;

    good_tree(f, "ws");
    assert_int_equal(rc_workspace_check(f->root, "ws", bytes, 8, &st, &e), 0);
    assert_int_equal(rc_workspace_check(f->root, "ws", bytes - 1, 8, &st, &e),
                     -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_non_null(strstr(e.msg, "larger than its limit"));
    assert_string_equal(rc_workspace_reason_name(rc_workspace_reason(&e)),
                        "WorkspaceTooLarge");
    assert_int_equal(rc_workspace_check(f->root, "ws", bytes, 7, &st, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_non_null(strstr(e.msg, "more than 7 inodes"));
    assert_int_equal(rc_workspace_check(f->root, "ws", bytes, 0, &st, &e), -1);
    assert_int_equal(e.code, ERR_LIMIT);
}

static void
test_rc_workspace_depth_capped(void **state)
{
    struct fx *f = *state;
    struct rc_workspace_stats st;
    struct err e = { 0 };
    char rel[700] = "deep";
    size_t n = 4;
    int i;

    mkd(f, rel);
    for (i = 0; i < RC_WS_MAX_DEPTH; i++) {
        n += (size_t)snprintf(rel + n, sizeof(rel) - n, "/d");
        mkd(f, rel);
    }
    assert_int_equal(
        rc_workspace_check(f->root, "deep", UINT64_MAX, UINT64_MAX, &st, &e),
        -1);
    assert_int_equal(e.code, ERR_LIMIT);
    assert_non_null(strstr(e.msg, "deeper than"));
}

struct tar_seen {
    char name[16][300];
    char link[16][300];
    mode_t mode[16];
    int64_t size[16], mtime[16];
    char data[16][128];
    int n;
};

static void
tar_list(const struct buf *b, struct tar_seen *s)
{
    struct archive *a = archive_read_new();
    struct archive_entry *ae;
    la_ssize_t r;

    memset(s, 0, sizeof(*s));
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, b->data, b->len), ARCHIVE_OK);
    while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
        int i = s->n++;
        const char *p = archive_entry_pathname(ae);
        assert_true(i < 16);
        assert_true(p[0] != '/');
        assert_null(strstr(p, ".."));
        snprintf(s->name[i], sizeof(s->name[i]), "%s", p);
        if (s->name[i][strlen(p) - 1] == '/')
            s->name[i][strlen(p) - 1] = '\0';
        assert_int_equal(archive_entry_uid(ae), 1000);
        assert_int_equal(archive_entry_gid(ae), 1001);
        assert_true(archive_entry_uname(ae) == NULL ||
                    archive_entry_uname(ae)[0] == '\0');
        assert_true(archive_entry_gname(ae) == NULL ||
                    archive_entry_gname(ae)[0] == '\0');
        s->mode[i] = archive_entry_mode(ae);
        s->size[i] = archive_entry_size(ae);
        s->mtime[i] = archive_entry_mtime(ae);
        if (archive_entry_symlink(ae) != NULL)
            snprintf(s->link[i], sizeof(s->link[i]), "%s",
                     archive_entry_symlink(ae));
        r = archive_read_data(a, s->data[i], sizeof(s->data[i]) - 1);
        assert_true(r >= 0);
    }
    archive_read_free(a);
}

static int
tar_find(const struct tar_seen *s, const char *name)
{
    int i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->name[i], name) == 0)
            return i;
    return -1;
}

static void
test_rc_workspace_tar_entries(void **state)
{
    struct fx *f = *state;
    struct rc_workspace_stats st;
    struct tar_seen s;
    struct stat sb;
    struct buf b;
    struct err e = { 0 };
    int i;

    good_tree(f, "ws");
    assert_int_equal(chmod(at(f, "ws/dir/b.bin"), 04755), 0);
    assert_int_equal(chmod(at(f, "ws/dir/sub"), 01777), 0);
    mkd(f, "ws/.git");
    mkf(f, "ws/.git/config", "[core]\n", 0644);
    mkf(f, "ws/x.git", "keep", 0600);
    assert_int_equal(
        rc_workspace_check(f->root, "ws", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    buf_init(&b, rc_workspace_tar_max(&st));
    assert_int_equal(
        rc_workspace_tar(f->root, "ws", 1000, 1001, ".git", &b, &e), 0);
    tar_list(&b, &s);
    assert_int_equal(s.n, 8); /* 7 entries of good_tree + x.git */
    assert_int_equal(tar_find(&s, ".git"), -1);
    assert_int_equal(tar_find(&s, ".git/config"), -1);
    i = tar_find(&s, "x.git");
    assert_true(i >= 0);
    assert_string_equal(s.data[i], "keep");
    assert_int_equal(s.mode[i], S_IFREG | 0600);
    i = tar_find(&s, "dir/b.bin");
    assert_true(i >= 0);
    assert_int_equal(s.mode[i], S_IFREG | 0755); /* setuid gone */
    assert_int_equal(s.size[i], 100);
    assert_int_equal(strlen(s.data[i]), 100);
    assert_int_equal(stat(at(f, "ws/dir/b.bin"), &sb), 0);
    assert_int_equal(s.mtime[i], sb.st_mtime);
    i = tar_find(&s, "dir/sub");
    assert_int_equal(s.mode[i], S_IFDIR | 0777); /* sticky gone */
    i = tar_find(&s, "link");
    assert_int_equal(s.mode[i] & S_IFMT, S_IFLNK);
    assert_string_equal(s.link[i], "dir/b.bin");
    i = tar_find(&s, "dir/up");
    assert_string_equal(s.link[i], "../a.txt");
    i = tar_find(&s, "a.txt");
    assert_string_equal(s.data[i], "hello");
    /* Parents come before children (pre-order). */
    assert_true(tar_find(&s, "dir") < tar_find(&s, "dir/sub"));
    buf_cleanup(&b);

    /* Without skip_top the .git is packed. */
    buf_init(&b, 1 << 20);
    assert_int_equal(rc_workspace_tar(f->root, "ws", 1000, 1001, NULL, &b, &e),
                     0);
    tar_list(&b, &s);
    assert_int_equal(s.n, 10);
    assert_true(tar_find(&s, ".git/config") >= 0);
    buf_cleanup(&b);
}

/* Names past ustar's 100 bytes and non-ASCII names need pax headers: they
 * must round-trip and still fit in rc_workspace_tar_max(). */
static void
test_rc_workspace_tar_long_and_utf8_names(void **state)
{
    struct fx *f = *state;
    struct rc_workspace_stats st;
    struct tar_seen s;
    struct buf b;
    struct err e = { 0 };
    char dir[200], file[400], target[300], rel[300];

    memset(dir, 'd', 120);
    dir[120] = '\0';
    mkd(f, "ws");
    snprintf(rel, sizeof(rel), "ws/%s", dir);
    mkd(f, rel);
    snprintf(file, sizeof(file), "ws/%s/%s", dir,
             "caf\xc3\xa9-with-a-name-that-is-long-enough-to-matter.txt");
    mkf(f, file, "x", 0644);
    snprintf(target, sizeof(target), "%s/%s", dir,
             "caf\xc3\xa9-with-a-name-that-is-long-enough-to-matter.txt");
    mkl(f, target, "ws/l\xc3\xaf");
    assert_int_equal(
        rc_workspace_check(f->root, "ws", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    assert_int_equal(st.inodes, 4);
    buf_init(&b, rc_workspace_tar_max(&st));
    assert_int_equal(rc_workspace_tar(f->root, "ws", 1000, 1001, NULL, &b, &e),
                     0);
    tar_list(&b, &s);
    assert_int_equal(s.n, 3);
    assert_true(tar_find(&s, dir) >= 0);
    assert_true(tar_find(&s, file + 3) >= 0);
    assert_string_equal(s.link[tar_find(&s, "l\xc3\xaf")], target);
    buf_cleanup(&b);
}

static void
test_rc_workspace_tar_refuses_unsafe_and_respects_cap(void **state)
{
    struct fx *f = *state;
    struct buf b;
    struct err e = { 0 };

    good_tree(f, "ws");
    buf_init(&b, 1024);
    assert_int_equal(rc_workspace_tar(f->root, "ws", 1000, 1000, NULL, &b, &e),
                     -1);
    assert_int_equal(e.code, ERR_LIMIT);
    buf_cleanup(&b);

    mkl(f, "/etc/shadow", "ws/dir/evil");
    buf_init(&b, 1 << 20);
    assert_int_equal(rc_workspace_tar(f->root, "ws", 1000, 1000, NULL, &b, &e),
                     -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_non_null(strstr(e.msg, "\"dir/evil\" is absolute"));
    buf_cleanup(&b);
}

static void
test_rc_workspace_digest_stable_and_sensitive(void **state)
{
    struct fx *f = *state;
    char d1[65], d2[65], d3[65];
    struct err e = { 0 };

    good_tree(f, "t1");
    good_tree(f, "t2");
    assert_int_equal(rc_workspace_digest(f->root, "t1", d1, &e), 0);
    assert_int_equal(rc_workspace_digest(f->root, "t2", d2, &e), 0);
    assert_int_equal(strlen(d1), 64);
    assert_string_equal(d1, d2);
    assert_int_equal(rc_workspace_digest(f->root, "t1", d3, &e), 0);
    assert_string_equal(d1, d3);

    mkf(f, "t2/a.txt", "hellp", 0644); /* one byte */
    assert_int_equal(rc_workspace_digest(f->root, "t2", d2, &e), 0);
    assert_string_not_equal(d1, d2);
    mkf(f, "t2/a.txt", "hello", 0644);
    assert_int_equal(rc_workspace_digest(f->root, "t2", d2, &e), 0);
    assert_string_equal(d1, d2);
    assert_int_equal(chmod(at(f, "t2/a.txt"), 0755), 0);
    assert_int_equal(rc_workspace_digest(f->root, "t2", d2, &e), 0);
    assert_string_not_equal(d1, d2);

    good_tree(f, "t3");
    assert_int_equal(unlink(at(f, "t3/link")), 0);
    mkl(f, "dir/b.bim", "t3/link");
    assert_int_equal(rc_workspace_digest(f->root, "t3", d3, &e), 0);
    assert_string_not_equal(d1, d3);
    /* The digest walk refuses what the check refuses. */
    mkl(f, "/", "t3/root");
    assert_int_equal(rc_workspace_digest(f->root, "t3", d3, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
}

/* --- the worker (rc_ws_job.h) ---------------------------------------- */

/* Read the job's fd to end-of-file into out (NULL: expect no byte). */
static void
job_drain(struct rc_ws_job *j, struct buf *out)
{
    struct pollfd pfd = { .fd = rc_ws_job_fd(j), .events = POLLIN };
    char chunk[65536];
    ssize_t n;

    for (;;) {
        n = read(pfd.fd, chunk, sizeof(chunk));
        if (n == 0)
            return;
        if (n == -1 && errno == EAGAIN) {
            assert_true(poll(&pfd, 1, 20000) == 1);
            continue;
        }
        assert_true(n > 0);
        assert_non_null(out);
        assert_int_equal(buf_append(out, chunk, (size_t)n, NULL), 0);
    }
}

/* Pack ws both ways: the streamed archive is the buffered one, byte for
 * byte, and the digest taken while streaming is the one read back. */
static void
stream_equals_buffered(const struct fx *f, const char *skip, const char *dtop)
{
    struct rc_ws_job_opts o = {
        .root = f->root, .source = "ws", .max_bytes = UINT64_MAX,
        .max_inodes = UINT64_MAX, .tar = true, .uid = 1000, .gid = 1001,
        .skip_top = skip, .digest_top = dtop,
    };
    struct rc_workspace_stats st, jst;
    char want[65], got[65];
    struct rc_ws_job *j;
    struct buf a, b;
    struct err e = { 0 };

    assert_int_equal(
        rc_workspace_check(f->root, "ws", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    buf_init(&a, rc_workspace_tar_max(&st));
    assert_int_equal(rc_workspace_tar(f->root, "ws", 1000, 1001, skip, &a, &e),
                     0);
    buf_init(&b, rc_workspace_tar_max(&st));
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    job_drain(j, &b);
    assert_true(rc_ws_job_done(j));
    assert_int_equal(rc_ws_job_result(j, &jst, got, &e), 0);
    assert_int_equal(jst.inodes, st.inodes);
    assert_int_equal(jst.bytes, st.bytes);
    assert_int_equal(b.len, a.len);
    assert_memory_equal(a.data, b.data, a.len);
    if (dtop != NULL) {
        assert_int_equal(rc_workspace_tar_digest(a.data, a.len, dtop, want, &e),
                         0);
        assert_string_equal(got, want);
    } else {
        assert_string_equal(got, "");
    }
    rc_ws_job_free(j);
    buf_cleanup(&a);
    buf_cleanup(&b);
}

/* A file bigger than the socket's buffer, so the worker blocks in it. */
static void
big_file(const struct fx *f, const char *rel, size_t size)
{
    FILE *fp = fopen(at(f, rel), "wb");
    char block[4096];

    assert_non_null(fp);
    for (size_t i = 0; i < sizeof(block); i++)
        block[i] = (char)(i * 31 + 7);
    for (size_t n = 0; n < size; n += sizeof(block))
        assert_int_equal(fwrite(block, 1, sizeof(block), fp), sizeof(block));
    assert_int_equal(fclose(fp), 0);
}

static void
test_rc_ws_job_stream_equals_buffered(void **state)
{
    struct fx *f = *state;
    char rel[300], dir[130];

    good_tree(f, "ws");
    mkd(f, "ws/.git");
    mkd(f, "ws/.git/objects");
    mkf(f, "ws/.git/HEAD", "ref: refs/heads/main\n", 0644);
    mkf(f, "ws/.git/objects/ab", "blob", 0444);
    mkl(f, "HEAD", "ws/.git/head-link");
    memset(dir, 'd', 120);
    dir[120] = '\0';
    snprintf(rel, sizeof(rel), "ws/.git/%s", dir);
    mkd(f, rel);
    snprintf(rel, sizeof(rel), "ws/.git/%s/caf\xc3\xa9", dir);
    mkf(f, rel, "x", 0600);
    /* past the socket's buffer: the worker waits for the reader */
    big_file(f, "ws/big.bin", 3u << 20);
    big_file(f, "ws/.git/pack", 1u << 20);
    stream_equals_buffered(f, NULL, ".git");
    stream_equals_buffered(f, ".git", NULL);
    stream_equals_buffered(f, NULL, NULL);
}

static void
test_rc_ws_job_check_only(void **state)
{
    struct fx *f = *state;
    struct rc_ws_job_opts o = {
        .root = f->root, .source = "ws", .max_bytes = UINT64_MAX,
        .max_inodes = UINT64_MAX,
    };
    struct rc_workspace_stats st, jst;
    struct rc_ws_job *j;
    struct err e = { 0 };

    good_tree(f, "ws");
    assert_int_equal(
        rc_workspace_check(f->root, "ws", UINT64_MAX, UINT64_MAX, &st, &e), 0);
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    job_drain(j, NULL);
    assert_int_equal(rc_ws_job_result(j, &jst, NULL, &e), 0);
    assert_memory_equal(&jst, &st, sizeof(st));
    rc_ws_job_free(j);

    o.max_inodes = 3; /* WorkspaceTooLarge */
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    job_drain(j, NULL);
    assert_int_equal(rc_ws_job_result(j, NULL, NULL, &e), -1);
    assert_int_equal(rc_workspace_reason(&e), RC_WS_TOO_LARGE);
    rc_ws_job_free(j);

    mkl(f, "/etc/passwd", "ws/evil"); /* UnsafeWorkspace, also as a tar */
    o.max_inodes = UINT64_MAX;
    o.tar = true;
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    job_drain(j, NULL); /* the check fails before any byte */
    assert_int_equal(rc_ws_job_result(j, NULL, NULL, &e), -1);
    assert_int_equal(rc_workspace_reason(&e), RC_WS_UNSAFE);
    assert_non_null(strstr(e.msg, "\"evil\" is absolute"));
    rc_ws_job_free(j);
}

/* The first byte on the socket means the worker is inside a.bin (its
 * first entry's data fills libarchive's first block), opened and checked;
 * the socket's buffer holds far less than the file, so it is still there
 * when the file grows: the stream ends with ERR_CONFLICT. */
static void
test_rc_ws_job_changed_during_stream(void **state)
{
    struct fx *f = *state;
    struct rc_ws_job_opts o = {
        .root = f->root, .source = "ws", .max_bytes = UINT64_MAX,
        .max_inodes = UINT64_MAX, .tar = true, .uid = 1000, .gid = 1000,
    };
    struct pollfd pfd = { .events = POLLIN };
    struct rc_ws_job *j;
    struct buf b;
    struct err e = { 0 };
    FILE *fp;

    mkd(f, "ws");
    big_file(f, "ws/a.bin", 8u << 20);
    mkf(f, "ws/b.txt", "after", 0644);
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    pfd.fd = rc_ws_job_fd(j);
    assert_int_equal(poll(&pfd, 1, 20000), 1);
    fp = fopen(at(f, "ws/a.bin"), "ab");
    assert_non_null(fp);
    assert_int_equal(fputs("more", fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
    buf_init(&b, 16u << 20);
    job_drain(j, &b);
    assert_true(b.len < (8u << 20) + 4096); /* never ended the archive */
    assert_int_equal(rc_ws_job_result(j, NULL, NULL, &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "\"a.bin\" changed"));
    assert_int_equal(rc_workspace_reason(&e), RC_WS_ERROR); /* retried */
    rc_ws_job_free(j);
    buf_cleanup(&b);
}

/* Freed mid-stream: the worker is told, stops at its next write and
 * frees what it holds (valgrind sees no leak once it ended). */
static void
test_rc_ws_job_free_while_running(void **state)
{
    struct fx *f = *state;
    struct rc_ws_job_opts o = {
        .root = f->root, .source = "ws", .max_bytes = UINT64_MAX,
        .max_inodes = UINT64_MAX, .tar = true,
    };
    struct pollfd pfd = { .events = POLLIN };
    struct rc_ws_job *j;
    struct err e = { 0 };

    mkd(f, "ws");
    big_file(f, "ws/a.bin", 8u << 20);
    j = rc_ws_job_start(&o, &e);
    assert_non_null(j);
    pfd.fd = rc_ws_job_fd(j);
    assert_int_equal(poll(&pfd, 1, 20000), 1);
    assert_false(rc_ws_job_done(j));
    rc_ws_job_free(j);
    usleep(300000); /* not an assertion: lets the orphan end before exit */
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int
main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_rc_workspace_good_tree_exact_stats),
        T(test_rc_workspace_absolute_symlinks_refused),
        T(test_rc_workspace_escaping_symlinks_refused),
        T(test_rc_workspace_symlink_chain_escape_refused),
        T(test_rc_workspace_special_files_and_hard_links_refused),
        T(test_rc_workspace_bad_sources_refused),
        T(test_rc_workspace_limits_exact),
        T(test_rc_workspace_depth_capped),
        T(test_rc_workspace_tar_entries),
        T(test_rc_workspace_tar_long_and_utf8_names),
        T(test_rc_workspace_tar_refuses_unsafe_and_respects_cap),
        T(test_rc_workspace_digest_stable_and_sensitive),
        T(test_rc_ws_job_stream_equals_buffered),
        T(test_rc_ws_job_check_only),
        T(test_rc_ws_job_changed_during_stream),
        T(test_rc_ws_job_free_while_running),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
