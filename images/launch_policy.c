/* launch_policy.c - agent-launch's policy file: what the controller wrote
 * for this phase (plan/rc_launch.c), one "key value" directive per line.
 * Strict: an unknown key, a missing value or one list too long stops the
 * launcher before anything runs, with the file and line, because a
 * policy read only in part would confine less than it says. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The controller writes a few hundred bytes; anything near this is not
 * ours. */
#define LAUNCH_POLICY_MAX (64 * 1024)

static int
policy_fail(const char *file, unsigned line, const char *what, const char *v)
{
    fprintf(stderr, "agent-launch: %s:%u: %s%s%s\n", file, line, what,
            v ? ": " : "", v ? v : "");
    return -1;
}

/* Why fd (of file) cannot be the policy, or NULL. O_NONBLOCK: a FIFO put
 * in its place must not hang the box's start. */
static const char *
policy_unfit(int fd, struct stat *st)
{
    if (fd == -1 || fstat(fd, st) == -1)
        return strerror(errno);
    if (!S_ISREG(st->st_mode))
        return "not a regular file";
    if (st->st_size >= LAUNCH_POLICY_MAX)
        return "larger than 64 KiB";
    return NULL;
}

static char *
policy_slurp(const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    const char *why = policy_unfit(fd, &st);
    char *text = NULL;
    ssize_t n = -1;

    if (why == NULL && (text = malloc((size_t)st.st_size + 1)) == NULL)
        why = "out of memory";
    if (why == NULL && (n = read(fd, text, (size_t)st.st_size)) !=
                           (ssize_t)st.st_size)
        why = n == -1 ? strerror(errno) : "changed while read";
    if (fd != -1)
        close(fd);
    if (why != NULL) {
        fprintf(stderr, "agent-launch: policy %s: %s\n", file, why);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static int
policy_number(const char *v, unsigned long max, unsigned long *out)
{
    char *end;

    errno = 0;
    *out = strtoul(v, &end, 10);
    return (*v >= '0' && *v <= '9' && *end == '\0' && errno == 0 &&
            *out <= max) ? 0 : -1;
}

static int
policy_push(char **list, size_t *n, size_t max, char *v)
{
    if (*n >= max)
        return -1;
    list[(*n)++] = v;
    return 0;
}

/* One directive; -1 names the problem in *why. */
static int
policy_directive(struct launch_policy *p, const char *key, char *v,
                 const char **why)
{
    unsigned long num;

    *why = "too many entries";
    if (strcmp(key, "landlock") == 0) {
        p->landlock_required = strcmp(v, "required") == 0;
        *why = "landlock is \"required\" or \"optional\"";
        return p->landlock_required || strcmp(v, "optional") == 0 ? 0 : -1;
    }
    if (strcmp(key, "exec") == 0 || strcmp(key, "write") == 0) {
        *why = "a path is absolute";
        if (v[0] != '/')
            return -1;
        return key[0] == 'e'
                   ? policy_push(p->exec, &p->n_exec, LAUNCH_MAX_PATHS, v)
                   : policy_push(p->write, &p->n_write, LAUNCH_MAX_PATHS, v);
    }
    if (strcmp(key, "exec-sibling") == 0) {
        *why = "a file name, without '/'";
        if (strchr(v, '/') != NULL || strcmp(v, ".") == 0 ||
            strcmp(v, "..") == 0)
            return -1;
        return policy_push(p->exec_sibling, &p->n_exec_sibling,
                           LAUNCH_MAX_PATHS, v);
    }
    if (strcmp(key, "connect") == 0) {
        *why = "a port is 1-65535";
        if (policy_number(v, 65535, &num) == -1 || num == 0 ||
            p->n_connect >= LAUNCH_MAX_PORTS)
            return -1;
        p->connect[p->n_connect++] = (unsigned short)num;
        return 0;
    }
    if (strcmp(key, "runner-arg") == 0)
        return policy_push(p->runner, &p->n_runner, LAUNCH_MAX_ARGS, v);
    if (strcmp(key, "runner-dir") == 0 || strcmp(key, "runner-socket") == 0) {
        *why = "a path is absolute";
        if (v[0] != '/')
            return -1;
        *(key[7] == 'd' ? &p->runner_dir : &p->runner_socket) = v;
        return 0;
    }
    if (strcmp(key, "runner-timeout") == 0 ||
        strcmp(key, "runner-max-bytes") == 0) {
        *why = "a number is expected";
        if (policy_number(v, UINT_MAX, &num) == -1 || num == 0)
            return -1;
        if (key[7] == 't')
            p->runner_timeout = (unsigned)num;
        else
            p->runner_max_bytes = num;
        return 0;
    }
    *why = "unknown directive";
    return -1;
}

/* A runner needs all of its settings: the launcher has no defaults of its
 * own, the controller's are the ones (docs/phase-policy.md). */
static int
policy_complete(const char *file, const struct launch_policy *p)
{
    if (p->n_runner == 0)
        return 0;
    if (p->runner_dir == NULL || p->runner_socket == NULL ||
        p->runner_timeout == 0 || p->runner_max_bytes == 0)
        return policy_fail(file, 0, "a runner needs runner-dir, "
                           "runner-socket, runner-timeout and "
                           "runner-max-bytes", NULL);
    return 0;
}

/* The directives of text, line by line. */
static int
policy_parse(const char *file, char *text, struct launch_policy *p)
{
    char *line, *next, *v;
    const char *why;
    unsigned n = 0;

    for (line = text; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        n++;
        if (line[0] == '\0' || line[0] == '#')
            continue;
        v = strchr(line, ' ');
        if (v == NULL || v[1] == '\0')
            return policy_fail(file, n, "expected \"key value\"", line);
        *v++ = '\0';
        if (policy_directive(p, line, v, &why) == -1)
            return policy_fail(file, n, why, line);
    }
    p->runner[p->n_runner] = NULL;
    return policy_complete(file, p);
}

int
launch_policy_read(const char *file, struct launch_policy *p)
{
    memset(p, 0, sizeof(*p));
    p->landlock_required = true;
    p->text = policy_slurp(file);
    if (p->text == NULL)
        return -1;
    if (policy_parse(file, p->text, p) == -1) {
        launch_policy_cleanup(p);
        return -1;
    }
    return 0;
}

void
launch_policy_cleanup(struct launch_policy *p)
{
    free(p->text);
    memset(p, 0, sizeof(*p));
}
