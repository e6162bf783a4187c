/* test_ctl_record.c - the attempt record (model/ctl_record.h) and its
 * JSON form: status documents in the format the controller writes load
 * into typed fields and save back with every key and value, keys of a
 * newer version survive, and the two resets clear exactly their fields.
 *
 * Fixtures (tests/unit/fixtures/record/): running.json is a Running
 * attempt with every key the controller writes while it runs;
 * legacy_finished.json is a finished, cleaned attempt as the previous
 * controller wrote it (compact, its key order); future.json carries keys,
 * roles, progress and a stop reason this version does not know.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl_record.h"
#include "spec.h"
#include "spec_test_util.h"

static cJSON *
load_fixture(const char *name)
{
    const char *root = getenv("AGENTCTL_SOURCE_DIR");
    char path[1024], *text;
    cJSON *doc;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/tests/unit/fixtures/record/%s",
             root ? root : ".", name);
    f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    text = calloc(1, (size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

/* Load the fixture into r; the parsed document is returned too. */
static cJSON *
load_record(struct ctl_record *r, const char *name)
{
    cJSON *doc = load_fixture(name);
    struct err e = { 0 };

    memset(r, 0, sizeof(*r));
    assert_int_equal(ctl_record_from_json(r, doc, &e), 0);
    assert_true(r->present);
    return doc;
}

/* Every key of `want` is in `got` with an equal value, and no more. */
static void
assert_same_doc(const cJSON *want, const cJSON *got)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, want)
    {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, it->string);

        if (g == NULL || !cJSON_Compare(it, g, 1))
            fail_msg("key %s lost or changed", it->string);
    }
    cJSON_ArrayForEach(it, got)
    {
        if (cJSON_GetObjectItemCaseSensitive(want, it->string) == NULL)
            fail_msg("key %s added", it->string);
    }
}

static void
assert_round_trip(const char *name)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, name);
    cJSON *out = ctl_record_to_json(&r);

    assert_non_null(out);
    assert_same_doc(doc, out);
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

static void
test_ctl_record_running_round_trip_keeps_every_key(void **state)
{
    (void)state;
    assert_round_trip("running.json");
}

static void
test_ctl_record_running_loads_typed_fields(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "running.json");
    const struct ctl_record_cond *c;

    (void)state;
    assert_int_equal(r.phase, CTL_RUNNING);
    assert_int_equal(r.stop, CTL_STOP_NONE);
    assert_string_equal(r.controller, "ctl-a");
    assert_string_equal(r.attempt, "a2");
    assert_string_equal(r.captured_at, "2026-12-03T10:00:00Z");
    assert_string_equal(r.started_at, "2026-12-03T10:00:06Z");
    assert_null(r.finished_at);
    assert_true(r.has_subnet);
    assert_int_equal(r.subnet_index, 3);
    assert_true(r.has_generation);
    assert_int_equal((long)r.observed_generation, 4);
    assert_false(r.has_exit_code);
    assert_true(r.git_metadata);
    assert_true(r.defaults_stated);
    assert_true(ctl_record_helpers_pinned(&r));
    assert_string_equal(ctl_record_helper_image(&r, RC_HELPER_PROBE),
                        "sha256:4444444444444444444444444444444444444444444"
                        "444444444444444444444");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(r.helper_extra, "canary"));
    assert_false(r.cleaned_up);
    assert_string_equal(ctl_record_role_id(&r, RC_ROLE_AGENT),
                        "a0123456789abcdef");
    assert_string_equal(ctl_record_role_obj_name(&r, RC_ROLE_WORKSPACE),
                        "agentctl-demo-7f3c9a10-workspace");
    assert_string_equal(ctl_record_role_image(&r, RC_ROLE_PROXY),
                        "sha256:1111111111111111111111111111111111111111111"
                        "111111111111111111111");
    assert_string_equal(ctl_record_role_id(&r, CTL_REC_PROBE),
                        "b0123456789abcdef");
    assert_null(ctl_record_role_id(&r, RC_ROLE_CONFIG));
    assert_true(ctl_record_holds(&r, NULL, "agentctl-demo-7f3c9a10-git"));
    assert_false(ctl_record_holds(&r, "nope", "nope"));
    for (int p = 0; p < CTL_PROG_COUNT; p++)
        assert_true(ctl_record_done(&r, (enum ctl_progress)p));
    assert_true(ctl_record_attempt_used(&r, "a1"));
    assert_false(ctl_record_attempt_used(&r, "a3"));
    assert_true(ctl_record_is_standin(&r, "cafebabe0001"));
    assert_false(ctl_record_is_standin(&r, "a0123456789abcdef"));
    assert_string_equal(ctl_record_git_str(&r, "digestBefore"), "sha256:aaaa");
    assert_null(ctl_record_git_str(&r, "digestAfter"));
    c = ctl_record_condition(&r, "Ready");
    assert_non_null(c);
    assert_true(c->status);
    assert_string_equal(c->reason, "Running");
    assert_null(r.extra);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* A status the previous controller wrote loads (adoption after an
 * upgrade) and saves with the same keys and values. */
