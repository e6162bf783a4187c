/* drift_fixture.c - see drift_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drift_fixture.h"

/* Captured from dockerd 20.10 for a spec without .git and prompt: no git
 * or config volume (rc_desired builds the same body for them as for the
 * scratch volume). */
static const char *const fixture_file[RC_ROLE_COUNT] = {
    [RC_ROLE_NETWORK] = "network.json",     [RC_ROLE_PROXY] = "proxy.json",
    [RC_ROLE_WORKSPACE] = "workspace.json", [RC_ROLE_SCRATCH] = "scratch.json",
    [RC_ROLE_KEEPER] = "keeper.json",       [RC_ROLE_AGENT] = "agent.json",
};

static void
source_path(const char *rel, char *out, size_t size)
{
    const char *root = getenv("AGENTCTL_SOURCE_DIR");

    snprintf(out, size, "%s/%s", root ? root : TEST_SOURCE_DIR, rel);
}

char *
drift_read_text(const char *rel)
{
    char path[1024];
    FILE *f;
    long n;
    char *s;

    source_path(rel, path, sizeof(path));
    f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

cJSON *
drift_read_fixture(const char *name)
{
    char rel[256];
    char *text;
    cJSON *j;

    snprintf(rel, sizeof(rel), "tests/unit/fixtures/drift/%s", name);
    text = drift_read_text(rel);
    j = cJSON_Parse(text);
    if (j == NULL)
        fail_msg("%s is not JSON", rel);
    free(text);
    return j;
}

int
drift_fx_setup(void **state)
{
    struct drift_fx *fx = calloc(1, sizeof(*fx));
    struct spec_errors es;
    struct spec_file f;
    struct err e = { 0 };
    struct rc_inputs in;

    drift_fx_inputs(&in);

    assert_non_null(fx);
    fx->cfg = cfg_parse("c.yaml", DRIFT_FX_CFG, strlen(DRIFT_FX_CFG), &es);
    assert_non_null(fx->cfg);
    if (spec_load_buffer("s.yaml", DRIFT_FX_SPEC, strlen(DRIFT_FX_SPEC), &f) !=
        0)
        fail_msg("fixture spec does not load");
    fx->inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    fx->d = rc_desired_build(fx->inv, fx->cfg, &in, &e);
    if (fx->d == NULL)
        fail_msg("build: %s: %s", e.field, e.msg);
    for (int r = 0; r < RC_ROLE_COUNT; r++)
        if (fixture_file[r] != NULL)
            fx->obj[r] = drift_read_fixture(fixture_file[r]);
    fx->images = drift_read_fixture("images.json");
    *state = fx;
    return 0;
}

int
drift_fx_teardown(void **state)
{
    struct drift_fx *fx = *state;

    for (int r = 0; r < RC_ROLE_COUNT; r++)
        cJSON_Delete(fx->obj[r]);
    cJSON_Delete(fx->images);
    rc_desired_free(fx->d);
    spec_invocation_free(fx->inv);
    cfg_free(fx->cfg);
    free(fx);
    return 0;
}
