/* ctl_record_json.c - the attempt record's one JSON form, the status
 * document (docs/design.md "Status, events, output"): the names of its enums
 * and the loading and saving of every key.
 *
 * Fields beyond docs/design.md's list, kept for the controller itself:
 * specHash, uid, subnetIndex, usedAttempts, standIns, gitMetadata.
 * A key this version does not know (or one whose value has a type it does
 * not expect) is kept as found and written back after the known ones, so a
 * downgrade never loses what a newer controller recorded. Key order is
 * not part of the format (readers look keys up).
 */
#include "ctl_record.h"
#include "ctl_record_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const phase_names[] = {
    [CTL_PENDING] = "Pending", [CTL_PREPARING] = "Preparing",
    [CTL_RUNNING] = "Running", [CTL_SUCCEEDED] = "Succeeded",
    [CTL_FAILED] = "Failed",   [CTL_CANCELLED] = "Cancelled",
};

static const char *const stop_names[CTL_STOP_COUNT] = {
    [CTL_STOP_DEADLINE] = "deadline",
    [CTL_STOP_CANCELLED] = "cancelled",
    [CTL_STOP_SUPERSEDED] = "superseded",
    [CTL_STOP_DELETED] = "deleted",
    [CTL_STOP_OUTPUT_LIMIT] = "output-limit",
    [CTL_STOP_CAPTURE_FAILURE] = "capture-failure",
    [CTL_STOP_PREPARATION_FAILED] = "preparation-failed",
    [CTL_STOP_AGENT_LOST] = "agent-lost",
    [CTL_STOP_BOUNDARY_DRIFT] = "boundary-drift",
    [CTL_STOP_BOUNDARY_BREACH] = "boundary-breach",
    [CTL_STOP_NODE_LOST] = "node-lost",
};

static const char *const progress_names[CTL_PROG_COUNT] = {
    [CTL_PROG_PROXY_CONNECTED] = "proxyConnected",
    [CTL_PROG_PROXY_STARTED] = "proxyStarted",
    [CTL_PROG_KEEPER_STARTED] = "keeperStarted",
    [CTL_PROG_WORKSPACE_UPLOADED] = "workspaceUploaded",
    [CTL_PROG_CONFIG_UPLOADED] = "configUploaded",
    [CTL_PROG_AGENT_STARTED] = "agentStarted",
    [CTL_PROG_PROBE_STARTED] = "probeStarted",
    [CTL_PROG_BOUNDARY_VERIFIED] = "boundaryVerified",
    [CTL_PROG_PROXY_CREATED] = "proxyCreated",
    [CTL_PROG_KEEPER_CREATED] = "keeperCreated",
    [CTL_PROG_AGENT_CREATED] = "agentCreated",
    [CTL_PROG_PROBE_CREATED] = "probeCreated",
    [CTL_PROG_NETWORK_CREATED] = "networkCreated",
    [CTL_PROG_KEY_UPLOADED] = "keyUploaded",
    [CTL_PROG_GATEWAY_CREATED] = "gatewayCreated",
    [CTL_PROG_GATEWAY_CONNECTED] = "gatewayConnected",
    [CTL_PROG_GATEWAY_STARTED] = "gatewayStarted",
    [CTL_PROG_EGRESS_READ] = "egressRead",
    [CTL_PROG_CHANGES_READ] = "changesRead",
};

const char *
ctl_phase_name(enum ctl_phase p)
{
    return phase_names[p];
}

bool
ctl_phase_terminal(enum ctl_phase p)
{
    return p == CTL_SUCCEEDED || p == CTL_FAILED || p == CTL_CANCELLED;
}

const char *
ctl_stop_reason_name(enum ctl_stop_reason s)
{
    return stop_names[s];
}

/* A key this version could not read, if it is a string. */
static const char *
extra_str(const struct ctl_record *r, const char *key)
{
    return cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(r->extra, key));
}

const char *
ctl_record_phase_text(const struct ctl_record *r)
{
    return r->phase_set ? phase_names[r->phase] : extra_str(r, "phase");
}

const char *
ctl_record_stop_text(const struct ctl_record *r)
{
    return r->stop == CTL_STOP_UNKNOWN ? extra_str(r, "stopReason")
                                       : stop_names[r->stop];
}

const char *
ctl_progress_name(enum ctl_progress p)
{
    return progress_names[p];
}

