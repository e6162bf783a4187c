/* cli_resource.c - the resource types agentctl names on its command line:
 * AgentInvocation (with the CRD's plural and short names, for explain and
 * get) and the controllers' warm pool (get pool), and which of them
 * get's arguments ask for. */
#include "cli.h"

#include <string.h>

const char *const cli_invocation_words[] = {
    "agentinvocation",
    "agentinvocations",
    "ai",
    "ainv",
    "agentinvocations.agentctl.dev",
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
