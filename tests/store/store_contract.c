/* store_contract.c - the store contract: the same cases run against any
 * backend named on the command line, so the directory and etcd stores
 * are held to one behaviour (store.h).
 *
 *   store_contract [--break] dir SPECS_DIR STATE_DIR
 *   store_contract [--break] etcd URLS PREFIX STATE_DIR
 *   store_contract --watch etcd URLS PREFIX STATE_DIR
 *   store_contract [--break] kube KUBECONFIG STATE_DIR
 *
 * The Kubernetes API server store (docs/store-kube.md) runs the spec
 * cases only: its documents are parts of an object and cannot exist
 * without it, and it returns the object's text, not the bytes put.
 *
 * --watch only lists, then prints every change as a line ("PUT name",
 * "DELETE name", "RESYNC") until killed, so a harness can stop and
 * restart etcd underneath it.
 *
 * Every case prints "ok" or "FAIL" and the exit status is the number of
 * failures (capped at 100). --break runs one deliberately wrong
 * expectation (a put with a stale revision must succeed), so a harness can
 * show that the suite reports a failure when the contract is broken.
 * Waiting for watch changes uses a generous deadline, never a timing
 * assertion. Not a ctest unit: it needs a live backend. */
#include "store.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#define WAIT_MS 15000

struct ctx {
    char **argv; /* backend and its arguments */
    bool etcd, kube, broken;
    int fails;
};

static void
check(struct ctx *c, bool ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    fflush(stdout);
    if (!ok)
        c->fails++;
}

static struct store *
open_store(const struct ctx *c)
{
    struct err e = { 0 };
    struct store *s;

    if (c->etcd)
        s = store_etcd_open(c->argv[1], c->argv[2], c->argv[3], &e);
    else if (c->kube)
        s = store_kube_open(c->argv[1], NULL, c->argv[2], &e);
    else
        s = store_dir_open(c->argv[1], c->argv[2], &e);
    if (s == NULL)
        fprintf(stderr, "store_contract: open: %s\n", e.msg);
    return s;
}

static char *
spec_yaml(const char *name, const char *image)
{
    char *y = NULL;

    if (asprintf(&y,
                 "apiVersion: agentctl.dev/v1alpha1\n"
                 "kind: AgentInvocation\n"
                 "metadata:\n  name: %s\n"
                 "spec:\n  vendor: fake\n  phase: planning\n"
                 "  image: %s\n  command: [demo-agent]\n"
                 "  deadlineSeconds: 1\n",
                 name, image) == -1)
        exit(100);
    return y;
}

static int
put(struct store *s, const char *name, const char *image, const char *expect,
    char rev[STORE_REV_MAX], struct err *e)
{
    char *y = spec_yaml(name, image);
    int rc = store_put(s, name, y, strlen(y), expect, rev, e);

    free(y);
    return rc;
}

static void
case_kv(struct ctx *c, struct store *s)
{
    struct store_list l;
    struct store_spec sp;
    struct err e = { 0 };
    char r1[STORE_REV_MAX] = "", r2[STORE_REV_MAX] = "";
    char *y = spec_yaml("alpha", "img:1");

    check(c, store_list(s, &l, &e) == 0 && l.n == 0, "list: empty store");
    store_list_cleanup(&l);
    check(c, put(s, "alpha", "img:1", "", r1, &e) == 0 && r1[0] != '\0',
          "put: create-only creates");
    check(c,
          put(s, "alpha", "img:1", "", NULL, &e) == -1 &&
              e.code == ERR_CONFLICT,
          "put: create-only on an existing name conflicts");
    check(c,
          store_get(s, "alpha", &sp, &e) == 0 && sp.inv != NULL &&
              strcmp(sp.rev, r1) == 0 &&
              (c->kube ? strstr(sp.data, "img:1") != NULL
                       : sp.len == strlen(y) &&
                             memcmp(sp.data, y, sp.len) == 0),
          "get: bytes as put (the object's text on kube), revision as put "
          "returned");
    store_spec_cleanup(&sp);
    check(c, put(s, "alpha", "img:2", r1, r2, &e) == 0 && strcmp(r1, r2) != 0,
          "put: matching revision writes, revision changes");
    if (c->broken)
        check(c, put(s, "alpha", "img:3", r1, NULL, &e) == 0,
              "BROKEN EXPECTATION: put with a stale revision succeeds");
    else
        check(c,
              put(s, "alpha", "img:3", r1, NULL, &e) == -1 &&
                  e.code == ERR_CONFLICT,
              "put: stale revision conflicts");
    check(c,
          store_list(s, &l, &e) == 0 && l.n == 1 &&
              strcmp(l.items[0].name, "alpha") == 0 &&
              strstr(l.items[0].data, "img:2") != NULL,
          "list: one spec, the last write that won");
    store_list_cleanup(&l);
    check(c, store_del(s, "alpha", r1, &e) == -1 && e.code == ERR_CONFLICT,
          "del: stale revision conflicts");
    check(c, store_del(s, "alpha", "", &e) == -1 && e.code == ERR_CONFLICT,
          "del: \"only if absent\" on an existing name conflicts");
    check(c, store_del(s, "alpha", r2, &e) == 0, "del: matching revision");
    check(c, store_get(s, "alpha", &sp, &e) == -1 && e.code == ERR_NOTFOUND,
          "get: deleted is not found");
    check(c, store_del(s, "alpha", NULL, &e) == -1 && e.code == ERR_NOTFOUND,
          "del: absent is not found");
    free(y);
}

