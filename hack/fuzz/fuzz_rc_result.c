/* fuzz_rc_result.c - libFuzzer target for a CLI's result read strictly
 * (hostio/rc_result.h): the input is Claude Code's stdout and, the same
 * bytes, Codex's last-message file, read against a fixed schema and
 * without one, and as a tar archive of one file. Whatever the bytes, the
 * read ends with a problem or a result, never a crash, a leak or
 * unbounded recursion (the nesting scan runs before any parser); a kept
 * text is never over the bound, and a result with JSON is valid. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rc_result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SCHEMA                                                                 \
    "{\"type\":\"object\",\"required\":[\"verdict\"],\"properties\":"        \
    "{\"verdict\":{\"enum\":[\"pass\",\"fail\"]},\"files\":{\"type\":"       \
    "\"array\",\"items\":{\"type\":\"string\",\"maxLength\":8}}}}"

static void
check(const struct rc_result *r, const struct rc_result_opts *o)
{
    cJSON *st = rc_result_status(r);

    if (r->text != NULL && r->text_len > o->max_bytes)
        abort();
    if (r->json != NULL && (!r->valid || r->problem != RC_RESULT_OK))
        abort();
    cJSON_Delete(st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct rc_result_opts opts[] = {
        { .max_bytes = 4096, .schema = SCHEMA },
        { .max_bytes = 64, .schema = NULL },
    };
    struct rc_result r;
    char *file;
    size_t n;
    struct err e;

    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        rc_result_claude((const char *)data, size, &opts[i], &r);
        check(&r, &opts[i]);
        rc_result_cleanup(&r);
        rc_result_text((const char *)data, size, &opts[i], &r);
        check(&r, &opts[i]);
        rc_result_cleanup(&r);
    }
    if (rc_result_untar(data, size, 4096, &file, &n, &e) == 0) {
        if (n > 4096)
            abort();
        free(file);
    }
    return 0;
}
