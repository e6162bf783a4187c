/* test_store_kube_cache.c - the API server store's informer cache: what a
 * list or a watch event delivers is kept as the texts the reads return,
 * an older resourceVersion never takes it back, a DELETED event and a
 * relist forget, and the store answers reads (get, documents, the
 * controller's list and status names) from it only while the
 * watch is streaming from a whole list (not broken, not turned off). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_kube_int.h"

/* An AgentInvocation as the server sends it, at rv, with a status phase
 * (NULL: none) and a deletionTimestamp when deleting. */
static cJSON *
object(const char *rv, const char *phase, bool deleting)
{
    char text[2048];

    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"agentctl.dev/v1alpha1\",\"kind\":\"AgentInvocation\","
             "\"metadata\":{\"name\":\"web\",\"uid\":\"u-1\",\"resourceVersion\":\"%s\","
             "\"generation\":2,\"creationTimestamp\":\"2026-12-07T19:00:00Z\"%s,"
             "\"annotations\":{\"agentctl.dev/applied\":\"{\\\"a\\\":1}\"},"
             "\"managedFields\":[{\"manager\":\"kubectl\"}]},"
             "\"spec\":{\"vendor\":\"fake\",\"phase\":\"planning\","
             "\"image\":\"agentctl/demo-agent:0.1.0\",\"command\":[\"demo-agent\"],"
             "\"deadlineSeconds\":60}%s%s%s}",
             rv, deleting ? ",\"deletionTimestamp\":\"2026-12-07T20:00:00Z\"" : "",
             phase ? ",\"status\":{\"phase\":\"" : "", phase ? phase : "",
             phase ? "\"}" : "");
    return cJSON_Parse(text);
}

static void
take(struct store_kube_cache *c, const char *rv, const char *phase, bool deleting)
{
    cJSON *o = object(rv, phase, deleting);

    assert_non_null(o);
    assert_int_equal(store__kube_cache_take(c, o), 0);
    cJSON_Delete(o);
}

static void
test_kept_and_ordered(void **state)
{
    struct store_kube_cache c = { 0 };
    const struct store_kube_cached *it;
    char *meta;

    (void)state;
    store__kube_cache_relist_begin(&c);
    take(&c, "812", NULL, false);
    store__kube_cache_relist_end(&c);
    assert_true(c.listed);
    it = store__kube_cache_get(&c, "web");
    assert_non_null(it);
    assert_string_equal(it->rv, "812");
    assert_null(it->status);
    assert_string_equal(it->applied, "{\"a\":1}");
    assert_null(strstr(it->spec, "managedFields"));
    assert_non_null(strstr(it->spec, "\"deadlineSeconds\":\t60"));
    assert_non_null(strstr(it->meta, "\"specHash\""));
    assert_non_null(strstr(it->meta, "\"uid\":\"u-1\""));
    meta = strdup(it->meta);
    /* our status write's answer, then the watch's older event of it */
    take(&c, "900", "Running", false);
    take(&c, "850", "Pending", false);
    it = store__kube_cache_get(&c, "web");
    assert_string_equal(it->rv, "900");
    assert_string_equal(it->status, "{\"phase\":\"Running\"}");
    assert_string_equal(it->meta, meta); /* status only: the same hash */
    /* a deletion requested is kept (its status is still read) */
    take(&c, "901", "Running", true);
    assert_true(store__kube_cache_get(&c, "web")->deleting);
    assert_null(store__kube_cache_get(&c, "other"));
    free(meta);
    store__kube_cache_cleanup(&c);
}

static void
test_forgotten(void **state)
{
    struct store_kube_cache c = { 0 };
    cJSON *o = object("1000", NULL, false);

    (void)state;
    take(&c, "999", "Done", false);
    store__kube_cache_drop(&c, o);
    assert_null(store__kube_cache_get(&c, "web"));
    take(&c, "999", "Done", false);
    store__kube_cache_relist_begin(&c);
    assert_false(c.listed);
    assert_null(store__kube_cache_get(&c, "web"));
    cJSON_Delete(o);
    store__kube_cache_cleanup(&c);
}

/* The store answers from the cache only while the watch is live; each
 * condition broken on purpose reads the API server instead (NULL). */
static void
test_served_while_live(void **state)
{
    struct store_kube s = { 0 };
    struct store_kube_watch w = { 0 };
    struct store_spec sp;
    struct store_list l;
    struct err e = { 0 };
    char *data, **names;
    size_t len, n;
    int easy;

    (void)state;
    s.w = &w;
    w.easy = &easy; /* a stream is running */
    store__kube_cache_relist_begin(&s.cache);
    take(&s.cache, "812", "Running", false);
    store__kube_cache_relist_end(&s.cache);
    assert_non_null(store__kube_cached(&s, "web"));
    assert_int_equal(store__kube_doc_get(&s.base, STORE_DOC_STATUS, "web", &data, &len, &e), 0);
    assert_string_equal(data, "{\"phase\":\"Running\"}");
    free(data);
    assert_int_equal(store__kube_get(&s.base, "web", &sp, &e), 0);
    assert_string_equal(sp.rev, "812");
    assert_non_null(sp.inv);
    store_spec_cleanup(&sp);
    /* the controller's relist and its status names, no request */
    assert_int_equal(store__kube_list(&s.base, &l, &e), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0].name, "web");
    store_list_cleanup(&l);
    assert_int_equal(store__kube_doc_names(&s.base, STORE_DOC_STATUS, &names, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "web");
    store_names_free(names, n);
    take(&s.cache, "813", "Running", true);
    assert_int_equal(store__kube_list(&s.base, &l, &e), 0);
    assert_int_equal(l.n, 0); /* being deleted: gone for the controller */
    store_list_cleanup(&l);
    assert_int_equal(store__kube_get(&s.base, "web", &sp, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    s.cache_off = true;
    assert_null(store__kube_cached(&s, "web"));
    s.cache_off = false;
    w.need_list = true;
    assert_null(store__kube_cached(&s, "web"));
    w.need_list = false;
    w.easy = NULL; /* the stream broke */
    assert_null(store__kube_cached(&s, "web"));
    w.easy = &easy;
    s.cache.listed = false;
    assert_null(store__kube_cached(&s, "web"));
    store__kube_cache_cleanup(&s.cache);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_and_ordered),
        cmocka_unit_test(test_forgotten),
        cmocka_unit_test(test_served_while_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