/* n processes race to create one document: exactly one may win. */
static int
race_create(struct ctx *c, int n)
{
    int wins = 0;

    for (int i = 0; i < n; i++)
        if (fork() == 0) {
            struct store *s = open_store(c);
            struct err e = { 0 };
            int rc = s != NULL && store_doc_create(s, STORE_DOC_META, "race",
                                                   "{}", 2, &e) == 0;

            store_close(s);
            _exit(rc ? 0 : e.code == ERR_CONFLICT ? 1 : 2);
        }
    for (int i = 0; i < n; i++) {
        int st;

        wait(&st);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            wins++;
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 1)
            wins += 100;
    }
    return wins;
}

static void
case_docs(struct ctx *c, struct store *s)
{
    struct err e = { 0 };
    char *d = NULL, **names = NULL;
    size_t len = 0, n = 0;

    check(c,
          store_doc_get(s, STORE_DOC_STATUS, "beta", &d, &len, &e) == -1 &&
              e.code == ERR_NOTFOUND,
          "doc: absent is not found");
    check(c,
          store_doc_put(s, STORE_DOC_STATUS, "beta", "{\"a\":1}", 7, &e) == 0 &&
              store_doc_put(s, STORE_DOC_STATUS, "alpha", "{}", 2, &e) == 0,
          "doc: put");
    check(c,
          store_doc_get(s, STORE_DOC_STATUS, "beta", &d, &len, &e) == 0 &&
              len == 7 && strcmp(d, "{\"a\":1}") == 0,
          "doc: get returns what put wrote");
    free(d);
    check(c,
          store_doc_create(s, STORE_DOC_STATUS, "beta", "{}", 2, &e) == -1 &&
              e.code == ERR_CONFLICT,
          "doc: create on an existing document conflicts");
    check(c, race_create(c, 4) == 1, "doc: 4 racing creators, one wins");
    check(c,
          store_doc_names(s, STORE_DOC_STATUS, &names, &n, &e) == 0 && n == 2 &&
              strcmp(names[0], "alpha") == 0 && strcmp(names[1], "beta") == 0,
          "doc: names sorted");
    store_names_free(names, n);
    check(c,
          store_doc_del(s, STORE_DOC_STATUS, "beta", &e) == 0 &&
              store_doc_del(s, STORE_DOC_STATUS, "beta", &e) == 0 &&
              store_doc_get(s, STORE_DOC_STATUS, "beta", &d, &len, &e) == -1,
          "doc: del, del of absent is fine");
    store_doc_del(s, STORE_DOC_STATUS, "alpha", NULL);
    store_doc_del(s, STORE_DOC_META, "race", NULL);
}

/* A pool document is named by a controller ID, which may hold capitals,
 * dots and underscores; still never a path, and the other kinds keep
 * DNS-1123 names (the control). */
static void
case_pool_docs(struct ctx *c, struct store *s)
{
    static const char *const refused[] = {
        ".",
        "..",
        ".hidden",
        "a/b",
        "a b",
        "",
        "x123456789012345678901234567890123456789012345678901234567890123",
    };
    struct err e = { 0 };
    char *d = NULL, **names = NULL;
    size_t len = 0, n = 0;
    bool all_refused = true;

    check(c,
          store_doc_put(s, STORE_DOC_POOL, "agentctl-1", "{\"boxes\":[]}", 12,
                        &e) == 0 &&
              store_doc_put(s, STORE_DOC_POOL, "Node.B_2", "{}", 2, &e) == 0,
          "pool doc: a controller ID with capitals, '.' and '_' is a name");
    check(c,
          store_doc_get(s, STORE_DOC_POOL, "Node.B_2", &d, &len, &e) == 0 &&
              len == 2,
          "pool doc: get by that name");
    free(d);
    check(c,
          store_doc_names(s, STORE_DOC_POOL, &names, &n, &e) == 0 && n == 2 &&
              strcmp(names[0], "Node.B_2") == 0 &&
              strcmp(names[1], "agentctl-1") == 0,
          "pool doc: names listed, sorted");
    store_names_free(names, n);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (store_doc_put(s, STORE_DOC_POOL, refused[i], "{}", 2, &e) == 0 ||
            e.code != ERR_INVALID)
            all_refused = false;
    check(c, all_refused, "pool doc: '.', '..', a dot-file, a path refused");
    check(c,
          store_doc_put(s, STORE_DOC_STATUS, "Node.B_2", "{}", 2, &e) == -1 &&
              e.code == ERR_INVALID,
          "control: a status name is still a DNS-1123 label");
    check(c,
          store_doc_del(s, STORE_DOC_POOL, "Node.B_2", &e) == 0 &&
              store_doc_del(s, STORE_DOC_POOL, "agentctl-1", &e) == 0 &&
              store_doc_names(s, STORE_DOC_POOL, &names, &n, &e) == 0 && n == 0,
          "pool doc: del");
    store_names_free(names, n);
}

