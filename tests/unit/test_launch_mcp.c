/* test_launch_mcp.c - agent-launch's runner tool: the strict JSON reader
 * and string writer (images/launch_json.c), the MCP stdio dialogue
 * (launch_mcp.c) fed from a file, and the runner service
 * (launch_runner.c) for real: listening on a socket in a temporary
 * directory, in a forked child that plays the launcher's parent with a
 * second child as the CLI. The runner argv of these tests goes through
 * /bin/sh for brevity; the product runs the policy's argv as given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "launch_json.h"
#include "launch_wire.h"

/* ---- JSON ---- */

static int
parses(const char *text)
{
    const char *why = NULL;
    struct launch_json *v = launch_json_parse(text, strlen(text), &why);

    if (!v) {
        assert_non_null(why);
        return -1;
    }
    launch_json_free(v);
    return 0;
}

static void
test_json_accepts(void **state)
{
    static const char *const ok[] = {
        "{}", "[]", "0", "-0.5e+10", "\"\"", "true", "false", "null",
        "{\"a\":[1,2,{\"b\":false}],\"c\":\"\\u00e9\\ud83d\\ude00\\n\"}",
        " { \"k\" : \"v\" } \r\n", "\"caf\xc3\xa9\"", "[1e5,2E-3,0.0]",
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\"", "\"\xf4\x8f\xbf\xbf\"",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_int_equal(parses(ok[i]), 0);
}

static void
test_json_refuses(void **state)
{
    static const char *const bad[] = {
        "",           "{",          "{\"a\":1,}",   "[1,]",
        "01",         "1.",         ".5",           "+1",
        "{'a':1}",    "{a:1}",      "\"\\x41\"",    "\"\\ud800\"",
        "\"\\udc00\"", "\"\xff\"",  "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
        "\"a\nb\"",   "{} {}",      "[1 2]",        "NaN",
        "tru",        "{\"a\" 1}",  "\"\\u12\"",    "/*c*/{}",
        "\"\\ud800\\u0041\"", "\"\xf4\x90\x80\x80\"", "\"\xe0\x80\xaf\"",
        "\"abc",      "\"\xc3\"",   "-",            "1e",
        "[\"\\ud800\"]", "{\"\xff\":1}", "\"\\",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (parses(bad[i]) != -1)
            fail_msg("accepted: %s", bad[i]);
    }
}

static void
test_json_depth(void **state)
{
    char deep[2 * (LAUNCH_JSON_DEPTH + 1) + 1];

    (void)state;
    memset(deep, '[', LAUNCH_JSON_DEPTH);
    memset(deep + LAUNCH_JSON_DEPTH, ']', LAUNCH_JSON_DEPTH);
    deep[2 * LAUNCH_JSON_DEPTH] = '\0';
    assert_int_equal(parses(deep), 0);
    memset(deep, '[', LAUNCH_JSON_DEPTH + 1);
    memset(deep + LAUNCH_JSON_DEPTH + 1, ']', LAUNCH_JSON_DEPTH + 1);
    deep[2 * (LAUNCH_JSON_DEPTH + 1)] = '\0';
    assert_int_equal(parses(deep), -1);
}

static void
test_json_tree(void **state)
{
    static const char text[] =
        "{\"id\": \"a\\u0062\" , \"n\":-1.5e3,\"s\":\"\\ud83d\\ude00\\u00e9"
        "\\u0000x\",\"o\":{\"k\":[true,null]},\"id\":2}";
    const char *why = NULL;
    struct launch_json *v = launch_json_parse(text, strlen(text), &why);
    const struct launch_json *m;

    (void)state;
    assert_non_null(v);
    m = launch_json_get(v, "id"); /* the first of two */
    assert_true(launch_json_is_string(m, "ab"));
    assert_int_equal(m->raw_len, 9);
    assert_memory_equal(m->raw, "\"a\\u0062\"", 9);
    m = launch_json_get(v, "n");
    assert_int_equal(m->type, LAUNCH_JSON_NUMBER);
    assert_int_equal(m->raw_len, 6);
    m = launch_json_get(v, "s");
    assert_int_equal(m->str_len, 8);
    assert_memory_equal(m->str, "\xf0\x9f\x98\x80\xc3\xa9\0x", 8);
    m = launch_json_get(launch_json_get(v, "o"), "k");
    assert_int_equal(m->type, LAUNCH_JSON_ARRAY);
    assert_int_equal(m->child->type, LAUNCH_JSON_TRUE);
    assert_int_equal(m->child->next->type, LAUNCH_JSON_NULL);
    assert_null(m->child->next->next);
    assert_null(launch_json_get(v, "missing"));
    assert_null(launch_json_get(m, "k")); /* not an object */
    launch_json_free(v);
}

static void
test_json_put_string(void **state)
{
    static const char in[] = "a\"b\\c\n\t\x01\x1f caf\xc3\xa9 \xff\xc3 "
                             "\xed\xa0\x80 \xf0\x9f\x98\x80";
    static const char want[] = "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f caf\xc3\xa9 "
                               "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf"
                               "\xbd\xef\xbf\xbd \xf0\x9f\x98\x80\"";
    struct launch_buf b;

    (void)state;
    launch_buf_init(&b, 1024);
    launch_json_put_string(&b, in, sizeof(in) - 1);
    assert_false(b.failed);
    assert_string_equal(b.p, want);
    assert_int_equal(parses(b.p), 0); /* strict JSON whatever the bytes */
    launch_buf_cleanup(&b);
    launch_buf_init(&b, 4); /* the cap holds */
    launch_json_put_string(&b, "abcdef", 6);
    assert_true(b.failed);
    launch_buf_cleanup(&b);
}

/* ---- MCP dialogue ---- */

/* Feed input to the MCP server; its whole output, malloc'd. */
static char *
mcp(const char *input, size_t len, const char *sock)
{
    int in = memfd_create("in", MFD_CLOEXEC);
    int out = memfd_create("out", MFD_CLOEXEC);
    struct stat st;
    char *text;

    assert_true(in >= 0 && out >= 0);
    assert_int_equal(write(in, input, len), (ssize_t)len);
    assert_int_equal(lseek(in, 0, SEEK_SET), 0);
    assert_int_equal(launch_mcp_serve(in, out, sock), 0);
    assert_int_equal(fstat(out, &st), 0);
    text = calloc(1, (size_t)st.st_size + 1);
    assert_non_null(text);
    assert_int_equal(pread(out, text, (size_t)st.st_size, 0), st.st_size);
    close(in);
    close(out);
    return text;
}

static void
expect_mcp(const char *input, const char *sock, const char *want)
{
    char *got = mcp(input, strlen(input), sock);

    assert_string_equal(got, want);
    free(got);
}

#define INIT_REPLY(id, v)                                                     \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"result\":{\"protocolVersion\":\""  \
    v "\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":"         \
    "\"agentctl\",\"version\":\"1\"}}}\n"

static void
test_mcp_handshake(void **state)
{
    (void)state;
    expect_mcp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
               "\"params\":{\"protocolVersion\":\"2024-11-05\","
               "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\"}}}\n"
               "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
               "initialized\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"method\":\"ping\"}\r\n"
               "\n"
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\","
               "\"params\":{\"protocolVersion\":\"1999-01-01\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":-3.5e0,\"method\":\"tools/list\"}",
               "/nonexistent",
               INIT_REPLY("1", "2024-11-05")
               "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{}}\n"
               INIT_REPLY("2", "2025-06-18")
               "{\"jsonrpc\":\"2.0\",\"id\":-3.5e0,\"result\":{\"tools\":[{"
               "\"name\":\"run\",\"description\":\"Run the runner command "
               "this task approved (the exact command, in /work). Takes no "
               "arguments; returns its exit code and output.\","
               "\"inputSchema\":{\"type\":\"object\",\"properties\":{},"
               "\"additionalProperties\":false}}]}}\n");
}

