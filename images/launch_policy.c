/* launch_policy.c - agent-launch's policy file: what the controller wrote
 * for this phase (plan/rc_adapter_launch.c), one "key value" directive per line.
 * Strict: an unknown key, a missing value or one list too long stops the
 * launcher before anything runs, with the file and line, because a
 * policy read only in part would confine less than it says. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The controller writes a few hundred bytes; anything near this is not
 * ours. */
#define LAUNCH_POLICY_MAX (64 * 1024)

/* file:line: what: the line, its bytes outside printable ASCII shown as
 * '?' (a policy that is not ours may hold anything). */
static int
policy_fail(const char *file, unsigned line, const char *what, const char *v)
{
    fprintf(stderr, "agent-launch: %s:%u: %s%s", file, line, what,
            v ? ": " : "");
    for (const unsigned char *c = (const unsigned char *)v; c && *c; c++)
        fputc(*c >= 0x20 && *c < 0x7f ? *c : '?', stderr);
    fputc('\n', stderr);
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

/* The kinds of value a directive takes, and where it goes. */
enum policy_kind {
    POLICY_MODE,      /* landlock: required | optional */
    POLICY_PATH,      /* an absolute path */
    POLICY_PATHS,     /* an absolute path, one more of a list */
    POLICY_NAMES,     /* a file name (no '/'), one more of a list */
    POLICY_WORDS,     /* the rest of the line, one more of a list */
    POLICY_PORT,      /* 1..65535, one more of the ports */
    POLICY_NUMBER,    /* 1..UINT_MAX */
};

struct policy_key {
    const char *key;
    enum policy_kind kind;
    size_t at;        /* offset of the field (of the list) */
    size_t count_at;  /* lists: offset of the count */
    size_t max;       /* lists: their capacity */
};

#define PAT(f) offsetof(struct launch_policy, f)

static const struct policy_key policy_keys[] = {
    { "landlock", POLICY_MODE, PAT(landlock_required), 0, 0 },
    { "exec", POLICY_PATHS, PAT(exec), PAT(n_exec), LAUNCH_MAX_PATHS },
    { "exec-sibling", POLICY_NAMES, PAT(exec_sibling), PAT(n_exec_sibling),
      LAUNCH_MAX_PATHS },
    { "write", POLICY_PATHS, PAT(write), PAT(n_write), LAUNCH_MAX_PATHS },
    { "connect", POLICY_PORT, PAT(connect), PAT(n_connect), LAUNCH_MAX_PORTS },
    { "runner-arg", POLICY_WORDS, PAT(runner), PAT(n_runner), LAUNCH_MAX_ARGS },
    { "runner-unset", POLICY_NAMES, PAT(runner_unset), PAT(n_runner_unset),
      LAUNCH_MAX_PATHS },
    { "runner-dir", POLICY_PATH, PAT(runner_dir), 0, 0 },
    { "runner-home", POLICY_PATH, PAT(runner_home), 0, 0 },
    { "runner-socket", POLICY_PATH, PAT(runner_socket), 0, 0 },
    { "runner-timeout", POLICY_NUMBER, PAT(runner_timeout), 0, 0 },
    { "runner-max-bytes", POLICY_NUMBER, PAT(runner_max_bytes), 0, 0 },
};

/* v into k's list of p; -1 when it is full. */
static int
policy_push(struct launch_policy *p, const struct policy_key *k, char *v)
{
    size_t *n = (size_t *)((char *)p + k->count_at);

    if (*n >= k->max)
        return -1;
    ((char **)((char *)p + k->at))[(*n)++] = v;
    return 0;
}

/* One directive; -1 names the problem in *why. */
static int
policy_directive(struct launch_policy *p, const char *key, char *v,
                 const char **why)
{
    const struct policy_key *k = NULL;
    char *field;
    unsigned long num;
    size_t *n;

    for (size_t i = 0; i < sizeof(policy_keys) / sizeof(policy_keys[0]); i++)
        if (strcmp(key, policy_keys[i].key) == 0)
            k = &policy_keys[i];
    *why = "unknown directive";
    if (k == NULL)
        return -1;
    field = (char *)p + k->at;
    *why = "too many entries";
    switch (k->kind) {
    case POLICY_MODE:
        *why = "landlock is \"required\" or \"optional\"";
        *(bool *)field = strcmp(v, "required") == 0;
        return *(bool *)field || strcmp(v, "optional") == 0 ? 0 : -1;
    case POLICY_PATH:
        *why = "a path is absolute";
        *(char **)field = v;
        return v[0] == '/' ? 0 : -1;
    case POLICY_PATHS:
        if (v[0] != '/')
            return *why = "a path is absolute", -1;
        return policy_push(p, k, v);
    case POLICY_NAMES:
        if (strchr(v, '/') != NULL || strcmp(v, ".") == 0 ||
            strcmp(v, "..") == 0)
            return *why = "a name, without '/'", -1;
        return policy_push(p, k, v);
    case POLICY_WORDS:
        return policy_push(p, k, v);
    case POLICY_PORT:
        n = (size_t *)((char *)p + k->count_at);
        if (policy_number(v, 65535, &num) == -1 || num == 0)
            return *why = "a port is 1-65535", -1;
        if (*n >= k->max)
            return -1;
        ((unsigned short *)field)[(*n)++] = (unsigned short)num;
        return 0;
    case POLICY_NUMBER:
        *why = "a number from 1 is expected";
        if (policy_number(v, UINT_MAX, &num) == -1 || num == 0)
            return -1;
        if (k->at == PAT(runner_timeout))
            p->runner_timeout = (unsigned)num;
        else
            p->runner_max_bytes = num;
        return 0;
    }
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

/* p from text (owned by p from here on), named file in messages. */
static int
policy_take(const char *file, char *text, struct launch_policy *p)
{
    memset(p, 0, sizeof(*p));
    p->landlock_required = true;
    p->text = text;
    if (p->text == NULL)
        return -1;
    if (policy_parse(file, p->text, p) == -1) {
        launch_policy_cleanup(p);
        return -1;
    }
    return 0;
}

int
launch_policy_read(const char *file, struct launch_policy *p)
{
    return policy_take(file, policy_slurp(file), p);
}

int
launch_policy_from_text(const char *name, const char *text, size_t len,
                        struct launch_policy *p)
{
    char *copy;

    if (len >= LAUNCH_POLICY_MAX || memchr(text, '\0', len) != NULL) {
        fprintf(stderr, "agent-launch: %s: %s\n", name,
                len >= LAUNCH_POLICY_MAX ? "larger than 64 KiB"
                                         : "holds a NUL byte");
        memset(p, 0, sizeof(*p));
        return -1;
    }
    if ((copy = malloc(len + 1)) == NULL) {
        fprintf(stderr, "agent-launch: %s: out of memory\n", name);
        memset(p, 0, sizeof(*p));
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    return policy_take(name, copy, p);
}

void
launch_policy_cleanup(struct launch_policy *p)
{
    free(p->text);
    memset(p, 0, sizeof(*p));
}
