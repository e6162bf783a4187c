/* test_launch_order.c - agent-launch's wait mode (images/launch_order.c,
 * launch_wait.c): an order is accepted only whole, with the create-time
 * nonce, and every refusal says which member is wrong; the nonce check
 * bites and, off (the test hook's NULL), lets the same forged order by
 * (the negative control); the wait sees an order written after it began,
 * times out without one, and reads neither a link nor a FIFO; as a uid
 * that is not root it waits through dockerd's window between the close
 * and the chown of a 0400 order (the window shown real: the agent's uid
 * cannot open it then), and refuses one that stays unreadable. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "launch_order.h"

#define NONCE  "0123456789abcdef0123456789abcdef"
#define FORGED "fedcba9876543210fedcba9876543210"

static const char *
order_text(const char *nonce)
{
    static char t[512];

    snprintf(t, sizeof(t),
             "{\"version\": 1, \"nonce\": \"%s\", \"argv\": [\"claude\", "
             "\"-p\", \"hi\"], \"env\": [\"HOME=/tmp\", \"A=b=c\"], "
             "\"workdir\": \"/work\", \"policy\": \"landlock required\\n\"}",
             nonce);
    return t;
}

/* The refusal of text, which must contain want. */
static void
refused(const char *text, const char *nonce, const char *want)
{
    struct launch_order o;
    char why[256] = "";

    assert_int_equal(launch_order_parse(text, strlen(text), nonce, &o, why,
                                        sizeof(why)),
                     -1);
    if (strstr(why, want) == NULL)
        fail_msg("refusal \"%s\" lacks \"%s\" for %s", why, want, text);
    assert_null(o.tree);
}

static void
test_accepts_whole_order(void **state)
{
    const char *t = order_text(NONCE);
    struct launch_order o;
    char why[256];

    (void)state;
    assert_int_equal(launch_order_parse(t, strlen(t), NONCE, &o, why,
                                        sizeof(why)), 0);
    assert_int_equal(o.argc, 3);
    assert_string_equal(o.argv[0], "claude");
    assert_string_equal(o.argv[2], "hi");
    assert_null(o.argv[3]);
    assert_int_equal(o.n_env, 2);
    assert_string_equal(o.env[1], "A=b=c");
    assert_null(o.env[2]);
    assert_string_equal(o.workdir, "/work");
    assert_int_equal(o.policy_len, strlen("landlock required\n"));
    assert_memory_equal(o.policy, "landlock required\n", o.policy_len);
    launch_order_cleanup(&o);
}

/* The protection and its negative control side by side: the same forged
 * order is refused with the nonce and obeyed without the check. */
static void
test_forged_nonce(void **state)
{
    const char *t = order_text(FORGED);
    struct launch_order o;
    char why[256];

    (void)state;
    refused(t, NONCE, "nonce: not the one this container was created with");
    refused(order_text(NONCE "0"), NONCE, "nonce: not the one");
    refused(order_text("0123456789abcdef"), NONCE, "nonce: not the one");
    assert_int_equal(launch_order_parse(t, strlen(t), NULL, &o, why,
                                        sizeof(why)), 0);
    launch_order_cleanup(&o);
}

