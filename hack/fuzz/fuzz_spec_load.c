/* fuzz_spec_load.c - libFuzzer target for the YAML -> AgentInvocation path:
 * any bytes must give either valid invocations or errors, never a crash,
 * a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct spec_file f;

    spec_load_buffer("fuzz.yaml", (const char *)data, size, &f);
    for (size_t i = 0; i < f.n; i++) {
        char *c = spec_canonical_spec(f.items[i]);
        cJSON_free(c);
    }
    spec_file_cleanup(&f);
    return 0;
}