static void
case_events(struct ctx *c, struct store *s)
{
    struct err e = { 0 };
    char *d = NULL;
    size_t len = 0;

    check(c, store_event_read(s, "gamma", &d, &len, &e) == 0 && len == 0,
          "events: a missing log reads empty");
    free(d);
    check(c,
          store_event_append(s, "gamma", "{\"n\":1}", &e) == 0 &&
              store_event_append(s, "gamma", "{\"n\":2}", &e) == 0 &&
              store_event_append(s, "gamma", "{\"n\":3}", &e) == 0,
          "events: append");
    check(c,
          store_event_read(s, "gamma", &d, &len, &e) == 0 &&
              strcmp(d, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n") == 0,
          "events: read back in order, one per line");
    free(d);
}

/* Several names' statuses and events at once (the controller's writes
 * of one loop iteration): every item answered, every one readable; an
 * item with a bad event fails alone. */
static void
case_status_write_many(struct ctx *c, struct store *s)
{
    static const char st[] = "{\"phase\":\"Pending\"}";
    char *const ev[] = { "{\"m\":1}" };
    char *const bad[] = { "{\"m\":\n2}" };
    struct store_status_item it[] = {
        { .name = "zeta1", .status = st, .len = strlen(st), .events = ev,
          .n_events = 1 },
        { .name = "zeta2", .status = st, .len = strlen(st), .events = ev,
          .n_events = 1 },
        { .name = "zeta3", .events = ev, .n_events = 1 },
    };
    struct store_status_item one_bad[] = {
        { .name = "zeta4", .status = st, .len = strlen(st) },
        { .name = "zeta5", .status = st, .len = strlen(st), .events = bad,
          .n_events = 1 },
    };
    struct err e = { 0 };
    char *d = NULL;
    size_t len = 0;
    bool all = true;

    store_status_write_many(s, it, 3);
    for (size_t i = 0; i < 3; i++)
        all = all && it[i].rc == 0;
    check(c, all, "status write many: every item written");
    check(c, store_doc_get(s, STORE_DOC_STATUS, "zeta2", &d, &len, &e) == 0 &&
                 len == strlen(st),
          "status write many: a status reads back");
    free(d);
    d = NULL;
    check(c, store_event_read(s, "zeta3", &d, &len, &e) == 0 && d != NULL &&
                 strcmp(d, "{\"m\":1}\n") == 0,
          "status write many: events without a status are appended");
    free(d);
    d = NULL;
    store_status_write_many(s, one_bad, 2);
    check(c, one_bad[1].rc == -1 && one_bad[1].err.code == ERR_INVALID,
          "status write many: a multi-line event fails its item");
    check(c, store_doc_get(s, STORE_DOC_STATUS, "zeta5", &d, &len, &e) == -1,
          "status write many: the failed item wrote nothing");
    free(d);
}

/* A status and the events that led to it, written together: after an
 * older event, in order, the status readable; a multi-line event is
 * refused and writes nothing. */
static void
case_status_write(struct ctx *c, struct store *s)
{
    static const char status[] = "{\"phase\":\"Failed\"}";
    char *const evs[] = { "{\"n\":2}", "{\"n\":3}" };
    char *const bad[] = { "{\"n\":4}", "{\"n\":\n5}" };
    struct err e = { 0 };
    char *d = NULL;
    size_t len = 0;

    check(c, store_event_append(s, "delta", "{\"n\":1}", &e) == 0 &&
                 store_status_write(s, "delta", status, strlen(status), evs,
                                    2, &e) == 0,
          "status write: a status with two events");
    check(c, store_event_read(s, "delta", &d, &len, &e) == 0 && d != NULL &&
                 strcmp(d, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n") == 0,
          "status write: the events follow the older one, in order");
    free(d);
    d = NULL;
    check(c, store_doc_get(s, STORE_DOC_STATUS, "delta", &d, &len, &e) == 0 &&
                 len == strlen(status) && memcmp(d, status, len) == 0,
          "status write: the status reads back");
    free(d);
    d = NULL;
    check(c, store_status_write(s, "epsilon", status, strlen(status), bad, 2,
                                &e) == -1 &&
                 e.code == ERR_INVALID,
          "status write: a multi-line event is refused");
    check(c, store_doc_get(s, STORE_DOC_STATUS, "epsilon", &d, &len, &e) ==
                     -1 &&
                 e.code == ERR_NOTFOUND,
          "status write: a refused write writes no status");
    free(d);
    check(c, store_status_write(s, "delta", NULL, 0, evs, 1, &e) == 0 &&
                 store_event_read(s, "delta", &d, &len, &e) == 0 &&
                 strstr(d, "{\"n\":3}\n{\"n\":2}\n") != NULL,
          "status write: events without a status are appended");
    free(d);
    case_status_write_many(c, s);
}

/* Claims and releases of several names at once (a controller's claims
 * of one loop iteration): each won or lost on its own - a free name is
 * taken (was_free), another holder's is refused by name, our own under
 * an older lease is taken over (not free), a release of a name nobody
 * holds is no error. On etcd, kappa5 and kappa6 stay claimed for the
 * harness to compare their revisions. The directory store has no claims:
 * every item succeeds and nothing is held. */
static void
case_claims(struct ctx *c, struct store *s)
{
    struct store_claim_item it[] = {
        { .name = "kappa1" }, { .name = "kappa2" }, { .name = "kappa3" },
        { .name = "kappa4", .release = true },
        { .name = "kappa5" }, { .name = "kappa6" },
    };
    struct store_claim_item back[] = {
        { .name = "kappa1", .release = true },
        { .name = "kappa3", .release = true },
    };
    int64_t old = 0, lease = 0;
    char who[64] = "";
    struct err e = { 0 };

    if (store_lease_grant(s, 60, &old, &e) == -1 ||
        store_lease_grant(s, 60, &lease, &e) == -1 ||
        store_claim(s, "kappa2", "ctl-other", old, &e) == -1 ||
        store_claim(s, "kappa3", "ctl-a", old, &e) == -1) {
        check(c, false, e.msg);
        return;
    }
    store_claim_many(s, "ctl-a", lease, it, 6);
    check(c, it[0].rc == 0 && it[0].was_free, "claims: a free name is taken");
    if (!c->etcd) {
        check(c, it[1].rc == 0 && it[2].rc == 0 && it[3].rc == 0,
              "claims: no claims here, every item succeeds");
        return;
    }
    check(c, it[1].rc == -1 && it[1].err.code == ERR_CONFLICT &&
                 strstr(it[1].err.msg, "claimed by controller ctl-other"),
          "claims: another holder's name is refused, the holder named");
    check(c, it[2].rc == 0 && !it[2].was_free,
          "claims: our own under an older lease is taken over, not free");
    check(c, it[3].rc == 0, "claims: releasing what nobody holds is no error");
    check(c, store_claim_holder(s, "kappa1", who, sizeof(who), &e) == 0 &&
                 strcmp(who, "ctl-a") == 0,
          "claims: the name taken is held by us");
    store_claim_many(s, "ctl-a", lease, back, 2);
    check(c, back[0].rc == 0 && back[1].rc == 0 &&
                 store_claim_holder(s, "kappa1", who, sizeof(who), &e) == -1 &&
                 e.code == ERR_NOTFOUND &&
                 store_claim_holder(s, "kappa3", who, sizeof(who), &e) == -1,
          "claims: released at once, nobody holds them");
    check(c, store_claim_holder(s, "kappa2", who, sizeof(who), &e) == 0 &&
                 strcmp(who, "ctl-other") == 0,
          "claims: the other holder's claim stays");
}

static void
claims_done(void *arg, int rc, const struct err *e)
{
    (void)e;
    *(int *)arg = rc == 0 ? 1 : -1;
}

/* Read the watch until *answered is set (an async request's answer comes
 * from store_watch_read()), for up to WAIT_MS. */
static void
pump_until_answered(struct store *s, int fd, const int *answered)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    struct store_change ch[64];

    for (int waited = 0; *answered == 0 && waited < WAIT_MS; waited += 100) {
        size_t n = 0;

        if (poll(&p, 1, 100) < 0 || store_watch_read(s, ch, 64, &n, NULL) < 0)
            break;
    }
}

/* A removal in a group (a deleted spec whose objects are gone): its
 * events appended, its status and metadata gone, from the cache too. */
static void
status_async_remove(struct ctx *c, struct store *s, int fd)
{
    char *const ev[] = { "{\"gone\":1}" };
    struct store_status_item rm[] = {
        { .name = "mu1", .events = ev, .n_events = 1, .remove = true },
    };
    struct store_meta m;
    struct err e = { 0 };
    char *d = NULL;
    size_t len = 0;
    int answered = 0;

    check(c, store_meta_observe(s, "mu1", "h1", &m, &e) == 0,
          "status async: metadata to remove");
    check(c,
          store_status_write_many_async(s, rm, 1, claims_done, &answered, &e) ==
              0,
          "status async: a removal is sent");
    pump_until_answered(s, fd, &answered);
    check(c, answered == 1 && rm[0].rc == 0,
          "status async: the removal is answered");
    check(c,
          store_doc_get(s, STORE_DOC_STATUS, "mu1", &d, &len, &e) == -1 &&
              e.code == ERR_NOTFOUND,
          "status async: the removed status is gone");
    free(d);
    d = NULL;
    check(c, store_meta_get(s, "mu1", &m, &e) == -1 && e.code == ERR_NOTFOUND,
          "status async: the removed metadata is gone");
    check(c,
          store_event_read(s, "mu1", &d, &len, &e) == 0 && d != NULL &&
              strstr(d, "{\"gone\":1}\n") != NULL,
          "status async: the removal's event is appended");
    free(d);
}

/* The controller's group write without blocking: on etcd the answer
 * comes from a later store_watch_read(), never from inside the call;
 * every item is written, and one name's trouble (a status over the
 * state limit) fails that name alone. The directory store writes the
 * blocking way and answers at once. */
static void
case_status_async(struct ctx *c, struct store *s)
{
    static const char st[] = "{\"phase\":\"Running\"}";
    char *const ev[] = { "{\"a\":1}", "{\"a\":2}" };
    size_t big_len = STORE_STATE_MAX + 1;
    char *big = malloc(big_len + 1);
    struct store_status_item it[] = {
        { .name = "mu1",
          .status = st,
          .len = strlen(st),
          .events = ev,
          .n_events = 2 },
        { .name = "mu2", .events = ev, .n_events = 1 },
        { .name = "mu3", .status = big, .len = big_len },
    };
    struct err e = { 0 };
    char *d = NULL;
    size_t len = 0;
    int answered = 0, fd = store_watch_fd(s, &e);

    if (big == NULL || fd < 0) {
        check(c, false, "status async: no watch or no memory");
        free(big);
        return;
    }
    memset(big, 'x', big_len);
    big[big_len] = '\0';
    check(c,
          store_status_write_many_async(s, it, 3, claims_done, &answered, &e) ==
              0,
          "status async: sent");
    if (c->etcd)
        check(c, answered == 0,
              "status async: not answered from inside the call");
    pump_until_answered(s, fd, &answered);
    check(c, answered == 1, "status async: answered");
    check(c, it[0].rc == 0 && it[1].rc == 0,
          "status async: the good items are written");
    check(c, it[2].rc == -1 && it[2].err.code == ERR_LIMIT,
          "status async: a status over the limit fails its item alone");
    check(c,
          store_doc_get(s, STORE_DOC_STATUS, "mu1", &d, &len, &e) == 0 &&
              len == strlen(st) && memcmp(d, st, len) == 0,
          "status async: the status reads back");
    free(d);
    d = NULL;
    check(c,
          store_event_read(s, "mu1", &d, &len, &e) == 0 && d != NULL &&
              strcmp(d, "{\"a\":1}\n{\"a\":2}\n") == 0,
          "status async: its events read back, in order");
    free(d);
    d = NULL;
    check(c,
          store_event_read(s, "mu2", &d, &len, &e) == 0 && d != NULL &&
              strcmp(d, "{\"a\":1}\n") == 0,
          "status async: events without a status are appended");
    free(d);
    free(big);
    /* one txn etcd refuses (a key twice in it): each name tried alone */
    it[1] = it[0];
    answered = 0;
    check(c,
          store_status_write_many_async(s, it, 2, claims_done, &answered, &e) ==
              0,
          "status async: a txn etcd refuses is sent");
    pump_until_answered(s, fd, &answered);
    check(c, answered == 1 && it[0].rc == 0 && it[1].rc == 0,
          "status async: a refused txn is written name by name");
    status_async_remove(c, s, fd);
}

/* The same claims without blocking (the controller's way): on etcd the
 * answer comes from a later store_watch_read(), never from inside the
 * call, and each name is won or lost on its own as with
 * store_claim_many(); more than one txn's worth is refused. The
 * directory store has no claims: it answers at once, every item won. */
static void
case_claims_async(struct ctx *c, struct store *s)
{
    struct store_claim_item it[] = { { .name = "lambda1" },
                                     { .name = "lambda2" } };
    struct store_claim_item many[STORE_CLAIMS_ASYNC_MAX + 1];
    struct pollfd p = { .events = POLLIN };
    int64_t other = 0, lease = 0;
    int answered = 0;
    char who[64] = "";
    struct err e = { 0 };

    if (store_lease_grant(s, 60, &other, &e) == -1 ||
        store_lease_grant(s, 60, &lease, &e) == -1 ||
        store_claim(s, "lambda2", "ctl-other", other, &e) == -1 ||
        (p.fd = store_watch_fd(s, &e)) < 0) {
        check(c, false, e.msg);
        return;
    }
    check(c,
          store_claim_many_async(s, "ctl-a", lease, it, 2, claims_done,
                                 &answered, &e) == 0,
          "claims async: sent");
    if (c->etcd)
        check(c, answered == 0,
              "claims async: not answered from inside the call");
    pump_until_answered(s, p.fd, &answered);
    check(c, answered == 1, "claims async: answered");
    if (!c->etcd) {
        check(c, it[0].rc == 0 && it[1].rc == 0,
              "claims async: no claims here, every item succeeds");
        return;
    }
    check(c,
          it[0].rc == 0 && it[0].was_free &&
              store_claim_holder(s, "lambda1", who, sizeof(who), &e) == 0 &&
              strcmp(who, "ctl-a") == 0,
          "claims async: a free name is taken and held by us");
    check(c,
          it[1].rc == -1 && it[1].err.code == ERR_CONFLICT &&
              strstr(it[1].err.msg, "ctl-other") != NULL,
          "claims async: another holder's name is refused, the holder named");
    for (size_t i = 0; i < STORE_CLAIMS_ASYNC_MAX + 1; i++)
        many[i] = (struct store_claim_item){ .name = "lambda3" };
    answered = 0;
    check(c,
          store_claim_many_async(s, "ctl-a", lease, many,
                                 STORE_CLAIMS_ASYNC_MAX + 1, claims_done,
                                 &answered, &e) == -1 &&
              e.code == ERR_INVALID && answered == 0,
          "claims async: more than one txn's worth is refused, unanswered");
}

static uint64_t
observe(struct store *s, const char *hash, char uid[37])
{
    struct store_meta m;
    struct err e = { 0 };

    if (store_meta_observe(s, "delta", hash, &m, &e) == -1) {
        fprintf(stderr, "observe: %s\n", e.msg);
        return 0;
    }
    if (uid != NULL)
        memcpy(uid, m.uid, 37);
    return m.generation;
}

static void
case_meta(struct ctx *c, struct store *s)
{
    char u1[37], u2[37];
    bool same = true;

    check(c,
          observe(s, "h1", u1) == 1 && observe(s, "h1", u2) == 1 &&
              strcmp(u1, u2) == 0,
          "meta: first sight is generation 1, same hash keeps it");
    check(c,
          observe(s, "h2", NULL) == 2 && observe(s, "h2", NULL) == 2 &&
              observe(s, "h3", NULL) == 3,
          "meta: generation advances only when the hash changes");
    /* four processes observe the same change at once: it counts once */
    for (int i = 0; i < 4; i++)
        if (fork() == 0) {
            struct store *cs = open_store(c);
            uint64_t g = cs ? observe(cs, "h4", NULL) : 0;

            store_close(cs);
            _exit(g == 4 ? 0 : 1);
        }
    for (int i = 0; i < 4; i++) {
        int st;

        wait(&st);
        same = same && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    check(c, same && observe(s, "h4", NULL) == 4,
          "meta: 4 racing observers of one change advance it once");
    store_doc_del(s, STORE_DOC_META, "delta", NULL);
}

/* The watch fd once every list behind it is in: etcd's lists go without
 * blocking (docs/store-etcd.md "Watch"), and a change made before they
 * are answered is in the list, not a PUT. What is read meanwhile is
 * dropped: the caller lists. */
static int
watch_ready(struct store *s, struct err *e)
{
    int fd = store_watch_fd(s, e);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    struct store_change ch[64];

    for (int waited = 0; fd >= 0 && !store_watch_primed(s) && waited < WAIT_MS;
         waited += 100) {
        size_t n = 0;

        if (poll(&p, 1, 100) < 0 || store_watch_read(s, ch, 64, &n, e) < 0)
            return -1;
    }
    return store_watch_primed(s) ? fd : -1;
}

/* Read changes until want(name, kind) has been seen, or a RESYNC. */
static bool
wait_change(struct store *s, const char *name, enum store_change_kind kind,
            bool *resync)
{
    struct pollfd p = { .fd = store_watch_fd(s, NULL), .events = POLLIN };
    struct store_change ch[64];

    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        size_t n = 0;

        if (poll(&p, 1, 100) < 0 || store_watch_read(s, ch, 64, &n, NULL) < 0)
            return false;
        for (size_t i = 0; i < n; i++) {
            if (ch[i].kind == STORE_CHANGE_RESYNC && resync != NULL) {
                *resync = true;
                return true;
            }
            if (ch[i].kind == kind && strcmp(ch[i].name, name) == 0)
                return true;
        }
    }
    return false;
}

/* Read changes until want distinct burst-NN PUTs were seen (true) or a
 * RESYNC came (*resync). */
static size_t
collect_burst(struct store *s, size_t want, bool *resync)
{
    struct pollfd p = { .fd = store_watch_fd(s, NULL), .events = POLLIN };
    struct store_change ch[64];
    bool seen[100] = { false };
    size_t k = 0;

    for (int waited = 0; waited < WAIT_MS && k < want && !*resync;
         waited += 100) {
        size_t n = 0;

        if (poll(&p, 1, 100) < 0 || store_watch_read(s, ch, 64, &n, NULL) < 0)
            return k;
        for (size_t i = 0; i < n; i++) {
            int at;

            if (ch[i].kind == STORE_CHANGE_RESYNC)
                *resync = true;
            else if (ch[i].kind == STORE_CHANGE_PUT &&
                     sscanf(ch[i].name, "burst-%d", &at) == 1 && at >= 0 &&
                     at < 100 && !seen[at]) {
                seen[at] = true;
                k++;
            }
        }
    }
    return k;
}

static void
case_watch(struct ctx *c, struct store *s)
{
    struct store_list l;
    struct err e = { 0 };
    const char *bad = "apiVersion: agentctl.dev/v1alpha1\nkind: [\n";
    bool resync = false;
    char name[32];
    size_t seen = 0;
    struct store_spec sp;

    check(c, store_list(s, &l, &e) == 0 && watch_ready(s, &e) >= 0,
          "watch: fd after a list");
    store_list_cleanup(&l);
    check(c,
          put(s, "epsilon", "img:1", NULL, NULL, &e) == 0 &&
              wait_change(s, "epsilon", STORE_CHANGE_PUT, NULL),
          "watch: a put is a PUT");
    check(c,
          store_del(s, "epsilon", NULL, &e) == 0 &&
              wait_change(s, "epsilon", STORE_CHANGE_DELETE, NULL),
          "watch: a delete is a DELETE");
    check(c,
          store_put(s, "zeta", bad, strlen(bad), NULL, NULL, &e) == 0 &&
              wait_change(s, "zeta", STORE_CHANGE_PUT, NULL),
          "watch: an invalid spec is a PUT");
    check(c, store_get(s, "zeta", &sp, &e) == 0 && sp.inv == NULL &&
                 sp.errors != NULL && sp.errors->n > 0,
          "get: an invalid spec is listed with its errors");
    store_spec_cleanup(&sp);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "burst-%02d", i);
        put(s, name, "img:1", NULL, NULL, &e);
    }
    /* every one is seen as a PUT, or a RESYNC says to list them */
    seen = collect_burst(s, 40, &resync);
    check(c, seen == 40 || resync, "watch: a burst of 40 puts is seen");
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "burst-%02d", i);
        store_del(s, name, NULL, NULL);
    }
    store_del(s, "zeta", NULL, NULL);
}

