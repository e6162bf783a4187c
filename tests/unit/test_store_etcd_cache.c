/* test_store_etcd_cache.c - the etcd store's informer cache, pure: keys
 * to (directory, name), watch events applied in and out of order, our own
 * write-through beside the event that echoes it, the stale mark a claim
 * leaves on a status, a relist after compaction, and the claim-holder
 * index the claim gate reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_etcd_cache.h"
#include "store_etcd_int.h"

#define ROOT "/agentctl/"

/* A gateway kv: {"key": b64, "value": b64, "mod_revision": "rev",
 * "lease": "lease"}. */
static cJSON *
kv(const char *key, const char *value, int64_t rev, int64_t lease)
{
    cJSON *j = cJSON_CreateObject();
    char *k = store__etcd_b64_enc(key, strlen(key)), num[24];

    cJSON_AddStringToObject(j, "key", k);
    free(k);
    if (value != NULL) {
        char *v = store__etcd_b64_enc(value, strlen(value));

        cJSON_AddStringToObject(j, "value", v);
        free(v);
    }
    snprintf(num, sizeof(num), "%" PRId64, rev);
    cJSON_AddStringToObject(j, "mod_revision", num);
    if (lease != 0) {
        snprintf(num, sizeof(num), "%" PRId64, lease);
        cJSON_AddStringToObject(j, "lease", num);
    }
    return j;
}

static void
apply(struct store_etcd_cache *c, const char *key, const char *value,
      int64_t rev, int64_t lease, bool del)
{
    cJSON *j = kv(key, value, rev, lease);

    assert_int_equal(
        store__etcd_cache_apply_kv(c, j, del, NULL, NULL, NULL, NULL), 0);
    cJSON_Delete(j);
}

static const char *
val(const struct store_etcd_cache *c, enum store_etcd_part part,
    const char *name)
{
    const struct store_etcd_val *v = store__etcd_cache_get(c, part, name);

    return v != NULL ? v->data : NULL;
}

static void
test_keys(void **state)
{
    struct store_etcd_cache c;
    enum store_etcd_part part;
    char name[STORE_NAME_MAX + 1];
    static const char *const ignored[] = {
        "/agentctl/events/a/0001", "/agentctl/output/a", "/agentctl/lock",
        "/agentctl/specs/", "/agentctl/specs/Bad_Name", "/other/specs/a",
        "/agentctl/applied/a", "/agentctl/specsx/a",
    };

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    assert_true(store__etcd_cache_key(&c, "/agentctl/specs/web", 19, &part,
                                      name));
    assert_int_equal(part, STORE_ETCD_SPECS);
    assert_string_equal(name, "web");
    assert_true(store__etcd_cache_key(&c, "/agentctl/claims/a-1", 20, &part,
                                      name));
    assert_int_equal(part, STORE_ETCD_CLAIMS);
    assert_string_equal(name, "a-1");
    for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
        assert_false(store__etcd_cache_key(&c, ignored[i], strlen(ignored[i]),
                                           &part, name));
    store__etcd_cache_cleanup(&c);
}

/* Events in revision order; then the echo of an older write after a newer
 * write-through must not take the value back. */
static void
test_events_in_and_out_of_order(void **state)
{
    struct store_etcd_cache c;
    bool changed;

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    apply(&c, ROOT "specs/web", "v1", 10, 0, false);
    apply(&c, ROOT "status/web", "{\"phase\":\"Pending\"}", 11, 0, false);
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "web"), "v1");
    apply(&c, ROOT "specs/web", "v2", 12, 0, false);
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "web"), "v2");
    /* our write-through at 20, then the watch's echo of 15 */
    assert_int_equal(store__etcd_cache_set(&c, STORE_ETCD_STATUS, "web", "B",
                                           1, 20, 0, &changed, NULL),
                     0);
    assert_true(changed);
    apply(&c, ROOT "status/web", "A", 15, 0, false);
    assert_string_equal(val(&c, STORE_ETCD_STATUS, "web"), "B");
    /* the echo of 20 itself changes nothing */
    assert_int_equal(store__etcd_cache_set(&c, STORE_ETCD_STATUS, "web", "B",
                                           1, 20, 0, &changed, NULL),
                     0);
    assert_false(changed);
    /* a delete, then a stale put from before it */
    apply(&c, ROOT "specs/web", NULL, 30, 0, true);
    assert_null(val(&c, STORE_ETCD_SPECS, "web"));
    apply(&c, ROOT "specs/web", "v2", 12, 0, false);
    assert_null(val(&c, STORE_ETCD_SPECS, "web"));
    /* a delete of what was never held adds nothing */
    apply(&c, ROOT "specs/ghost", NULL, 31, 0, true);
    assert_int_equal(c.n, 1);
    /* events and output are not held */
    apply(&c, ROOT "events/web/0001", "{}", 32, 0, false);
    assert_int_equal(c.n, 1);
    store__etcd_cache_cleanup(&c);
}

