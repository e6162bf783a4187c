/* store_kube_config.h - where the Kubernetes API server is and how to
 * prove who we are to it (docs/store-kube.md "Connecting"): a kubeconfig
 * file, as kubectl reads it, or the in-cluster service account of a pod.
 *
 * A kubeconfig names its current context (or the one asked for); the
 * context names a cluster (server, CA) and a user (client certificate and
 * key, or a bearer token). Files it names relative to itself are resolved
 * against its directory, as kubectl does; the *-data forms are decoded.
 * Plugins (exec, auth-provider) and basic auth are refused with the
 * field named: the store authenticates with certificates or tokens.
 */
#ifndef STORE_KUBE_CONFIG_H
#define STORE_KUBE_CONFIG_H

#include <stdbool.h>

#include "err.h"

/* The default of the in-cluster service account's files. */
#define STORE_KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct store_kube_config {
    char *server;    /* https://host[:port], without a trailing '/' */
    char *ca_file;   /* verifies the server; NULL: ca_pem or system CAs */
    char *ca_pem;    /* certificate-authority-data, decoded */
    char *cert_file; /* client certificate (with key_file) */
    char *key_file;
    char *cert_pem; /* client-certificate-data, decoded (with key_pem) */
    char *key_pem;
    char *token;      /* a bearer token */
    char *token_file; /* a bearer token read from the file at each
                         connect: a pod's projected token rotates */
    char *namespace;  /* the context's namespace, else "default" */
    bool insecure;    /* insecure-skip-tls-verify: true */
};

/* Read the kubeconfig at path and resolve context (NULL: its
 * current-context). -1 with e at the file, line and field at fault. */
int store_kube_config_load(const char *path, const char *context,
                           struct store_kube_config *out, struct err *e);

/* The in-cluster account: KUBERNETES_SERVICE_HOST and _PORT, and the
 * token, ca.crt and namespace files under sa_dir (NULL:
 * STORE_KUBE_SA_DIR). -1 with e when not running in a pod. */
int store_kube_config_in_cluster(const char *sa_dir,
                                 struct store_kube_config *out, struct err *e);

void store_kube_config_cleanup(struct store_kube_config *c);

#endif
