/* px_probe.c - test client and upstream for the egress-proxy scenarios.
 *
 * Upstreams (listen on 127.0.0.1:0, write the port to PORTFILE, run until
 * killed):
 *   px-probe serve echo PORTFILE     echo bytes; EOF in -> EOF out
 *   px-probe serve record DIR        save each connection to DIR/conn-N
 *                                    (written when the peer sends EOF)
 *   px-probe serve greet PORTFILE    send "hello\n", shut down writing,
 *                                    read to EOF, print "got N"
 *   px-probe serve stuck PORTFILE    listen with a full backlog: connects
 *                                    hang (for 504)
 *   px-probe serve hold PORTFILE     accept and never read (back-pressure)
 * Clients (PORT is the proxy's):
 *   px-probe status PORT RAW         send RAW (\r \n \xHH escapes), print
 *                                    the answer's status code or EOF
 *   px-probe echo PORT TARGET N      CONNECT + N bytes in one write, expect
 *                                    them echoed, half-close, expect EOF
 *   px-probe send PORT TARGET N      CONNECT + N bytes in one write,
 *                                    half-close, wait for EOF
 *   px-probe greet PORT TARGET N     read "hello\n" then EOF, then send N
 *                                    bytes and half-close
 *   px-probe trickle PORT CHUNK MS SECS  endless header, CHUNK bytes every
 *                                    MS ms, print the status or "none"
 *   px-probe push PORT TARGET SECS   tunnel, then write without reading
 *                                    for SECS; print the bytes written
 *   px-probe many PORT TARGET N HOLD_MS  N tunnels at once, "ping" echoed
 *                                    on each; prints counts per status
 *   px-probe late PORT TARGET GOFILE send all of the CONNECT header but its
 *                                    last CRLF, print "sent", wait until
 *                                    GOFILE exists, finish the header and
 *                                    print the status (or EOF)
 * Exit status 0 when the exchange went as described, else 1.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static _Noreturn void
die(const char *what)
{
    fprintf(stderr, "px-probe: %s: %s\n", what, strerror(errno));
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

static int
listen_any(const char *portfile, int backlog)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    FILE *f;

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
        listen(fd, backlog) == -1)
        die("listen");
    getsockname(fd, (struct sockaddr *)&a, &len);
    f = fopen(portfile, "w");
    if (f == NULL)
        die("portfile");
    fprintf(f, "%d\n", ntohs(a.sin_port));
    fclose(f);
    return fd;
}

static void
write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = { .fd = fd, .events = POLLOUT };
            poll(&pf, 1, 1000);
            continue;
        }
        if (w < 0)
            die("write");
        p += w;
        n -= (size_t)w;
    }
}

/* Read the proxy's answer header; return its status (-1 on EOF). */
static int
read_status(int fd)
{
    char buf[1024];
    size_t n = 0;

    while (n < sizeof(buf) - 1) {
        ssize_t r = read(fd, buf + n, 1); /* byte-wise: leave payload */
        if (r <= 0)
            return -1;
        n++;
        buf[n] = '\0';
        if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    if (strncmp(buf, "HTTP/1.1 ", 9) != 0)
        return -1;
    return atoi(buf + 9);
}

/* Read until EOF; return the byte count (dies on error). */
static size_t
read_to_eof(int fd, char *keep, size_t cap)
{
    char buf[65536];
    size_t total = 0;

    for (;;) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die("read");
        if (r == 0)
            return total;
        if (keep != NULL && total + (size_t)r <= cap)
            memcpy(keep + total, buf, (size_t)r);
        total += (size_t)r;
    }
}

static void
serve_echo_conn(int efd, int fd, char *buf)
{
    ssize_t r = read(fd, buf, 65536);

    if (r > 0) {
        write_all(fd, buf, (size_t)r);
        return;
    }
    if (r < 0 && errno == EAGAIN)
        return;
    if (r == 0)
        shutdown(fd, SHUT_WR); /* pass the half-close back */
    epoll_ctl(efd, EPOLL_CTL_DEL, fd, NULL);
    if (r < 0)
        close(fd);
    /* after EOF the peer closes; the fd is left for the kernel at exit
     * unless it errors later: close it now, the FIN is already queued */
    else
        close(fd);
}

