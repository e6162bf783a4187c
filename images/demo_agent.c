/* demo_agent.c - the demo "AI agent" of the README and the tests.
 *
 * It reports the box it runs in (uid/gid, capabilities, which paths are
 * writable, its phase, whether a credential was handed in) and then talks
 * to its "vendor" the way a real agent must: through the HTTPS_PROXY with a
 * CONNECT, never directly and never with DNS (the proxy address is an IP).
 *
 * This is a demo: once the tunnel is up it sends plain HTTP, because the
 * test vendor is a busybox httpd speaking HTTP on port 443. A real agent
 * would start TLS there.
 *
 * Exit codes: 0 done (or the --exit value), 2 bad usage or proxy URL,
 * 3 the proxy answered the CONNECT with a non-200 status, 4 the proxy or
 * the vendor could not be reached or did not answer in time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEMO_STEP_MS        5000 /* every network step, connect included */
#define DEMO_MAX_REPLY_HEAD 4096 /* CONNECT reply header block */
#define DEMO_MAX_RESPONSE   (64 * 1024) /* whole vendor response */
#define DEMO_DEFAULT_TARGET "vendor.test:443"

enum demo_exit {
    DEMO_EXIT_OK = 0,
    DEMO_EXIT_USAGE = 2,   /* bad flag or unusable HTTPS_PROXY */
    DEMO_EXIT_REFUSED = 3, /* the proxy said no to the CONNECT */
    DEMO_EXIT_NET = 4,     /* proxy or vendor unreachable or silent */
};

struct demo_opts {
    const char *target; /* host:port for the CONNECT */
    int write_work;     /* try to write /work/demo.txt */
    int bad_utf8;       /* print invalid UTF-8 */
    long print_bytes;   /* print this many 'x' bytes; 0 = off */
    long sleep_s;       /* sleep this long before exiting */
    int exit_code;      /* exit code when everything worked */
};

static const char demo_usage[] =
    "usage: demo-agent [TARGET] [--write-work] [--print N] [--bad-utf8]\n"
    "                  [--sleep S] [--exit N]\n"
    "  TARGET        host:port to CONNECT to (default: $DEMO_TARGET "
    "or " DEMO_DEFAULT_TARGET ")\n"
    "  --write-work  try to write /work/demo.txt and report\n"
    "  --print N     print N bytes of 'x', then a newline\n"
    "  --bad-utf8    print a line of invalid UTF-8\n"
    "  --sleep S     sleep S seconds before exiting\n"
    "  --exit N      exit with N when nothing failed\n"
    "env: HTTPS_PROXY/https_proxy=http://IP:PORT, AGENT_PHASE,\n"
    "     DEMO_CREDENTIAL_ENV (name of the credential variable to report)\n";

/* Parse a whole decimal number in [min, max]; -1 on anything else. */
static int
demo_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Take the value of a flag that needs one; -1 when it is missing or bad. */
static int
demo_flag_value(int argc, char **argv, int *i, long max, long *out)
{
    if (*i + 1 >= argc || demo_parse_long(argv[*i + 1], 0, max, out) == -1) {
        fprintf(stderr, "demo-agent: %s needs a number from 0 to %ld\n",
                argv[*i], max);
        return -1;
    }
    (*i)++;
    return 0;
}

static int
demo_parse_args(int argc, char **argv, struct demo_opts *o)
{
    long v;
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--write-work") == 0) {
            o->write_work = 1;
        } else if (strcmp(a, "--bad-utf8") == 0) {
            o->bad_utf8 = 1;
        } else if (strcmp(a, "--print") == 0) {
            if (demo_flag_value(argc, argv, &i, 1L << 30, &o->print_bytes))
                return -1;
        } else if (strcmp(a, "--sleep") == 0) {
            if (demo_flag_value(argc, argv, &i, 86400, &o->sleep_s))
                return -1;
        } else if (strcmp(a, "--exit") == 0) {
            if (demo_flag_value(argc, argv, &i, 255, &v))
                return -1;
            o->exit_code = (int)v;
        } else if (a[0] != '-' && o->target == NULL) {
            o->target = a;
        } else {
            fprintf(stderr, "demo-agent: unknown argument %s\n%s", a,
                    demo_usage);
            return -1;
        }
    }
    return 0;
}

