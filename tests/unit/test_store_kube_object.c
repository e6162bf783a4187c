/* test_store_kube_object.c - the pure half of the API server store: an
 * object as the server sends it into the spec text agentctl checks (the
 * server's fields gone), a spec put merged into the object read (the
 * controller's finalizer, the status and tools' annotations kept), the
 * metadata document, the Event of an event line, and a refusal (403)
 * named for the user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "store_kube_int.h"

static const char *const served =
    "{\"apiVersion\":\"agentctl.dev/v1alpha1\",\"kind\":\"AgentInvocation\","
    "\"metadata\":{\"name\":\"web\",\"uid\":\"1b4e28ba-2fa1-11d2-883f-"
    "0016d3cca427\","
    "\"resourceVersion\":\"812\",\"generation\":3,"
    "\"creationTimestamp\":\"2026-12-07T19:00:00Z\","
    "\"finalizers\":[\"agentctl.dev/cleanup\"],\"labels\":{\"team\":\"web\"},"
    "\"annotations\":{\"note\":\"mine\",\"agentctl.dev/applied\":\"{}\","
    "\"kubectl.kubernetes.io/last-applied-configuration\":\"{...}\"},"
    "\"managedFields\":[{\"manager\":\"kubectl\"}]},"
    "\"spec\":{\"vendor\":\"fake\",\"deadlineSeconds\":60},"
    "\"status\":{\"phase\":\"Running\"}}";

static void
test_spec_text(void **state)
{
    cJSON *obj = cJSON_Parse(served), *doc;
    char *text;

    (void)state;
    text = store__kube_spec_text(obj);
    assert_non_null(text);
    doc = cJSON_Parse(text);
    assert_string_equal(store__kube_str(doc, "metadata", "name"), "web");
    assert_null(cJSON_GetObjectItem(doc, "status"));
    assert_null(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"), "uid"));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
                                    "finalizers"));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
                                    "managedFields"));
    /* the user's annotation stays, the tools' go */
    assert_null(strstr(text, "last-applied"));
    assert_null(strstr(text, "agentctl.dev/applied"));
    assert_non_null(strstr(text, "\"note\":\t\"mine\""));
    assert_non_null(strstr(text, "\"team\":\t\"web\""));
    assert_non_null(strstr(text, "\"deadlineSeconds\":\t60"));
    cJSON_Delete(doc);
    free(text);
    cJSON_Delete(obj);
}

static void
test_merge(void **state)
{
    const char *yaml =
        "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
        "metadata:\n  name: web\n  annotations: {other: x}\n"
        "spec: {vendor: fake, deadlineSeconds: 90}\n";
    cJSON *cur = cJSON_Parse(served), *want;
    struct err e = { 0 };
    char *out;

    (void)state;
    want = store__kube_object_from_text("web", yaml, strlen(yaml), &e);
    assert_non_null(want);
    assert_int_equal(store__kube_merge_user_fields(cur, want, &e), 0);
    out = cJSON_PrintUnformatted(cur);
    assert_non_null(strstr(out, "\"deadlineSeconds\":90"));
    assert_non_null(strstr(out, "\"finalizers\":[\"agentctl.dev/cleanup\"]"));
    assert_non_null(strstr(out, "\"resourceVersion\":\"812\""));
    assert_non_null(strstr(out, "\"status\":{\"phase\":\"Running\"}"));
    assert_non_null(strstr(out, "\"other\":\"x\""));
    assert_non_null(strstr(out, "\"agentctl.dev/applied\":\"{}\""));
    assert_non_null(strstr(out, "last-applied-configuration"));
    /* what the user dropped is gone: the label, the annotation */
    assert_null(strstr(out, "\"team\""));
    assert_null(strstr(out, "\"note\""));
    free(out);
    cJSON_Delete(want);
    cJSON_Delete(cur);
    /* two documents are not one object */
    assert_null(store__kube_object_from_text("x", "a: 1\n---\nb: 2\n", 14, &e));
    assert_non_null(strstr(e.msg, "one document"));
}

static void
test_meta_and_event(void **state)
{
    cJSON *obj = cJSON_Parse(served), *ev;
    char *meta = store__kube_meta_doc(obj), *text;

    (void)state;
    assert_string_equal(meta,
                        "{\"uid\":\"1b4e28ba-2fa1-11d2-883f-0016d3cca427\","
                        "\"generation\":3,\"creationTimestamp\":"
                        "\"2026-12-07T19:00:00Z\"}");
    free(meta);
    cJSON_Delete(obj);
    ev = store__kube_event_object(
        "web", "u-1",
        "{\"time\":\"2026-12-07T19:01:00Z\",\"type\":\"Warning\","
        "\"reason\":\"Failed\",\"message\":\"exit 1\",\"count\":2}");
    text = cJSON_PrintUnformatted(ev);
    assert_non_null(strstr(text, "\"generateName\":\"web.\""));
    assert_non_null(strstr(
        text,
        "\"involvedObject\":{\"apiVersion\":\"agentctl.dev/v1alpha1\","
        "\"kind\":\"AgentInvocation\",\"name\":\"web\",\"uid\":\"u-1\"}"));
    assert_non_null(strstr(
        text,
        "\"type\":\"Warning\",\"reason\":\"Failed\",\"message\":\"exit 1\""));
    assert_non_null(
        strstr(text, "\"lastTimestamp\":\"2026-12-07T19:01:00Z\",\"count\":2"));
    /* the line itself rides along, for store_event_read() */
    assert_non_null(strstr(text, "\"agentctl.dev/event\":\"{\\\"time\\\""));
    free(text);
    cJSON_Delete(ev);
}

/* The API server's 403 as 1.20 sends it: the error is ERR_DENIED and
 * names the verb and the resource within err's bounded message, whatever
 * the path's length (the /readyz line and the log quote it). */
static void
test_forbidden(void **state)
{
    static const char body[] =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
        "\"agentinvocations.agentctl.dev \\\"a-very-long-invocation-name-"
        "0123456789\\\" is forbidden: User \\\"system:serviceaccount:"
        "agentctl:agent-controller\\\" cannot update resource \\\""
        "agentinvocations/status\\\" in API group \\\"agentctl.dev\\\" at "
        "the cluster scope\",\"reason\":\"Forbidden\",\"code\":403}";
    struct err e;

    (void)state;
    assert_int_equal(store__kube_status_error(
                         403, body, sizeof(body) - 1,
                         "PUT /apis/agentctl.dev/v1alpha1/agentinvocations/"
                         "a-very-long-invocation-name-0123456789/status",
                         &e),
                     -1);
    assert_int_equal(e.code, ERR_DENIED);
    assert_non_null(strstr(e.msg, "forbidden: User "));
    assert_non_null(
        strstr(e.msg, "cannot update resource \"agentinvocations/status\""));
    assert_non_null(strstr(e.msg, "grant it in the controller's ClusterRole"));
    assert_int_equal(store__kube_status_error(401, "{}", 2, "GET /x", &e), -1);
    assert_int_equal(e.code, ERR_DENIED);
    assert_int_equal(store__kube_status_error(409, "{}", 2, "PUT /x", &e), -1);
    assert_int_equal(e.code, ERR_CONFLICT);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_text),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_meta_and_event),
        cmocka_unit_test(test_forbidden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
