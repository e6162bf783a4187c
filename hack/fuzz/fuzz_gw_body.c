/* fuzz_gw_body.c - libFuzzer target for the gateway's request policy: the
 * strict JSON reader and the body and beta checks of both APIs. The first
 * byte picks the API; the check must never read past the body, and a body
 * the reader accepts must also pass gw_json_skip() as one value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gw_body.h"
#include "gw_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gw_body_policy p = { 0 };
    char why[256], *copy;
    struct gw_json j;

    if (size == 0)
        return 0;
    p.api = (data[0] & 1) ? GW_API_OPENAI : GW_API_ANTHROPIC;
    /* an exact-size copy: ASan sees any read past the body */
    copy = malloc(size - 1 ? size - 1 : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data + 1, size - 1);
    (void)gw_body_check(&p, copy, size - 1, why, sizeof(why));
    (void)gw_body_check_betas(&p, copy, size - 1, why, sizeof(why));
    gw_json_init(&j, copy, size - 1);
    if (gw_json_skip(&j) == 0)
        (void)gw_json_finish(&j);
    free(copy);
    return 0;
}