/* Print the value of the /proc/self/status fields named in keys[]. */
static void
demo_report_status(const char *const keys[], const char *const names[],
                   size_t n)
{
    char line[256];
    FILE *f;
    size_t i, len;

    f = fopen("/proc/self/status", "r");
    if (f == NULL) {
        printf("status: unreadable (%s)\n", strerror(errno));
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        for (i = 0; i < n; i++) {
            len = strlen(keys[i]);
            if (strncmp(line, keys[i], len) == 0 && line[len] == ':')
                printf("%s: %s", names[i],
                       line + len + 1 + strspn(line + len + 1, " \t"));
        }
    }
    fclose(f);
}

/* Report whether a new file can be created in dir; removes the probe. */
static void
demo_report_writable(const char *name, const char *dir)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/.demo-agent-probe-%ld", dir,
             (long)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd == -1) {
        printf("%s: no (%s)\n", name, strerror(errno));
        return;
    }
    close(fd);
    unlink(path);
    printf("%s: yes\n", name);
}

static void
demo_report_credential(const char *name)
{
    /* Only whether it is there: a credential never reaches any output. */
    printf("credential %s: %s\n", name, getenv(name) ? "set" : "unset");
}

static void
demo_report_identity(void)
{
    static const char *const keys[] = { "CapEff", "CapBnd", "NoNewPrivs" };
    static const char *const names[] = { "cap_eff", "cap_bnd", "no_new_privs" };
    const char *phase = getenv("AGENT_PHASE");
    const char *cred = getenv("DEMO_CREDENTIAL_ENV");

    printf("demo-agent %s\n", AGENTCTL_VERSION);
    printf("uid: %ld\ngid: %ld\n", (long)getuid(), (long)getgid());
    demo_report_status(keys, names, sizeof(keys) / sizeof(keys[0]));
    demo_report_writable("root_writable", "");
    demo_report_writable("work_writable", "/work");
    printf("agent_phase: %s\n", phase ? phase : "(unset)");
    if (cred != NULL && cred[0] != '\0') {
        demo_report_credential(cred);
    } else {
        /* the built-in vendors' credentialEnv names (docs/design.md) */
        demo_report_credential("ANTHROPIC_API_KEY");
        demo_report_credential("OPENAI_API_KEY");
    }
}

static void
demo_write_work(void)
{
    static const char text[] = "written by demo-agent\n";
    ssize_t n;
    int fd;

    fd = open("/work/demo.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1) {
        printf("write_work: failed (%s)\n", strerror(errno));
        return;
    }
    n = write(fd, text, sizeof(text) - 1);
    if (n != (ssize_t)(sizeof(text) - 1))
        printf("write_work: failed (%s)\n",
               n == -1 ? strerror(errno) : "short write");
    else
        printf("write_work: ok\n");
    close(fd);
}

static void
demo_print_x(long n)
{
    char chunk[4096];
    size_t k;

    memset(chunk, 'x', sizeof(chunk));
    while (n > 0) {
        k = n < (long)sizeof(chunk) ? (size_t)n : sizeof(chunk);
        if (fwrite(chunk, 1, k, stdout) != k)
            return;
        n -= (long)k;
    }
    putchar('\n');
}

/* Parse "http://IPv4:PORT" with an optional trailing "/". No names: the
 * demo never resolves anything, the controller hands it the proxy's IP. */
static int
demo_parse_proxy(const char *url, struct sockaddr_in *sa)
{
    char host[INET_ADDRSTRLEN];
    const char *p, *colon;
    long port;
    char portbuf[8];
    size_t len;

    if (strncasecmp(url, "http://", 7) != 0)
        return -1;
    p = url + 7;
    colon = strchr(p, ':');
    if (colon == NULL || (size_t)(colon - p) >= sizeof(host))
        return -1;
    memcpy(host, p, (size_t)(colon - p));
    host[colon - p] = '\0';
    len = strcspn(colon + 1, "/");
    if (len == 0 || len >= sizeof(portbuf) ||
        (colon[1 + len] != '\0' && strcmp(colon + 1 + len, "/") != 0))
        return -1;
    memcpy(portbuf, colon + 1, len);
    portbuf[len] = '\0';
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1 ||
        demo_parse_long(portbuf, 1, 65535, &port) == -1)
        return -1;
    sa->sin_port = htons((unsigned short)port);
    return 0;
}