int
ctl_record_role(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "probe") == 0)
        return CTL_REC_PROBE;
    for (int i = 0; i < RC_ROLE_COUNT; i++)
        if (strcmp(name, rc_role_name((enum rc_role)i)) == 0)
            return i;
    return -1;
}

const char *
ctl_record_role_name(int role)
{
    return role == CTL_REC_PROBE ? "probe" : rc_role_name((enum rc_role)role);
}

/* The plain string fields, in the order they are written. */
static const struct {
    const char *key;
    size_t off;
} str_fields[] = {
    { "controller", offsetof(struct ctl_record, controller) },
    { "uid", offsetof(struct ctl_record, uid) },
    { "attempt", offsetof(struct ctl_record, attempt) },
    { "imageID", offsetof(struct ctl_record, image_id) },
    { "specHash", offsetof(struct ctl_record, spec_hash) },
    { "capturedAt", offsetof(struct ctl_record, captured_at) },
    { "toolPolicy", offsetof(struct ctl_record, tool_policy) },
    { "agentUser", offsetof(struct ctl_record, agent_user) },
    { "credentialMode", offsetof(struct ctl_record, credential_mode) },
    { "startedAt", offsetof(struct ctl_record, started_at) },
    { "finishedAt", offsetof(struct ctl_record, finished_at) },
    { "canaryPending", offsetof(struct ctl_record, canary_pending) },
    { "networkPending", offsetof(struct ctl_record, network_pending) },
};
#define STR_FIELDS (sizeof(str_fields) / sizeof(str_fields[0]))

static char **
str_field(struct ctl_record *r, size_t i)
{
    return (char **)((char *)r + str_fields[i].off);
}

void
ctl_record__free_strings(struct ctl_record *r)
{
    for (size_t i = 0; i < STR_FIELDS; i++)
        free(*str_field(r, i));
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        free(r->helper_images[h]);
}

/* --- loading ----------------------------------------------------------- */

static bool
load_res(struct ctl_record_res *o, const cJSON *obj)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return false;
    o->set = true;
    cJSON_ArrayForEach(it, obj)
    {
        char **f = strcmp(it->string, "id") == 0      ? &o->id
                   : strcmp(it->string, "name") == 0  ? &o->name
                   : strcmp(it->string, "image") == 0 ? &o->image
                                                      : NULL;

        if (f != NULL && cJSON_IsString(it) && *f == NULL) {
            *f = strdup(it->valuestring);
            continue;
        }
        if (o->extra == NULL)
            o->extra = cJSON_CreateObject();
        cJSON_AddItemToObject(o->extra, it->string, cJSON_Duplicate(it, 1));
    }
    return true;
}

static bool
load_resources(struct ctl_record *r, const cJSON *obj)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return false;
    cJSON_ArrayForEach(it, obj)
    {
        int role = ctl_record_role(it->string);

        if (role >= 0 && !r->res[role].set && load_res(&r->res[role], it))
            continue;
        if (r->res_extra == NULL)
            r->res_extra = cJSON_CreateObject();
        cJSON_AddItemToObject(r->res_extra, it->string, cJSON_Duplicate(it, 1));
    }
    return true;
}

static const char *
json_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool
load_conditions(struct ctl_record *r, const cJSON *arr)
{
    const cJSON *it;

    if (!cJSON_IsArray(arr))
        return false;
    cJSON_ArrayForEach(it, arr)
    {
        if (cJSON_IsObject(it))
            ctl_record__cond_append(
                r, json_str(it, "type"), json_str(it, "status"),
                json_str(it, "reason"), json_str(it, "message"),
                json_str(it, "lastTransitionTime"));
    }
    return true;
}

static bool
load_used(struct ctl_record *r, const cJSON *arr)
{
    const cJSON *it;

    if (!cJSON_IsArray(arr))
        return false;
    cJSON_ArrayForEach(it, arr)
    {
        if (cJSON_IsString(it))
            ctl_record__pair_add(&r->used, &r->nused, it->valuestring, NULL);
    }
    return true;
}

static bool
load_standins(struct ctl_record *r, const cJSON *obj)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return false;
    cJSON_ArrayForEach(it, obj)
    {
        if (cJSON_IsString(it))
            ctl_record__pair_add(&r->standins, &r->nstandins, it->string,
                                 it->valuestring);
    }
    return true;
}

