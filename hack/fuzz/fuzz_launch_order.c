/* fuzz_launch_order.c - libFuzzer target for agent-launch's wait-mode
 * order (images/launch_order.h): the input is the order file's bytes,
 * checked against a fixed nonce and with the nonce check off. Whatever
 * the bytes, the check ends with a refusal (a message) or an order whose
 * every word is a C string, whose env entries are NAME=value with no name
 * twice, whose workdir is absolute and whose policy is a C string; never
 * a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "launch_order.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NONCE "0123456789abcdef0123456789abcdef"

static void
check(const struct launch_order *o)
{
    if (o->argc == 0 || o->argc > LAUNCH_MAX_ARGS || o->argv[o->argc] != NULL ||
        o->argv[0][0] == '\0' || o->workdir[0] != '/' || o->policy == NULL ||
        strlen(o->policy) != o->policy_len ||
        o->n_env > LAUNCH_ORDER_MAX_ENV || o->env[o->n_env] != NULL)
        abort();
    for (size_t i = 0; i < o->n_env; i++) {
        size_t k = strcspn(o->env[i], "=");

        if (k == 0 || o->env[i][k] != '=')
            abort();
        for (size_t j = 0; j < i; j++)
            if (strncmp(o->env[j], o->env[i], k + 1) == 0)
                abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nonces[] = { NONCE, NULL };

    for (size_t i = 0; i < 2; i++) {
        struct launch_order o;
        char why[256] = "";

        if (launch_order_parse((const char *)data, size, nonces[i], &o, why,
                               sizeof(why)) == 0) {
            check(&o);
            launch_order_cleanup(&o);
        } else if (why[0] == '\0') {
            abort(); /* a refusal always says why */
        }
    }
    return 0;
}