static void
test_ctl_record_legacy_status_loads(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "legacy_finished.json");

    (void)state;
    assert_int_equal(r.phase, CTL_SUCCEEDED);
    assert_false(r.defaults_stated); /* an older version's attempt */
    assert_false(ctl_record_helpers_pinned(&r)); /* helpers by their tags */
    assert_null(ctl_record_helper_image(&r, RC_HELPER_PROXY));
    assert_int_equal(r.stop, CTL_STOP_NONE);
    assert_true(r.has_exit_code);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.cleaned_up);
    assert_true(r.output.set);
    assert_int_equal((long)r.output.bytes, 1234);
    assert_false(r.output.truncated);
    assert_true(r.has_subnet);
    assert_int_equal(r.subnet_index, 0);
    assert_false(r.git_metadata);
    assert_true(ctl_record_done(&r, CTL_PROG_AGENT_STARTED));
    assert_false(ctl_record_done(&r, CTL_PROG_BOUNDARY_VERIFIED));
    for (int i = 0; i < CTL_REC_ROLES; i++)
        assert_null(ctl_record_role_id(&r, i));
    assert_null(r.extra);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
    assert_round_trip("legacy_finished.json");
}

/* Keys, roles, role keys and progress of a newer version survive a load
 * and save; an unknown stop reason still counts as stopped. */
static void
test_ctl_record_unknown_keys_survive(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "future.json");

    (void)state;
    assert_int_equal(r.phase, CTL_FAILED);
    assert_int_equal(r.stop, CTL_STOP_UNKNOWN);
    assert_null(ctl_stop_reason_name(r.stop));
    assert_string_equal(ctl_record_role_id(&r, RC_ROLE_AGENT), "a1");
    assert_true(ctl_record_done(&r, CTL_PROG_AGENT_STARTED));
    assert_null(r.tool_policy); /* null: not a string, kept as found */
    assert_int_equal(r.exit_code, 137);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
    assert_round_trip("future.json");
}

/* A changed record writes the change and still carries the unknown keys. */
static void
test_ctl_record_change_keeps_unknown_keys(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "future.json");
    cJSON *out;

    (void)state;
    ctl_record_set_stop(&r, CTL_STOP_DEADLINE);
    ctl_record_set_role(&r, RC_ROLE_KEEPER, "k9", "n-keeper");
    out = ctl_record_to_json(&r);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(out, "stopReason")->valuestring,
        "deadline");
    assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(doc, "schedule"),
                              cJSON_GetObjectItemCaseSensitive(out, "schedule"),
                              1));
    assert_true(cJSON_Compare(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(doc, "resources"), "sidecar"),
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(out, "resources"), "sidecar"),
        1));
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(out, "resources"), "agent"),
            "createdAt")
            ->valuestring,
        "2026-12-01T00:00:00Z");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(out, "progress"), "sidecarStarted")));
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