static _Noreturn void
serve_echo(const char *portfile)
{
    int lfd = listen_any(portfile, 4096), efd = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN }, evs[64];
    char *buf = malloc(65536);

    ev.data.fd = lfd;
    epoll_ctl(efd, EPOLL_CTL_ADD, lfd, &ev);
    for (;;) {
        int n = epoll_wait(efd, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == lfd) {
                int c = accept(lfd, NULL, NULL);
                if (c < 0)
                    continue;
                ev.data.fd = c;
                epoll_ctl(efd, EPOLL_CTL_ADD, c, &ev);
            } else {
                serve_echo_conn(efd, fd, buf);
            }
        }
    }
}

static _Noreturn void
serve_record(const char *dir)
{
    char portfile[512], path[512];
    static char data[1 << 20];
    int lfd, k = 0;

    snprintf(portfile, sizeof(portfile), "%s/port", dir);
    lfd = listen_any(portfile, 64);
    for (;;) {
        int c = accept(lfd, NULL, NULL);
        size_t n;
        FILE *f;
        if (c < 0)
            continue;
        n = read_to_eof(c, data, sizeof(data));
        snprintf(path, sizeof(path), "%s/conn-%d", dir, k++);
        f = fopen(path, "w");
        fwrite(data, 1, n < sizeof(data) ? n : sizeof(data), f);
        fclose(f);
        close(c);
    }
}

static _Noreturn void
serve_greet(const char *portfile)
{
    int lfd = listen_any(portfile, 64);

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (;;) {
        int c = accept(lfd, NULL, NULL);
        if (c < 0)
            continue;
        write_all(c, "hello\n", 6);
        shutdown(c, SHUT_WR);
        printf("got %zu\n", read_to_eof(c, NULL, 0));
        close(c);
    }
}

