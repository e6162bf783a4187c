/* ctl_record.c - the attempt record in memory: its setters, the recorded
 * objects by role, progress, conditions, and the two resets.
 *
 * Setters mark the record dirty so that inv_status_flush() writes it
 * before the next Docker call; ctl_record_json.c turns it into the status
 * document and back.
 */
#include "ctl_record.h"
#include "ctl_record_int.h"
#include "spec.h"

#include <stdlib.h>
#include <string.h>

/* --- memory ------------------------------------------------------------ */

char *
ctl_record__dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

static void
res_clear(struct ctl_record_res *o)
{
    free(o->id);
    free(o->name);
    free(o->image);
    cJSON_Delete(o->extra);
    memset(o, 0, sizeof(*o));
}

static void
cond_clear(struct ctl_record_cond *c)
{
    free(c->type);
    free(c->status_text);
    free(c->reason);
    free(c->message);
    free(c->time);
}

static void
pairs_free(struct ctl_record_pair *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].key);
        free(p[i].value);
    }
    free(p);
}

void
ctl_record_cleanup(struct ctl_record *r)
{
    ctl_record__free_strings(r);
    for (int i = 0; i < CTL_REC_ROLES; i++)
        res_clear(&r->res[i]);
    for (size_t i = 0; i < r->nconds; i++)
        cond_clear(&r->conds[i]);
    free(r->conds);
    pairs_free(r->used, r->nused);
    pairs_free(r->standins, r->nstandins);
    free(r->output.sha256);
    cJSON_Delete(r->captured);
    spec_invocation_free(r->captured_spec);
    cJSON_Delete(r->git);
    cJSON_Delete(r->result);
    cJSON_Delete(r->usage);
    cJSON_Delete(r->egress);
    cJSON_Delete(r->box);
    cJSON_Delete(r->progress_extra);
    cJSON_Delete(r->res_extra);
    cJSON_Delete(r->helper_extra);
    cJSON_Delete(r->extra);
    memset(r, 0, sizeof(*r));
}

void
ctl_record_init_new(struct ctl_record *r, const char *controller,
                    const char *uid)
{
    ctl_record_cleanup(r);
    r->present = true;
    r->phase_set = true;
    r->phase = CTL_PENDING;
    r->controller = ctl_record__dup_or_null(controller);
    r->uid = ctl_record__dup_or_null(uid);
    r->dirty = true;
}

void
ctl_record__pair_add(struct ctl_record_pair **p, size_t *n, const char *key,
                     const char *value)
{
    struct ctl_record_pair *np = realloc(*p, (*n + 1) * sizeof(**p));

    if (np == NULL)
        return;
    *p = np;
    np[*n].key = strdup(key);
    np[*n].value = ctl_record__dup_or_null(value);
    if (np[*n].key == NULL) {
        free(np[*n].value);
        return;
    }
    (*n)++;
}

static const struct ctl_record_pair *
pair_find(const struct ctl_record_pair *p, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].key, key) == 0)
            return &p[i];
    return NULL;
}

/* --- setters ----------------------------------------------------------- */

void
ctl_record_set_str(struct ctl_record *r, char **field, const char *v)
{
    if (v == NULL && *field == NULL)
        return;
    if (v != NULL && *field != NULL && strcmp(v, *field) == 0)
        return;
    free(*field);
    *field = ctl_record__dup_or_null(v);
    r->dirty = true;
}

const char *
ctl_record_helper_image(const struct ctl_record *r, enum rc_helper h)
{
    return (unsigned)h < RC_HELPER_COUNT ? r->helper_images[h] : NULL;
}

void
ctl_record_set_helper_image(struct ctl_record *r, enum rc_helper h,
                            const char *v)
{
    if ((unsigned)h < RC_HELPER_COUNT)
        ctl_record_set_str(r, &r->helper_images[h], v);
}

bool
ctl_record_helpers_pinned(const struct ctl_record *r)
{
    /* the gateway's image is pinned only for a vendor that runs one */
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        if (h != RC_HELPER_GATEWAY && r->helper_images[h] == NULL)
            return false;
    return true;
}

void
ctl_record_set_phase(struct ctl_record *r, enum ctl_phase p)
{
    if (r->phase_set && r->phase == p)
        return;
    /* an unreadable phase counted as Pending */
    if (!r->phase_set && p == CTL_PENDING &&
        cJSON_GetObjectItemCaseSensitive(r->extra, "phase") != NULL)
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(r->extra, "phase");
    r->phase = p;
    r->phase_set = true;
    r->dirty = true;
}

