/* fake_vendor_cli.c - a stand-in for the vendor CLIs (claude, codex, the
 * generic /agent) in the test image agentctl/fakecli: it does no work and
 * reports what it was given as one JSON document on stdout, so a test can
 * check what the vendor adapter and the container handed the agent:
 *
 *   {"startedNs": when main began (CLOCK_REALTIME, ns),
 *    "prog": argv[0] as given, "argv": [arguments after it],
 *    "env": ["KEY=VALUE" for the variables adapters set: CLAUDE_*,
 *            CODEX_*, AGENT_*],
 *    "files": [{"path", "mode" (octal string), "content"} for every
 *              regular file under /etc/agentctl/agent],
 *    "stdin": "eof" | "data" | "error" (one read of fd 0),
 *    "configWrite": "refused" | "allowed" (a new file in that directory),
 *    "confine": {what the phase policy's kernel layer lets it do: each
 *                attempt "ok" or the errno's name (fake_confine.c)},
 *    "runner": the runner tool's answer, when its socket exists}
 *
 * The report is also each CLI's result through its documented channel
 * (docs/adapters.md), as the controller reads it after exit 0: it is a
 * Claude Code stdout envelope ("type": "result", "is_error", "result"),
 * and with Codex's --output-last-message FILE the same line is written
 * to FILE, so an adapter test's attempt succeeds as a real CLI's would
 * (CODEX_FAKE_SPARSE=N makes that file a sparse one of N
 * bytes: a hostile answer).
 *
 * The launcher's executable under bin/ is not text: only its path and
 * mode are reported.
 * Test-only: built into a test image, never into the product.
 */
#include "fake_confine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CONFIG_DIR "/etc/agentctl/agent"

extern char **environ;

/* A JSON string literal of n bytes (bytes >= 0x80 passed through). */
static void
put_json(const char *s, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static int first_file = 1;

static void
report_file(const char *path, const struct stat *st)
{
    char buf[65536];
    int text = strstr(path, CONFIG_DIR "/bin/") != path;
    int fd = text ? open(path, O_RDONLY | O_NOFOLLOW) : -1;
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

    printf("%s{\"path\":", first_file ? "" : ",");
    first_file = 0;
    put_json(path, strlen(path));
    printf(",\"mode\":\"%04o\",\"content\":", (unsigned)(st->st_mode & 07777));
    put_json(buf, n > 0 ? (size_t)n : 0);
    putchar('}');
    if (fd >= 0)
        close(fd);
}

static void
walk(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (d == NULL || depth > 4) {
        if (d != NULL)
            closedir(d);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path, depth + 1);
        else if (S_ISREG(st.st_mode))
            report_file(path, &st);
    }
    closedir(d);
}

static int
adapter_var(const char *kv)
{
    return strncmp(kv, "CLAUDE_", 7) == 0 || strncmp(kv, "CODEX_", 6) == 0 ||
           strncmp(kv, "AGENT_", 6) == 0;
}

/* Codex's --output-last-message FILE (or -o FILE): the final message. */
static void
write_last_message(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return; /* the prompt follows */
        if (strcmp(argv[i], "--output-last-message") == 0 ||
            strcmp(argv[i], "-o") == 0) {
            const char *sparse = getenv("CODEX_FAKE_SPARSE");
            FILE *f = fopen(argv[i + 1], "w");

            if (f == NULL)
                return;
            fputs("the fake vendor CLI's report\n", f);
            fflush(f);
            /* a hostile answer: a sparse file of that many bytes */
            if (sparse != NULL && ftruncate(fileno(f), atoll(sparse)) != 0)
                perror("fakecli: ftruncate");
            fclose(f);
            return;
        }
    }
}

int
main(int argc, char **argv)
{
    int first = 1, fd;
    ssize_t n;
    char c;
    struct timespec t0;

    /* first: when the CLI began, for hack/bench/launch (its start-up) */
    clock_gettime(CLOCK_REALTIME, &t0);
    printf("{\"startedNs\":%lld,\"prog\":",
           (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec);
    put_json(argv[0], strlen(argv[0]));
    fputs(",\"argv\":[", stdout);
    for (int i = 1; i < argc; i++) {
        if (i > 1)
            putchar(',');
        put_json(argv[i], strlen(argv[i]));
    }
    fputs("],\"env\":[", stdout);
    for (char **e = environ; *e != NULL; e++)
        if (adapter_var(*e)) {
            if (!first)
                putchar(',');
            first = 0;
            put_json(*e, strlen(*e));
        }
    fputs("],\"files\":[", stdout);
    walk(CONFIG_DIR, 0);
    n = read(0, &c, 1);
    printf("],\"stdin\":\"%s\"", n == 0 ? "eof" : n > 0 ? "data" : "error");
    fd = open(CONFIG_DIR "/planted", O_WRONLY | O_CREAT | O_EXCL, 0644);
    printf(",\"configWrite\":\"%s\"", fd >= 0 ? "allowed" : "refused");
    if (fd >= 0)
        close(fd);
    fake_confine_report();
    fputs(",\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
          "\"num_turns\":0,\"result\":\"the fake vendor CLI's report\"}\n",
          stdout);
    write_last_message(argc, argv);
    return fflush(stdout) == 0 ? 0 : 1;
}