static bool
has_key(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key) != NULL;
}

/* A new attempt forgets the run; the invocation's history stays. */
static void
test_ctl_record_reset_attempt_clears_the_run_only(void **state)
{
    static const char *const gone[] = {
        "stopReason",  "startedAt", "finishedAt",         "exitCode",
        "output",      "progress",  "cleanedUp",          "imageID",
        "subnetIndex", "captured",  "specHash",           "capturedAt",
        "gitMetadata", "git",       "observedGeneration", "toolPolicy",
        "helperImages", "canaryPending", "usage",
        "helperImages", "canaryPending", "egress",      "networkPending",
    };
    static const char *const kept[] = { "phase",      "controller",
                                        "uid",        "resources",
                                        "conditions", "usedAttempts",
                                        "attempt",    "standIns" };
    struct ctl_record r;
    cJSON *doc = load_record(&r, "running.json");
    cJSON *out;

    (void)state;
    ctl_record_set_stop(&r, CTL_STOP_CANCELLED);
    ctl_record_set_exit_code(&r, 1);
    ctl_record_set_output(&r, 10, true, "abc");
    ctl_record_set_str(&r, &r.canary_pending, "x-canary");
    ctl_record_set_str(&r, &r.network_pending, "x-net");
    ctl_record_set_egress(&r, cJSON_Parse("{\"lines\":3,\"dropped\":1}"));
    out = ctl_record_to_json(&r);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItem(out, "canaryPending")),
        "x-canary");
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItem(out, "networkPending")),
        "x-net");
    /* status.egress rides the document as written (out_egress.c) */
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(out, "egress"),
                                         "dropped")
                         ->valueint,
                     1);
    cJSON_Delete(out);
    r.cleaned_up = true;
    r.dirty = false;
    ctl_record_reset_attempt(&r);
    assert_true(r.dirty);
    out = ctl_record_to_json(&r);
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        if (has_key(out, gone[i]))
            fail_msg("%s survived the reset", gone[i]);
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        assert_true(
            cJSON_Compare(cJSON_GetObjectItemCaseSensitive(doc, kept[i]),
                          cJSON_GetObjectItemCaseSensitive(out, kept[i]), 1));
    assert_int_equal(cJSON_GetArraySize(out),
                     (int)(sizeof(kept) / sizeof(kept[0])));
    assert_int_equal(r.stop, CTL_STOP_NONE);
    assert_int_equal(r.progress, 0);
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* The reset also drops those keys when a newer version wrote them in a
 * form this one keeps as unknown, and leaves other unknown keys alone. */
static void
test_ctl_record_reset_attempt_drops_unreadable_run_keys(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "future.json");
    cJSON *out;

    (void)state;
    ctl_record_reset_attempt(&r);
    out = ctl_record_to_json(&r);
    assert_false(has_key(out, "stopReason"));
    assert_false(has_key(out, "toolPolicy"));
    assert_false(has_key(out, "progress"));
    assert_true(has_key(out, "schedule"));
    assert_true(has_key(out, "priority"));
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* A repair before the start: only the one-off actions run again. */
static void
test_ctl_record_reset_progress_keeps_the_attempt(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "running.json");
    cJSON *out;

    (void)state;
    ctl_record_reset_progress(&r);
    out = ctl_record_to_json(&r);
    assert_false(has_key(out, "progress"));
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "progress");
    assert_same_doc(doc, out);
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* status.box (a warm box taken) is written, read back, and goes with
 * the attempt; a record without one writes no "box" key. */