static size_t
discard(char *p, size_t size, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    return size * n;
}

/* etcd only: compact while a watcher is behind; it must say RESYNC, the
 * relist has every change, and the watch goes on afterwards. */
static void
case_compaction(struct ctx *c, struct store *s)
{
    struct store *w = open_store(c);
    struct store_list l;
    struct err e = { 0 };
    bool resync = false, compacted = false;
    char url[512], body[128], rev[STORE_REV_MAX] = "";
    CURL *h = curl_easy_init();
    size_t found = 0;

    if (w == NULL || h == NULL || store_list(w, &l, &e) == -1) {
        check(c, false, "compaction: set up");
        return;
    }
    store_list_cleanup(&l);
    for (int i = 0; i < 3; i++) {
        char name[16];

        snprintf(name, sizeof(name), "eta-%d", i);
        put(s, name, "img:1", NULL, rev, &e);
    }
    /* the watcher listed before these; compact past its revision, on
     * the first endpoint that answers */
    snprintf(body, sizeof(body), "{\"revision\":\"%s\"}", rev);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    for (const char *u = c->argv[1]; *u != '\0' && !compacted;) {
        int len = (int)strcspn(u, ",");

        snprintf(url, sizeof(url), "%.*s/v3/kv/compaction", len, u);
        curl_easy_setopt(h, CURLOPT_URL, url);
        compacted = curl_easy_perform(h) == CURLE_OK;
        u += len + (u[len] == ',');
    }
    check(c, compacted, "compaction: compacted");
    curl_easy_cleanup(h);
    check(c,
          store_watch_fd(w, &e) >= 0 &&
              wait_change(w, "eta-0", STORE_CHANGE_PUT, &resync) && resync,
          "compaction: a watcher behind the compaction gets RESYNC");
    if (store_list(w, &l, &e) == 0)
        for (size_t i = 0; i < l.n; i++)
            found += strncmp(l.items[i].name, "eta-", 4) == 0;
    store_list_cleanup(&l);
    check(c, found == 3, "compaction: the relist has every change");
    check(c,
          put(s, "eta-9", "img:1", NULL, NULL, &e) == 0 &&
              wait_change(w, "eta-9", STORE_CHANGE_PUT, NULL),
          "compaction: the watch goes on after the relist");
    for (int i = 0; i < 3; i++) {
        char name[16];

        snprintf(name, sizeof(name), "eta-%d", i);
        store_del(s, name, NULL, NULL);
    }
    store_del(s, "eta-9", NULL, NULL);
    store_close(w);
}