/* The claim-holder index: who holds what, under which lease; a claim
 * taken marks the status stale until it is read from etcd again. */
static void
test_claim_holders(void **state)
{
    struct store_etcd_cache c;
    const struct store_etcd_val *v;
    char **names;
    size_t n;

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    apply(&c, ROOT "claims/a", "ctl-1", 5, 77, false);
    apply(&c, ROOT "claims/b", "ctl-2", 6, 88, false);
    apply(&c, ROOT "status/a", "{}", 7, 0, false);
    v = store__etcd_cache_get(&c, STORE_ETCD_CLAIMS, "a");
    assert_non_null(v);
    assert_string_equal(v->data, "ctl-1");
    assert_int_equal(v->lease, 77);
    assert_null(store__etcd_cache_get(&c, STORE_ETCD_CLAIMS, "c"));
    assert_int_equal(
        store__etcd_cache_names(&c, STORE_ETCD_CLAIMS, &names, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "b");
    store_names_free(names, n);
    /* ctl-2's lease expired: etcd deletes its claim */
    apply(&c, ROOT "claims/b", NULL, 9, 0, true);
    assert_null(store__etcd_cache_get(&c, STORE_ETCD_CLAIMS, "b"));
    /* we claim b: its status (none cached) must be read from etcd */
    store__etcd_cache_mark_stale(&c, STORE_ETCD_STATUS, "b");
    assert_true(store__etcd_cache_stale(&c, STORE_ETCD_STATUS, "b"));
    assert_false(store__etcd_cache_stale(&c, STORE_ETCD_STATUS, "a"));
    /* the read: the same revision as held is taken when stale */
    store__etcd_cache_mark_stale(&c, STORE_ETCD_STATUS, "a");
    apply(&c, ROOT "status/a", "{}", 7, 0, false);
    assert_false(store__etcd_cache_stale(&c, STORE_ETCD_STATUS, "a"));
    /* b's status read from etcd: absent at revision 12 */
    assert_int_equal(store__etcd_cache_set(&c, STORE_ETCD_STATUS, "b", NULL, 0,
                                           12, 0, NULL, NULL),
                     0);
    assert_false(store__etcd_cache_stale(&c, STORE_ETCD_STATUS, "b"));
    store__etcd_cache_cleanup(&c);
}

/* A compacted watch relists: what the list holds replaces the part, names
 * with nothing left go, other parts stay. */
static void
test_relist(void **state)
{
    struct store_etcd_cache c;
    char **names;
    size_t n;

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    assert_false(c.listed[STORE_ETCD_SPECS]);
    apply(&c, ROOT "specs/a", "a1", 3, 0, false);
    apply(&c, ROOT "specs/b", "b1", 4, 0, false);
    apply(&c, ROOT "status/b", "{}", 5, 0, false);
    /* meanwhile (events lost to compaction): a deleted, b changed, c new */
    store__etcd_cache_relist_begin(&c, STORE_ETCD_SPECS);
    apply(&c, ROOT "specs/b", "b2", 40, 0, false);
    apply(&c, ROOT "specs/c", "c1", 41, 0, false);
    store__etcd_cache_relist_end(&c, STORE_ETCD_SPECS);
    assert_true(c.listed[STORE_ETCD_SPECS]);
    assert_null(val(&c, STORE_ETCD_SPECS, "a"));
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "b"), "b2");
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "c"), "c1");
    assert_string_equal(val(&c, STORE_ETCD_STATUS, "b"), "{}");
    assert_int_equal(c.n, 2); /* a had nothing left */
    assert_int_equal(
        store__etcd_cache_names(&c, STORE_ETCD_SPECS, &names, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "b");
    assert_string_equal(names[1], "c");
    store_names_free(names, n);
    /* an older revision than the list's does not come back */
    apply(&c, ROOT "specs/b", "b1", 4, 0, false);
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "b"), "b2");
    store__etcd_cache_cleanup(&c);
}

