/* test_store_kube_config.c - kubeconfig files and the in-cluster service
 * account into the store's connection settings: contexts resolved as
 * kubectl does, relative paths against the file's directory, the *-data
 * forms decoded, and every refusal naming file:line:col and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_kube_config.h"

static char dir[64];

static int
setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test-kubeconfig.XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *
write_file(const char *name, const char *text)
{
    static char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define TWO_CONTEXTS                                                           \
    "apiVersion: v1\n"                                                         \
    "kind: Config\n"                                                           \
    "clusters:\n"                                                              \
    "  - name: a\n"                                                            \
    "    cluster: {server: 'https://127.0.0.1:6443/', certificate-authority: " \
    "pki/ca.crt}\n"                                                            \
    "  - name: b\n"                                                            \
    "    cluster:\n"                                                           \
    "      server: https://kube.example:443\n"                                 \
    "      certificate-authority-data: Q0EtUEVN\n"                             \
    "users:\n"                                                                 \
    "  - name: cert\n"                                                         \
    "    user: {client-certificate: /abs/c.crt, client-key: c.key}\n"          \
    "  - name: tok\n"                                                          \
    "    user: {token: s3cret}\n"                                              \
    "contexts:\n"                                                              \
    "  - name: one\n"                                                          \
    "    context: {cluster: a, user: cert}\n"                                  \
    "  - name: two\n"                                                          \
    "    context: {cluster: b, user: tok, namespace: agents}\n"                \
    "current-context: one\n"

static void
test_current_context(void **state)
{
    struct store_kube_config c;
    struct err e = { 0 };
    char want[160];

    (void)state;
    assert_int_equal(
        store_kube_config_load(write_file("kc", TWO_CONTEXTS), NULL, &c, &e),
        0);
    assert_string_equal(c.server, "https://127.0.0.1:6443");
    snprintf(want, sizeof(want), "%s/pki/ca.crt", dir);
    assert_string_equal(c.ca_file, want);
    assert_null(c.ca_pem);
    assert_string_equal(c.cert_file, "/abs/c.crt");
    snprintf(want, sizeof(want), "%s/c.key", dir);
    assert_string_equal(c.key_file, want);
    assert_null(c.token);
    assert_string_equal(c.namespace, "default");
    assert_false(c.insecure);
    store_kube_config_cleanup(&c);
}

static void
test_named_context(void **state)
{
    struct store_kube_config c;
    struct err e = { 0 };

    (void)state;
    assert_int_equal(
        store_kube_config_load(write_file("kc", TWO_CONTEXTS), "two", &c, &e),
        0);
    assert_string_equal(c.server, "https://kube.example:443");
    assert_null(c.ca_file);
    assert_string_equal(c.ca_pem, "CA-PEM");
    assert_string_equal(c.token, "s3cret");
    assert_null(c.cert_file);
    assert_string_equal(c.namespace, "agents");
    store_kube_config_cleanup(&c);
}

/* load TEXT with context ctx: must fail; returns the formatted error */
static const char *
refused(const char *text, const char *ctx)
{
    static char buf[512];
    struct store_kube_config c;
    struct err e = { 0 };

    assert_int_equal(
        store_kube_config_load(write_file("bad", text), ctx, &c, &e), -1);
    assert_null(c.server);
    return err_format(&e, buf, sizeof(buf));
}

/* one context, one cluster, and the users: list the case adds */
#define WITH_USER                                                           \
    "current-context: x\ncontexts:\n"                                       \
    "  - {name: x, context: {cluster: c, user: u}}\n"                       \
    "clusters:\n"                                                           \
    "  - {name: c, cluster: {server: 'https://h'}}\n"                       \
    "users:\n"

static void
test_refusals(void **state)
{
    (void)state;
    assert_non_null(strstr(refused(TWO_CONTEXTS, "three"),
                           "contexts: no entry named \"three\""));
    assert_non_null(strstr(refused("clusters: []\ncontexts: []\n", NULL),
                           "current-context: no current context"));
    assert_non_null(
        strstr(refused("current-context: x\ncontexts:\n"
                       "  - {name: x, context: {cluster: c}}\n"
                       "clusters:\n"
                       "  - {name: c, cluster: {server: 'http://h:8080'}}\n",
                       NULL),
               ":5:33: clusters[0].cluster.server: must be an https:// URL"));
    assert_non_null(
        strstr(refused(WITH_USER
                       "  - name: u\n"
                       "    user:\n"
                       "      exec: {command: aws}\n",
                       NULL),
               ":9:13: users[0].user.exec: not supported"));
    assert_non_null(
        strstr(refused(WITH_USER
                       "  - {name: u, user: {client-certificate: c.crt}}\n",
                       NULL),
               "users[0].user: a client certificate needs its key"));
    assert_non_null(strstr(
        refused("current-context: x\ncontexts:\n"
                "  - {name: x, context: {cluster: c}}\n"
                "clusters:\n"
                "  - {name: c, cluster: {server: 'https://h', "
                "certificate-authority-data: '%%%'}}\n",
                NULL),
        "clusters[0].cluster.certificate-authority-data: is not base64"));
    assert_non_null(strstr(refused("- a list\n", NULL), "not a kubeconfig"));
}

static void
test_missing_file(void **state)
{
    struct store_kube_config c;
    struct err e = { 0 };
    char path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/none", dir);
    assert_int_equal(store_kube_config_load(path, NULL, &c, &e), -1);
    assert_int_equal(e.code, ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "kubeconfig"));
}

static void
test_in_cluster(void **state)
{
    struct store_kube_config c;
    struct err e = { 0 };
    char want[160];

    (void)state;
    unsetenv("KUBERNETES_SERVICE_HOST");
    assert_int_equal(store_kube_config_in_cluster(dir, &c, &e), -1);
    assert_non_null(strstr(e.msg, "not in a pod"));
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(store_kube_config_in_cluster(dir, &c, &e), -1);
    assert_non_null(strstr(e.msg, "/token"));
    write_file("token", "tok\n");
    write_file("namespace", "agentctl\n");
    assert_int_equal(store_kube_config_in_cluster(dir, &c, &e), 0);
    assert_string_equal(c.server, "https://[fd00::1]:443");
    snprintf(want, sizeof(want), "%s/token", dir);
    assert_string_equal(c.token_file, want);
    snprintf(want, sizeof(want), "%s/ca.crt", dir);
    assert_string_equal(c.ca_file, want);
    assert_string_equal(c.namespace, "agentctl");
    store_kube_config_cleanup(&c);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_context),
        cmocka_unit_test(test_named_context),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_in_cluster),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