void
ctl_record_set_stop(struct ctl_record *r, enum ctl_stop_reason s)
{
    /* an unknown reason lives in `extra` as written: drop it there */
    if (r->stop == CTL_STOP_UNKNOWN)
        cJSON_DeleteItemFromObjectCaseSensitive(r->extra, "stopReason");
    r->stop = s;
    r->dirty = true;
}

void
ctl_record_set_subnet(struct ctl_record *r, long index)
{
    r->has_subnet = true;
    r->subnet_index = index;
    r->dirty = true;
}

void
ctl_record_set_exit_code(struct ctl_record *r, long code)
{
    r->has_exit_code = true;
    r->exit_code = code;
    r->dirty = true;
}

void
ctl_record_set_output(struct ctl_record *r, double bytes, bool truncated,
                      const char *sha256)
{
    r->output.set = true;
    r->output.bytes = bytes;
    r->output.truncated = truncated;
    free(r->output.sha256);
    r->output.sha256 = ctl_record__dup_or_null(sha256);
    r->dirty = true;
}

static void
forget_captured_spec(struct ctl_record *r)
{
    spec_invocation_free(r->captured_spec);
    r->captured_spec = NULL;
}

void
ctl_record_set_captured(struct ctl_record *r, cJSON *captured)
{
    cJSON_Delete(r->captured);
    r->captured = captured;
    forget_captured_spec(r);
    r->dirty = true;
}

void
ctl_record_capture(struct ctl_record *r, struct spec_invocation *s)
{
    cJSON *captured = spec_resource(s);

    ctl_record_set_captured(r, captured);
    /* typed only beside what the status records: without it the attempt
     * fails closed ("the captured spec ... is unreadable"), as a restart
     * or another controller's claim would find it */
    if (captured != NULL)
        r->captured_spec = spec_invocation_ref(s);
}

const cJSON *
ctl_record_captured(const struct ctl_record *r)
{
    return r->captured;
}

/* status.captured as written: its canonical JSON, which the spec loader
 * reads (JSON is YAML) and checks like any spec. */
static struct spec_invocation *
parse_captured(const cJSON *cap)
{
    struct spec_invocation *s = NULL;
    struct spec_file f;
    char *text = cJSON_PrintUnformatted(cap);

    if (text == NULL)
        return NULL;
    if (spec_load_buffer("status.captured", text, strlen(text), &f) == 0)
        s = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    cJSON_free(text);
    return s;
}

struct spec_invocation *
ctl_record_captured_spec(struct ctl_record *r)
{
    if (r->captured_spec == NULL && r->captured != NULL) {
        r->captured_parses++;
        r->captured_spec = parse_captured(r->captured);
    }
    return r->captured_spec;
}

/* --- objects ----------------------------------------------------------- */

const char *
ctl_record_role_id(const struct ctl_record *r, int role)
{
    return role >= 0 && role < CTL_REC_ROLES ? r->res[role].id : NULL;
}

const char *
ctl_record_role_obj_name(const struct ctl_record *r, int role)
{
    return role >= 0 && role < CTL_REC_ROLES ? r->res[role].name : NULL;
}

const char *
ctl_record_role_image(const struct ctl_record *r, int role)
{
    return role >= 0 && role < CTL_REC_ROLES ? r->res[role].image : NULL;
}

/* The progress bit of a container role's answered create, or -1. */
static int
created_bit(int role)
{
    switch (role) {
    case RC_ROLE_PROXY:
        return CTL_PROG_PROXY_CREATED;
    case RC_ROLE_KEEPER:
        return CTL_PROG_KEEPER_CREATED;
    case RC_ROLE_AGENT:
        return CTL_PROG_AGENT_CREATED;
    case RC_ROLE_GATEWAY:
        return CTL_PROG_GATEWAY_CREATED;
    case CTL_REC_PROBE:
        return CTL_PROG_PROBE_CREATED;
    case RC_ROLE_NETWORK:
        return CTL_PROG_NETWORK_CREATED;
    default:
        return -1;
    }
}

void
ctl_record_set_role(struct ctl_record *r, int role, const char *id,
                    const char *name)
{
    struct ctl_record_res *o;
    int bit = created_bit(role);

    if (role < 0 || role >= CTL_REC_ROLES)
        return;
    o = &r->res[role];
    res_clear(o);
    o->set = true;
    o->id = ctl_record__dup_or_null(id);
    o->name = ctl_record__dup_or_null(name);
    if (bit >= 0 && id != NULL)
        r->progress |= 1u << bit;
    r->dirty = true;
}