static bool
write_file(const char *path, const char *data)
{
    FILE *f = fopen(path, "w");

    return f != NULL && fputs(data, f) >= 0 && fclose(f) == 0;
}

static bool
has_file(const char *path, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(got, 1, sizeof(got) - 1, f) : 0;

    if (f != NULL)
        fclose(f);
    got[n] = '\0';
    return f != NULL && strcmp(got, want) == 0;
}

/* etcd only: a final attempt's output (hashing to status.output.sha256)
 * reaches a reader on another host (another state dir); output that does
 * not match the status never does. */
static void
case_output(struct ctx *c, struct store *s)
{
    const char *text = "hello from the agent\n";
    char path[4096], other_path[4096], sha[65], status[256], other[4096];
    struct store *o;
    struct err e = { 0 };

    snprintf(other, sizeof(other), "%s-other", c->argv[3]);
    o = store_etcd_open(c->argv[1], c->argv[2], other, &e);
    check(c,
          o != NULL &&
              store_output_path(s, "theta", path, sizeof(path), &e) == 0 &&
              write_file(path, text),
          "output: written to the local path");
    spec_sha256_hex(text, strlen(text), sha);
    /* a running attempt: nothing leaves the host yet */
    snprintf(status, sizeof(status),
             "{\"phase\":\"Running\",\"output\":{\"sha256\":\"%s\"}}", sha);
    store_doc_put(s, STORE_DOC_STATUS, "theta", status, strlen(status), &e);
    check(c,
          o != NULL &&
              store_output_path(o, "theta", other_path, sizeof(other_path),
                                &e) == 0 &&
              !has_file(other_path, text),
          "output: not shared while the attempt runs");
    snprintf(status, sizeof(status),
             "{\"phase\":\"Succeeded\",\"output\":{\"sha256\":\"%064d\"}}", 0);
    store_doc_put(s, STORE_DOC_STATUS, "theta", status, strlen(status), &e);
    check(c,
          o != NULL &&
              store_output_path(o, "theta", other_path, sizeof(other_path),
                                &e) == 0 &&
              !has_file(other_path, text),
          "output: a file that does not hash to the status is not shared");
    snprintf(status, sizeof(status),
             "{\"phase\":\"Succeeded\",\"output\":{\"sha256\":\"%s\"}}", sha);
    store_doc_put(s, STORE_DOC_STATUS, "theta", status, strlen(status), &e);
    check(c,
          o != NULL &&
              store_output_path(o, "theta", other_path, sizeof(other_path),
                                &e) == 0 &&
              has_file(other_path, text),
          "output: a final attempt's output reaches another host");
    store_doc_del(s, STORE_DOC_STATUS, "theta", NULL);
    store_close(o);
}

