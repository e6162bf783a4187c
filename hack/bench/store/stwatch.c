/* stwatch.c - the clock of the store benchmark (hack/bench/store/run.sh).
 * Every line it prints starts with the wall-clock time (CLOCK_REALTIME, ns)
 * at which it saw something, so both stores are timed by one clock and
 * the stamp is taken before any parsing.
 *
 *   stwatch dir SPECS_DIR STATUS_DIR
 *       inotify on the directory store: "<ns> spec <name>" when a spec file
 *       lands (agentctl renames a temp file into place) and
 *       "<ns> status <name> <phase> <cleanedUp 0|1>" for every status
 *       document written (read at once; the store also renames them in).
 *       "<ns> ready" once both watches are in place.
 *   stwatch lines
 *       stamps stdin line by line (the etcd watch stream from curl):
 *       '{"ns":"<ns>","m":<line>}' - the line is one JSON message, so the
 *       result is JSON again and jq decodes it later, off the clock.
 *
 * Runs until SIGTERM/SIGINT or end of input. inotify and a blocking read,
 * never a poll loop: on a 2-core machine a poller would take CPU from the
 * controller being measured.
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

#define STW_MAX_DOC (1 << 20)

static volatile sig_atomic_t stw_stop;

static void
stw_on_signal(int sig)
{
    (void)sig;
    stw_stop = 1;
}

static long long
stw_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* NAME.EXT (not a dot-file) -> name in out; 0 when it is not one. */
static int
stw_name(const char *file, const char *ext, char *out, size_t size)
{
    const char *dot = strrchr(file, '.');

    if (file[0] == '.' || dot == NULL || strcmp(dot, ext) != 0 ||
        (size_t)(dot - file) >= size)
        return 0;
    snprintf(out, size, "%.*s", (int)(dot - file), file);
    return 1;
}

/* Print the phase and cleanedUp of DIR/FILE, stamped T. */
static void
stw_status(long long t, const char *dir, const char *file, char *doc)
{
    char path[PATH_MAX], name[256];
    const char *phase;
    ssize_t got;
    int fd;

    if (!stw_name(file, ".json", name, sizeof(name)))
        return;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return; /* replaced again or deleted meanwhile: the next event says */
    got = read(fd, doc, STW_MAX_DOC - 1);
    close(fd);
    if (got <= 0)
        return;
    doc[got] = '\0';
    phase = strstr(doc, "\"phase\":\"");
    phase = phase ? phase + 9 : "?\"";
    printf("%lld status %s %.*s %d\n", t, name, (int)strcspn(phase, "\""),
           phase, strstr(doc, "\"cleanedUp\":true") != NULL);
}

static int
stw_dir(const char *specs, const char *status)
{
    char evbuf[64 * 1024] __attribute__((aligned(8)));
    char *doc = malloc(STW_MAX_DOC);
    int fd = inotify_init1(IN_CLOEXEC), wspec, wstat;

    if (doc == NULL || fd == -1) {
        fprintf(stderr, "stwatch: inotify: %s\n", strerror(errno));
        return 1;
    }
    wspec = inotify_add_watch(fd, specs, IN_MOVED_TO | IN_CLOSE_WRITE);
    wstat = inotify_add_watch(fd, status, IN_MOVED_TO | IN_CLOSE_WRITE);
    if (wspec == -1 || wstat == -1) {
        fprintf(stderr, "stwatch: %s or %s: %s\n", specs, status,
                strerror(errno));
        return 1;
    }
    printf("%lld ready\n", stw_now_ns());
    while (!stw_stop) {
        ssize_t len = read(fd, evbuf, sizeof(evbuf));
        long long t = stw_now_ns(); /* one stamp per batch, before parsing */
        char name[256];

        if (len <= 0) {
            if (len == -1 && errno == EINTR)
                continue;
            break;
        }
        for (char *p = evbuf; p < evbuf + len;) {
            struct inotify_event *ev = (struct inotify_event *)p;

            if (ev->len > 0 && ev->wd == wstat)
                stw_status(t, status, ev->name, doc);
            else if (ev->len > 0 && ev->wd == wspec &&
                     stw_name(ev->name, ".yaml", name, sizeof(name)))
                printf("%lld spec %s\n", t, name);
            p += sizeof(*ev) + ev->len;
        }
    }
    free(doc);
    return 0;
}

static int
stw_lines(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    while (!stw_stop && (len = getline(&line, &cap, stdin)) != -1) {
        long long t = stw_now_ns();

        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len > 0)
            printf("{\"ns\":\"%lld\",\"m\":%s}\n", t, line);
    }
    free(line);
    return 0;
}

int
main(int argc, char **argv)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = stw_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 4 && strcmp(argv[1], "dir") == 0)
        return stw_dir(argv[2], argv[3]);
    if (argc == 2 && strcmp(argv[1], "lines") == 0)
        return stw_lines();
    fprintf(stderr, "usage: stwatch dir SPECS_DIR STATUS_DIR | stwatch lines\n");
    return 2;
}
