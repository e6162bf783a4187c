/* test_store_etcd.c - the pure parts of the etcd store, no etcd needed:
 * base64 of keys and values, the txn bodies that make CAS, and the watch
 * stream parser fed in split chunks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "store_etcd_int.h"

static void
test_b64_round_trip(void **state)
{
    static const char *const in[] = { "",    "a",    "ab",
                                      "abc", "abcd", "/agentctl/specs/x" };
    char *enc, *dec;
    size_t n;

    (void)state;
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        enc = store__etcd_b64_enc(in[i], strlen(in[i]));
        assert_non_null(enc);
        assert_int_equal(store__etcd_b64_dec(enc, &dec, &n, NULL), 0);
        assert_int_equal(n, strlen(in[i]));
        assert_memory_equal(dec, in[i], n);
        free(enc);
        free(dec);
    }
    enc = store__etcd_b64_enc("/a/specs/x", 10);
    assert_string_equal(enc, "L2Evc3BlY3MveA==");
    free(enc);
    /* bytes with a NUL survive */
    enc = store__etcd_b64_enc("a\0b", 3);
    assert_int_equal(store__etcd_b64_dec(enc, &dec, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(dec, "a\0b", 3);
    free(enc);
    free(dec);
}

static void
test_b64_rejects(void **state)
{
    struct err e = { 0 };
    char *dec;
    size_t n;

    (void)state;
    assert_int_equal(store__etcd_b64_dec("abc", &dec, &n, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    assert_int_equal(store__etcd_b64_dec("ab!?", &dec, &n, &e), -1);
}

static const char *
str_at(const cJSON *j, const char *path0, const char *path1)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, path0);

    if (path1 != NULL)
        v = cJSON_GetObjectItemCaseSensitive(v, path1);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
test_txn_put_cas(void **state)
{
    struct err e = { 0 };
    cJSON *t, *cmp, *op;

    (void)state;
    /* expect a revision: mod_revision must equal it */
    t = store__etcd_txn_put("/a/specs/x", "hi", 2, "42", NULL, &e);
    assert_non_null(t);
    cmp = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "compare"), 0);
    assert_string_equal(str_at(cmp, "target", NULL), "MOD");
    assert_string_equal(str_at(cmp, "result", NULL), "EQUAL");
    assert_string_equal(str_at(cmp, "mod_revision", NULL), "42");
    assert_string_equal(str_at(cmp, "key", NULL), "L2Evc3BlY3MveA==");
    op = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "success"), 0);
    assert_string_equal(str_at(op, "request_put", "value"), "aGk=");
    op = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "failure"), 0);
    assert_string_equal(str_at(op, "request_range", "key"), "L2Evc3BlY3MveA==");
    cJSON_Delete(t);
    /* "" only creates: create_revision == 0 */
    t = store__etcd_txn_put("/k", "v", 1, "", "7", &e);
    cmp = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "compare"), 0);
    assert_string_equal(str_at(cmp, "target", NULL), "CREATE");
    assert_string_equal(str_at(cmp, "create_revision", NULL), "0");
    op = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "success"), 0);
    assert_string_equal(str_at(op, "request_put", "lease"), "7");
    cJSON_Delete(t);
    /* NULL: no compare at all */
    t = store__etcd_txn_put("/k", "v", 1, NULL, NULL, &e);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(t, "compare")), 0);
    cJSON_Delete(t);
    /* a token that is not a revision can never match: conflict */
    assert_null(store__etcd_txn_put("/k", "v", 1, "abc", NULL, &e));
    assert_int_equal(e.code, ERR_CONFLICT);
}

static void
test_txn_del_cas(void **state)
{
    struct err e = { 0 };
    cJSON *t = store__etcd_txn_del("/k", "9", &e), *op;

    (void)state;
    assert_non_null(t);
    op = cJSON_GetArrayItem(cJSON_GetObjectItem(t, "success"), 0);
    assert_string_equal(str_at(op, "request_delete_range", "key"), "L2s=");
    assert_string_equal(
        str_at(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "compare"), 0),
               "mod_revision", NULL),
        "9");
    cJSON_Delete(t);
}

static void
test_prefix_end(void **state)
{
    char out[64];

    (void)state;
    store__etcd_prefix_end("/a/specs/", out, sizeof(out));
    assert_string_equal(out, "/a/specs0");
}

/* A stream: created, a PUT of x, a DELETE of y, a key of another kind
 * (ignored), then a compaction. */
static const char stream[] =
    "{\"result\":{\"header\":{\"revision\":\"5\"},\"created\":true}}\n"
    "{\"result\":{\"header\":{\"revision\":\"7\"},\"events\":["
    "{\"kv\":{\"key\":\"L2Evc3BlY3MveA==\",\"mod_revision\":\"6\","
    "\"value\":\"aGk=\"}},"
    "{\"type\":\"DELETE\",\"kv\":{\"key\":\"L2Evc3BlY3MveQ==\"}},"
    "{\"kv\":{\"key\":\"L2Evc3RhdHVzL3g=\"}}]}}\n"
    "\n"
    "{\"result\":{\"header\":{\"revision\":\"9\"},\"canceled\":true,"
    "\"compact_revision\":\"8\"}}\n";