bool
ctl_record_role_answered(const struct ctl_record *r, const char *role)
{
    int bit = role != NULL ? created_bit(ctl_record_role(role)) : -1;

    return bit >= 0 && (r->progress & (1u << bit)) != 0;
}

void
ctl_record_set_role_image(struct ctl_record *r, int role, const char *image)
{
    /* like the inspect it comes from, only for a recorded object */
    if (role < 0 || role >= CTL_REC_ROLES || !r->res[role].set)
        return;
    free(r->res[role].image);
    r->res[role].image = ctl_record__dup_or_null(image);
    r->dirty = true;
}

void
ctl_record_drop_role(struct ctl_record *r, int role)
{
    if (role >= 0 && role < CTL_REC_ROLES)
        res_clear(&r->res[role]);
    r->dirty = true;
}

void
ctl_record_drop_all_roles(struct ctl_record *r)
{
    for (int i = 0; i < CTL_REC_ROLES; i++)
        res_clear(&r->res[i]);
    cJSON_Delete(r->res_extra);
    r->res_extra = NULL;
    r->dirty = true;
}

bool
ctl_record_holds(const struct ctl_record *r, const char *id, const char *name)
{
    for (int i = 0; i < CTL_REC_ROLES; i++) {
        const struct ctl_record_res *o = &r->res[i];

        if ((id != NULL && o->id != NULL && strcmp(o->id, id) == 0) ||
            (name != NULL && o->name != NULL && strcmp(o->name, name) == 0))
            return true;
    }
    return false;
}

/* --- progress, attempts, stand-ins ------------------------------------- */

bool
ctl_record_done(const struct ctl_record *r, enum ctl_progress p)
{
    return (r->progress & (1u << p)) != 0;
}

void
ctl_record_set_done(struct ctl_record *r, enum ctl_progress p)
{
    r->progress |= 1u << p;
    r->dirty = true;
}

void
ctl_record_clear_done(struct ctl_record *r, enum ctl_progress p)
{
    r->progress &= ~(1u << p);
    r->dirty = true;
}

bool
ctl_record_attempt_used(const struct ctl_record *r, const char *attempt)
{
    return pair_find(r->used, r->nused, attempt) != NULL;
}

void
ctl_record_mark_used(struct ctl_record *r, const char *attempt)
{
    if (!ctl_record_attempt_used(r, attempt))
        ctl_record__pair_add(&r->used, &r->nused, attempt, NULL);
    r->dirty = true;
}

void
ctl_record_add_standin(struct ctl_record *r, const char *id, const char *role)
{
    if (pair_find(r->standins, r->nstandins, id) != NULL)
        return;
    ctl_record__pair_add(&r->standins, &r->nstandins, id, role);
    r->dirty = true;
}

bool
ctl_record_is_standin(const struct ctl_record *r, const char *id)
{
    return id != NULL && pair_find(r->standins, r->nstandins, id) != NULL;
}

/* --- conditions -------------------------------------------------------- */

bool
ctl_record__str_eq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

const struct ctl_record_cond *
ctl_record_condition(const struct ctl_record *r, const char *type)
{
    for (size_t i = 0; i < r->nconds; i++)
        if (ctl_record__str_eq(r->conds[i].type, type))
            return &r->conds[i];
    return NULL;
}

void
ctl_record__cond_append(struct ctl_record *r, const char *type,
                        const char *status, const char *reason,
                        const char *message, const char *time)
{
    struct ctl_record_cond *nc =
        realloc(r->conds, (r->nconds + 1) * sizeof(*nc));

    if (nc == NULL)
        return;
    r->conds = nc;
    nc[r->nconds] = (struct ctl_record_cond){
        .type = ctl_record__dup_or_null(type),
        .status = ctl_record__str_eq(status, "True"),
        .status_text = ctl_record__dup_or_null(status),
        .reason = ctl_record__dup_or_null(reason),
        .message = ctl_record__dup_or_null(message),
        .time = ctl_record__dup_or_null(time),
    };
    r->nconds++;
}

