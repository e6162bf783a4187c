/* test_launch_confine.c - agent-launch's policy file
 * (images/launch_policy.c) and its confinement (launch_landlock.c,
 * launch_seccomp.c), for real: each confinement test forks a child that
 * confines itself the way the launcher does and reports what it could
 * still do, so the test process stays free. Every refusal has its
 * allowed twin in the same child (the rule bites, and only where it
 * should). Under valgrind, which does not know the Landlock calls, the
 * kernel looks Landlock-less and those tests are skipped with a note. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

static char dir[64];

/* On a tmpfs of its own (/dev/shm), as the box's writable volumes are:
 * the launcher refuses to make a file executable on a filesystem the
 * domain may write, and the root filesystem holds /bin. */
static int
setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/dev/shm/test-launch-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The policy text in a file of dir; its path (static buffer). */
static const char *
policy_file(const char *text)
{
    static char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/policy", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Read text as the policy into p, dropping what p held. */
static int
read_text(const char *text, struct launch_policy *p)
{
    launch_policy_cleanup(p);
    return launch_policy_read(policy_file(text), p);
}

/* ---- the policy file ---- */

static void
test_policy_reads_every_directive(void **state)
{
    static struct launch_policy p;

    (void)state;
    assert_int_equal(read_text("# comment\n"
                               "landlock optional\n"
                               "exec /usr/bin/x\n"
                               "exec-sibling helper\n"
                               "write /tmp\n"
                               "write /dev/null\n"
                               "connect 3128\n"
                               "connect 8080\n"
                               "runner-arg make\n"
                               "runner-arg test it\n"
                               "runner-dir /work\n"
                               "runner-timeout 600\n"
                               "runner-max-bytes 1048576\n"
                               "runner-socket /dev/shm/s.sock\n",
                               &p),
                     0);
    assert_false(p.landlock_required);
    assert_int_equal(p.n_exec, 1);
    assert_string_equal(p.exec[0], "/usr/bin/x");
    assert_int_equal(p.n_exec_sibling, 1);
    assert_string_equal(p.exec_sibling[0], "helper");
    assert_int_equal(p.n_write, 2);
    assert_int_equal(p.n_connect, 2);
    assert_int_equal(p.connect[1], 8080);
    assert_int_equal(p.n_runner, 2);
    assert_string_equal(p.runner[1], "test it"); /* the rest of the line */
    assert_null(p.runner[2]);
    assert_string_equal(p.runner_dir, "/work");
    assert_int_equal(p.runner_timeout, 600);
    assert_int_equal(p.runner_max_bytes, 1048576);
    assert_string_equal(p.runner_socket, "/dev/shm/s.sock");
    /* no landlock line: required */
    assert_int_equal(read_text("write /tmp\n", &p), 0);
    assert_true(p.landlock_required);
    launch_policy_cleanup(&p);
}

static void
test_policy_refuses_what_it_cannot_apply(void **state)
{
    static const char *const bad[] = {
        "bogus /x\n",                     /* unknown directive */
        "write\n",                        /* no value */
        "write tmp\n",                    /* relative path */
        "exec ./x\n",
        "exec-sibling ../x\n",            /* a sibling is a file name */
        "exec-sibling a/b\n",
        "landlock maybe\n",
        "connect 0\n",
        "connect 65536\n",
        "connect 80x\n",
        "runner-arg make\n",              /* a runner without its bounds */
        /* a runner whose time limit is 0 */
        "runner-arg make\nrunner-dir /work\nrunner-timeout 0\nrunner-max-bytes 1\nrunner-socket /s\n",
        "runner-timeout -1\n",
    };
    static struct launch_policy p;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (read_text(bad[i], &p) != -1)
            fail_msg("accepted: %s", bad[i]);
}

static void
test_policy_refuses_too_many_entries(void **state)
{
    static struct launch_policy p;
    char text[4096] = "";

    (void)state;
    for (int i = 0; i <= LAUNCH_MAX_PATHS; i++)
        strcat(text, "write /tmp\n");
    assert_int_equal(read_text(text, &p), -1);
    text[0] = '\0';
    for (int i = 0; i <= LAUNCH_MAX_PORTS; i++)
        strcat(text, "connect 1\n");
    assert_int_equal(read_text(text, &p), -1);
    assert_null(p.text); /* nothing held after a refusal */
}

/* Not a regular file, or too big: refused without blocking. */
static void
test_policy_file_kinds(void **state)
{
    static struct launch_policy p;
    char path[128];
    FILE *f;

    (void)state;
    assert_int_equal(launch_policy_read(dir, &p), -1); /* a directory */
    snprintf(path, sizeof(path), "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(launch_policy_read(path, &p), -1); /* never blocks */
    snprintf(path, sizeof(path), "%s/missing", dir);
    assert_int_equal(launch_policy_read(path, &p), -1);
    snprintf(path, sizeof(path), "%s/big", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 70000; i++)
        fputc('#', f);
    fclose(f);
    assert_int_equal(launch_policy_read(path, &p), -1);
}

/* ---- confinement, in a child ---- */

/* errno of an exec of path (0: it ran and exited 0). */
static int
try_exec(const char *path)
{
    int st, p[2], err = 0;
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) == -1)
        return errno;
    pid = fork();
    if (pid == 0) {
        char *argv[] = { (char *)path, NULL };
        int e;

        execv(path, argv);
        e = errno;
        (void)!write(p[1], &e, sizeof(e));
        _exit(127);
    }
    close(p[1]);
    if (read(p[0], &err, sizeof(err)) != sizeof(err))
        err = 0;
    close(p[0]);
    waitpid(pid, &st, 0);
    return err;
}