/* Print changes as they come, forever. */
static int
watch_print(struct store *s)
{
    static const char *const kinds[] = { "PUT", "DELETE", "RESYNC" };
    struct store_list l;
    struct store_change ch[64];
    struct err e = { 0 };
    struct pollfd p = { .events = POLLIN };

    if (store_list(s, &l, &e) == -1) {
        fprintf(stderr, "store_contract: list: %s\n", e.msg);
        return 100;
    }
    store_list_cleanup(&l);
    p.fd = watch_ready(s, &e);
    printf("WATCHING\n");
    fflush(stdout);
    for (;;) {
        size_t n = 0;

        if (poll(&p, 1, 1000) < 0 || store_watch_read(s, ch, 64, &n, &e) < 0)
            return 100;
        for (size_t i = 0; i < n; i++)
            printf("%s %s\n", kinds[ch[i].kind], ch[i].name);
        fflush(stdout);
    }
}

/* An apply's batch on etcd (store_etcd_batch.c): queued writes land at
 * end, unseen before; a write someone else made stale meanwhile is
 * refused by name while the others land; a key that already holds the
 * write's bytes counts as written; a metadata create that lost the race
 * takes the winner's uid. */
static void
case_batch(struct ctx *c, struct store *s)
{
    struct store *other = open_store(c);
    struct store_meta mine, won, now;
    struct store_spec sp;
    struct err e = { 0 };
    char *same = spec_yaml("bsame", "img:1");
    int rc;

    if (other == NULL)
        exit(100);
    check(c, store_batch_begin(s, &e) == 0, "batch: begins");
    check(c, put(s, "bfine", "img:1", "", NULL, &e) == 0,
          "batch: a put is queued");
    check(c, store_get(other, "bfine", &sp, &e) == -1 && e.code == ERR_NOTFOUND,
          "batch: a queued put is not seen before the end");
    check(c, put(s, "bstale", "img:1", "", NULL, &e) == 0 &&
                 put(other, "bstale", "img:2", "", NULL, &e) == 0,
          "batch: someone else creates a name the batch creates");
    check(c, store_put(s, "bsame", same, strlen(same), "", NULL, &e) == 0 &&
                 store_put(other, "bsame", same, strlen(same), "", NULL,
                           &e) == 0,
          "batch: someone else writes the very bytes the batch writes");
    check(c, store_meta_observe(s, "bmeta", "h1", &mine, &e) == 0 &&
                 store_meta_observe(other, "bmeta", "h1", &won, &e) == 0 &&
                 strcmp(mine.uid, won.uid) != 0,
          "batch: someone else creates metadata the batch creates");
    rc = store_batch_end(s, &e);
    check(c, rc == -1 && strstr(e.msg, "1 write not made") != NULL &&
                 strstr(e.msg, "specs/bstale already exists") != NULL,
          "batch: end names the one stale write, and only it");
    if (rc == 0 || strstr(e.msg, "1 write not made") == NULL)
        printf("     end said: %s\n", rc == 0 ? "nothing" : e.msg);
    check(c, store_get(other, "bfine", &sp, &e) == 0,
          "batch: the other writes of its txn landed");
    store_spec_cleanup(&sp);
    check(c, store_get(other, "bstale", &sp, &e) == 0 &&
                 strstr(sp.data, "img:2") != NULL,
          "batch: the other writer's spec is kept");
    store_spec_cleanup(&sp);
    check(c, store_meta_get(other, "bmeta", &now, &e) == 0 &&
                 strcmp(now.uid, won.uid) == 0,
          "batch: the metadata keeps the winner's uid");
    free(same);
    store_close(other);
}

