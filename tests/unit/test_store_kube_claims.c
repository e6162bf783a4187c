/* test_store_kube_claims.c - the API server store's claims and status
 * writes against a fake API server: every store__kube_request() goes to
 * an in-memory map of objects by path (GET, create-only POST, PUT with
 * the resourceVersion precondition: 409 when it moved), linked in with
 * -Wl,--wrap (tests/unit/store_kube.cmake). Covers what a real server
 * cannot show on demand (docs/store-kube.md "Leases and claims", "The
 * controller's cache"):
 *   - a claim won reads the status from the API server, not from a
 *     cache the watch has not brought up to date (control: the cache
 *     served the stale status until the claim);
 *   - no claim under our own Lease when its last renewal is older than
 *     its duration less a third (control: a fresh one claims);
 *   - a renewal refused with 409 (the Lease was fenced) is a lost Lease,
 *     ERR_NOTFOUND, the blocking and the async way (control: without
 *     the 409 it renews);
 *   - a renewal out when the store closes is freed with it (calloc and
 *     free wrapped: every block the store made for it is freed);
 *   - a status write to an object that is gone says ERR_NOTFOUND (it
 *     wrote nothing), not success. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "store_kube_int.h"

#define NS      "agentctl"
#define LEASES  "/apis/coordination.k8s.io/v1/namespaces/" NS "/leases"
#define INVS    STORE_KUBE_GROUP_PATH "/agentinvocations"
#define MAX_OBJ 16

/* ---- the fake API server -------------------------------------------- */

static struct {
    char path[256];
    cJSON *obj;
} objs[MAX_OBJ];
static size_t nobjs;
static unsigned long long next_rv = 100;
static unsigned writes;       /* POST and PUT answered 2xx */
static bool conflict_puts;    /* every PUT: 409 (the object was fenced) */

static cJSON **
find_obj(const char *path)
{
    for (size_t i = 0; i < nobjs; i++)
        if (strcmp(objs[i].path, path) == 0)
            return &objs[i].obj;
    return NULL;
}

static void
set_rv(cJSON *obj)
{
    char rv[32];
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

    snprintf(rv, sizeof(rv), "%llu", next_rv++);
    cJSON_DeleteItemFromObjectCaseSensitive(md, "resourceVersion");
    cJSON_AddStringToObject(md, "resourceVersion", rv);
}

/* obj stored at path (taken), with a new resourceVersion. */
static void
server_put(const char *path, cJSON *obj)
{
    cJSON **slot = find_obj(path);

    set_rv(obj);
    if (slot != NULL) {
        cJSON_Delete(*slot);
        *slot = obj;
        return;
    }
    assert_true(nobjs < MAX_OBJ);
    snprintf(objs[nobjs].path, sizeof(objs[nobjs].path), "%s", path);
    objs[nobjs++].obj = obj;
}

static void
server_reset(void)
{
    for (size_t i = 0; i < nobjs; i++)
        cJSON_Delete(objs[i].obj);
    nobjs = 0;
    writes = 0;
    conflict_puts = false;
}

static int
answer(const cJSON *obj, cJSON **out)
{
    if (out != NULL)
        *out = cJSON_Duplicate(obj, true);
    return 0;
}

int __wrap_store__kube_request(struct store_kube *s, const char *method,
                               const char *path, const char *body,
                               const char *content_type, cJSON **out,
                               long *http, struct err *e);

int
__wrap_store__kube_request(struct store_kube *s, const char *method,
                           const char *path, const char *body,
                           const char *content_type, cJSON **out, long *http,
                           struct err *e)
{
    char at[256];
    size_t len = strlen(path);
    cJSON *in = body ? cJSON_Parse(body) : NULL, **slot;
    const char *name, *rv;