static void
test_refusals(void **state)
{
    char big[LAUNCH_ORDER_MAX + 2];

    (void)state;
    refused("", NONCE, "order: not JSON");
    refused("[1]", NONCE, "order: expected an object");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"/\",\"user\":\"0\"}",
            NONCE, "user: unknown member");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"argv\":[\"y\"],\"env\":[],\"workdir\":\"/\"}",
            NONCE, "argv: given twice");
    refused("{\"version\":2,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "version: expected 1");
    refused("{\"version\":1.0,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "version: expected 1");
    refused("{\"version\":1,\"argv\":[\"x\"],\"env\":[],\"workdir\":\"/\"}",
            NONCE, "nonce: expected a string");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "argv: the CLI's name");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"\"],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "argv: the CLI's name");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"a\\u0000b\"],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "argv[0]: expected a string");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":\"x\","
            "\"env\":[],\"workdir\":\"/\"}", NONCE, "argv: expected an array");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[\"NOEQUALS\"],\"workdir\":\"/\"}", NONCE,
            "env[0]: expected NAME=value");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[\"=v\"],\"workdir\":\"/\"}", NONCE,
            "env[0]: expected NAME=value");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[\"A=1\",\"B=2\",\"A=3\"],\"workdir\":\"/\"}", NONCE,
            "env[2]: A given twice");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"work\"}", NONCE,
            "workdir: expected an absolute path");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[]}", NONCE, "workdir: expected an absolute path");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"/\"}", NONCE,
            "policy: expected the policy file's text");
    refused("{\"version\":1,\"nonce\":\"" NONCE "\",\"argv\":[\"x\"],"
            "\"env\":[],\"workdir\":\"/\",\"policy\":\"a\\u0000\"}", NONCE,
            "policy: expected the policy file's text");
    memset(big, ' ', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    refused(big, NONCE, "order: larger than 64 KiB");
}

static void
test_too_many_words(void **state)
{
    char t[4096];
    size_t n;

    (void)state;
    n = (size_t)snprintf(t, sizeof(t), "{\"version\":1,\"nonce\":\"%s\","
                         "\"env\":[],\"workdir\":\"/\",\"argv\":[", NONCE);
    for (int i = 0; i <= LAUNCH_MAX_ARGS; i++)
        n += (size_t)snprintf(t + n, sizeof(t) - n, "%s\"w\"", i ? "," : "");
    snprintf(t + n, sizeof(t) - n, "]}");
    refused(t, NONCE, "argv: more than 64 words");
}

static void
test_nonce_shape(void **state)
{
    (void)state;
    assert_true(launch_order_nonce_ok(NONCE));
    assert_false(launch_order_nonce_ok(NULL));
    assert_false(launch_order_nonce_ok("0123456789abcdef")); /* too short */
    assert_false(launch_order_nonce_ok("0123456789ABCDEF0123456789abcdef"));
    assert_false(launch_order_nonce_ok("0123456789abcdef0123456789abcdeg"));
}

/* ---- the wait ------------------------------------------------------------ */

/* One directory for the whole group, made before the first wait test
 * and removed, with the files the tests leave, after the last. */
static char dir[64] = "/tmp/test-launch-order-XXXXXX";
static const char *const leftovers[] = { "order.json", "other.json",
                                         "real.json", "link.json",
                                         "fifo.json", "owned.json" };