static long
demo_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd until the step deadline; -1 with ETIMEDOUT. */
static int
demo_wait(int fd, short events, long deadline)
{
    struct pollfd p = { .fd = fd, .events = events };
    long left;
    int rc;

    for (;;) {
        left = deadline - demo_now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        rc = poll(&p, 1, (int)left);
        if (rc > 0)
            return 0;
        if (rc == -1 && errno != EINTR)
            return -1;
    }
}

/* Non-blocking connect bounded by one step; the fd or -1 with errno. */
static int
demo_connect(const struct sockaddr_in *sa)
{
    int fd, soerr = 0;
    socklen_t len = sizeof(soerr);

    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return -1;
    if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == -1 &&
        errno != EINPROGRESS)
        goto fail;
    if (demo_wait(fd, POLLOUT, demo_now_ms() + DEMO_STEP_MS) == -1)
        goto fail;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
        goto fail;
    if (soerr != 0) {
        errno = soerr;
        goto fail;
    }
    return fd;
fail:
    soerr = errno;
    close(fd);
    errno = soerr;
    return -1;
}

static int
demo_send_all(int fd, const char *buf, size_t len)
{
    long deadline = demo_now_ms() + DEMO_STEP_MS;
    ssize_t n;

    while (len > 0) {
        n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n == -1 && errno == EAGAIN) {
            if (demo_wait(fd, POLLOUT, deadline) == -1)
                return -1;
        } else if (n == -1 && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

/* Read into buf (NUL-terminated, at most cap-1 bytes) until EOF, or, with
 * head_only, until the blank line ending a header block. One byte at a
 * time for the header, so nothing of the tunnel is read ahead (as curl's
 * CONNECT code does). Returns the length, or -1 with errno. */
static long
demo_read(int fd, char *buf, size_t cap, int head_only)
{
    long deadline = demo_now_ms() + DEMO_STEP_MS;
    size_t len = 0;
    ssize_t n;

    while (len + 1 < cap) {
        n = recv(fd, buf + len, head_only ? 1 : cap - 1 - len, 0);
        if (n == 0)
            break;
        if (n == -1 && errno == EAGAIN) {
            if (demo_wait(fd, POLLIN, deadline) == -1)
                return -1;
            continue;
        }
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1)
            return -1;
        len += (size_t)n;
        buf[len] = '\0';
        if (head_only && len >= 4 && strcmp(buf + len - 4, "\r\n\r\n") == 0)
            break;
    }
    buf[len] = '\0';
    return (long)len;
}

/* Status code of an "HTTP/1.x NNN ..." line, or -1. */
static int
demo_status_code(const char *head)
{
    if (strncmp(head, "HTTP/1.", 7) != 0 || head[7] == '\0' || head[8] != ' ' ||
        head[9] < '1' || head[9] > '5' || head[10] < '0' || head[10] > '9' ||
        head[11] < '0' || head[11] > '9')
        return -1;
    return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}

/* Ask the proxy for a tunnel to target; 0 when it answered 200. */
static int
demo_open_tunnel(int fd, const char *target)
{
    char req[512], head[DEMO_MAX_REPLY_HEAD];
    int n;

    n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
                 target, target);
    if (n < 0 || (size_t)n >= sizeof(req)) {
        printf("connect: target too long\n");
        return DEMO_EXIT_USAGE;
    }
    if (demo_send_all(fd, req, (size_t)n) == -1 ||
        demo_read(fd, head, sizeof(head), 1) == -1) {
        printf("connect: no reply from proxy (%s)\n", strerror(errno));
        return DEMO_EXIT_NET;
    }
    if (head[0] == '\0') {
        printf("connect: proxy closed the connection without a reply\n");
        return DEMO_EXIT_NET;
    }
    printf("connect: %.*s\n", (int)strcspn(head, "\r\n"), head);
    return demo_status_code(head) == 200 ? DEMO_EXIT_OK : DEMO_EXIT_REFUSED;
}