void
ctl_record_set_condition(struct ctl_record *r, const char *type, bool status,
                         const char *reason, const char *message,
                         const char *now)
{
    for (size_t i = 0; i < r->nconds; i++) {
        struct ctl_record_cond *c = &r->conds[i];

        if (!ctl_record__str_eq(c->type, type))
            continue;
        if (ctl_record__str_eq(c->status_text, status ? "True" : "False") &&
            ctl_record__str_eq(c->reason, reason) &&
            ctl_record__str_eq(c->message, message))
            return;
        /* a changed condition moves to the end, as it always did */
        cond_clear(c);
        memmove(c, c + 1, (r->nconds - i - 1) * sizeof(*c));
        r->nconds--;
        break;
    }
    ctl_record__cond_append(r, type, status ? "True" : "False", reason,
                            message, now);
    r->dirty = true;
}

/* --- box --------------------------------------------------------------- */

const char *
ctl_record_box_str(const struct ctl_record *r, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->box, key));
}

void
ctl_record_set_box(struct ctl_record *r, cJSON *box)
{
    if (box == NULL && r->box == NULL)
        return;
    cJSON_Delete(r->box);
    r->box = box;
    r->dirty = true;
}

/* --- egress ------------------------------------------------------------ */

const cJSON *
ctl_record_egress(const struct ctl_record *r)
{
    return r->egress;
}

void
ctl_record_set_egress(struct ctl_record *r, cJSON *egress)
{
    if (egress == NULL && r->egress == NULL)
        return;
    cJSON_Delete(r->egress);
    r->egress = egress;
    r->dirty = true;
}

/* --- git --------------------------------------------------------------- */

const char *
ctl_record_git_str(const struct ctl_record *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->git, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
ctl_record_set_git_str(struct ctl_record *r, const char *key, const char *value)
{
    if (r->git == NULL)
        r->git = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(r->git, key);
    cJSON_AddStringToObject(r->git, key, value);
    r->dirty = true;
}

/* --- resets ------------------------------------------------------------ */

void
ctl_record_reset_progress(struct ctl_record *r)
{
    r->progress = 0;
    cJSON_Delete(r->progress_extra);
    r->progress_extra = NULL;
    r->dirty = true;
}

/* Kept: phase (the caller sets Pending), controller, uid, attempt (the
 * spent ID; the capture sets the next), resources (cleanup emptied them
 * before a new attempt may start), conditions, usedAttempts, standIns
 * (the invocation's history) and unknown keys. */
void
ctl_record_reset_attempt(struct ctl_record *r)
{
    char **drop[] = { &r->started_at,  &r->finished_at, &r->image_id,
                      &r->spec_hash,   &r->captured_at, &r->tool_policy,
                      &r->canary_pending, &r->network_pending,
                      &r->agent_user, &r->credential_mode };

    static const char *const keys[] = {
        "stopReason",
        "startedAt",
        "finishedAt",
        "exitCode",
        "output",
        "progress",
        "cleanedUp",
        "imageID",
        "subnetIndex",
        "captured",
        "specHash",
        "capturedAt",
        "observedGeneration",
        "gitMetadata",
        "git",
        "result",
        "usage",
        "egress",
        "box",
        "toolPolicy",
        "agentUser",
        "credentialMode",
        "defaultsStated",
        "ipForwardOff",
        "launcher",
        "resultChannel",
        "helperImages",
        "canaryPending",
        "networkPending",
    };

    /* the same keys in a form this version could not read go too */
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        cJSON_DeleteItemFromObjectCaseSensitive(r->extra, keys[i]);
    r->stop = CTL_STOP_NONE;
    for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
        free(*drop[i]);
        *drop[i] = NULL;
    }
    r->has_exit_code = false;
    r->output.set = false;
    free(r->output.sha256);
    r->output.sha256 = NULL;
    ctl_record_reset_progress(r);
    r->cleaned_up = false;
    r->has_subnet = false;
    cJSON_Delete(r->captured);
    r->captured = NULL;
    forget_captured_spec(r);
    r->captured_parses = 0;
    r->has_generation = false;
    r->git_metadata = false;
    r->defaults_stated = false;
    r->forwarding_stated = false;
    r->launcher_stated = false;
    r->result_channel = false;
    for (int h = 0; h < RC_HELPER_COUNT; h++) {
        free(r->helper_images[h]);
        r->helper_images[h] = NULL;
    }
    cJSON_Delete(r->helper_extra);
    r->helper_extra = NULL;
    cJSON_Delete(r->git);
    r->git = NULL;
    cJSON_Delete(r->result);
    r->result = NULL;
    cJSON_Delete(r->usage);
    r->usage = NULL;
    ctl_record_set_egress(r, NULL);
    ctl_record_set_box(r, NULL);
    r->dirty = true;
}