static int
group_setup(void **state)
{
    (void)state;
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
    char path[128];

    (void)state;
    for (size_t i = 0; i < sizeof(leftovers) / sizeof(leftovers[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, leftovers[i]);
        unlink(path);
    }
    return rmdir(dir);
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void
test_wait_sees_late_order(void **state)
{
    char path[128], why[256], *text = NULL;
    size_t len = 0;
    pid_t child;
    int st;

    (void)state;
    snprintf(path, sizeof(path), "%s/order.json", dir);
    child = fork();
    assert_true(child != -1);
    if (child == 0) {
        usleep(200 * 1000);
        write_file(path, "{\"late\": true}");
        _exit(0);
    }
    assert_int_equal(launch_wait_order(path, 10, &text, &len, why,
                                       sizeof(why)), 0);
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_int_equal(len, strlen("{\"late\": true}"));
    assert_memory_equal(text, "{\"late\": true}", len);
    free(text);
}

static void
test_wait_times_out(void **state)
{
    char path[128], why[256], *text = NULL;
    size_t len = 0;

    (void)state;
    snprintf(path, sizeof(path), "%s/none.json", dir);
    /* another file in the directory is not the order */
    write_file(strcat(strcpy(why, dir), "/other.json"), "{}");
    assert_int_equal(launch_wait_order(path, 1, &text, &len, why,
                                       sizeof(why)), 1);
    assert_null(text);
}

static void
test_wait_refuses_link_and_fifo(void **state)
{
    char path[128], target[128], why[256], *text = NULL;
    size_t len = 0;

    (void)state;
    snprintf(target, sizeof(target), "%s/real.json", dir);
    write_file(target, "{}");
    snprintf(path, sizeof(path), "%s/link.json", dir);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(launch_wait_order(path, 1, &text, &len, why,
                                       sizeof(why)), -1);
    assert_non_null(strstr(why, "Too many levels"));
    snprintf(path, sizeof(path), "%s/fifo.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(launch_wait_order(path, 1, &text, &len, why,
                                       sizeof(why)), -1);
    assert_non_null(strstr(why, "not a regular file"));
    assert_int_equal(launch_wait_order("relative.json", 1, &text, &len, why,
                                       sizeof(why)), -1);
    assert_non_null(strstr(why, "expected an absolute file path"));
}

/* What dockerd does with the controller's upload: the 0400 file made and
 * closed by root, and only then given to the agent's uid. A launcher
 * that is not root waits through the window instead of refusing. */
#define AGENT_UID 65534

/* A child running as AGENT_UID (0 in it, its pid in the parent). */
static pid_t
fork_as_agent(void)
{
    pid_t child = fork();

    assert_true(child != -1);
    if (child == 0 && (setgid(AGENT_UID) == -1 || setuid(AGENT_UID) == -1))
        _exit(3);
    return child;
}

/* The child's exit code, once it ended. */
static int
agent_exit(pid_t child)
{
    int st;

    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static bool
agent_can_open(const char *path)
{
    pid_t child = fork_as_agent();

    if (child == 0)
        _exit(open(path, O_RDONLY) == -1 ? 1 : 0);
    return agent_exit(child) == 0;
}

static void
test_wait_outlasts_the_chown(void **state)
{
    char path[128], why[256], *text = NULL;
    const char order[] = "{\"chowned\": true}";
    size_t len = 0;
    pid_t child;
    int fd;

    (void)state;
    if (geteuid() != 0)
        skip(); /* it plays dockerd: root makes the file */
    snprintf(path, sizeof(path), "%s/owned.json", dir);
    assert_int_equal(chmod(dir, 0755), 0);
    if ((child = fork_as_agent()) == 0) { /* the launcher */
        if (launch_wait_order(path, 10, &text, &len, why, sizeof(why)) != 0) {
            fprintf(stderr, "wait: %s\n", why);
            _exit(1);
        }
        _exit(len == strlen(order) && memcmp(text, order, len) == 0 ? 0 : 2);
    }
    usleep(100 * 1000);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0400);
    assert_true(fd != -1);
    assert_int_equal(write(fd, order, strlen(order)), (ssize_t)strlen(order));
    assert_int_equal(close(fd), 0);
    /* control: the window is real, the agent cannot open it yet */
    assert_false(agent_can_open(path));
    usleep(300 * 1000);
    assert_int_equal(chown(path, AGENT_UID, AGENT_UID), 0);
    assert_int_equal(agent_exit(child), 0);
}

/* An order that stays unreadable is refused at the deadline, naming why
 * (not "no order"). */
static void
test_wait_refuses_what_stays_unreadable(void **state)
{
    char path[128];
    pid_t child;

    (void)state;
    if (geteuid() != 0)
        skip();
    snprintf(path, sizeof(path), "%s/owned.json", dir);
    assert_int_equal(chown(path, 0, 0), 0); /* root's for good */
    if ((child = fork_as_agent()) == 0) {
        char why[256], *text = NULL;
        size_t len = 0;
        int rc = launch_wait_order(path, 1, &text, &len, why, sizeof(why));

        _exit(rc == -1 && strstr(why, "Permission denied") != NULL ? 0 : 1);
    }
    assert_int_equal(agent_exit(child), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_whole_order),
        cmocka_unit_test(test_forged_nonce),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_too_many_words),
        cmocka_unit_test(test_nonce_shape),
        cmocka_unit_test(test_wait_sees_late_order),
        cmocka_unit_test(test_wait_times_out),
        cmocka_unit_test(test_wait_refuses_link_and_fifo),
        cmocka_unit_test(test_wait_outlasts_the_chown),
        cmocka_unit_test(test_wait_refuses_what_stays_unreadable),
    };

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