/* etcd: a revision that is no number is refused by name, not reported
 * as out of memory, and in a batch it costs only its own write. */
static void
case_bad_revision(struct ctx *c, struct store *s)
{
    struct store_spec sp;
    struct err e = { 0 };
    int rc;

    if (!c->etcd)
        return;
    check(c,
          put(s, "rgood", "img:1", "", NULL, &e) == 0 &&
              put(s, "rgood", "img:2", "12x", NULL, &e) == -1 &&
              strstr(e.msg, "\"12x\" is not an etcd revision") != NULL,
          "revision: a put on a malformed revision names it");
    check(c,
          store_batch_begin(s, &e) == 0 &&
              put(s, "rfine", "img:1", "", NULL, &e) == 0 &&
              put(s, "rgood", "img:3", "12x", NULL, &e) == 0,
          "revision: a batch queues a put on a malformed revision");
    rc = store_batch_end(s, &e);
    check(c,
          rc == -1 && strstr(e.msg, "1 write not made") != NULL &&
              strstr(e.msg, "\"12x\" is not an etcd revision") != NULL,
          "revision: the batch's end names the malformed revision");
    if (rc == 0 || strstr(e.msg, "is not an etcd revision") == NULL)
        printf("     end said: %s\n", rc == 0 ? "nothing" : e.msg);
    check(c, store_get(s, "rfine", &sp, &e) == 0,
          "revision: the other write of its txn landed");
    store_spec_cleanup(&sp);
}