static void
test_mcp_errors(void **state)
{
    (void)state;
    expect_mcp("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\"}\n"
               "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"rm\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"run\",\"arguments\":{\"cmd\":\"x\"}}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\"}\n"
               "{\"jsonrpc\":\"1.0\",\"id\":12,\"method\":\"ping\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n"
               "[{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}]\n"
               "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\",}\n",
               "/nonexistent",
               "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,"
               "\"message\":\"Method not found\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"There is one tool, \\\"run\\\", "
               "and it takes no arguments.\"}],\"isError\":true}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"There is one tool, \\\"run\\\", "
               "and it takes no arguments.\"}],\"isError\":true}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":11,\"error\":{\"code\":-32602,"
               "\"message\":\"Invalid params: tools/call needs a \\\"name\\\""
               "\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":12,\"error\":{\"code\":-32600,"
               "\"message\":\"Invalid Request: a JSON-RPC 2.0 request needs "
               "\\\"jsonrpc\\\":\\\"2.0\\\" and a \\\"method\\\" string\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
               "\"message\":\"Invalid Request: id must be a string or a "
               "number\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
               "\"message\":\"Invalid Request: one JSON-RPC object a line "
               "(no batches)\"}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
               "\"message\":\"Parse error: member name expected\"}}\n");
}