static void
test_ctl_record_box_round_trip(void **state)
{
    struct ctl_record r, back = { 0 };
    cJSON *doc = load_record(&r, "running.json");
    cJSON *box = cJSON_CreateObject(), *out;
    struct err e;

    (void)state;
    cJSON_AddStringToObject(box, "name", "agentctl-pool.fake-01234567");
    cJSON_AddStringToObject(box, "uid", "0123456789abcdef");
    r.dirty = false;
    ctl_record_set_box(&r, box);
    assert_true(r.dirty);
    out = ctl_record_to_json(&r);
    assert_int_equal(ctl_record_from_json(&back, out, &e), 0);
    assert_string_equal(ctl_record_box_str(&back, "uid"), "0123456789abcdef");
    assert_string_equal(ctl_record_box_str(&back, "name"),
                        "agentctl-pool.fake-01234567");
    assert_null(ctl_record_box_str(&back, "attempt"));
    ctl_record_cleanup(&back);
    cJSON_Delete(out);
    ctl_record_reset_attempt(&r);
    assert_null(r.box);
    out = ctl_record_to_json(&r);
    assert_false(has_key(out, "box"));
    cJSON_Delete(out);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* A container role's answered create outlives the removal of the object
 * (cleanup drops the role), so labels never stand for it afterwards; a
 * rebuild (reset_progress) forgets it, volumes and the network have none. */
static void
test_ctl_record_answered_role_outlives_its_removal(void **state)
{
    struct ctl_record r = { 0 };

    (void)state;
    ctl_record_init_new(&r, "ctl-1", "uid-1");
    assert_false(ctl_record_role_answered(&r, "proxy"));
    ctl_record_set_role(&r, RC_ROLE_PROXY, "p0123", "agentctl-x-proxy");
    ctl_record_set_role(&r, CTL_REC_PROBE, "q0123", "agentctl-x-probe");
    ctl_record_set_role(&r, RC_ROLE_WORKSPACE, "2026-01-01T00:00:00Z",
                        "agentctl-x-workspace");
    ctl_record_drop_role(&r, RC_ROLE_PROXY);
    assert_null(ctl_record_role_id(&r, RC_ROLE_PROXY));
    assert_true(ctl_record_role_answered(&r, "proxy"));
    assert_true(ctl_record_role_answered(&r, "probe"));
    assert_false(ctl_record_role_answered(&r, "agent"));
    assert_false(ctl_record_role_answered(&r, "workspace"));
    assert_false(ctl_record_role_answered(&r, "network"));
    ctl_record_set_role(&r, RC_ROLE_NETWORK, "n0123", "agentctl-x-net");
    assert_true(ctl_record_role_answered(&r, "network"));
    assert_false(ctl_record_role_answered(&r, "nonsense"));
    assert_false(ctl_record_role_answered(&r, NULL));
    ctl_record_reset_progress(&r);
    assert_false(ctl_record_role_answered(&r, "proxy"));
    ctl_record_cleanup(&r);
}

/* A fresh record saves as the status the controller always started. */
static void
test_ctl_record_new_is_pending(void **state)
{
    struct ctl_record r = { 0 };
    cJSON *out;

    (void)state;
    ctl_record_init_new(&r, "ctl-a", "u-9");
    out = ctl_record_to_json(&r);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(out, "phase")->valuestring, "Pending");
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(out, "uid")->valuestring, "u-9");
    assert_true(
        cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(out, "resources")));
    assert_true(
        cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(out, "conditions")));
    assert_true(
        cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(out, "usedAttempts")));
    assert_int_equal(cJSON_GetArraySize(out), 6);
    cJSON_Delete(out);
    ctl_record_cleanup(&r);
}

/* An unchanged condition keeps its time; a changed one moves to the end
 * with the new time. */
static void
test_ctl_record_condition_changes_move_to_the_end(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "running.json");

    (void)state;
    r.dirty = false;
    ctl_record_set_condition(&r, "BoundaryVerified", true, "Verified",
                             "the probe was refused", "2030-01-01T00:00:00Z");
    assert_false(r.dirty);
    assert_string_equal(r.conds[0].time, "2026-12-03T10:00:05Z");
    ctl_record_set_condition(&r, "BoundaryVerified", false, "Breach", "out",
                             "2030-01-01T00:00:00Z");
    assert_true(r.dirty);
    assert_int_equal(r.nconds, 2);
    assert_string_equal(r.conds[0].type, "Ready");
    assert_string_equal(r.conds[1].type, "BoundaryVerified");
    assert_false(r.conds[1].status);
    assert_string_equal(r.conds[1].time, "2030-01-01T00:00:00Z");
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* A condition's status is kept as written: another writer's Unknown, or
 * none, is neither True nor False for agentctl (wait, describe), and the
 * controller writes it back as it found it until it sets the condition
 * itself. The control: the fixture's True reads as True. */