    (void)s;
    (void)content_type;
    if (http != NULL)
        *http = 0;
    if (out != NULL)
        *out = NULL;
    snprintf(at, sizeof(at), "%s", path);
    if (len > 7 && strcmp(path + len - 7, "/status") == 0)
        at[len - 7] = '\0'; /* the status subresource: the object */
    if (strcmp(method, "GET") == 0) {
        cJSON_Delete(in);
        slot = find_obj(at);
        return slot ? answer(*slot, out)
                    : err_set(e, ERR_NOTFOUND, "404 %s", path);
    }
    assert_non_null(in);
    name = store__kube_str(in, "metadata", "name");
    if (strcmp(method, "POST") == 0) {
        snprintf(at, sizeof(at), "%s/%s", path, name);
        if (find_obj(at) != NULL) {
            cJSON_Delete(in);
            return err_set(e, ERR_CONFLICT, "409 AlreadyExists %s", at);
        }
    } else {
        assert_string_equal(method, "PUT");
        slot = find_obj(at);
        rv = store__kube_str(in, "metadata", "resourceVersion");
        if (slot == NULL) {
            cJSON_Delete(in);
            return err_set(e, ERR_NOTFOUND, "404 %s", path);
        }
        if (conflict_puts || rv == NULL ||
            strcmp(rv, store__kube_str(*slot, "metadata",
                                       "resourceVersion")) != 0) {
            cJSON_Delete(in);
            return err_set(e, ERR_CONFLICT, "409 Conflict %s", path);
        }
    }
    server_put(at, in);
    writes++;
    return answer(*find_obj(at), out);
}

/* ---- the store ------------------------------------------------------- */

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A store as the controller has it: holder "x", a live watch whose
 * cache has listed (no stream: nothing is read from it here). */
static struct store_kube *
store_new(void)
{
    struct store_kube *s = calloc(1, sizeof(*s));
    static char ns[] = NS;

    assert_non_null(s);
    s->cfg.namespace = ns;
    snprintf(s->holder, sizeof(s->holder), "x");
    s->check_holders = true;
    s->w = calloc(1, sizeof(*s->w));
    assert_non_null(s->w);
    s->w->easy = (void *)1; /* streaming (never touched here) */
    s->cache.listed = true;
    return s;
}

static void
store_free(struct store_kube *s)
{
    store__kube_cache_cleanup(&s->cache);
    cJSON_Delete(s->own);
    cJSON_Delete(s->own_ok);
    free(s->w);
    free(s);
}

/* An AgentInvocation named name whose status has phase (with our
 * finalizer: a status write makes no PATCH). */
static cJSON *
invocation(const char *name, const char *phase)
{
    char text[512];

    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"agentctl.dev/v1alpha1\","
             "\"kind\":\"AgentInvocation\",\"metadata\":{\"name\":\"%s\","
             "\"uid\":\"u-%s\",\"generation\":1,"
             "\"creationTimestamp\":\"2026-12-07T22:30:00Z\","
             "\"finalizers\":[\"" STORE_KUBE_FINALIZER "\"]},"
             "\"spec\":{\"vendor\":\"fake\"},"
             "\"status\":{\"phase\":\"%s\",\"controller\":\"y\"}}",
             name, name, phase);
    return cJSON_Parse(text);
}

/* Controller holder's Lease of term, renewed age seconds ago (ttl 6 s):
 * on the fake server, and returned as the store keeps what it wrote. */
static cJSON *
controller_lease(const char *holder, int64_t term, double age)
{
    char name[128], path[256];
    cJSON *l;
    struct err e = { 0 };

    snprintf(name, sizeof(name), "%s%s", STORE_KUBE_LEASE_PREFIX, holder);
    snprintf(path, sizeof(path), "%s/%s", LEASES, name);
    l = store__kube_lease_new(name);
    assert_int_equal(
        store__kube_lease_hold(l, holder, 6, term, now_s() - age, true, &e), 0);
    server_put(path, l);
    return cJSON_Duplicate(l, true);
}

static char *
status_read(struct store_kube *s, const char *name)
{
    char *data = NULL;
    size_t len = 0;
    struct err e = { 0 };

    assert_int_equal(
        store__kube_doc_get(&s->base, STORE_DOC_STATUS, name, &data, &len, &e),
        0);
    return data;
}

static int
setup(void **state)
{
    server_reset();
    *state = store_new();
    return 0;
}

static int
teardown(void **state)
{
    store_free(*state);
    server_reset();
    return 0;
}

/* ---- #1: the status after a claim is the API server's ---------------- */

