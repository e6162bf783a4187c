/* store_kube_config.c - a kubeconfig (or a pod's service account) into
 * the server, CA and credentials of store_kube_config.h. The file is
 * parsed with the spec parser's YAML tree (spec_node.h: capped, no
 * aliases), so every error names file:line:col and the field. */
#include "store_kube_config.h"

#include "spec_node.h"
#include "store_etcd_int.h"
#include "store_int.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBECONFIG_MAX (1024 * 1024)

/* One place in the parsed file, for errors. */
struct kc {
    const char *path;
    char dir[PATH_MAX]; /* the file's directory, for relative paths */
    char at[96];        /* the entry being read: "clusters[1].cluster" */
};

/* An error at node `at`; field is relative to the entry being read. */
static int
kc_error(const struct kc *k, const struct spec_node *at, const char *field,
         const char *msg, struct err *e)
{
    char full[200];

    snprintf(full, sizeof(full), "%s%s%s", k->at,
             k->at[0] && field[0] ? "." : "", field);
    return err_set_at(e, ERR_INVALID, k->path, at ? at->line : 0,
                      at ? at->col : 0, full, "%s", msg);
}

/* The string at key of map m, or NULL when absent; -1 when not a string. */
static int
kc_string(const struct kc *k, const struct spec_node *m, const char *key,
          const char **out, struct err *e)
{
    const struct spec_node *v = spec_node_get(m, key);

    *out = NULL;
    if (v == NULL ||
        (v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_NULL))
        return 0;
    if (v->kind != SPEC_NODE_SCALAR)
        return kc_error(k, v, key, "must be a string", e);
    *out = v->value;
    return 0;
}

