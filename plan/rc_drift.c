/* rc_drift.c - check one inspect result against the desired body and what
 * the controller recorded, rule by rule (rc_drift_rules.c), and say what
 * differs. Pure: no Docker, no I/O. Every rule is evaluated so the report
 * knows all rules that found drift; the details are the first one's.
 *
 * Values in the report are short JSON text, scrubbed of the credential
 * before they are cut short (a cut could leave a prefix of it behind). */
#include "rc_drift.h"
#include "rc_drift_int.h"
#include "rc_harden.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DR_REDACTED "<redacted>"

/* ---- small JSON helpers ------------------------------------------------ */

/* The value at a dotted inspect path ("HostConfig.RestartPolicy"). */
const cJSON *
rc_drift__get(const cJSON *root, const char *path)
{
    char key[64];

    while (root != NULL && *path != '\0') {
        size_t n = strcspn(path, ".");

        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        root = cJSON_GetObjectItemCaseSensitive(root, key);
        path += n + (path[n] == '.');
    }
    return root;
}

/* null, absent, [] and {} are the same to Docker's inspect. */
bool
rc_drift__empty(const cJSON *j)
{
    return j == NULL || cJSON_IsNull(j) ||
           ((cJSON_IsArray(j) || cJSON_IsObject(j)) && j->child == NULL);
}

bool
rc_drift__equal(const cJSON *a, const cJSON *b)
{
    if (rc_drift__empty(a) || rc_drift__empty(b))
        return rc_drift__empty(a) && rc_drift__empty(b);
    return cJSON_Compare(a, b, true);
}