static void
test_claim_reads_status(void **state)
{
    struct store_kube *s = *state;
    cJSON *stale = invocation("web", "Running");
    char *st;
    struct err e = { 0 };

    s->own_ok = controller_lease("x", 1, 0);
    /* the watch brought Running (rv 100); the server has moved on to
     * Succeeded since (the other controller's last write, then its
     * release) */
    set_rv(stale);
    assert_int_equal(store__kube_cache_take(&s->cache, stale), 0);
    server_put(INVS "/web", invocation("web", "Succeeded"));
    /* control: the cache answers, stale */
    st = status_read(s, "web");
    assert_non_null(strstr(st, "Running"));
    free(st);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), 0);
    st = status_read(s, "web");
    assert_non_null(strstr(st, "Succeeded"));
    free(st);
    cJSON_Delete(stale);
}

/* ---- #2: no claim under a stale or fenced Lease ---------------------- */

static void
test_no_claim_under_stale_lease(void **state)
{
    struct store_kube *s = *state;
    struct err e = { 0 };

    server_put(INVS "/web", invocation("web", "Pending"));
    /* renewed 4.5 s ago, ttl 6 s: live 1.5 s more, less than a third */
    s->own_ok = controller_lease("x", 1, 4.5);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "not renewed within"));
    assert_int_equal(writes, 0);
    assert_null(find_obj(LEASES "/" STORE_KUBE_CLAIM_PREFIX "web"));
    /* another term's Lease is not ours either */
    cJSON_Delete(s->own_ok);
    s->own_ok = controller_lease("x", 2, 0);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), -1);
    /* control: renewed 1 s ago, the claim is written */
    cJSON_Delete(s->own_ok);
    s->own_ok = controller_lease("x", 1, 1);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), 0);
    assert_non_null(find_obj(LEASES "/" STORE_KUBE_CLAIM_PREFIX "web"));
    /* the Lease as last written (own) counts as well */
    cJSON_Delete(s->own_ok);
    s->own_ok = NULL;
    s->own = controller_lease("x", 1, 1);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), 0);
}

static void
test_fenced_renewal_is_lost(void **state)
{
    struct store_kube *s = *state;
    struct err e = { 0 };

    server_put(INVS "/web", invocation("web", "Pending"));
    cJSON_Delete(controller_lease("x", 1, 1));
    /* control: the renewal goes, and records the Lease claims go under */
    assert_int_equal(store__kube_lease_keepalive(&s->base, 1, &e), 0);
    assert_non_null(s->own_ok);
    /* a fence wrote it between our read and our write: 409 */
    conflict_puts = true;
    assert_int_equal(store__kube_lease_keepalive(&s->base, 1, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "fenced by another controller"));
    conflict_puts = false;
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_int_equal(store__kube_lease_keepalive(&s->base, 1, &e), 0);
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), 0);
}

/* The async renewal: the request is caught here, answered by the test. */
static store_kube_answer_fn *sent_done;
static void *sent_arg;

int __wrap_store__kube_send_async(struct store_kube *s, const char *method,
                                  const char *path, const cJSON *body,
                                  const char *what, store_kube_answer_fn *done,
                                  void *arg, struct err *e);
int __real_store__kube_send_async(struct store_kube *s, const char *method,
                                  const char *path, const cJSON *body,
                                  const char *what, store_kube_answer_fn *done,
                                  void *arg, struct err *e);

int
__wrap_store__kube_send_async(struct store_kube *s, const char *method,
                              const char *path, const cJSON *body,
                              const char *what, store_kube_answer_fn *done,
                              void *arg, struct err *e)
{
    if (s->w->multi != NULL) /* a real multi handle: the real sender */
        return __real_store__kube_send_async(s, method, path, body, what, done,
                                             arg, e);
    sent_done = done;
    sent_arg = arg;
    return 0;
}

struct renewal_answer {
    int rc;
    struct err e;
};

static void
renewal_answered(void *arg, int rc, const struct err *e)
{
    struct renewal_answer *a = arg;

    a->rc = rc;
    a->e = *e;
}

/* An async renewal sent, then answered with an error of code: what the
 * controller's callback got. */
static struct renewal_answer
renewal_refused(struct store_kube *s, enum err_code code, const char *msg)
{
    struct renewal_answer got = { 0 };
    struct err e = { 0 }, refused = { 0 };

    cJSON_Delete(s->own);
    s->own = controller_lease("x", 1, 1);
    assert_int_equal(
        store__kube_lease_keepalive_async(&s->base, 1, renewal_answered, &got,
                                          &e),
        0);
    err_set(&refused, code, "%s", msg);
    sent_done(s, sent_arg, -1, NULL, &refused);
    assert_int_equal(got.rc, -1);
    return got;
}

