/* pxbench.c - load client and upstream for hack/bench/proxy/run.sh.
 *
 *   pxbench serve PORTFILE
 *       upstream on 127.0.0.1:0: a client sends an 8-byte big-endian
 *       count N and gets N bytes back, then EOF; a client that sends
 *       nothing is held open (idle tunnels).
 *   pxbench latency PORT TARGET N      N sequential CONNECTs; prints
 *       "p50_us p99_us" (TARGET "-" = direct: time the TCP connect)
 *   pxbench throughput PORT TARGET K BYTES   K tunnels at once, each
 *       pulls BYTES; prints "MB/s total_bytes"
 *   pxbench idle PORT TARGET N         open N tunnels, print "ready N",
 *       hold them until stdin closes
 * Not a test: numbers only, no pass/fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXFD 65536

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static _Noreturn void
die(const char *what)
{
    fprintf(stderr, "pxbench: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int
dial(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) == -1)
        die("connect");
    return fd;
}

/* Send CONNECT and read the answer header byte by byte. */
static void
tunnel(int fd, const char *target)
{
    char req[512], buf[1024];
    int n = snprintf(req, sizeof(req),
                     "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
    size_t k = 0;

    if (strcmp(target, "-") == 0)
        return;
    if (write(fd, req, (size_t)n) != n)
        die("write");
    /* Peek, then take exactly the header: no payload is consumed, in two
     * calls instead of one per byte (the cost of the client, the same
     * for every proxy, kept out of the set-up figure). */
    for (;;) {
        ssize_t r = recv(fd, buf, sizeof(buf) - 1, MSG_PEEK);
        char *end;

        if (r <= 0)
            die("proxy closed");
        buf[r] = '\0';
        end = strstr(buf, "\r\n\r\n");
        if (end != NULL) {
            k = (size_t)(end + 4 - buf);
            break;
        }
        if ((size_t)r == sizeof(buf) - 1)
            die("answer header too long");
        poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 1);
    }
    if (read(fd, buf, k) != (ssize_t)k)
        die("read");
    buf[k] = '\0';
    if (strncmp(buf, "HTTP/1.1 200", 12) != 0 &&
        strncmp(buf, "HTTP/1.0 200", 12) != 0) {
        fprintf(stderr, "pxbench: answer: %.60s\n", buf);
        exit(1);
    }
}

struct up {
    uint64_t left;
    uint8_t hdr[8];
    int got;
};

static _Noreturn void
serve(const char *portfile)
{
    static struct up st[MAXFD];
    static char data[256 * 1024];
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof(a);
    struct epoll_event ev, evs[256];
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    int efd = epoll_create1(0);
    FILE *f;

    memset(data, 'x', sizeof(data));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 65535))
        die("listen");
    getsockname(lfd, (struct sockaddr *)&a, &len);
    f = fopen(portfile, "w");
    fprintf(f, "%d\n", ntohs(a.sin_port));
    fclose(f);
    ev.events = EPOLLIN;
    ev.data.fd = lfd;
    epoll_ctl(efd, EPOLL_CTL_ADD, lfd, &ev);
    for (;;) {
        int n = epoll_wait(efd, evs, 256, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            struct up *u = &st[fd];
            if (fd == lfd) {
                int c;
                while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (c >= MAXFD) {
                        close(c);
                        continue;
                    }
                    memset(&st[c], 0, sizeof(st[c]));
                    ev.events = EPOLLIN;
                    ev.data.fd = c;
                    epoll_ctl(efd, EPOLL_CTL_ADD, c, &ev);
                }
                continue;
            }
            if (u->got < 8) {
                ssize_t r = read(fd, u->hdr + u->got, (size_t)(8 - u->got));
                if (r <= 0) {
                    if (r < 0 && errno == EAGAIN)
                        continue;
                    close(fd);
                    continue;
                }
                u->got += (int)r;
                if (u->got < 8)
                    continue;
                for (int b = 0; b < 8; b++)
                    u->left = (u->left << 8) | u->hdr[b];
                ev.events = EPOLLOUT;
                ev.data.fd = fd;
                epoll_ctl(efd, EPOLL_CTL_MOD, fd, &ev);
                continue;
            }
            while (u->left > 0) {
                size_t want = u->left < sizeof(data) ? u->left : sizeof(data);
                ssize_t w = send(fd, data, want, MSG_NOSIGNAL);
                if (w <= 0)
                    break;
                u->left -= (uint64_t)w;
            }
            if (u->left == 0) {
                epoll_ctl(efd, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
            }
        }
    }
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int
latency(int port, const char *target, int n)
{
    double *t = calloc((size_t)n, sizeof(double));

    for (int i = 0; i < n; i++) {
        double t0 = now();
        int fd = dial(port);
        tunnel(fd, target);
        t[i] = now() - t0;
        close(fd);
    }
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    printf("%.0f %.0f\n", t[n / 2] * 1e6, t[(n * 99) / 100] * 1e6);
    free(t);
    return 0;
}

static int
throughput(int port, const char *target, int k, uint64_t bytes)
{
    struct pollfd *pf = calloc((size_t)k, sizeof(*pf));
    uint64_t *left = calloc((size_t)k, sizeof(uint64_t)), total = 0;
    static char buf[256 * 1024];
    int open = k;
    double t0;

    for (int i = 0; i < k; i++) {
        pf[i].fd = dial(port);
        tunnel(pf[i].fd, target);
        pf[i].events = POLLIN;
        left[i] = bytes;
    }
    t0 = now();
    for (int i = 0; i < k; i++) {
        uint8_t h[8];
        for (int b = 0; b < 8; b++)
            h[b] = (uint8_t)(bytes >> (56 - 8 * b));
        if (write(pf[i].fd, h, 8) != 8)
            die("write");
    }
    while (open > 0) {
        poll(pf, (nfds_t)k, -1);
        for (int i = 0; i < k; i++) {
            ssize_t r;
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = read(pf[i].fd, buf, sizeof(buf));
            if (r > 0) {
                total += (uint64_t)r;
                left[i] -= (uint64_t)r < left[i] ? (uint64_t)r : left[i];
                continue;
            }
            if (r < 0 && errno == EINTR)
                continue;
            close(pf[i].fd);
            pf[i].fd = -1;
            open--;
        }
    }
    printf("%.0f %llu\n", (double)total / (now() - t0) / 1e6,
           (unsigned long long)total);
    return 0;
}

static int
idle(int port, const char *target, int n)
{
    char c;

    for (int i = 0; i < n; i++)
        tunnel(dial(port), target); /* kept open until we exit */
    printf("ready %d\n", n);
    fflush(stdout);
    while (read(0, &c, 1) > 0)
        ;
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "serve") == 0)
        serve(argv[2]);
    if (argc == 5 && strcmp(argv[1], "latency") == 0)
        return latency(atoi(argv[2]), argv[3], atoi(argv[4]));
    if (argc == 6 && strcmp(argv[1], "throughput") == 0)
        return throughput(atoi(argv[2]), argv[3], atoi(argv[4]),
                          strtoull(argv[5], NULL, 10));
    if (argc == 5 && strcmp(argv[1], "idle") == 0)
        return idle(atoi(argv[2]), argv[3], atoi(argv[4]));
    fprintf(stderr, "usage: see pxbench.c\n");
    return 2;
}