static void
test_ctl_record_condition_status_as_written(void **state)
{
    struct ctl_record r;
    cJSON *doc = load_record(&r, "running.json");
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(doc, "conditions");
    cJSON *out;
    const struct ctl_record_cond *c;
    struct err e = { 0 };

    (void)state;
    assert_string_equal(ctl_record_condition(&r, "Ready")->status_text,
                        "True");
    ctl_record_cleanup(&r);
    cJSON_ReplaceItemInObject(
        cJSON_GetArrayItem(conds, 0), "status", cJSON_CreateString("Unknown"));
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(conds, 1), "status");
    memset(&r, 0, sizeof(r));
    assert_int_equal(ctl_record_from_json(&r, doc, &e), 0);
    c = ctl_record_condition(&r, "BoundaryVerified");
    assert_false(c->status);
    assert_string_equal(c->status_text, "Unknown");
    assert_null(ctl_record_condition(&r, "Ready")->status_text);
    r.dirty = false;
    out = ctl_record_to_json(&r);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(out, "conditions"), 0),
            "status")),
        "Unknown");
    cJSON_Delete(out);
    /* the controller's own False replaces it, reason and message alike */
    ctl_record_set_condition(&r, "BoundaryVerified", false, "Verified",
                             "the probe was refused", "2030-01-01T00:00:00Z");
    assert_true(r.dirty);
    assert_string_equal(
        ctl_record_condition(&r, "BoundaryVerified")->status_text, "False");
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