const char *
rc_drift__str(const cJSON *j)
{
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* Replace every copy of secret in the heap string *s. -1 out of memory. */
static int
dr_scrub(char **s, const char *secret)
{
    char *hit;

    if (secret == NULL || secret[0] == '\0')
        return 0;
    while ((hit = strstr(*s, secret)) != NULL) {
        size_t pre = (size_t)(hit - *s), sl = strlen(secret);
        size_t n = strlen(*s) - sl + sizeof(DR_REDACTED);
        char *t = malloc(n);

        if (t == NULL)
            return -1;
        snprintf(t, n, "%.*s%s%s", (int)pre, *s, DR_REDACTED, hit + sl);
        free(*s);
        *s = t;
    }
    return 0;
}

int
rc_drift__put(const struct rc_desired *d, char *dst, size_t n, const char *src)
{
    char *s = strdup(src);

    if (s == NULL || dr_scrub(&s, d->secret) == -1) {
        free(s);
        return -1;
    }
    if (strlen(s) >= n)
        snprintf(dst, n, "%.*s...", (int)(n - 4), s);
    else
        snprintf(dst, n, "%s", s);
    free(s);
    return 0;
}

static int
dr_put(const struct rc_drift_ctx *c, char *dst, size_t n, const char *src)
{
    return rc_drift__put(c->d, dst, n, src);
}

/* Compact JSON of j ("null" when absent) into dst. */
static int
dr_text(const struct rc_drift_ctx *c, char *dst, size_t n, const cJSON *j)
{
    char *s = j != NULL ? cJSON_PrintUnformatted(j) : NULL;
    int rc;

    if (j != NULL && s == NULL)
        return -1;
    rc = dr_put(c, dst, n, s != NULL ? s : "null");
    free(s);
    return rc;
}

/* Fill f: field, expected, observed. Returns 1 (drift) or -1. */
int
rc_drift__found(const struct rc_drift_ctx *c, struct rc_drift_find *f,
                const char *field, const cJSON *exp, const cJSON *obs)
{
    snprintf(f->field, sizeof(f->field), "%s", field);
    if (dr_text(c, f->expected, sizeof(f->expected), exp) == -1 ||
        dr_text(c, f->observed, sizeof(f->observed), obs) == -1)
        return -1;
    return 1;
}

void
rc_drift__detail(struct rc_drift_find *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
    va_end(ap);
}

/* Report the first differing key when both sides are objects, so the
 * field names the exact key (HostConfig.RestartPolicy.Name). */
static int
dr_found_diff(const struct rc_drift_ctx *c, struct rc_drift_find *f,
              const char *field, const cJSON *exp, const cJSON *obs)
{
    char sub[RC_DRIFT_FIELD_MAX];
    const cJSON *k;

    if (!cJSON_IsObject(exp) || !cJSON_IsObject(obs) || rc_drift__empty(exp) ||
        rc_drift__empty(obs))
        return rc_drift__found(c, f, field, exp, obs);
    for (int pass = 0; pass < 2; pass++) {
        const cJSON *from = pass == 0 ? exp : obs;

        cJSON_ArrayForEach(k, from)
        {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(exp, k->string);
            const cJSON *o = cJSON_GetObjectItemCaseSensitive(obs, k->string);

            if (rc_drift__equal(e, o))
                continue;
            snprintf(sub, sizeof(sub), "%s.%s", field, k->string);
            return dr_found_diff(c, f, sub, e, o);
        }
    }
    return rc_drift__found(c, f, field, exp, obs);
}

/* ---- comparators -------------------------------------------------------- */

/* The expected value of an EXACT-like rule: the body's, else the default
 * (parsed into *tmp, which the caller deletes). */
static const cJSON *
dr_want(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
        cJSON **tmp)
{
    const cJSON *w = r->want ? rc_json_at(c->o->body, r->want) : NULL;

    *tmp = NULL;
    if (w != NULL || r->def == NULL)
        return w;
    *tmp = cJSON_Parse(r->def);
    return *tmp;
}

static int
dr_cmp_exact(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
             struct rc_drift_find *f)
{
    cJSON *tmp;
    const cJSON *exp = dr_want(c, r, &tmp);
    const cJSON *obs = rc_drift__get(c->inspect, r->path);
    int rc = 0;

    if (exp == NULL && r->def != NULL)
        return -1;
    if (!rc_drift__equal(exp, obs))
        rc = dr_found_diff(c, f, r->path, exp, obs);
    cJSON_Delete(tmp);
    return rc;
}

/* obs (reported as `field`) is the string want. */
int
rc_drift__cmp_str_at(const struct rc_drift_ctx *c, const char *field,
                     const cJSON *obs, const char *want,
                     struct rc_drift_find *f)
{
    cJSON *exp;
    int rc;

    if (rc_drift__str(obs) != NULL && strcmp(rc_drift__str(obs), want) == 0)
        return 0;
    exp = cJSON_CreateString(want);
    if (exp == NULL)
        return -1;
    rc = rc_drift__found(c, f, field, exp, obs);
    cJSON_Delete(exp);
    return rc;
}

static int
dr_cmp_string(const struct rc_drift_ctx *c, const char *path, const char *want,
              struct rc_drift_find *f)
{
    return rc_drift__cmp_str_at(c, path, rc_drift__get(c->inspect, path), want,
                                f);
}

static int
dr_cmp_recorded(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
                struct rc_drift_find *f)
{
    char name[RC_NAME_MAX + 1];

    switch (r->cmp) {
    case RC_CMP_ID:
        return dr_cmp_string(c, r->path, c->x->id, f);
    case RC_CMP_CREATED_AT:
        return dr_cmp_string(c, r->path, c->x->created_at, f);
    case RC_CMP_IMAGE_ID:
        return dr_cmp_string(c, r->path, c->x->image_id, f);
    case RC_CMP_PINNED_IMAGE:
        if (c->x->pinned_image == NULL)
            return 0; /* captured before helper images were pinned */
        return dr_cmp_string(c, r->path, c->x->pinned_image, f);
    case RC_CMP_CGROUPNS: {
        const cJSON *w = rc_json_at(c->o->body, r->want);
        const char *def =
            c->x->cgroupns_default ? c->x->cgroupns_default : "host";

        return dr_cmp_string(c, r->path,
                             rc_drift__str(w) ? rc_drift__str(w) : def, f);
    }
    default:
        snprintf(name, sizeof(name), "/%s", c->o->name);
        return dr_cmp_string(c, r->path, name, f);
    }
}

/* Body value, else what the image gives (Entrypoint, Cmd, User,
 * WorkingDir). A body Entrypoint clears the image's Cmd. */
static int
dr_cmp_from_image(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
                  struct rc_drift_find *f)
{
    const char *key = strrchr(r->path, '.') + 1;
    const cJSON *exp = rc_json_at(c->o->body, r->want);
    const cJSON *obs = rc_drift__get(c->inspect, r->path);

    if (exp == NULL && !(strcmp(key, "Cmd") == 0 &&
                         rc_json_at(c->o->body, "/Entrypoint") != NULL))
        exp = cJSON_GetObjectItemCaseSensitive(c->x->image_config, key);
    if (cJSON_IsString(exp) && exp->valuestring[0] == '\0')
        exp = NULL; /* "" and absent are the same for User, WorkingDir */
    if (cJSON_IsString(obs) && obs->valuestring[0] == '\0')
        obs = NULL;
    if (rc_drift__equal(exp, obs))
        return 0;
    return rc_drift__found(c, f, r->path, exp, obs);
}

/* Config.Labels: the body's labels plus the image's whose key the body
 * does not set. */
static int
dr_cmp_labels(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
              struct rc_drift_find *f)
{
    const cJSON *img =
        cJSON_GetObjectItemCaseSensitive(c->x->image_config, "Labels");
    const cJSON *body = rc_json_at(c->o->body, r->want), *k;
    const cJSON *obs = rc_drift__get(c->inspect, r->path);
    cJSON *exp =
        cJSON_IsObject(img) ? cJSON_Duplicate(img, true) : cJSON_CreateObject();
    int rc = 0;

    if (exp == NULL)
        return -1;
    cJSON_ArrayForEach(k, body)
    {
        cJSON *v = cJSON_Duplicate(k, false);

        cJSON_DeleteItemFromObjectCaseSensitive(exp, k->string);
        if (v == NULL || !cJSON_AddItemToObject(exp, k->string, v)) {
            cJSON_Delete(v);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && !rc_drift__equal(exp, obs))
        rc = dr_found_diff(c, f, r->path, exp, obs);
    cJSON_Delete(exp);
    return rc;
}

/* ---- Env ---------------------------------------------------------------- */

static size_t
dr_env_keylen(const char *kv)
{
    return strcspn(kv, "=");
}

/* The entry of list with kv's key, or NULL. */
static const char *
dr_env_find(const cJSON *list, const char *kv)
{
    size_t n = dr_env_keylen(kv);
    const cJSON *e;

    cJSON_ArrayForEach(e, list)
    {
        const char *s = rc_drift__str(e);

        if (s != NULL && dr_env_keylen(s) == n && strncmp(s, kv, n) == 0)
            return s;
    }
    return NULL;
}

/* One differing variable: key, and how the two sides look. */
static int
dr_env_found(const struct rc_drift_ctx *c, struct rc_drift_find *f,
             const char *kv, const char *exp, const char *obs)
{
    int n = (int)dr_env_keylen(kv);
    const char *how = exp == NULL   ? "added"
                      : obs == NULL ? "missing"
                                    : "differs";
    char buf[RC_DRIFT_VALUE_MAX];

    snprintf(f->field, sizeof(f->field), "Config.Env");
    for (int side = 0; side < 2; side++) {
        const char *v = side == 0 ? exp : obs;
        char *dst = side == 0 ? f->expected : f->observed;
        size_t cap = side == 0 ? sizeof(f->expected) : sizeof(f->observed);
        cJSON *s;

        if (v != NULL && c->hide_env)
            snprintf(buf, sizeof(buf), "%.*s=" DR_REDACTED, n, kv);
        s = v == NULL ? NULL : cJSON_CreateString(c->hide_env ? buf : v);
        if ((v != NULL && s == NULL) || dr_text(c, dst, cap, s) == -1) {
            cJSON_Delete(s);
            return -1;
        }
        cJSON_Delete(s);
    }
    if (c->hide_env)
        rc_drift__detail(f, "Env %.*s %s", n, kv, how);
    else
        rc_drift__detail(f, "Config.Env %.*s %s: %s, expected %s", n, kv, how,
                         f->observed, f->expected);
    return 1;
}

/* Observed Env = body Env + the image's variables whose key the body does
 * not set; nothing else, nothing twice. */
static int
dr_cmp_env(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
           struct rc_drift_find *f)
{
    const cJSON *body = rc_json_at(c->o->body, r->want);
    const cJSON *img =
        cJSON_GetObjectItemCaseSensitive(c->x->image_config, "Env");
    const cJSON *obs = rc_drift__get(c->inspect, r->path), *e;
    int n_exp = 0;

    for (int pass = 0; pass < 2; pass++) {
        const cJSON *list = pass == 0 ? body : img;

        cJSON_ArrayForEach(e, list)
        {
            const char *kv = rc_drift__str(e), *seen;

            if (kv == NULL || (pass == 1 && dr_env_find(body, kv) != NULL))
                continue;
            n_exp++;
            seen = dr_env_find(obs, kv);
            if (seen == NULL || strcmp(seen, kv) != 0)
                return dr_env_found(c, f, kv, kv, seen);
        }
    }
    cJSON_ArrayForEach(e, obs)
    {
        const char *kv = rc_drift__str(e);

        if (kv == NULL)
            return rc_drift__found(c, f, r->path, NULL, e);
        if (dr_env_find(body, kv) == NULL && dr_env_find(img, kv) == NULL)
            return dr_env_found(c, f, kv, NULL, kv);
    }
    if (cJSON_GetArraySize(obs) != n_exp) {
        rc_drift__detail(f, "Config.Env has a variable twice");
        snprintf(f->field, sizeof(f->field), "%s", r->path);
        snprintf(f->expected, sizeof(f->expected), "%d", n_exp);
        snprintf(f->observed, sizeof(f->observed), "%d",
                 cJSON_GetArraySize(obs));
        return 1;
    }
    return 0;
}

/* AppArmorProfile: the profile of the body's "apparmor=<p>" SecurityOpt,
 * else "" - the controller sets it exactly when the host has AppArmor,
 * and on such a host Docker would put docker-default there by itself. */
static int
dr_cmp_apparmor(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
                struct rc_drift_find *f)
{
    const cJSON *opts = rc_json_at(c->o->body, r->want), *o;
    const char *want = "";
    const char *seen = rc_drift__str(rc_drift__get(c->inspect, r->path));
    bool named = false;

    cJSON_ArrayForEach(o, opts)
    {
        const char *s = rc_drift__str(o);

        if (s != NULL && strncmp(s, "apparmor=", 9) == 0) {
            want = s + 9;
            named = true;
        }
    }
    /* A body of an older version (it states no MaskedPaths) named no
     * profile even where the host has AppArmor: Docker's own default or
     * none is what its boxes show. */
    if (!named && rc_json_at(c->o->body, "/HostConfig/MaskedPaths") == NULL &&
        seen != NULL && strcmp(seen, RC_APPARMOR_PROFILE) == 0)
        return 0;
    return dr_cmp_string(c, r->path, want, f);
}

/* ---- the check ---------------------------------------------------------- */

static int
dr_rule(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
        struct rc_drift_find *f)
{
    switch (r->cmp) {
    case RC_CMP_GONE:
        return 0; /* it answered: rc_drift_check_missing() judges a 404 */
    case RC_CMP_APPARMOR:
        return dr_cmp_apparmor(c, r, f);
    case RC_CMP_NEIGHBOUR:
        return 0; /* about other containers: rc_drift_check_neighbour() */
    case RC_CMP_CANARY:
        return 0; /* the probe's verdict while running: box_canary.c */
    case RC_CMP_WAITING:
        return rc_drift__cmp_waiting(c, r, f);
    case RC_CMP_EXACT:
        return dr_cmp_exact(c, r, f);
    case RC_CMP_ID:
    case RC_CMP_CREATED_AT:
    case RC_CMP_NAME:
    case RC_CMP_IMAGE_ID:
    case RC_CMP_PINNED_IMAGE:
    case RC_CMP_CGROUPNS:
        return dr_cmp_recorded(c, r, f);
    case RC_CMP_LABELS_IMAGE:
        return dr_cmp_labels(c, r, f);
    case RC_CMP_ENV_IMAGE:
        return dr_cmp_env(c, r, f);
    case RC_CMP_FROM_IMAGE:
        return dr_cmp_from_image(c, r, f);
    case RC_CMP_IPAM:
        return rc_drift__cmp_ipam(c, r, f);
    case RC_CMP_ENDPOINTS_EXTRA:
    case RC_CMP_ENDPOINTS_MISSING:
        return rc_drift__cmp_endpoints(c, r, f);
    case RC_CMP_NETWORKS:
        return rc_drift__cmp_networks(c, r, f);
    case RC_CMP_PORTS_LIVE:
        return rc_drift__cmp_ports_live(c, r, f);
    case RC_CMP_MOUNTS:
        return rc_drift__cmp_mounts(c, r, f);
    case RC_CMP_LIVE_MOUNTS:
        return rc_drift__cmp_live_mounts(c, r, f);
    case RC_CMP_INTERNAL_IP:
        return rc_drift__cmp_internal_ip(c, r, f);
    }
    return -1;
}

/* What each kind of object needs recorded before it can be checked. */
static bool
dr_expect_ok(const struct rc_object *o, const struct rc_drift_expect *x)
{
    switch (o->kind) {
    case RC_KIND_NETWORK:
        return x->id != NULL;
    case RC_KIND_VOLUME:
        return true; /* created_at NULL skips volume.created-at */
    case RC_KIND_CONTAINER:
        return x->id != NULL && x->image_id != NULL &&
               cJSON_IsObject(x->image_config);
    }
    return false;
}

/* The first finding into the report; field and message scrubbed too. */
static int
dr_report(const struct rc_drift_ctx *c, const struct rc_drift_rule *r,
          const struct rc_drift_find *f, struct rc_drift_report *out)
{
    char msg[2 * RC_DRIFT_MSG_MAX + RC_NAME_MAX + RC_DRIFT_FIELD_MAX];
    const char *who = rc_role_name(c->o->role);

    out->rule = r->id;
    out->role = c->o->role;
    snprintf(out->object, sizeof(out->object), "%s", c->o->name);
    memcpy(out->expected, f->expected, sizeof(out->expected));
    memcpy(out->observed, f->observed, sizeof(out->observed));
    if (f->detail[0] != '\0')
        snprintf(msg, sizeof(msg), "%s %s: %s", who, c->o->name, f->detail);
    else
        snprintf(msg, sizeof(msg), "%s %s: %s is %s, expected %s", who,
                 c->o->name, f->field, f->observed, f->expected);
    if (dr_put(c, out->field, sizeof(out->field), f->field) == -1 ||
        dr_put(c, out->message, sizeof(out->message), msg) == -1)
        return -1;
    return 0;
}

int
rc_drift_check(const struct rc_desired *d, enum rc_role role,
               const cJSON *inspect, const struct rc_drift_expect *x,
               struct rc_drift_report *out)
{
    struct rc_drift_report rep;
    struct rc_drift_ctx c;

    if (d == NULL || x == NULL || out == NULL || !cJSON_IsObject(inspect) ||
        (unsigned)role >= RC_ROLE_COUNT)
        return -1;
    c.d = d;
    c.o = rc_desired_object(d, role);
    c.inspect = inspect;
    c.x = x;
    if (c.o == NULL || !dr_expect_ok(c.o, x))
        return -1;
    c.hide_env = c.o->sensitive || role == RC_ROLE_AGENT;
    memset(&rep, 0, sizeof(rep));
    for (size_t i = 0; i < rc_drift_rule_count(); i++) {
        const struct rc_drift_rule *r = rc_drift_rule_at(i);
        struct rc_drift_find f;
        int rc;

        if (!(r->roles & RC_DRIFT_ROLE(role)) ||
            rc_drift_set_has(&x->disabled_rules, i) ||
            (r->cmp == RC_CMP_CREATED_AT && x->created_at == NULL))
            continue;
        memset(&f, 0, sizeof(f));
        rc = dr_rule(&c, r, &f);
        if (rc == -1)
            return -1;
        if (rc == 0)
            continue;
        if (rep.count++ == 0 && dr_report(&c, r, &f, &rep) == -1)
            return -1;
        rc_drift_set_add(&rep.drifted, i);
    }
    *out = rep;
    return rep.count > 0;
}

/* ---- the recorded ID answered 404 --------------------------------------- */

/* The role's rule of comparison cmp (the ID rule, object.gone), or -1. */
static int
dr_rule_of(enum rc_drift_cmp cmp, enum rc_role role)
{
    for (size_t i = 0; i < rc_drift_rule_count(); i++) {
        const struct rc_drift_rule *r = rc_drift_rule_at(i);

        if (r->cmp == cmp && (r->roles & RC_DRIFT_ROLE(role)))
            return (int)i;
    }
    return -1;
}

/* Nothing under the recorded ID nor the name. */
static int
dr_gone(const struct rc_drift_ctx *c, struct rc_drift_find *f)
{
    bool volume = c->o->kind == RC_KIND_VOLUME;
    cJSON *exp = cJSON_CreateString(volume ? c->o->name : c->x->id);
    int rc;

    if (exp == NULL)
        return -1;
    rc = rc_drift__found(c, f, volume ? "Name" : "Id", exp, NULL);
    cJSON_Delete(exp);
    if (volume)
        rc_drift__detail(f, "removed behind the controller's back "
                            "(nothing is under its name)");
    else
        rc_drift__detail(f,
                         "removed behind the controller's back (recorded ID "
                         "%.*s is gone and nothing is under its name)",
                         DR_SHORT_ID, c->x->id);
    return rc;
}

int
rc_drift_check_missing(const struct rc_desired *d, enum rc_role role,
                       const cJSON *by_name, const struct rc_drift_expect *x,
                       struct rc_drift_report *out)
{
    struct rc_drift_report rep;
    struct rc_drift_find f;
    struct rc_drift_ctx c;
    int i, rc;

    if (d == NULL || x == NULL || out == NULL ||
        (unsigned)role >= RC_ROLE_COUNT ||
        (by_name != NULL && !cJSON_IsObject(by_name)))
        return -1;
    c.d = d;
    c.o = rc_desired_object(d, role);
    c.inspect = by_name;
    c.x = x;
    c.hide_env = false;
    if (c.o == NULL ||
        (c.o->kind == RC_KIND_VOLUME ? by_name != NULL : x->id == NULL))
        return -1;
    i = dr_rule_of(by_name != NULL ? RC_CMP_ID : RC_CMP_GONE, role);
    if (i < 0)
        return -1;
    memset(&rep, 0, sizeof(rep));
    memset(&f, 0, sizeof(f));
    *out = rep;
    if (rc_drift_set_has(&x->disabled_rules, (size_t)i))
        return 0;
    rc = by_name != NULL ? dr_rule(&c, rc_drift_rule_at((size_t)i), &f)
                         : dr_gone(&c, &f);
    if (rc != 1)
        return rc;
    if (by_name != NULL)
        rc_drift__detail(&f,
                         "a stand-in holds the name: Id is %s, expected "
                         "the recorded %s (removed and recreated behind "
                         "the controller's back; left in place)",
                         f.observed, f.expected);
    if (dr_report(&c, rc_drift_rule_at((size_t)i), &f, &rep) == -1)
        return -1;
    rep.count = 1;
    rc_drift_set_add(&rep.drifted, (size_t)i);
    *out = rep;
    return 1;
}