/* Many names arriving in any order come out sorted (binary insertion). */
static void
test_sorted(void **state)
{
    struct store_etcd_cache c;
    char key[64];

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    for (int i = 0; i < 500; i++) {
        snprintf(key, sizeof(key), ROOT "specs/n%03d", (i * 7) % 500);
        apply(&c, key, "x", i + 1, 0, false);
    }
    assert_int_equal(c.n, 500);
    for (size_t i = 1; i < c.n; i++)
        assert_true(strcmp(c.items[i - 1]->name, c.items[i]->name) < 0);
    assert_non_null(val(&c, STORE_ETCD_SPECS, "n499"));
    store__etcd_cache_cleanup(&c);
}

/* The watch parser with a cache: events of any directory go in with
 * their values; only spec keys are reported as changes. */
static void
test_wparse_feeds_cache(void **state)
{
    struct store_etcd_cache c;
    struct store_etcd_wparse p;
    struct store_change out[4];
    enum store_etcd_wmsg kind;
    int64_t rev;
    size_t n = 0;
    bool over = false;
    cJSON *msg = cJSON_CreateObject(), *res = cJSON_CreateObject();
    cJSON *evs = cJSON_CreateArray(), *ev;
    char *text;

    (void)state;
    store__etcd_cache_init(&c, ROOT);
    store__etcd_wparse_init(&p, ROOT "specs/");
    p.cache = &c;
    ev = cJSON_CreateObject();
    cJSON_AddItemToObject(ev, "kv", kv(ROOT "status/web", "{\"a\":1}", 9, 0));
    cJSON_AddItemToArray(evs, ev);
    ev = cJSON_CreateObject();
    cJSON_AddItemToObject(ev, "kv", kv(ROOT "specs/web", "spec", 10, 0));
    cJSON_AddItemToArray(evs, ev);
    ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "type", "DELETE");
    cJSON_AddItemToObject(ev, "kv", kv(ROOT "claims/web", NULL, 11, 0));
    cJSON_AddItemToArray(evs, ev);
    cJSON_AddItemToObject(res, "events", evs);
    cJSON_AddItemToObject(msg, "result", res);
    text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    apply(&c, ROOT "claims/web", "ctl-1", 8, 5, false);
    assert_int_equal(store__etcd_wparse_feed(&p, text, strlen(text), NULL), 0);
    assert_int_equal(store__etcd_wparse_feed(&p, "\n", 1, NULL), 0);
    free(text);
    assert_int_equal(
        store__etcd_wparse_next(&p, &kind, &rev, out, 4, &n, &over, NULL), 0);
    assert_int_equal(kind, STORE_ETCD_WMSG_EVENTS);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].name, "web");
    assert_string_equal(val(&c, STORE_ETCD_STATUS, "web"), "{\"a\":1}");
    assert_string_equal(val(&c, STORE_ETCD_SPECS, "web"), "spec");
    assert_null(val(&c, STORE_ETCD_CLAIMS, "web"));
    store__etcd_wparse_cleanup(&p);
    store__etcd_cache_cleanup(&c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_events_in_and_out_of_order),
        cmocka_unit_test(test_claim_holders),
        cmocka_unit_test(test_relist),
        cmocka_unit_test(test_sorted),
        cmocka_unit_test(test_wparse_feeds_cache),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