static _Noreturn void
serve_stuck(const char *portfile)
{
    char tmp[] = "/tmp/px-probe-stuck-XXXXXX";
    int lfd, fill[4], port;
    FILE *f;

    /* Fill the accept queue of a backlog-0 listener ourselves; further
     * SYNs are dropped, so a proxy's connect() just waits. */
    close(mkstemp(tmp));
    lfd = listen_any(tmp, 0);
    f = fopen(tmp, "r");
    if (f == NULL || fscanf(f, "%d", &port) != 1)
        die("portfile");
    fclose(f);
    unlink(tmp);
    for (int i = 0; i < 2; i++) {
        struct sockaddr_in a = { .sin_family = AF_INET };
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        a.sin_port = htons((uint16_t)port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connect(fill[i], (struct sockaddr *)&a, sizeof(a));
        usleep(100000);
    }
    f = fopen(portfile, "w");
    fprintf(f, "%d\n", port);
    fclose(f);
    (void)lfd;
    (void)fill;
    for (;;)
        pause();
}

static _Noreturn void
serve_hold(const char *portfile)
{
    int lfd = listen_any(portfile, 64);

    for (;;)
        if (accept(lfd, NULL, NULL) < 0)
            usleep(1000); /* accepted sockets are kept, never read */
}

/* Decode \r \n \t \\ \xHH into out; returns the length. */
static size_t
unescape(const char *s, char *out)
{
    size_t n = 0;

    for (; *s != '\0'; s++) {
        if (*s != '\\' || s[1] == '\0') {
            out[n++] = *s;
            continue;
        }
        s++;
        if (*s == 'r')
            out[n++] = '\r';
        else if (*s == 'n')
            out[n++] = '\n';
        else if (*s == 't')
            out[n++] = '\t';
        else if (*s == 'x' && s[1] && s[2]) {
            char hex[3] = { s[1], s[2], 0 };
            out[n++] = (char)strtol(hex, NULL, 16);
            s += 2;
        } else
            out[n++] = *s;
    }
    return n;
}

static char *
make_request(const char *target, size_t payload, size_t *len)
{
    size_t cap = 2 * strlen(target) + 64 + payload;
    char *p = malloc(cap);
    int h = snprintf(p, cap, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target,
                     target);

    for (size_t i = 0; i < payload; i++)
        p[h + i] = (char)('a' + (i * 7 + i / 251) % 26);
    *len = (size_t)h + payload;
    return p;
}

static int
cmd_status(int port, const char *raw)
{
    char *buf = malloc(strlen(raw) + 1);
    size_t n = unescape(raw, buf);
    int fd = dial(port), st;

    write_all(fd, buf, n);
    st = read_status(fd);
    if (st < 0)
        printf("EOF\n");
    else
        printf("%d\n", st);
    free(buf);
    close(fd);
    return 0;
}

static int
cmd_echo(int port, const char *target, size_t n)
{
    size_t len, got;
    char *req = make_request(target, n, &len);
    char *back = malloc(n + 1);
    int fd = dial(port), st;

    write_all(fd, req, len); /* header and payload in one write */
    st = read_status(fd);
    if (st != 200) {
        printf("status %d\n", st);
        return 1;
    }
    for (got = 0; got < n;) {
        ssize_t r = read(fd, back + got, n - got);
        if (r <= 0) {
            printf("short echo: %zu of %zu\n", got, n);
            return 1;
        }
        got += (size_t)r;
    }
    if (memcmp(back, req + len - n, n) != 0) {
        printf("echo differs\n");
        return 1;
    }
    shutdown(fd, SHUT_WR);
    if (read_to_eof(fd, NULL, 0) != 0) {
        printf("extra bytes after echo\n");
        return 1;
    }
    printf("ok %zu\n", n);
    free(req);
    free(back);
    close(fd);
    return 0;
}

static int
cmd_send(int port, const char *target, size_t n)
{
    size_t len;
    char *req = make_request(target, n, &len);
    int fd = dial(port), st;

    write_all(fd, req, len);
    shutdown(fd, SHUT_WR);
    st = read_status(fd);
    if (st != 200) {
        printf("status %d\n", st);
        return 1;
    }
    read_to_eof(fd, NULL, 0);
    printf("ok %zu\n", n);
    free(req);
    close(fd);
    return 0;
}

static int
cmd_greet(int port, const char *target, size_t n)
{
    size_t len;
    char *req = make_request(target, 0, &len), got[64];
    char *data = make_request(target, n, &len);
    int fd = dial(port), st;
    size_t k;

    write_all(fd, req, strlen(req));
    st = read_status(fd);
    if (st != 200) {
        printf("status %d\n", st);
        return 1;
    }
    /* upstream half-closed: we must see its bytes and then EOF while our
     * own direction stays open */
    k = read_to_eof(fd, got, sizeof(got));
    if (k != 6 || memcmp(got, "hello\n", 6) != 0) {
        printf("bad greeting (%zu bytes)\n", k);
        return 1;
    }
    write_all(fd, data + len - n, n);
    shutdown(fd, SHUT_WR);
    close(fd);
    printf("ok %zu\n", n);
    free(req);
    free(data);
    return 0;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmd_trickle(int port, size_t chunk, int ms, double secs)
{
    static const char head[] = "CONNECT a.test:443 HTTP/1.1\r\nX-Long: ";
    char *fill = malloc(chunk);
    int fd = dial(port), st = -2;
    size_t sent = 0;
    double end = now_s() + secs;

    memset(fill, 'a', chunk);
    write_all(fd, head, sizeof(head) - 1);
    while (now_s() < end) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        ssize_t w = send(fd, fill, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0)
            sent += (size_t)w;
        if (poll(&pf, 1, ms) == 1) {
            st = read_status(fd);
            break;
        }
    }
    if (st == -2)
        printf("none %zu\n", sent);
    else if (st == -1)
        printf("EOF %zu\n", sent);
    else
        printf("%d %zu\n", st, sent);
    free(fill);
    close(fd);
    return 0;
}

static int
cmd_push(int port, const char *target, double secs)
{
    size_t len, sent = 0;
    char *req = make_request(target, 0, &len), *fill = calloc(1, 65536);
    int fd = dial(port), st;
    double end = now_s() + secs;

    write_all(fd, req, len);
    st = read_status(fd);
    if (st != 200) {
        printf("status %d\n", st);
        return 1;
    }
    while (now_s() < end) {
        struct pollfd pf = { .fd = fd, .events = POLLOUT };
        ssize_t w = send(fd, fill, 65536, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0)
            sent += (size_t)w;
        else
            poll(&pf, 1, 50);
    }
    printf("%zu\n", sent);
    fflush(stdout);
    free(req);
    free(fill);
    close(fd);
    return 0;
}

static int
cmd_many(int port, const char *target, int n, int hold_ms)
{
    size_t len;
    char *req = make_request(target, 0, &len);
    int *fds = calloc((size_t)n, sizeof(int)), *st = calloc((size_t)n, 4);
    int ok = 0, unavailable = 0, other = 0, echoed = 0;

    for (int i = 0; i < n; i++)
        fds[i] = dial(port); /* every connection is open before any asks */
    for (int i = 0; i < n; i++)
        write_all(fds[i], req, len);
    for (int i = 0; i < n; i++) {
        st[i] = read_status(fds[i]);
        if (st[i] == 200)
            ok++;
        else if (st[i] == 503)
            unavailable++;
        else
            other++;
    }
    for (int i = 0; i < n; i++) {
        char back[5];
        size_t got = 0;
        if (st[i] != 200)
            continue;
        write_all(fds[i], "ping\n", 5);
        while (got < 5) {
            ssize_t r = read(fds[i], back + got, 5 - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got == 5 && memcmp(back, "ping\n", 5) == 0)
            echoed++;
    }
    printf("200=%d 503=%d other=%d echoed=%d\n", ok, unavailable, other,
           echoed);
    fflush(stdout);
    usleep((useconds_t)hold_ms * 1000);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    free(fds);
    free(st);
    free(req);
    return 0;
}

static int
cmd_late(int port, const char *target, const char *gofile)
{
    size_t len;
    char *req = make_request(target, 0, &len);
    int fd = dial(port), st;
    struct stat sb;
    double end;

    write_all(fd, req, len - 2); /* all but the blank line's CRLF */
    printf("sent\n");
    fflush(stdout);
    for (end = now_s() + 60; stat(gofile, &sb) != 0 && now_s() < end;)
        usleep(20 * 1000);
    /* The proxy may have answered and closed already: a failed write is
     * fine, the answer (if any) is what counts. */
    send(fd, "\r\n", 2, MSG_NOSIGNAL);
    st = read_status(fd);
    if (st < 0)
        printf("EOF\n");
    else
        printf("%d\n", st);
    free(req);
    close(fd);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "serve") == 0) {
        if (strcmp(argv[2], "echo") == 0)
            serve_echo(argv[3]);
        if (strcmp(argv[2], "record") == 0)
            serve_record(argv[3]);
        if (strcmp(argv[2], "greet") == 0)
            serve_greet(argv[3]);
        if (strcmp(argv[2], "stuck") == 0)
            serve_stuck(argv[3]);
        if (strcmp(argv[2], "hold") == 0)
            serve_hold(argv[3]);
    }
    if (argc == 4 && strcmp(argv[1], "status") == 0)
        return cmd_status(atoi(argv[2]), argv[3]);
    if (argc == 5 && strcmp(argv[1], "echo") == 0)
        return cmd_echo(atoi(argv[2]), argv[3], strtoul(argv[4], NULL, 10));
    if (argc == 5 && strcmp(argv[1], "send") == 0)
        return cmd_send(atoi(argv[2]), argv[3], strtoul(argv[4], NULL, 10));
    if (argc == 5 && strcmp(argv[1], "greet") == 0)
        return cmd_greet(atoi(argv[2]), argv[3], strtoul(argv[4], NULL, 10));
    if (argc == 6 && strcmp(argv[1], "trickle") == 0)
        return cmd_trickle(atoi(argv[2]), strtoul(argv[3], NULL, 10),
                           atoi(argv[4]), atof(argv[5]));
    if (argc == 5 && strcmp(argv[1], "push") == 0)
        return cmd_push(atoi(argv[2]), argv[3], atof(argv[4]));
    if (argc == 6 && strcmp(argv[1], "many") == 0)
        return cmd_many(atoi(argv[2]), argv[3], atoi(argv[4]), atoi(argv[5]));
    if (argc == 5 && strcmp(argv[1], "late") == 0)
        return cmd_late(atoi(argv[2]), argv[3], argv[4]);
    fprintf(stderr, "usage: see the comment at the top of px_probe.c\n");
    return 2;
}