static void
test_ctl_record_rejects_a_non_object(void **state)
{
    struct ctl_record r = { 0 };
    cJSON *doc = cJSON_CreateArray();
    struct err e = { 0 };

    (void)state;
    assert_int_equal(ctl_record_from_json(&r, doc, &e), -1);
    assert_int_equal(e.code, ERR_INVALID);
    assert_false(r.present);
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* What a reader shows (agentctl): the phase and stop reason as written,
 * a newer version's stop reason and a phase this version does not know
 * too; none when the status has none. */
static void
test_ctl_record_texts_as_written(void **state)
{
    struct ctl_record r = { 0 };
    cJSON *doc = load_record(&r, "future.json");
    struct err e = { 0 };

    (void)state;
    assert_int_equal(r.stop, CTL_STOP_UNKNOWN);
    assert_string_equal(ctl_record_stop_text(&r), "quota-exceeded");
    assert_string_equal(ctl_record_phase_text(&r), "Failed");
    cJSON_Delete(doc);
    doc = cJSON_Parse(
        "{\"phase\":\"Hibernating\",\"stopReason\":\"deadline\"}");
    assert_int_equal(ctl_record_from_json(&r, doc, &e), 0);
    assert_false(r.phase_set);
    assert_string_equal(ctl_record_phase_text(&r), "Hibernating");
    assert_string_equal(ctl_record_stop_text(&r), "deadline");
    cJSON_Delete(doc);
    doc = cJSON_Parse("{}");
    assert_int_equal(ctl_record_from_json(&r, doc, &e), 0);
    assert_null(ctl_record_phase_text(&r));
    assert_null(ctl_record_stop_text(&r));
    cJSON_Delete(doc);
    ctl_record_cleanup(&r);
}

/* A new attempt's record in r, and the full test spec (the caller's). */
static struct spec_invocation *
new_record_and_spec(struct ctl_record *r)
{
    struct spec_file f;
    struct spec_invocation *s;

    assert_int_equal(spec_test_load(SPEC_TEST_FULL, &f), 0);
    s = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    assert_non_null(s);
    ctl_record_init_new(r, "c1", "u1");
    return s;
}

/* The captured spec is parsed at most once per attempt: never in the
 * controller that captured it (the record keeps the spec it captured),
 * once in one that read the status back (a restart, a claim), however
 * often it is asked; a new attempt forgets it. */
static void
test_ctl_record_captured_spec_parsed_once(void **state)
{
    struct ctl_record r = { 0 }, back = { 0 };
    struct spec_invocation *s;
    struct err e = { 0 };
    cJSON *doc;

    (void)state;
    s = new_record_and_spec(&r);
    ctl_record_capture(&r, s);
    assert_non_null(ctl_record_captured(&r));
    assert_ptr_equal(ctl_record_captured_spec(&r), s);
    assert_ptr_equal(ctl_record_captured_spec(&r), s);
    assert_int_equal(r.captured_parses, 0);

    doc = ctl_record_to_json(&r);
    assert_non_null(doc);
    assert_int_equal(ctl_record_from_json(&back, doc, &e), 0);
    assert_int_equal(back.captured_parses, 0);
    assert_non_null(ctl_record_captured_spec(&back));
    assert_non_null(ctl_record_captured_spec(&back));
    assert_int_equal(back.captured_parses, 1);
    assert_string_equal(ctl_record_captured_spec(&back)->spec_hash,
                        s->spec_hash);
    assert_string_equal(ctl_record_captured_spec(&back)->file,
                        "status.captured");

    ctl_record_reset_attempt(&back);
    assert_null(ctl_record_captured_spec(&back));
    assert_int_equal(back.captured_parses, 0);
    cJSON_Delete(doc);
    ctl_record_cleanup(&back);
    ctl_record_cleanup(&r);
    spec_invocation_free(s);
}

/* A spec whose canonical resource cannot be made (no memory; here: none
 * to make it from) is not kept typed either: the status records no
 * captured spec, so the attempt fails closed as a restart would find
 * it. The control: the same spec with its resource is kept both ways. */
static void
test_ctl_record_capture_without_resource_keeps_nothing(void **state)
{
    struct ctl_record r = { 0 };
    struct spec_invocation *s;
    char *resource;

    (void)state;
    s = new_record_and_spec(&r);
    resource = s->resource_json;
    s->resource_json = NULL;
    ctl_record_capture(&r, s);
    s->resource_json = resource;
    assert_null(ctl_record_captured(&r));
    assert_null(ctl_record_captured_spec(&r));

    ctl_record_capture(&r, s); /* control */
    assert_non_null(ctl_record_captured(&r));
    assert_ptr_equal(ctl_record_captured_spec(&r), s);
    ctl_record_cleanup(&r);
    spec_invocation_free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctl_record_running_round_trip_keeps_every_key),
        cmocka_unit_test(test_ctl_record_running_loads_typed_fields),
        cmocka_unit_test(test_ctl_record_legacy_status_loads),
        cmocka_unit_test(test_ctl_record_unknown_keys_survive),
        cmocka_unit_test(test_ctl_record_change_keeps_unknown_keys),
        cmocka_unit_test(test_ctl_record_reset_attempt_clears_the_run_only),
        cmocka_unit_test(
            test_ctl_record_reset_attempt_drops_unreadable_run_keys),
        cmocka_unit_test(test_ctl_record_reset_progress_keeps_the_attempt),
        cmocka_unit_test(test_ctl_record_answered_role_outlives_its_removal),
        cmocka_unit_test(test_ctl_record_box_round_trip),
        cmocka_unit_test(test_ctl_record_new_is_pending),
        cmocka_unit_test(test_ctl_record_condition_changes_move_to_the_end),
        cmocka_unit_test(test_ctl_record_rejects_a_non_object),
        cmocka_unit_test(test_ctl_record_captured_spec_parsed_once),
        cmocka_unit_test(test_ctl_record_condition_status_as_written),
        cmocka_unit_test(
            test_ctl_record_capture_without_resource_keeps_nothing),
        cmocka_unit_test(test_ctl_record_texts_as_written),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
