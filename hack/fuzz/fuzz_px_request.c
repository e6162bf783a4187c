/* fuzz_px_request.c - libFuzzer target for the CONNECT request parser and
 * the authority parser behind it.
 *
 * The input is fed twice, whole and then split at a point chosen by its
 * first byte, and both runs must agree: the parser is incremental, so the
 * split must never change the outcome. A small header limit taken from
 * the second byte exercises the 431 path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostport.h"
#include "px_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum px_req_result
fuzz_run(struct px_req *r, const char *p, size_t n, size_t split, size_t *used)
{
    size_t a = 0, b = 0;
    enum px_req_result res;

    res = px_req_feed(r, p, split, &a);
    if (res == PX_REQ_MORE)
        res = px_req_feed(r, p + split, n - split, &b);
    *used = a + b;
    return res;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct px_req whole, parts;
    struct hostport auth;
    size_t limit, split, used1 = 0, used2 = 0;
    enum px_req_result r1, r2;

    if (size < 2)
        return 0;
    limit = 16 + (size_t)data[1] * 4;
    split = (size_t)data[0] % (size - 1);
    data += 2;
    size -= 2;
    if (split > size)
        split = size;
    px_req_init(&whole, limit);
    px_req_init(&parts, limit);
    r1 = fuzz_run(&whole, (const char *)data, size, size, &used1);
    r2 = fuzz_run(&parts, (const char *)data, size, split, &used2);
    if (r1 != r2 || used1 != used2 || whole.status != parts.status)
        abort();
    if (used1 > limit || used1 > size)
        abort();
    if (r1 == PX_REQ_DONE) {
        if (strcmp(whole.method, "CONNECT") != 0 ||
            strlen(whole.target) != whole.target_len)
            abort();
        if (hostport_parse(whole.target, whole.target_len, &auth, NULL) ==
                0 &&
            (auth.port == 0 || auth.port > 65535 || auth.host[0] == '\0'))
            abort();
    }
    return 0;
}