static bool
load_progress(struct ctl_record *r, const cJSON *obj)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return false;
    cJSON_ArrayForEach(it, obj)
    {
        size_t p;

        for (p = 0; p < CTL_PROG_COUNT; p++)
            if (strcmp(it->string, progress_names[p]) == 0)
                break;
        if (p < CTL_PROG_COUNT && cJSON_IsTrue(it)) {
            r->progress |= 1u << p;
            continue;
        }
        if (r->progress_extra == NULL)
            r->progress_extra = cJSON_CreateObject();
        cJSON_AddItemToObject(r->progress_extra, it->string,
                              cJSON_Duplicate(it, 1));
    }
    return true;
}

static bool
load_output(struct ctl_record *r, const cJSON *obj)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(obj, "bytes");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "truncated");
    const char *sha = json_str(obj, "sha256");

    if (!cJSON_IsObject(obj) || cJSON_GetArraySize(obj) != 3 ||
        !cJSON_IsNumber(b) || !cJSON_IsBool(t) || sha == NULL)
        return false;
    ctl_record_set_output(r, b->valuedouble, cJSON_IsTrue(t), sha);
    return true;
}

/* helperImages: {proxy, keeper, probe} -> image ID; other keys (a newer
 * version's helpers) ride along. */
static bool
load_helpers(struct ctl_record *r, const cJSON *obj)
{
    const cJSON *it;

    if (!cJSON_IsObject(obj))
        return false;
    cJSON_ArrayForEach(it, obj)
    {
        int h;

        for (h = 0; h < RC_HELPER_COUNT; h++)
            if (strcmp(it->string, rc_helper_name((enum rc_helper)h)) == 0)
                break;
        if (h < RC_HELPER_COUNT && cJSON_IsString(it) &&
            r->helper_images[h] == NULL) {
            r->helper_images[h] = strdup(it->valuestring);
            continue;
        }
        if (r->helper_extra == NULL)
            r->helper_extra = cJSON_CreateObject();
        cJSON_AddItemToObject(r->helper_extra, it->string,
                              cJSON_Duplicate(it, 1));
    }
    return true;
}

static bool
load_phase(struct ctl_record *r, const cJSON *v)
{
    for (size_t i = 0; cJSON_IsString(v) && i < 6; i++)
        if (strcmp(v->valuestring, phase_names[i]) == 0) {
            r->phase = (enum ctl_phase)i;
            r->phase_set = true;
            return true;
        }
    return false;
}

static bool
load_stop(struct ctl_record *r, const cJSON *v)
{
    if (!cJSON_IsString(v))
        return false;
    for (size_t i = 1; i < CTL_STOP_UNKNOWN; i++)
        if (strcmp(v->valuestring, stop_names[i]) == 0) {
            r->stop = (enum ctl_stop_reason)i;
            return true;
        }
    r->stop = CTL_STOP_UNKNOWN; /* stopped; the text stays in `extra` */
    return false;
}

static bool
load_number(const cJSON *v, bool *has, double *out)
{
    if (!cJSON_IsNumber(v))
        return false;
    *has = true;
    *out = v->valuedouble;
    return true;
}

static bool
load_true(const cJSON *v, bool *out)
{
    if (!cJSON_IsTrue(v))
        return false;
    *out = true;
    return true;
}

static bool
load_json(const cJSON *v, cJSON **out, bool object)
{
    if (object && !cJSON_IsObject(v))
        return false;
    *out = cJSON_Duplicate(v, 1);
    return *out != NULL;
}