static void
test_mcp_oversized_line(void **state)
{
    static const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
                               "\"method\":\"ping\"}\n";
    size_t big = (1u << 20) * 2 + 17, len = 0;
    char *in = malloc(big + 2 * sizeof(ping));
    char *out;

    (void)state;
    assert_non_null(in);
    memcpy(in, ping, sizeof(ping) - 1);
    len += sizeof(ping) - 1;
    memset(in + len, ' ', big); /* 2 MiB of a line, valid JSON padding */
    len += big;
    in[len++] = '\n';
    memcpy(in + len, ping, sizeof(ping) - 1);
    len += sizeof(ping) - 1;
    out = mcp(in, len, "/nonexistent");
    assert_string_equal(out,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
        "\"message\":\"Invalid Request: line longer than 1 MiB\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    free(out);
    free(in);
}

static void
test_mcp_no_service(void **state)
{
    static const char in[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                             "\"tools/call\",\"params\":{\"name\":\"run\","
                             "\"arguments\":{}}}\n";
    char *out;

    (void)state;
    out = mcp(in, sizeof(in) - 1, "/nonexistent/r.sock");
    assert_non_null(strstr(out, "\"isError\":true"));
    assert_non_null(strstr(out, "The runner service at /nonexistent/r.sock "
                                "did not answer: cannot connect to it: No "
                                "such file or directory."));
    free(out);
}

/* ---- the runner service ---- */

struct svc {
    char dir[64], sock[128], home[128];
    struct launch_policy p;
    pid_t pid; /* the forked launcher parent */
};

/* For the next svc_start: a runner-unset name, and a runner-home (in the
 * service's directory) when home is set. */
static char *svc_unset;
static bool svc_home;

/* Start a service for argv; the CLI child exits cli_exit after cli_ms, or
 * waits for a signal when cli_ms is 0. */
static void
svc_start(struct svc *v, char *const *argv, unsigned timeout, size_t max,
          int cli_ms, int cli_exit)
{
    int lfd;

    memset(v, 0, sizeof(*v));
    strcpy(v->dir, "/tmp/test_launch_mcp.XXXXXX");
    assert_non_null(mkdtemp(v->dir));
    snprintf(v->sock, sizeof(v->sock), "%s/runner.sock", v->dir);
    for (size_t i = 0; argv[i]; i++)
        v->p.runner[v->p.n_runner++] = argv[i];
    v->p.runner_dir = v->dir;
    if (svc_unset != NULL)
        v->p.runner_unset[v->p.n_runner_unset++] = svc_unset;
    if (svc_home) {
        snprintf(v->home, sizeof(v->home), "%s/home", v->dir);
        v->p.runner_home = v->home;
    }
    svc_unset = NULL;
    svc_home = false;
    v->p.runner_timeout = timeout;
    v->p.runner_max_bytes = max;
    v->p.runner_socket = v->sock;
    lfd = launch_runner_listen(&v->p);
    assert_true(lfd >= 0);
    v->pid = fork();
    assert_true(v->pid >= 0);
    if (v->pid == 0) {
        pid_t cli;

        /* a failed assertion must not leave the service behind */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        cli = fork();
        if (cli == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(lfd);
            if (cli_ms == 0)
                for (;;)
                    pause();
            usleep((useconds_t)cli_ms * 1000);
            _exit(cli_exit);
        }
        _exit(launch_runner_serve(&v->p, lfd, cli));
    }
    close(lfd);
}

/* Stop it (SIGTERM, forwarded to the CLI); the launcher's exit code. */
static int
svc_stop(struct svc *v, bool term)
{
    int st;

    if (term)
        assert_int_equal(kill(v->pid, SIGTERM), 0);
    assert_int_equal(waitpid(v->pid, &st, 0), v->pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(access(v->sock, F_OK), -1); /* unlinked */
    assert_int_equal(rmdir(v->dir), 0);
    return WEXITSTATUS(st);
}

/* One exchange on the socket: send req, end our side, read to EOF. */
static size_t
wire(const char *sock, const char *req, size_t req_len, char *out, size_t cap)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    size_t len = 0;
    ssize_t n;

    strcpy(sa.sun_path, sock);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(write(fd, req, req_len), (ssize_t)req_len);
    shutdown(fd, SHUT_WR);
    while (len < cap - 1 && (n = read(fd, out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(fd);
    return len;
}

static const char call_run[] =
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
    "\"params\":{\"name\":\"run\"}}\n";

static void
test_runner_exit_and_output(void **state)
{
    char *argv[] = { "/bin/sh", "-c", "echo hi; exit 3", NULL };
    struct svc v;
    char out[256];
    struct stat st;

    (void)state;
    svc_start(&v, argv, 10, 1000, 0, 0);
    assert_int_equal(stat(v.sock, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    assert_string_equal(out, "exit=3 signal=0 timeout=0 truncated=0 bytes=3"
                             "\nhi\n");
    expect_mcp(call_run, v.sock,
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"exit code 3\\nhi\\n\"}],"
               "\"isError\":true}}\n");
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

/* A run that leaves a process behind, even out of its group (setsid):
 * the reply comes when the run ends, not at the time limit, and what it
 * left is killed (the service is a child subreaper). */
static void
test_runner_leftovers_killed(void **state)
{
    char script[512], pidfile[300], out[256];
    char *argv[] = { "/bin/sh", "-c", script, NULL };
    struct svc v;
    time_t t0;
    long bg = 0;
    FILE *f;

    (void)state;
    /* (before the fork: the service runs its own copy of argv) */
    snprintf(pidfile, sizeof(pidfile), "/tmp/test-launch-bg.%d", (int)getpid());
    snprintf(script, sizeof(script),
             "setsid sleep 60 </dev/null & echo $! >%s; echo started",
             pidfile);
    svc_start(&v, argv, 20, 1000, 0, 0);
    t0 = time(NULL);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    assert_true(time(NULL) - t0 < 10); /* not the 20 s limit */
    assert_string_equal(out, "exit=0 signal=0 timeout=0 truncated=0 bytes=8"
                             "\nstarted\n");
    f = fopen(pidfile, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld", &bg), 1);
    fclose(f);
    unlink(pidfile);
    assert_int_equal(kill((pid_t)bg, 0), -1); /* gone */
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

/* The runner's environment: HOME and the XDG directories in runner-home
 * (made by the service, empty), the runner-unset variable gone, the rest
 * inherited. */
static void
test_runner_home_and_unset(void **state)
{
    char *argv[] = { "/bin/sh", "-c",
                     "echo \"$HOME|$XDG_CONFIG_HOME|${LAUNCH_TEST_KEY-unset}|"
                     "$LAUNCH_TEST_ENV\"; ls -A \"$HOME\" | wc -l", NULL };
    struct svc v;
    char out[512], want[512];

    (void)state;
    setenv("LAUNCH_TEST_KEY", "the-key", 1);
    setenv("LAUNCH_TEST_ENV", "inherited", 1);
    svc_unset = "LAUNCH_TEST_KEY";
    svc_home = true;
    svc_start(&v, argv, 10, 1000, 0, 0);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    snprintf(want, sizeof(want), "%s|%s|unset|inherited\n0\n", v.home,
             v.home);
    assert_non_null(strstr(out, want));
    unsetenv("LAUNCH_TEST_KEY");
    assert_int_equal(rmdir(v.home), 0); /* made by the service, left empty */
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

/* An output that starts with blank lines (sort -u of a list with an empty
 * entry does) is the output, not part of the header. */
static void
test_runner_output_starting_blank(void **state)
{
    char *argv[] = { "/bin/sh", "-c", "printf '\\n\\nx'", NULL };
    struct svc v;

    (void)state;
    svc_start(&v, argv, 10, 1000, 0, 0);
    expect_mcp(call_run, v.sock,
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"exit code 0\\n\\n\\nx\"}],"
               "\"isError\":false}}\n");
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_path_dir_env_fds(void **state)
{
    /* found on PATH; in runner-dir; the environment as inherited; stdin
     * /dev/null; stderr with stdout; no fd of the launcher's */
    char *argv[] = { "sh", "-c", "pwd; echo \"$LAUNCH_TEST_ENV\" >&2; "
                                 "readlink /proc/self/fd/0; "
                                 "ls /proc/self/fd | tr '\\n' ' '", NULL };
    struct svc v;
    char out[512], want[512];

    (void)state;
    setenv("LAUNCH_TEST_ENV", "inherited", 1);
    svc_start(&v, argv, 10, 1000, 0, 0);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    snprintf(want, sizeof(want), "%s\ninherited\n/dev/null\n0 1 2 3 ", v.dir);
    assert_non_null(strstr(out, "exit=0 signal=0 timeout=0 truncated=0 "));
    assert_string_equal(strchr(out, '\n') + 1, want);
    unsetenv("LAUNCH_TEST_ENV");
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_timeout(void **state)
{
    char *argv[] = { "sleep", "5", NULL };
    struct svc v;
    char out[256];
    struct timespec t0, t1;

    (void)state;
    svc_start(&v, argv, 1, 1000, 0, 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_string_equal(out, "exit=137 signal=9 timeout=1 truncated=0 "
                             "bytes=0\n");
    assert_true(t1.tv_sec - t0.tv_sec < 3);
    expect_mcp(call_run, v.sock,
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"exit code 137; timed out after "
               "the runner's time limit\\n\"}],\"isError\":true}}\n");
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_truncated_and_bad_utf8(void **state)
{
    char *argv[] = { "/bin/sh", "-c", "printf 'ok\\377'; "
                     "head -c 100000 /dev/zero", NULL };
    struct svc v;
    char out[256];

    (void)state;
    svc_start(&v, argv, 10, 5, 0, 0);
    assert_int_equal(wire(v.sock, "RUN\n", 4, out, sizeof(out)), 46 + 5);
    assert_memory_equal(out, "exit=0 signal=0 timeout=0 truncated=1 bytes=5"
                             "\nok\377\0\0", 46 + 5);
    expect_mcp(call_run, v.sock,
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{"
               "\"type\":\"text\",\"text\":\"exit code 0; output truncated "
               "to its first 5 bytes\\nok\xef\xbf\xbd\\u0000\\u0000\"}],"
               "\"isError\":false}}\n");
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_not_found(void **state)
{
    char *argv[] = { "no-such-runner-here", NULL };
    struct svc v;
    char out[512];

    (void)state;
    svc_start(&v, argv, 10, 1000, 0, 0);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    assert_non_null(strstr(out, "exit=127 signal=0 timeout=0 truncated=0 "));
    assert_non_null(strstr(out, "\nagent-launch: runner no-such-runner-here:"
                                " No such file or directory (check "
                                "runner-arg in the policy and PATH)\n"));
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_bad_and_silent_clients(void **state)
{
    char *argv[] = { "/bin/echo", "again", NULL };
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct svc v;
    char out[256];
    int silent;

    (void)state;
    svc_start(&v, argv, 10, 1000, 0, 0);
    wire(v.sock, "HELLO\n", 6, out, sizeof(out));
    assert_string_equal(out, "error the only request is RUN\n");
    wire(v.sock, "RUN RUN RUN RUN RUN\n", 20, out, sizeof(out));
    assert_string_equal(out, "error the only request is RUN\n");
    wire(v.sock, "RUN", 3, out, sizeof(out)); /* EOF before the newline */
    assert_string_equal(out, "");
    /* a client that says nothing holds the service for the deadline only */
    silent = socket(AF_UNIX, SOCK_STREAM, 0);
    strcpy(sa.sun_path, v.sock);
    assert_int_equal(connect(silent, (struct sockaddr *)&sa, sizeof(sa)), 0);
    wire(v.sock, "RUN\n", 4, out, sizeof(out));
    assert_string_equal(out, "exit=0 signal=0 timeout=0 truncated=0 bytes=6"
                             "\nagain\n");
    assert_int_equal(read(silent, out, sizeof(out)), 0); /* dropped */
    close(silent);
    assert_int_equal(svc_stop(&v, true), 128 + SIGTERM);
}

static void
test_runner_cli_exit_code(void **state)
{
    char *argv[] = { "/bin/true", NULL };
    struct svc v;

    (void)state;
    svc_start(&v, argv, 10, 1000, 50, 7);
    assert_int_equal(svc_stop(&v, false), 7);
}

static void
test_runner_listen_refuses(void **state)
{
    char dir[] = "/tmp/test_launch_mcp.XXXXXX", path[128];
    struct launch_policy p = { .runner_socket = path };
    int fd;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/file", dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    assert_int_equal(launch_runner_listen(&p), -1); /* not a socket */
    assert_int_equal(access(path, F_OK), 0);        /* and left alone */
    unlink(path);
    snprintf(path, sizeof(path), "%s/sock", dir);
    fd = launch_runner_listen(&p);
    assert_true(fd >= 0);
    close(fd);
    fd = launch_runner_listen(&p); /* a stale socket is replaced */
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    p.runner_socket = "";
    assert_int_equal(launch_runner_listen(&p), -1);
    assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_accepts),
        cmocka_unit_test(test_json_refuses),
        cmocka_unit_test(test_json_depth),
        cmocka_unit_test(test_json_tree),
        cmocka_unit_test(test_json_put_string),
        cmocka_unit_test(test_mcp_handshake),
        cmocka_unit_test(test_mcp_errors),
        cmocka_unit_test(test_mcp_oversized_line),
        cmocka_unit_test(test_mcp_no_service),
        cmocka_unit_test(test_runner_exit_and_output),
        cmocka_unit_test(test_runner_path_dir_env_fds),
        cmocka_unit_test(test_runner_timeout),
        cmocka_unit_test(test_runner_truncated_and_bad_utf8),
        cmocka_unit_test(test_runner_output_starting_blank),
        cmocka_unit_test(test_runner_leftovers_killed),
        cmocka_unit_test(test_runner_home_and_unset),
        cmocka_unit_test(test_runner_not_found),
        cmocka_unit_test(test_runner_bad_and_silent_clients),
        cmocka_unit_test(test_runner_cli_exit_code),
        cmocka_unit_test(test_runner_listen_refuses),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
