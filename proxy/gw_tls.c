/* gw_tls.c - the gateway's TLS client side: one context verifying the
 * vendor against a CA bundle, one session per vendor connection with SNI
 * and the host name check set, and a readable reason when a handshake
 * fails (the Proxy-Status of the 502).
 */
#include "gw_int.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "file.h"

/* A new session from the vendor (after a full handshake, or a TLS 1.3
 * ticket): keep the latest, so the next vendor connection resumes it
 * instead of a full handshake. The certificate was checked when the
 * session was made; a resumed session is only ever offered to the same
 * host (there is one). */
static int
tls_on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct gw *gw = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));

    SSL_SESSION_free(gw->session);
    gw->session = sess;
    return 1; /* the reference is ours */
}

SSL_CTX *
gw__tls_ctx_new(struct gw *gw, const char *ca_file, struct err *e)
{
    SSL_CTX *ctx;
    int fd;

    /* OpenSSL opens the bundle with a blocking open: a FIFO there would
     * hang the start for ever. It must be a regular file, and a missing
     * one is named with the reason, not only "cannot load". */
    fd = file_open_regular(ca_file, 0, e);
    if (fd == -1) {
        err_prefix(e, "--ca-file %s: ", ca_file);
        return NULL;
    }
    close(fd);
    ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        err_set(e, ERR_NOMEM, "SSL_CTX_new failed");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    /* Partial writes: a big body goes out as the socket takes it. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_app_data(ctx, gw);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
                                            SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, tls_on_new_session);
    if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
        err_set(e, ERR_INVALID, "--ca-file %s: cannot load a CA bundle",
                ca_file);
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

SSL *
gw__tls_new(struct gw *gw, int fd, const char *host, struct err *e)
{
    static const unsigned char alpn[] = "\x08http/1.1";
    SSL *ssl = SSL_new(gw->tls);

    if (ssl == NULL) {
        err_set(e, ERR_NOMEM, "SSL_new failed");
        return NULL;
    }
    /* SNI only for names (RFC 6066 3); the name check for either. */
    if (SSL_set_fd(ssl, fd) != 1 ||
        SSL_set_alpn_protos(ssl, alpn, sizeof(alpn) - 1) != 0 ||
        SSL_set1_host(ssl, host) != 1) {
        err_set(e, ERR_INVALID, "cannot set up TLS for %s", host);
        SSL_free(ssl);
        return NULL;
    }
    if (strspn(host, "0123456789.:") != strlen(host))
        SSL_set_tlsext_host_name(ssl, host);
    if (gw->session != NULL)
        SSL_set_session(ssl, gw->session);
    SSL_set_connect_state(ssl);
    return ssl;
}

const char *
gw__tls_failure(SSL *ssl, int ret, const char **error)
{
    long v = SSL_get_verify_result(ssl);
    unsigned long ec;

    if (v != X509_V_OK) {
        *error = "tls_certificate_error";
        return X509_verify_cert_error_string(v);
    }
    *error = "tls_protocol_error";
    if (SSL_get_error(ssl, ret) == SSL_ERROR_SYSCALL)
        return "the vendor closed during the handshake";
    ec = ERR_peek_last_error();
    if (ec != 0 && ERR_reason_error_string(ec) != NULL)
        return ERR_reason_error_string(ec);
    return "handshake failed";
}