/* One top-level key; false when it goes to `extra`. */
static bool
load_item(struct ctl_record *r, const cJSON *it)
{
    const char *k = it->string;
    double d;

    for (size_t i = 0; i < STR_FIELDS; i++)
        if (strcmp(k, str_fields[i].key) == 0) {
            if (!cJSON_IsString(it))
                return false;
            *str_field(r, i) = strdup(it->valuestring);
            return true;
        }
    if (strcmp(k, "phase") == 0)
        return load_phase(r, it);
    if (strcmp(k, "stopReason") == 0)
        return load_stop(r, it);
    if (strcmp(k, "resources") == 0)
        return load_resources(r, it);
    if (strcmp(k, "conditions") == 0)
        return load_conditions(r, it);
    if (strcmp(k, "usedAttempts") == 0)
        return load_used(r, it);
    if (strcmp(k, "standIns") == 0)
        return load_standins(r, it);
    if (strcmp(k, "progress") == 0)
        return load_progress(r, it);
    if (strcmp(k, "helperImages") == 0)
        return load_helpers(r, it);
    if (strcmp(k, "output") == 0)
        return load_output(r, it);
    if (strcmp(k, "observedGeneration") == 0)
        return load_number(it, &r->has_generation, &r->observed_generation);
    if (strcmp(k, "subnetIndex") == 0 && load_number(it, &r->has_subnet, &d)) {
        r->subnet_index = (long)d;
        return true;
    }
    if (strcmp(k, "exitCode") == 0 && load_number(it, &r->has_exit_code, &d)) {
        r->exit_code = (long)d;
        return true;
    }
    if (strcmp(k, "gitMetadata") == 0)
        return load_true(it, &r->git_metadata);
    if (strcmp(k, "defaultsStated") == 0)
        return load_true(it, &r->defaults_stated);
    if (strcmp(k, "ipForwardOff") == 0)
        return load_true(it, &r->forwarding_stated);
    if (strcmp(k, "launcher") == 0)
        return load_true(it, &r->launcher_stated);
    if (strcmp(k, "resultChannel") == 0)
        return load_true(it, &r->result_channel);
    if (strcmp(k, "cleanedUp") == 0)
        return load_true(it, &r->cleaned_up);
    if (strcmp(k, "captured") == 0)
        return load_json(it, &r->captured, false);
    if (strcmp(k, "git") == 0)
        return load_json(it, &r->git, true);
    if (strcmp(k, "result") == 0)
        return load_json(it, &r->result, true);
    if (strcmp(k, "usage") == 0)
        return load_json(it, &r->usage, true);
    if (strcmp(k, "egress") == 0)
        return load_json(it, &r->egress, true);
    if (strcmp(k, "box") == 0)
        return load_json(it, &r->box, true);
    return false;
}

int
ctl_record_from_json(struct ctl_record *r, const cJSON *doc, struct err *e)
{
    const cJSON *it;

    ctl_record_cleanup(r);
    if (!cJSON_IsObject(doc))
        return err_set(e, ERR_INVALID, "the status is not a JSON object");
    r->present = true;
    cJSON_ArrayForEach(it, doc)
    {
        if (it->string == NULL || load_item(r, it))
            continue;
        if (r->extra == NULL)
            r->extra = cJSON_CreateObject();
        cJSON_AddItemToObject(r->extra, it->string, cJSON_Duplicate(it, 1));
    }
    return 0;
}

/* --- saving ------------------------------------------------------------ */

static void
add_str(cJSON *o, const char *key, const char *v)
{
    if (v != NULL)
        cJSON_AddStringToObject(o, key, v);
}

/* Copy the items of `extra` whose key o does not have yet. */
static void
add_extra(cJSON *o, const cJSON *extra)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, extra)
    {
        if (cJSON_GetObjectItemCaseSensitive(o, it->string) == NULL)
            cJSON_AddItemToObject(o, it->string, cJSON_Duplicate(it, 1));
    }
}

static cJSON *
res_json(const struct ctl_record *r)
{
    cJSON *o = cJSON_CreateObject();

    for (int i = 0; i < CTL_REC_ROLES; i++) {
        const struct ctl_record_res *res = &r->res[i];
        cJSON *x;

        if (!res->set)
            continue;
        x = cJSON_AddObjectToObject(o, ctl_record_role_name(i));
        add_str(x, "id", res->id);
        add_str(x, "name", res->name);
        add_str(x, "image", res->image);
        add_extra(x, res->extra);
    }
    add_extra(o, r->res_extra);
    return o;
}

