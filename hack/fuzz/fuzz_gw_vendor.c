/* fuzz_gw_vendor.c - see fuzz_gw_vendor.h. */
#include "fuzz_gw_vendor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

static SSL_CTX *server_ctx;
static int listen_fd = -1;
static char ca_path[64];

static void
remove_ca(void)
{
    unlink(ca_path);
}

/* A self-signed P-256 certificate for vendor.test: the gateway trusts it
 * as its CA file and checks the name in it. */
static X509 *
make_cert(EVP_PKEY *key)
{
    X509 *x = X509_new();
    X509_NAME *n;
    X509V3_CTX ctx;
    X509_EXTENSION *ext;

    if (x == NULL || X509_set_version(x, 2) != 1)
        abort();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600L * 24 * 365);
    X509_set_pubkey(x, key);
    n = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
                               (const unsigned char *)"vendor.test", -1, -1, 0);
    X509_set_issuer_name(x, n);
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name,
                              "DNS:vendor.test");
    if (ext == NULL || X509_add_ext(x, ext, -1) != 1 ||
        X509_sign(x, key, EVP_sha256()) == 0)
        abort();
    X509_EXTENSION_free(ext);
    return x;
}

static void
write_ca(X509 *x)
{
    int fd;
    FILE *f;

    snprintf(ca_path, sizeof(ca_path), "/tmp/fuzz-gw-ca-XXXXXX");
    fd = mkstemp(ca_path);
    if (fd == -1 || (f = fdopen(fd, "w")) == NULL)
        abort();
    if (PEM_write_X509(f, x) != 1 || fclose(f) != 0)
        abort();
    atexit(remove_ca);
}

void
fuzz_vendor_setup(const char **ca_file, union px_sockaddr *addr)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof(*addr);
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x;

    if (key == NULL)
        abort();
    x = make_cert(key);
    write_ca(x);
    server_ctx = SSL_CTX_new(TLS_server_method());
    if (server_ctx == NULL || SSL_CTX_use_certificate(server_ctx, x) != 1 ||
        SSL_CTX_use_PrivateKey(server_ctx, key) != 1)
        abort();
    X509_free(x);
    EVP_PKEY_free(key);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 ||
        bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) == -1 ||
        listen(listen_fd, 64) == -1 || getsockname(listen_fd, &addr->sa, &len))
        abort();
    *ca_file = ca_path;
}

void
fuzz_vendor_init(struct fuzz_vendor *v)
{
    memset(v, 0, sizeof(*v));
    v->fd = -1;
    buf_init(&v->got, 1 << 22);
    buf_init(&v->out, 1 << 22);
}

void
fuzz_vendor_close(struct fuzz_vendor *v, bool tidy,
                  void (*on_end)(void *arg, const struct buf *got), void *arg)
{
    if (v->fd < 0)
        return;
    if (tidy)
        SSL_shutdown(v->ssl);
    SSL_free(v->ssl);
    ERR_clear_error();
    close(v->fd);
    v->ssl = NULL;
    v->fd = -1;
    v->eof = false;
    on_end(arg, &v->got);
    buf_reset(&v->got);
    buf_reset(&v->out);
}

static bool
vendor_accept(struct fuzz_vendor *v,
              void (*on_end)(void *arg, const struct buf *got), void *arg)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (fd < 0)
        return false;
    v->accepted++;
    fuzz_vendor_close(v, false, on_end, arg); /* one at a time */
    v->ssl = SSL_new(server_ctx);
    if (v->ssl == NULL || SSL_set_fd(v->ssl, fd) != 1)
        abort();
    SSL_set_accept_state(v->ssl);
    v->fd = fd;
    return true;
}

/* Read what is there; true when something came. */
static bool
vendor_read(struct fuzz_vendor *v)
{
    char tmp[4096];
    bool moved = false;
    int r = 0;

    while (!v->eof && (r = SSL_read(v->ssl, tmp, sizeof(tmp))) > 0) {
        if (buf_append(&v->got, tmp, (size_t)r, NULL) == -1)
            abort(); /* more than a run can send: a runaway copy */
        moved = true;
    }
    if (!v->eof && r <= 0) {
        int e = SSL_get_error(v->ssl, r);

        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            v->eof = true; /* closed, cut or a handshake that failed */
            moved = true;
        }
    }
    ERR_clear_error();
    return moved;
}

static bool
vendor_write(struct fuzz_vendor *v)
{
    int w;

    if (v->out.len == 0 || v->eof)
        return false;
    w = SSL_write(v->ssl, v->out.data, (int)v->out.len);
    ERR_clear_error();
    if (w <= 0)
        return false;
    memmove(v->out.data, v->out.data + w, v->out.len - (size_t)w);
    v->out.len -= (size_t)w;
    return true;
}

bool
fuzz_vendor_step(struct fuzz_vendor *v,
                 void (*on_end)(void *arg, const struct buf *got), void *arg)
{
    bool moved = vendor_accept(v, on_end, arg);

    if (v->ssl == NULL)
        return moved;
    moved |= vendor_read(v);
    moved |= vendor_write(v);
    return moved;
}

void
fuzz_vendor_send(struct fuzz_vendor *v, const char *p, size_t n)
{
    if (v->fd >= 0 && buf_append(&v->out, p, n, NULL) == -1)
        abort();
}

void
fuzz_vendor_cleanup(struct fuzz_vendor *v,
                    void (*on_end)(void *arg, const struct buf *got), void *arg)
{
    while (vendor_accept(v, on_end, arg))
        ;
    fuzz_vendor_close(v, false, on_end, arg);
    buf_cleanup(&v->got);
    buf_cleanup(&v->out);
}
