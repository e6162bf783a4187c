/* cbwatch.c - the timer of the controller benchmark: watches the
 * controller's status directory with inotify and prints, for each
 * invocation, the wall-clock time (CLOCK_REALTIME, ns) at which its status
 * document was first seen Running (or carrying startedAt, in case Running
 * was overwritten before it could be read), Succeeded/Failed/Cancelled,
 * and cleanedUp. One line per mark: "<ns> <name> <mark>".
 *
 * Usage: cbwatch STATUS_DIR   (runs until SIGTERM/SIGINT; the directory
 * must exist before the specs are dropped, so no rename is missed).
 * inotify rather than polling: a poll loop would steal CPU from the
 * controller on a 2-core machine and blur what is being measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define CBW_MAX_NAMES 1024
#define CBW_MAX_DOC   (1 << 20)

struct cbw_seen {
    char name[128];
    int running, terminal, cleaned;
};

static volatile sig_atomic_t cbw_stop;

static void
cbw_on_signal(int sig)
{
    (void)sig;
    cbw_stop = 1;
}

static long long
cbw_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct cbw_seen *
cbw_find(struct cbw_seen *tab, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(tab[i].name, name) == 0)
            return &tab[i];
    if (*n == CBW_MAX_NAMES)
        return NULL;
    memset(&tab[*n], 0, sizeof(tab[*n]));
    snprintf(tab[*n].name, sizeof(tab[*n].name), "%s", name);
    return &tab[(*n)++];
}

/* Read dir/file and print the marks it shows for the first time. */
static void
cbw_check(const char *dir, const char *file, struct cbw_seen *tab, size_t *n,
          char *doc)
{
    char path[PATH_MAX], name[128];
    const char *dot = strrchr(file, '.');
    const char *phase;
    struct cbw_seen *s;
    long long t = cbw_now_ns();
    ssize_t got;
    int fd;

    if (file[0] == '.' || dot == NULL || strcmp(dot, ".json") != 0 ||
        (size_t)(dot - file) >= sizeof(name))
        return;
    snprintf(name, sizeof(name), "%.*s", (int)(dot - file), file);
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return;
    got = read(fd, doc, CBW_MAX_DOC - 1);
    close(fd);
    if (got <= 0 || (s = cbw_find(tab, n, name)) == NULL)
        return;
    doc[got] = '\0';
    phase = strstr(doc, "\"phase\":\"");
    phase = phase ? phase + 9 : "";
    if (!s->running && (strncmp(phase, "Running\"", 8) == 0 ||
                        strstr(doc, "\"startedAt\":") != NULL)) {
        s->running = 1;
        printf("%lld %s Running\n", t, name);
    }
    if (!s->terminal && (strncmp(phase, "Succeeded\"", 10) == 0 ||
                         strncmp(phase, "Failed\"", 7) == 0 ||
                         strncmp(phase, "Cancelled\"", 10) == 0)) {
        s->terminal = 1;
        printf("%lld %s %.*s\n", t, name, (int)strcspn(phase, "\""), phase);
    }
    if (!s->cleaned && strstr(doc, "\"cleanedUp\":true") != NULL) {
        s->cleaned = 1;
        printf("%lld %s cleanedUp\n", t, name);
    }
}

int
main(int argc, char **argv)
{
    static struct cbw_seen tab[CBW_MAX_NAMES];
    char evbuf[64 * 1024] __attribute__((aligned(8)));
    struct sigaction sa;
    size_t n = 0;
    char *doc;
    int fd;

    if (argc != 2) {
        fprintf(stderr, "usage: cbwatch STATUS_DIR\n");
        return 2;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = cbw_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    doc = malloc(CBW_MAX_DOC);
    fd = inotify_init1(IN_CLOEXEC);
    if (doc == NULL || fd == -1 ||
        inotify_add_watch(fd, argv[1], IN_MOVED_TO | IN_CLOSE_WRITE) == -1) {
        fprintf(stderr, "cbwatch: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    while (!cbw_stop) {
        ssize_t len = read(fd, evbuf, sizeof(evbuf));

        if (len <= 0) {
            if (len == -1 && errno == EINTR)
                continue;
            break;
        }
        for (char *p = evbuf; p < evbuf + len;) {
            struct inotify_event *ev = (struct inotify_event *)p;

            if (ev->len > 0)
                cbw_check(argv[1], ev->name, tab, &n, doc);
            p += sizeof(*ev) + ev->len;
        }
    }
    free(doc);
    return 0;
}
