/* fuzz_rc_drift.c - libFuzzer target for the drift rules (plan/rc_drift*)
 * fed Docker's inspect documents: the path the revalidation takes
 * (controller/drift/drift_verify.c) from the reply body (cJSON_ParseWithLength,
 * as dk_finish.c parses it) to rc_drift_check(), rc_drift_check_missing()
 * for a recorded ID that answered 404, or rc_drift_check_neighbour() for
 * another container.
 *
 * The desired state and the record are those of the drift unit tests'
 * fixture (tests/unit/drift_fixture_text.h: the objects captured in
 * tests/unit/fixtures/drift/), so the captured documents are the seeds and
 * a mutation is one field away from a real verdict. Byte 0 picks the role
 * and the check, byte 1 the record's variations (volume CreatedAt
 * checked, proxy not yet on egress, a rule switched off); the rest is the
 * document.
 *
 * Invariants: no crash, leak or UB; the verdict is deterministic (two
 * parses of the same bytes, checked separately, give the same return
 * and the same report, byte for byte); a report names a rule that drifted
 * and is a string within its field; and no report ever holds the
 * credential, whatever the document carries (rc_drift.h: every value is
 * scrubbed of it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "drift_fixture_text.h"
#include "rc_drift.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The roles the fixture has an object for, as the verifier names them. */
static const enum rc_role roles[] = {
    RC_ROLE_NETWORK, RC_ROLE_PROXY,  RC_ROLE_WORKSPACE,
    RC_ROLE_SCRATCH, RC_ROLE_KEEPER, RC_ROLE_AGENT,
};
#define NROLES (sizeof(roles) / sizeof(roles[0]))

static const char *const fixture_file[NROLES] = {
    "network.json", "proxy.json",  "workspace.json",
    "scratch.json", "keeper.json", "agent.json",
};

/* Made once and kept for the whole run (reachable: no leak report). */
static struct cfg *cfg;
static struct spec_invocation *inv;
static struct rc_desired *desired;
static cJSON *recorded[NROLES]; /* what the controller saw at creation */
static cJSON *images;

static cJSON *
read_fixture(const char *name)
{
    char path[1024], *text;
    FILE *f;
    long n;
    cJSON *j;

    snprintf(path, sizeof(path), "%s/tests/unit/fixtures/drift/%s",
             FUZZ_SOURCE_DIR, name);
    f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) == -1 || (n = ftell(f)) < 0)
        abort();
    rewind(f);
    text = malloc((size_t)n + 1);
    if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    j = cJSON_ParseWithLength(text, (size_t)n);
    free(text);
    if (j == NULL)
        abort();
    return j;
}

/* The fixture's desired state, built as the drift unit tests build it. */
static void
setup_once(void)
{
    struct spec_errors es;
    struct spec_file f;
    struct rc_inputs in;

    drift_fx_inputs(&in);
    cfg = cfg_parse("c.yaml", DRIFT_FX_CFG, strlen(DRIFT_FX_CFG), &es);
    if (cfg == NULL ||
        spec_load_buffer("s.yaml", DRIFT_FX_SPEC, strlen(DRIFT_FX_SPEC), &f))
        abort();
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    desired = rc_desired_build(inv, cfg, &in, NULL);
    if (desired == NULL)
        abort();
    for (size_t i = 0; i < NROLES; i++)
        recorded[i] = read_fixture(fixture_file[i]);
    images = read_fixture("images.json");
}

static const char *
str_at(const cJSON *j, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, key));
}

static const cJSON *
image_config(const char *image_id)
{
    const cJSON *im;

    cJSON_ArrayForEach(im, images)
    {
        if (image_id != NULL && str_at(im, "Id") != NULL &&
            strcmp(str_at(im, "Id"), image_id) == 0)
            return cJSON_GetObjectItemCaseSensitive(im, "Config");
    }
    return NULL;
}

static const char *const both[] = { PROXY_ID, AGENT_ID };
static const char *const internal[] = { NET };

/* What the controller recorded for role i: from the captured object,
 * never from the document under test. */
static void
expect_for(size_t i, uint8_t var, struct rc_drift_expect *x)
{
    const cJSON *o = recorded[i];

    memset(x, 0, sizeof(*x));
    x->id = str_at(o, "Id");
    if (var & 1)
        x->created_at = str_at(o, "CreatedAt");
    if (roles[i] == RC_ROLE_NETWORK) {
        x->allowed = both;
        x->n_allowed = 2;
        x->required = both;
        x->n_required = (var >> 1) & 1 ? 1 : 2;
    } else if (x->id != NULL) {
        x->image_id = str_at(o, "Image");
        x->image_config = image_config(x->image_id);
        x->pinned_image = (var & 2) ? x->image_id : NULL;
    }
    if (roles[i] == RC_ROLE_PROXY && (var & 4)) {
        x->networks = internal; /* created, not yet joined to egress */
        x->n_networks = 1;
    }
    if (var & 8)
        rc_drift_set_add(&x->disabled_rules, (size_t)(var >> 4));
}

/* One check of the document, as the verifier would make it. */
static int
check(uint8_t mode, uint8_t var, const char *doc, size_t len,
      struct rc_drift_report *out)
{
    static const struct rc_drift_neighbours ours = { .container_ids = {
        [RC_ROLE_PROXY] = PROXY_ID, [RC_ROLE_AGENT] = AGENT_ID } };
    size_t i = mode % NROLES;
    struct rc_drift_expect x;
    cJSON *j = cJSON_ParseWithLength(doc, len);
    int rc;

    memset(out, 0, sizeof(*out));
    expect_for(i, var, &x);
    switch (mode / NROLES % 3) {
    case 0:
        rc = j == NULL ? -1 : rc_drift_check(desired, roles[i], j, &x, out);
        break;
    case 1:
        rc = rc_drift_check_missing(desired, roles[i], j, &x, out);
        break;
    default:
        (void)rc_drift_neighbour_needs_inspect(j);
        rc = j == NULL ? -1
                       : rc_drift_check_neighbour(desired, j, &ours,
                                                  &x.disabled_rules, out);
        break;
    }
    cJSON_Delete(j);
    return rc;
}

static void
check_string(const char *s, size_t cap)
{
    if (memchr(s, '\0', cap) == NULL)
        abort(); /* not terminated within its field */
    if (strstr(s, SECRET) != NULL)
        abort(); /* the credential in a report */
}

static void
check_report(const struct rc_drift_report *r)
{
    int bit = r->rule != NULL ? rc_drift_rule_by_id(r->rule) : -1;

    if (bit < 0 || !rc_drift_set_has(&r->drifted, (size_t)bit) ||
        r->count == 0)
        abort(); /* a drift without a rule that found it */
    check_string(r->object, sizeof(r->object));
    check_string(r->field, sizeof(r->field));
    check_string(r->expected, sizeof(r->expected));
    check_string(r->observed, sizeof(r->observed));
    check_string(r->message, sizeof(r->message));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rc_drift_report a, b;
    const char *doc = (const char *)data + 2;
    int ra, rb;

    if (size < 2)
        return 0;
    if (desired == NULL)
        setup_once();
    ra = check(data[0], data[1], doc, size - 2, &a);
    rb = check(data[0], data[1], doc, size - 2, &b);
    if (ra != rb || memcmp(&a, &b, sizeof(a)) != 0)
        abort(); /* the same document judged twice, two verdicts */
    if (ra < -1 || ra > 1)
        abort();
    if (ra == 1)
        check_report(&a);
    return 0;
}