/* Feed the stream in pieces of size step; collect what comes out. */
static void
run_stream(size_t step)
{
    struct store_etcd_wparse p;
    struct store_change ch[8];
    enum store_etcd_wmsg kinds[8], k;
    size_t n = 0, nk = 0;
    int64_t rev, last_rev = 0;
    bool over = false;

    store__etcd_wparse_init(&p, "/a/specs/");
    for (size_t at = 0; at < sizeof(stream) - 1; at += step) {
        size_t len =
            sizeof(stream) - 1 - at < step ? sizeof(stream) - 1 - at : step;

        assert_int_equal(store__etcd_wparse_feed(&p, stream + at, len, NULL),
                         0);
        for (;;) {
            assert_int_equal(
                store__etcd_wparse_next(&p, &k, &rev, ch, 8, &n, &over, NULL),
                0);
            if (k == STORE_ETCD_WMSG_NONE)
                break;
            kinds[nk++] = k;
            last_rev = rev;
        }
    }
    assert_int_equal(nk, 3);
    assert_int_equal(kinds[0], STORE_ETCD_WMSG_CREATED);
    assert_int_equal(kinds[1], STORE_ETCD_WMSG_EVENTS);
    assert_int_equal(kinds[2], STORE_ETCD_WMSG_COMPACTED);
    assert_int_equal(last_rev, 9);
    assert_int_equal(n, 2);
    assert_false(over);
    assert_int_equal(ch[0].kind, STORE_CHANGE_PUT);
    assert_string_equal(ch[0].name, "x");
    assert_int_equal(ch[1].kind, STORE_CHANGE_DELETE);
    assert_string_equal(ch[1].name, "y");
    store__etcd_wparse_cleanup(&p);
}

static void
test_wparse_split(void **state)
{
    (void)state;
    run_stream(sizeof(stream)); /* all at once */
    for (size_t step = 1; step < 40; step++)
        run_stream(step);
}

static void
test_wparse_bad_and_overflow(void **state)
{
    struct store_etcd_wparse p;
    struct store_change ch[1];
    enum store_etcd_wmsg k;
    size_t n = 0;
    int64_t rev;
    bool over = false;
    struct err e = { 0 };

    (void)state;
    store__etcd_wparse_init(&p, "/a/specs/");
    store__etcd_wparse_feed(&p, "not json\n", 9, NULL);
    assert_int_equal(
        store__etcd_wparse_next(&p, &k, &rev, ch, 1, &n, &over, &e), -1);
    assert_int_equal(e.code, ERR_SYNTAX);
    /* two names, room for one: the second sets over */
    const char *two = "{\"result\":{\"events\":[{\"kv\":{\"key\":"
                      "\"L2Evc3BlY3MveA==\"}},{\"kv\":{\"key\":"
                      "\"L2Evc3BlY3MveQ==\"}}]}}\n";
    store__etcd_wparse_feed(&p, two, strlen(two), NULL);
    assert_int_equal(
        store__etcd_wparse_next(&p, &k, &rev, ch, 1, &n, &over, NULL), 0);
    assert_int_equal(n, 1);
    assert_true(over);
    store__etcd_wparse_cleanup(&p);
}

/* An endpoint without its scheme is named in the error as given (the
 * message was once made from the freed copy: garbage, and a read after
 * free that the ASan and valgrind runs of this test catch). */
static void
test_open_names_bad_endpoint(void **state)
{
    struct err e = { 0 };

    (void)state;
    assert_null(store_etcd_open("http://127.0.0.1:1,127.0.0.1:2379", NULL,
                                "/nonexistent", &e));
    assert_string_equal(e.msg, "etcd endpoint \"127.0.0.1:2379\" is not an "
                               "http:// or https:// URL");
    assert_null(store_etcd_open(",", NULL, "/nonexistent", &e));
    assert_string_equal(e.msg, "no etcd endpoint in \",\"");
    /* the slashes of the scheme are not trailing ones to strip */
    assert_null(store_etcd_open("http://", NULL, "/nonexistent", &e));
    assert_string_equal(e.msg, "etcd endpoint \"http://\" has no host");
    assert_null(store_etcd_open("https:///", NULL, "/nonexistent", &e));
    assert_string_equal(e.msg, "etcd endpoint \"https:///\" has no host");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64_round_trip),
        cmocka_unit_test(test_b64_rejects),
        cmocka_unit_test(test_txn_put_cas),
        cmocka_unit_test(test_txn_del_cas),
        cmocka_unit_test(test_prefix_end),
        cmocka_unit_test(test_wparse_split),
        cmocka_unit_test(test_wparse_bad_and_overflow),
        cmocka_unit_test(test_open_names_bad_endpoint),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