static int
try_create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    if (fd == -1)
        return errno;
    close(fd);
    return 0;
}

static int
try_connect(unsigned short port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons(port) };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err = 0;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
        err = errno;
    close(fd);
    return err;
}

/* Run fn in a child; its exit code is the index of the first failed
 * expectation (0: all held). */
static void
in_child(int (*fn)(void))
{
    int st;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    assert_true(pid != -1);
    if (pid == 0)
        _exit(fn());
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) != 0)
        fail_msg("expectation %d failed in the confined child",
                 WEXITSTATUS(st));
}

static int
confined_fs(void)
{
    static struct launch_policy p;
    char w[128], other[128], text[512];

    snprintf(w, sizeof(w), "%s/w", dir);
    if (mkdir(w, 0700) == -1)
        return 1;
    snprintf(text, sizeof(text),
             "write %s\nwrite /dev/null\nexec-sibling true\nconnect 9\n", w);
    if (read_text(text, &p) == -1)
        return 2;
    /* /bin/sh's own directory holds true as well (/usr/bin on Debian) */
    if (launch_landlock_apply(&p, "/bin/sh") == -1)
        return 3;
    snprintf(w, sizeof(w), "%s/w/file", dir);
    snprintf(other, sizeof(other), "%s/other", dir);
    if (try_create(w) != 0)
        return 4; /* the allowed tree */
    if (try_create(other) != EACCES)
        return 5; /* beside it */
    if (try_create("/dev/null") != 0)
        return 6;
    if (try_exec("/bin/true") != 0)
        return 7; /* the sibling */
    if (try_exec("/bin/ls") != EACCES)
        return 8; /* anything else */
    if (unlink(w) != 0)
        return 9; /* removal inside the tree */
    return 0;
}

/* A CLI the domain could rewrite in place is not made executable: the
 * whole ruleset is refused. */
static int
exec_on_writable_fs(void)
{
    static struct launch_policy p;
    char text[256];

    snprintf(text, sizeof(text), "write %s\n", dir);
    if (read_text(text, &p) == -1)
        return 1;
    snprintf(text, sizeof(text), "%s/cli", dir);
    if (try_create(text) != 0 || chmod(text, 0755) != 0)
        return 2;
    if (launch_landlock_apply(&p, text) != -1)
        return 3;
    return 0;
}

static int
confined_net(void)
{
    static struct launch_policy p;

    if (read_text("connect 9\n", &p) == -1)
        return 1;
    if (launch_landlock_apply(&p, "/bin/sh") == -1)
        return 2;
    if (launch_landlock_abi() < 4)
        return 0; /* no network rules on this kernel */
    if (try_connect(1) != EACCES)
        return 3;
    if (try_connect(9) == EACCES)
        return 4; /* the allowed port: refused by nobody, or ECONNREFUSED */
    return 0;
}

static int
confined_seccomp(void)
{
    char params[256] = { 0 };

    if (launch_seccomp_apply() == -1)
        return 1;
    if (syscall(SYS_io_uring_setup, 1, params) != -1 || errno != EPERM)
        return 2;
    if (syscall(SYS_keyctl, 0, 0, 0, 0, 0) != -1 || errno != EPERM)
        return 3;
    if (syscall(SYS_bpf, 0, params, 128) != -1 || errno != EPERM)
        return 4;
    if (getpid() <= 0)
        return 5; /* everything else passes */
    return 0;
}

static bool
landlock_here(void)
{
    if (launch_landlock_abi() > 0)
        return true;
    print_message("no Landlock here (valgrind does not know its calls, or "
                  "the kernel has none): skipped\n");
    return false;
}

static void
test_landlock_writes_and_exec(void **state)
{
    (void)state;
    if (landlock_here())
        in_child(confined_fs);
    else
        skip();
}

static void
test_landlock_no_exec_on_writable_fs(void **state)
{
    (void)state;
    if (landlock_here())
        in_child(exec_on_writable_fs);
    else
        skip();
}

static void
test_landlock_tcp_connect(void **state)
{
    (void)state;
    if (landlock_here())
        in_child(confined_net);
    else
        skip();
}

static void
test_seccomp_filter(void **state)
{
    (void)state;
    in_child(confined_seccomp);
}

/* Required on a kernel without Landlock: refused; optional: runs. */
static int
no_landlock_policy(void)
{
    static struct launch_policy p;

    if (read_text("landlock optional\n", &p) == -1)
        return 1;
    return launch_landlock_abi() > 0 || launch_landlock_apply(&p, "/bin/sh") == 0
               ? 0
               : 2;
}

static void
test_optional_landlock(void **state)
{
    (void)state;
    in_child(no_landlock_policy);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_reads_every_directive),
        cmocka_unit_test(test_policy_refuses_what_it_cannot_apply),
        cmocka_unit_test(test_policy_refuses_too_many_entries),
        cmocka_unit_test(test_policy_file_kinds),
        cmocka_unit_test(test_landlock_writes_and_exec),
        cmocka_unit_test(test_landlock_no_exec_on_writable_fs),
        cmocka_unit_test(test_landlock_tcp_connect),
        cmocka_unit_test(test_seccomp_filter),
        cmocka_unit_test(test_optional_landlock),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