static cJSON *
conds_json(const struct ctl_record *r)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t i = 0; i < r->nconds; i++) {
        const struct ctl_record_cond *c = &r->conds[i];
        cJSON *o = cJSON_CreateObject();

        add_str(o, "type", c->type);
        /* as written: another writer's Unknown stays Unknown */
        add_str(o, "status",
                c->status_text != NULL ? c->status_text
                : c->status            ? "True"
                                       : "False");
        add_str(o, "reason", c->reason);
        add_str(o, "message", c->message);
        add_str(o, "lastTransitionTime", c->time);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void
add_helpers(cJSON *o, const struct ctl_record *r)
{
    bool any = r->helper_extra != NULL;
    cJSON *h;

    for (int i = 0; i < RC_HELPER_COUNT; i++)
        any = any || r->helper_images[i] != NULL;
    if (!any)
        return;
    h = cJSON_AddObjectToObject(o, "helperImages");
    for (int i = 0; i < RC_HELPER_COUNT; i++)
        add_str(h, rc_helper_name((enum rc_helper)i), r->helper_images[i]);
    add_extra(h, r->helper_extra);
}

static void
add_attempt(cJSON *o, const struct ctl_record *r)
{
    cJSON *used = cJSON_AddArrayToObject(o, "usedAttempts");

    for (size_t i = 0; i < r->nused; i++)
        cJSON_AddItemToArray(used, cJSON_CreateString(r->used[i].key));
    add_str(o, "attempt", r->attempt);
    add_str(o, "stopReason", stop_names[r->stop]);
    add_str(o, "imageID", r->image_id);
    add_helpers(o, r);
    add_str(o, "specHash", r->spec_hash);
    add_str(o, "capturedAt", r->captured_at);
    if (r->has_subnet)
        cJSON_AddNumberToObject(o, "subnetIndex", (double)r->subnet_index);
    if (r->git_metadata)
        cJSON_AddBoolToObject(o, "gitMetadata", 1);
    if (r->defaults_stated)
        cJSON_AddBoolToObject(o, "defaultsStated", 1);
    if (r->forwarding_stated)
        cJSON_AddBoolToObject(o, "ipForwardOff", 1);
    if (r->launcher_stated)
        cJSON_AddBoolToObject(o, "launcher", 1);
    if (r->result_channel)
        cJSON_AddBoolToObject(o, "resultChannel", 1);
    if (r->captured != NULL)
        cJSON_AddItemToObject(o, "captured", cJSON_Duplicate(r->captured, 1));
    if (r->has_generation)
        cJSON_AddNumberToObject(o, "observedGeneration",
                                r->observed_generation);
    add_str(o, "toolPolicy", r->tool_policy);
    add_str(o, "agentUser", r->agent_user);
    add_str(o, "credentialMode", r->credential_mode);
}

static void
add_progress(cJSON *o, const struct ctl_record *r)
{
    cJSON *p;

    if (r->progress == 0 && r->progress_extra == NULL)
        return;
    p = cJSON_AddObjectToObject(o, "progress");
    for (size_t i = 0; i < CTL_PROG_COUNT; i++)
        if (r->progress & (1u << i))
            cJSON_AddBoolToObject(p, progress_names[i], 1);
    add_extra(p, r->progress_extra);
}

static void
add_run(cJSON *o, const struct ctl_record *r)
{
    add_progress(o, r);
    add_str(o, "startedAt", r->started_at);
    if (r->git != NULL)
        cJSON_AddItemToObject(o, "git", cJSON_Duplicate(r->git, 1));
    if (r->result != NULL)
        cJSON_AddItemToObject(o, "result", cJSON_Duplicate(r->result, 1));
    if (r->usage != NULL)
        cJSON_AddItemToObject(o, "usage", cJSON_Duplicate(r->usage, 1));
    if (r->egress != NULL)
        cJSON_AddItemToObject(o, "egress", cJSON_Duplicate(r->egress, 1));
    if (r->box != NULL)
        cJSON_AddItemToObject(o, "box", cJSON_Duplicate(r->box, 1));
    if (r->nstandins > 0) {
        cJSON *s = cJSON_AddObjectToObject(o, "standIns");

        for (size_t i = 0; i < r->nstandins; i++)
            add_str(s, r->standins[i].key, r->standins[i].value);
    }
    if (r->output.set) {
        cJSON *out = cJSON_AddObjectToObject(o, "output");

        cJSON_AddNumberToObject(out, "bytes", r->output.bytes);
        cJSON_AddBoolToObject(out, "truncated", r->output.truncated);
        add_str(out, "sha256", r->output.sha256);
    }
    if (r->has_exit_code)
        cJSON_AddNumberToObject(o, "exitCode", (double)r->exit_code);
    add_str(o, "finishedAt", r->finished_at);
    add_str(o, "canaryPending", r->canary_pending);
    add_str(o, "networkPending", r->network_pending);
    if (r->cleaned_up)
        cJSON_AddBoolToObject(o, "cleanedUp", 1);
}

cJSON *
ctl_record_to_json(const struct ctl_record *r)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    if (r->phase_set)
        add_str(o, "phase", phase_names[r->phase]);
    add_str(o, "controller", r->controller);
    add_str(o, "uid", r->uid);
    cJSON_AddItemToObject(o, "resources", res_json(r));
    cJSON_AddItemToObject(o, "conditions", conds_json(r));
    add_attempt(o, r);
    add_run(o, r);
    add_extra(o, r->extra);
    return o;
}