static int
kc_dup(const char *s, char **out, struct err *e)
{
    if (s == NULL)
        return 0;
    if ((*out = strdup(s)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

/* A file the kubeconfig names: relative to the kubeconfig's directory. */
static int
kc_path(const struct kc *k, const char *p, char **out, struct err *e)
{
    char buf[PATH_MAX];

    if (p == NULL || p[0] == '/')
        return kc_dup(p, out, e);
    if (snprintf(buf, sizeof(buf), "%s/%s", k->dir, p) >= (int)sizeof(buf))
        return err_set(e, ERR_LIMIT, "%s: path %s is too long", k->path, p);
    return kc_dup(buf, out, e);
}

static int
kc_base64(const struct kc *k, const struct spec_node *m, const char *key,
          char **out, struct err *e)
{
    const char *text;
    size_t n;

    if (kc_string(k, m, key, &text, e) == -1)
        return -1;
    if (text == NULL)
        return 0;
    if (store__etcd_b64_dec(text, out, &n, NULL) == -1)
        return kc_error(k, spec_node_get(m, key), key, "is not base64", e);
    return 0;
}

/* The item of the named list (clusters, users, contexts) called name:
 * its inner map (item.<inner>). */
static int
kc_named(struct kc *k, const struct spec_node *root, const char *list,
         const char *inner, const char *name, const struct spec_node **out,
         struct err *e)
{
    const struct spec_node *seq = spec_node_get(root, list);

    for (uint32_t i = 0;
         seq != NULL && seq->kind == SPEC_NODE_SEQ && i < seq->n; i++) {
        const struct spec_node *it = seq->items[i];
        const struct spec_node *n = spec_node_get(it, "name");

        if (n == NULL || n->kind != SPEC_NODE_SCALAR ||
            strcmp(n->value, name) != 0)
            continue;
        *out = spec_node_get(it, inner);
        snprintf(k->at, sizeof(k->at), "%s[%u].%s", list, i, inner);
        if (*out == NULL || (*out)->kind != SPEC_NODE_MAP)
            return kc_error(k, it, "", "missing or not a mapping", e);
        return 0;
    }
    return err_set_at(e, ERR_NOTFOUND, k->path, seq ? seq->line : 0,
                      seq ? seq->col : 0, list, "no entry named \"%s\"", name);
}

static int
kc_cluster(const struct kc *k, const struct spec_node *c,
           struct store_kube_config *out, struct err *e)
{
    const char *server, *ca;
    const struct spec_node *insecure =
        spec_node_get(c, "insecure-skip-tls-verify");

    if (kc_string(k, c, "server", &server, e) == -1 ||
        kc_string(k, c, "certificate-authority", &ca, e) == -1)
        return -1;
    if (server == NULL || strncmp(server, "https://", 8) != 0)
        return kc_error(k, server ? spec_node_get(c, "server") : c, "server",
                        "must be an https:// URL of the API server", e);
    if (kc_dup(server, &out->server, e) == -1 ||
        kc_path(k, ca, &out->ca_file, e) == -1 ||
        kc_base64(k, c, "certificate-authority-data", &out->ca_pem, e) == -1)
        return -1;
    size_t n = strlen(out->server);
    while (n > 8 && out->server[n - 1] == '/')
        out->server[--n] = '\0';
    out->insecure = spec_node_is_true(insecure);
    return 0;
}

static int
kc_user(const struct kc *k, const struct spec_node *u,
        struct store_kube_config *out, struct err *e)
{
    static const char *const refused[] = { "exec", "auth-provider", "username",
                                           "password" };
    const char *cert, *key, *token, *token_file;

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        if (spec_node_get(u, refused[i]) != NULL)
            return kc_error(
                k, spec_node_get(u, refused[i]), refused[i],
                "not supported: use a client certificate or a token", e);
    }
    if (kc_string(k, u, "client-certificate", &cert, e) == -1 ||
        kc_string(k, u, "client-key", &key, e) == -1 ||
        kc_string(k, u, "token", &token, e) == -1 ||
        kc_string(k, u, "tokenFile", &token_file, e) == -1)
        return -1;
    if (kc_path(k, cert, &out->cert_file, e) == -1 ||
        kc_path(k, key, &out->key_file, e) == -1 ||
        kc_dup(token, &out->token, e) == -1 ||
        kc_path(k, token_file, &out->token_file, e) == -1 ||
        kc_base64(k, u, "client-certificate-data", &out->cert_pem, e) == -1 ||
        kc_base64(k, u, "client-key-data", &out->key_pem, e) == -1)
        return -1;
    if ((out->cert_file || out->cert_pem) != (out->key_file || out->key_pem))
        return kc_error(
            k, u, "",
            "a client certificate needs its key, and a key its certificate", e);
    return 0;
}

static int
kc_resolve(struct kc *k, const struct spec_node *root, const char *context,
           struct store_kube_config *out, struct err *e)
{
    const struct spec_node *ctx, *cluster, *user;
    const char *cname, *uname, *ns;

    if (context == NULL) {
        if (kc_string(k, root, "current-context", &context, e) == -1)
            return -1;
        if (context == NULL || context[0] == '\0')
            return kc_error(k, root, "current-context",
                            "no current context: set one, or name the context",
                            e);
    }
    if (kc_named(k, root, "contexts", "context", context, &ctx, e) == -1 ||
        kc_string(k, ctx, "cluster", &cname, e) == -1 ||
        kc_string(k, ctx, "user", &uname, e) == -1 ||
        kc_string(k, ctx, "namespace", &ns, e) == -1)
        return -1;
    if (cname == NULL)
        return kc_error(k, ctx, "cluster", "missing", e);
    if (kc_named(k, root, "clusters", "cluster", cname, &cluster, e) == -1 ||
        kc_cluster(k, cluster, out, e) == -1)
        return -1;
    if (uname != NULL &&
        (kc_named(k, root, "users", "user", uname, &user, e) == -1 ||
         kc_user(k, user, out, e) == -1))
        return -1;
    return kc_dup(ns && ns[0] ? ns : "default", &out->namespace, e);
}

int
store_kube_config_load(const char *path, const char *context,
                       struct store_kube_config *out, struct err *e)
{
    struct kc k = { .path = path };
    struct spec_stream st = { 0 };
    struct spec_errors es = { 0 };
    char *data = NULL, tmp[PATH_MAX];
    size_t len;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    snprintf(tmp, sizeof(tmp), "%s", path);
    snprintf(k.dir, sizeof(k.dir), "%s", dirname(tmp));
    if (store__read_file(path, KUBECONFIG_MAX, &data, &len, e) == -1) {
        err_prefix(e, "kubeconfig %s: ", path);
        return -1;
    }
    if (spec_yaml_parse(path, data, len, &st, &es) == -1) {
        if (e != NULL)
            *e = es.items[0];
    } else if (st.n == 0 || st.docs[0] == NULL ||
               st.docs[0]->kind != SPEC_NODE_MAP)
        err_set_at(e, ERR_INVALID, path, 1, 1, NULL,
                   "not a kubeconfig (no mapping)");
    else
        rc = kc_resolve(&k, st.docs[0], context, out, e);
    spec_stream_cleanup(&st);
    free(data);
    if (rc == -1)
        store_kube_config_cleanup(out);
    return rc;
}

/* The first line of sa_dir/name; NULL with e when it cannot be read. */
static char *
sa_file_line(const char *sa_dir, const char *name, struct err *e)
{
    char path[PATH_MAX], *data;
    size_t len;

    snprintf(path, sizeof(path), "%s/%s", sa_dir, name);
    if (store__read_file(path, 64 * 1024, &data, &len, e) == -1) {
        err_prefix(e, "in-cluster service account %s: ", path);
        return NULL;
    }
    data[strcspn(data, "\r\n")] = '\0';
    return data;
}

int
store_kube_config_in_cluster(const char *sa_dir, struct store_kube_config *out,
                             struct err *e)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    char url[300], path[PATH_MAX];

    memset(out, 0, sizeof(*out));
    if (sa_dir == NULL)
        sa_dir = STORE_KUBE_SA_DIR;
    if (host == NULL || host[0] == '\0' || port == NULL || port[0] == '\0')
        return err_set(
            e, ERR_NOTFOUND,
            "not in a pod: KUBERNETES_SERVICE_HOST and "
            "KUBERNETES_SERVICE_PORT are not set (pass --kubeconfig FILE)");
    /* an IPv6 service address needs brackets in a URL */
    snprintf(url, sizeof(url),
             strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host,
             port);
    snprintf(path, sizeof(path), "%s/token", sa_dir);
    if (kc_dup(url, &out->server, e) == -1 ||
        kc_dup(path, &out->token_file, e) == -1)
        goto fail;
    snprintf(path, sizeof(path), "%s/ca.crt", sa_dir);
    if (kc_dup(path, &out->ca_file, e) == -1)
        goto fail;
    /* the token is read at each connect; fail now when it is not there */
    char *tok = sa_file_line(sa_dir, "token", e);
    if (tok == NULL)
        goto fail;
    free(tok);
    if ((out->namespace = sa_file_line(sa_dir, "namespace", e)) == NULL)
        goto fail;
    return 0;
fail:
    store_kube_config_cleanup(out);
    return -1;
}

void
store_kube_config_cleanup(struct store_kube_config *c)
{
    free(c->server);
    free(c->ca_file);
    free(c->ca_pem);
    free(c->cert_file);
    free(c->key_file);
    free(c->cert_pem);
    free(c->key_pem);
    free(c->token);
    free(c->token_file);
    free(c->namespace);
    memset(c, 0, sizeof(*c));
}