/* GET / through the tunnel and print the vendor's answer. */
static int
demo_get(int fd, const char *target)
{
    char req[512];
    char *resp, *body;
    long len;
    int n, rc = DEMO_EXIT_NET;

    n = snprintf(req, sizeof(req), "GET / HTTP/1.0\r\nHost: %.*s\r\n\r\n",
                 (int)strcspn(target, ":"), target);
    resp = malloc(DEMO_MAX_RESPONSE);
    if (resp == NULL || n < 0 || (size_t)n >= sizeof(req))
        goto out;
    len = -1;
    if (demo_send_all(fd, req, (size_t)n) == 0)
        len = demo_read(fd, resp, DEMO_MAX_RESPONSE, 0);
    if (len == -1) {
        printf("vendor: no answer through the tunnel (%s)\n", strerror(errno));
        goto out;
    }
    if (len == 0) {
        printf("vendor: closed the tunnel without an answer\n");
        goto out;
    }
    printf("vendor: %.*s\n", (int)strcspn(resp, "\r\n"), resp);
    body = strstr(resp, "\r\n\r\n");
    printf("vendor_body: %s", body ? body + 4 : "");
    rc = DEMO_EXIT_OK;
out:
    free(resp);
    return rc;
}

static int
demo_talk_to_vendor(const char *proxy, const char *target)
{
    struct sockaddr_in sa;
    int fd, rc;

    /* the target goes into a request line: no room for a second one */
    if (target[strcspn(target, " \t\r\n")] != '\0') {
        printf("target: must be host:port without spaces\n");
        return DEMO_EXIT_USAGE;
    }
    if (demo_parse_proxy(proxy, &sa) == -1) {
        printf("proxy: %s is not http://IPv4:PORT (the demo does no DNS)\n",
               proxy);
        return DEMO_EXIT_USAGE;
    }
    printf("proxy: %s\ntarget: %s\n", proxy, target);
    fflush(stdout);
    fd = demo_connect(&sa);
    if (fd == -1) {
        printf("proxy: cannot connect (%s)\n", strerror(errno));
        return DEMO_EXIT_NET;
    }
    rc = demo_open_tunnel(fd, target);
    if (rc == DEMO_EXIT_OK)
        rc = demo_get(fd, target);
    close(fd);
    return rc;
}

static void
demo_sleep(long seconds)
{
    struct timespec left = { .tv_sec = seconds };

    while (nanosleep(&left, &left) == -1 && errno == EINTR)
        ;
}

int
main(int argc, char **argv)
{
    struct demo_opts o = { 0 };
    const char *proxy, *target;
    int rc = DEMO_EXIT_OK;

    if (demo_parse_args(argc, argv, &o) == -1)
        return DEMO_EXIT_USAGE;
    target = o.target ? o.target : getenv("DEMO_TARGET");
    if (target == NULL || target[0] == '\0')
        target = DEMO_DEFAULT_TARGET;
    proxy = getenv("HTTPS_PROXY");
    if (proxy == NULL || proxy[0] == '\0')
        proxy = getenv("https_proxy");

    demo_report_identity();
    if (o.write_work)
        demo_write_work();
    if (o.bad_utf8)
        fputs("bad_utf8: \xff\xfe \xc3\x28 \xe2\x82 \xed\xa0\x80\n", stdout);
    if (o.print_bytes > 0)
        demo_print_x(o.print_bytes);
    if (proxy != NULL && proxy[0] != '\0')
        rc = demo_talk_to_vendor(proxy, target);
    else
        printf("proxy: unset (no vendor call)\n");
    fflush(stdout);
    if (o.sleep_s > 0)
        demo_sleep(o.sleep_s);
    return rc == DEMO_EXIT_OK ? o.exit_code : rc;
}