int
main(int argc, char **argv)
{
    struct ctx c = { 0 };
    struct store *s;
    bool watch = false;
    int i = 1;

    if (i < argc && strcmp(argv[i], "--break") == 0) {
        c.broken = true;
        i++;
    } else if (i < argc && strcmp(argv[i], "--watch") == 0) {
        watch = true;
        i++;
    }
    if (argc - i == 4 && strcmp(argv[i], "etcd") == 0)
        c.etcd = true;
    else if (argc - i == 3 && strcmp(argv[i], "kube") == 0)
        c.kube = true;
    else if (argc - i != 3 || strcmp(argv[i], "dir") != 0) {
        fprintf(stderr, "usage: store_contract [--break] dir SPECS STATE\n"
                        "       store_contract [--break] etcd URLS PREFIX "
                        "STATE\n"
                        "       store_contract [--break] kube KUBECONFIG "
                        "STATE\n");
        return 100;
    }
    c.argv = argv + i;
    s = open_store(&c);
    if (s == NULL)
        return 100;
    if (watch)
        return watch_print(s);
    printf("store contract: %s store\n", s->backend);
    case_kv(&c, s);
    if (c.kube) {
        printf("skip the document, claim and watch cases: not on the API "
               "server store yet\n");
        store_close(s);
        printf("%d failure(s)\n", c.fails);
        return c.fails > 100 ? 100 : c.fails;
    }
    case_bad_revision(&c, s);
    case_docs(&c, s);
    case_pool_docs(&c, s);
    case_events(&c, s);
    case_status_write(&c, s);
    case_claims(&c, s);
    case_meta(&c, s);
    case_watch(&c, s);
    case_claims_async(&c, s);
    case_status_async(&c, s);
    if (c.etcd) {
        case_compaction(&c, s);
        case_output(&c, s);
        case_batch(&c, s);
    } else
        printf("skip compaction, output sharing and the batch txn: etcd "
               "only\n");
    store_close(s);
    printf("%d failure(s)\n", c.fails);
    return c.fails > 100 ? 100 : c.fails;
}
