/* connect_flood.c - a test agent for the egress audit
 * (tests/integration/controller/test_egress_audit*.sh): N CONNECTs
 * through the proxy of $HTTPS_PROXY, to targets it refuses, from W
 * processes at once. Target i is "<prefix><i>.test:443", so every line
 * the proxy writes names its own i and a test can tell lines apart.
 *
 *   connect-flood N PREFIX [WORKERS [PAUSE_MS]]
 *
 * PAUSE_MS: each worker sleeps that long after every 100 of its CONNECTs
 * (a slow flood, for a test that acts while it runs). Prints a line per
 * worker ("worker W: sent S, answered A, 403 D") and "flood: sent N,
 * workers failing F"; A counts the CONNECTs a status line came back to. Exit
 * 0 when every CONNECT was answered. Built static by the test itself
 * (cc -static); not part of the product. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_in proxy;

/* $HTTPS_PROXY: http://A.B.C.D:PORT */
static int
parse_proxy(void)
{
    const char *p = getenv("HTTPS_PROXY");
    char host[64];
    int port;

    if (p == NULL || sscanf(p, "http://%63[0-9.]:%d", host, &port) != 2)
        return -1;
    proxy.sin_family = AF_INET;
    proxy.sin_port = htons((unsigned short)port);
    return inet_pton(AF_INET, host, &proxy.sin_addr) == 1 ? 0 : -1;
}

/* One CONNECT: 403, another status, or -1 with no answer. */
static int
one(const char *prefix, long i)
{
    char req[512], ans[256];
    int fd = socket(AF_INET, SOCK_STREAM, 0), st = -1, n, len;
    size_t got = 0;

    if (fd == -1)
        return -1;
    len = snprintf(req, sizeof(req),
                   "CONNECT %s%ld.test:443 HTTP/1.1\r\nHost: %s%ld.test:443"
                   "\r\n\r\n",
                   prefix, i, prefix, i);
    if (connect(fd, (struct sockaddr *)&proxy, sizeof(proxy)) == -1 ||
        write(fd, req, (size_t)len) != len)
        goto out;
    /* read to the end: the proxy closes first, so the TIME_WAIT is its */
    while ((n = (int)read(fd, ans + got, sizeof(ans) - 1 - got)) > 0) {
        got += (size_t)n;
        if (got == sizeof(ans) - 1)
            got = 12; /* keep the status line, drop the rest */
    }
    ans[got] = '\0';
    if (got >= 12 && strncmp(ans, "HTTP/1.1 ", 9) == 0)
        st = atoi(ans + 9);
out:
    close(fd);
    return st;
}

/* Worker w of nw: i = w, w + nw, ...; exit status: 0 all answered. */
static int
worker(long n, const char *prefix, long w, long nw, long pause_ms)
{
    long answered = 0, denied = 0, sent = 0;
    struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000 };

    for (long i = w; i < n; i += nw) {
        int st = one(prefix, i);

        sent++;
        answered += st > 0;
        denied += st == 403;
        if (pause_ms > 0 && sent % 100 == 0)
            nanosleep(&ts, NULL);
    }
    printf("worker %ld: sent %ld, answered %ld, 403 %ld\n", w, sent, answered,
           denied);
    return answered == sent ? 0 : 1;
}

int
main(int argc, char **argv)
{
    long n, nw = 1, pause_ms = 0, bad = 0;

    if (argc < 3 || parse_proxy() == -1) {
        fprintf(stderr, "usage: HTTPS_PROXY=http://IP:PORT connect-flood N "
                        "PREFIX [WORKERS [PAUSE_MS]]\n");
        return 2;
    }
    n = strtol(argv[1], NULL, 10);
    if (argc > 3)
        nw = strtol(argv[3], NULL, 10);
    if (argc > 4)
        pause_ms = strtol(argv[4], NULL, 10);
    if (n < 1 || nw < 1 || nw > 64 || pause_ms < 0)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (long w = 0; w < nw; w++) {
        pid_t pid = fork();

        if (pid == 0)
            _exit(worker(n, argv[2], w, nw, pause_ms));
        if (pid == -1)
            return 1;
    }
    for (int st; wait(&st) > 0;)
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    printf("flood: sent %ld, workers failing %ld\n", n, bad);
    return bad == 0 ? 0 : 1;
}
