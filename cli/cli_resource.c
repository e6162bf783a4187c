/* cli_resource.c - the resource types agentctl names on its command line:
 * AgentInvocation (with the CRD's plural and short names, for explain and
 * get) and the controllers' warm pool (get pool), and which of them
 * get's arguments ask for. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

const char *const cli_invocation_words[] = {
    "agentinvocation",
    "agentinvocations",
    "ai",
    "ainv",
    "agentinvocations.agentctl.dev",
    "agentinvocation.agentctl.dev", /* what get -o name prints */
    NULL,
};

static const char *const pool_words[] = { "pool", "pools", NULL };

static bool
word_in(const char *const *words, const char *w)
{
    for (size_t i = 0; words[i] != NULL; i++)
        if (strcmp(words[i], w) == 0)
            return true;
    return false;
}

enum cli_resource
cli_get_resource(char *const *pos, size_t npos, size_t *skip)
{
    *skip = 0;
    if (npos == 0)
        return CLI_RES_INVOCATION;
    /* kubectl's `get TYPE [NAME...]`; any other word is a name, as get
     * always took it (an invocation called pool: `get ai pool`) */
    *skip = 1;
    if (word_in(pool_words, pos[0]))
        return CLI_RES_POOL;
    if (word_in(cli_invocation_words, pos[0]))
        return CLI_RES_INVOCATION;
    *skip = 0;
    return CLI_RES_INVOCATION;
}

/* true when the n bytes at w are one of words. */
static bool
prefix_in(const char *const *words, const char *w, size_t n)
{
    for (size_t i = 0; words[i] != NULL; i++)
        if (strlen(words[i]) == n && strncmp(words[i], w, n) == 0)
            return true;
    return false;
}

int
cli_resource_names(char **pos, size_t npos)
{
    for (size_t i = 0; i < npos; i++) {
        const char *slash = strchr(pos[i], '/');
        size_t n;

        if (slash == NULL)
            continue;
        n = (size_t)(slash - pos[i]);
        if (!prefix_in(cli_invocation_words, pos[i], n)) {
            fprintf(stderr,
                    "error: agentctl has no resource type \"%.*s\": a "
                    "TYPE/NAME argument names an agentinvocation "
                    "(agentinvocations, ai, ainv)\n",
                    (int)(n > 64 ? 64 : n), pos[i]);
            return CLI_FAIL;
        }
        if (slash[1] == '\0') {
            fprintf(stderr, "error: arguments in resource/name form must "
                            "have a single resource and name\n");
            return CLI_USAGE;
        }
        pos[i] = (char *)(slash + 1);
    }
    return CLI_OK;
}