static void
test_fenced_async_renewal_is_lost(void **state)
{
    struct store_kube *s = *state;
    struct renewal_answer got;
    struct err e = { 0 };

    s->own_ok = controller_lease("x", 1, 1);
    /* control: another refusal (500) is trouble, not a lost Lease */
    got = renewal_refused(s, ERR_REMOTE, "500 Internal Server Error");
    assert_int_equal(got.e.code, ERR_REMOTE);
    assert_non_null(s->own_ok);
    /* 409: fenced, lost at once; no claims under it */
    got = renewal_refused(s, ERR_CONFLICT, "409 Conflict");
    assert_int_equal(got.e.code, ERR_NOTFOUND);
    assert_non_null(strstr(got.e.msg, "fenced by another controller"));
    assert_null(s->own_ok);
    server_put(INVS "/web", invocation("web", "Pending"));
    assert_int_equal(store__kube_claim(&s->base, "web", "x", 1, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
}

/* ---- #7: a status write to an object that is gone ------------------- */

static void
test_status_of_gone_object_not_written(void **state)
{
    struct store_kube *s = *state;
    const char st[] = "{\"phase\":\"Succeeded\"}";
    struct err e = { 0 };
    char *got;

    assert_int_equal(store__kube_doc_put(&s->base, STORE_DOC_STATUS, "gone",
                                         st, strlen(st), &e),
                     -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "nothing written"));
    assert_int_equal(writes, 0);
    /* control: an object that is there takes it */
    server_put(INVS "/web", invocation("web", "Running"));
    assert_int_equal(store__kube_doc_put(&s->base, STORE_DOC_STATUS, "web",
                                         st, strlen(st), &e),
                     0);
    got = status_read(s, "web");
    assert_non_null(strstr(got, "Succeeded"));
    free(got);
}

/* ---- #6: a renewal out when the store closes ------------------------- */

/* The blocks the store's own code callocs while tracking (libcurl's and
 * cJSON's are not wrapped); each slot is cleared when freed. */
static void *tracked[8];
static size_t ntracked;
static bool tracking;

void *__real_calloc(size_t n, size_t size);
void __real_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void __wrap_free(void *p);

void *
__wrap_calloc(size_t n, size_t size)
{
    void *p = __real_calloc(n, size);

    if (tracking && p != NULL && ntracked < 8)
        tracked[ntracked++] = p;
    return p;
}

void
__wrap_free(void *p)
{
    for (size_t i = 0; p != NULL && i < ntracked; i++)
        if (tracked[i] == p)
            tracked[i] = NULL;
    __real_free(p);
}

static void
test_dropped_renewal_freed(void **state)
{
    struct store_kube *s = *state;
    static char server[] = "https://127.0.0.1:9"; /* never contacted */
    struct renewal_answer got = { .rc = 7 };
    struct err e = { 0 };

    s->cfg.server = server;
    s->w->multi = curl_multi_init();
    assert_non_null(s->w->multi);
    s->own = controller_lease("x", 1, 1);
    tracking = true;
    assert_int_equal(
        store__kube_lease_keepalive_async(&s->base, 1, renewal_answered, &got,
                                          &e),
        0);
    tracking = false;
    assert_non_null(s->call); /* on the multi handle, never performed */
    assert_true(ntracked >= 2); /* the renewal and the call */
    store__kube_async_drop(s); /* the store closes */
    assert_null(s->call);
    assert_int_equal(got.rc, 7); /* not answered */
    for (size_t i = 0; i < ntracked; i++)
        assert_null(tracked[i]); /* each one freed */
    ntracked = 0;
    curl_multi_cleanup(s->w->multi);
}

#define WITH_STORE(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int
main(void)
{
    const struct CMUnitTest tests[] = {
        WITH_STORE(test_claim_reads_status),
        WITH_STORE(test_no_claim_under_stale_lease),
        WITH_STORE(test_fenced_renewal_is_lost),
        WITH_STORE(test_fenced_async_renewal_is_lost),
        WITH_STORE(test_dropped_renewal_freed),
        WITH_STORE(test_status_of_gone_object_not_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
