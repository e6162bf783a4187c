/* px_main.c - egress-proxy: flags, listening socket, signals, the loop.
 *
 * egress-proxy --listen ADDR:PORT (--allow HOST:PORT[,HOST:PORT...] |
 *   --deny-all) [--allow-private] [--header-limit 8192] [--header-timeout 10]
 *   [--idle-timeout 600] [--max-conns 256]
 *   [--connect-timeout 10] [--drain-timeout 5]
 * (docs/design.md "egress-proxy contract"; the last two are extensions.)
 */
#include "px_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "px_flags.h"
#include "px_listen.h"

static const char usage[] =
    "usage: egress-proxy --listen ADDR:PORT (--allow HOST:PORT[,...] |\n"
    "       --deny-all)\n"
    "       [--allow-private] [--header-limit BYTES] [--header-timeout S]\n"
    "       [--idle-timeout S] [--max-conns N] [--connect-timeout S]\n"
    "       [--drain-timeout S]\n";

static int
px_parse_flags(int argc, char **argv, struct px_config *cfg, struct err *e)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "allow", required_argument, NULL, 'a' },
        { "allow-private", no_argument, NULL, 'p' },
        { "deny-all", no_argument, NULL, 'N' },
        { "header-limit", required_argument, NULL, 'H' },
        { "header-timeout", required_argument, NULL, 'T' },
        { "idle-timeout", required_argument, NULL, 'I' },
        { "max-conns", required_argument, NULL, 'm' },
        { "connect-timeout", required_argument, NULL, 'C' },
        { "drain-timeout", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    bool have_listen = false, deny_all = false;
    double v;
    int o;

    opterr = 0; /* px_flags_getopt_error says it, in the log */
    while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int rc = 0;
        switch (o) {
        case 'l':
            rc = px_flags_addr("--listen", optarg, &cfg->listen, e);
            have_listen = true;
            break;
        case 'a':
            rc = px_allow_add(&cfg->allow, optarg, e);
            break;
        case 'p':
            cfg->allow_private = true;
            break;
        case 'N':
            deny_all = true;
            break;
        case 'H':
            rc = px_flags_count("--header-limit", optarg, 64, 1 << 20, &v, e);
            if (rc == 0) /* v is set only when the value is good */
                cfg->header_limit = (size_t)v;
            break;
        case 'T':
            rc = px_flags_num("--header-timeout", optarg, 0.01, 3600,
                              &cfg->header_timeout, e);
            break;
        case 'I':
            rc = px_flags_num("--idle-timeout", optarg, 0.01, 1e7,
                              &cfg->idle_timeout, e);
            break;
        case 'm':
            rc = px_flags_count("--max-conns", optarg, 1, 1000000, &v, e);
            if (rc == 0)
                cfg->max_conns = (unsigned)v;
            break;
        case 'C':
            rc = px_flags_num("--connect-timeout", optarg, 0.01, 3600,
                              &cfg->connect_timeout, e);
            break;
        case 'D':
            rc = px_flags_num("--drain-timeout", optarg, 0, 3600,
                              &cfg->drain_timeout, e);
            break;
        default:
            return px_flags_getopt_error(o, argv, usage, e);
        }
        if (rc == -1)
            return -1;
    }
    if (optind != argc)
        return err_set(e, ERR_SYNTAX, "unexpected argument \"%s\"",
                       argv[optind]);
    /* An empty allowlist is said out loud (--deny-all: a vendor whose
     * agent reaches it only through the credential gateway), never
     * implied by a missing --allow. */
    if (!have_listen || (cfg->allow.len == 0) == !deny_all)
        return err_set(e, ERR_SYNTAX,
                       "--listen and one of --allow or --deny-all are "
                       "required");
    return 0;
}

static int
px_listen(struct px *px, struct err *e)
{
    char addr[80];

    px->listen_fd = px_listen_open(&px->cfg->listen, addr, sizeof(addr), e);
    if (px->listen_fd < 0)
        return -1;
    log_kv(LOG_INFO, "listening", "addr", addr, (char *)NULL);
    return 0;
}

static void
px_accept_one(void *arg, int fd, const union px_sockaddr *peer)
{
    px__conn_accept(arg, fd, peer);
}

static void
px_on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    struct px *px = container_of(w, struct px, accept_w);

    (void)revents;
    if (px_accept_some(px->listen_fd, 128, px_accept_one, px) == -1) {
        /* Out of descriptors: pause accepting, retry from a timer
         * rather than spin on a listener that stays readable. */
        log_warn("accept");
        ev_io_stop(loop, &px->accept_w);
        ev_timer_set(&px->accept_retry, 0.5, 0.);
        ev_timer_start(loop, &px->accept_retry);
    }
}

static void
px_on_accept_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct px *px = container_of(w, struct px, accept_retry);

    (void)revents;
    if (!px->draining)
        ev_io_start(loop, &px->accept_w);
}

void
px__maybe_done(struct px *px)
{
    if (px->draining && px->conns == NULL)
        ev_break(px->loop, EVBREAK_ALL);
}

static void
px_on_drain_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

/* SIGTERM/SIGINT: stop accepting, give tunnels drain_timeout, exit. */
static void
px_on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    struct px *px = w->signum == SIGTERM ? container_of(w, struct px, sigterm)
                                         : container_of(w, struct px, sigint);

    (void)revents;
    if (px->draining)
        return;
    log_info("draining: %u connections open", px->nconns + px->nreject);
    px->draining = true;
    ev_io_stop(loop, &px->accept_w);
    ev_timer_stop(loop, &px->accept_retry);
    close(px->listen_fd);
    px->listen_fd = -1;
    ev_timer_set(&px->drain, px->cfg->drain_timeout, 0.);
    ev_timer_start(loop, &px->drain);
    px__conn_refuse_unopened(px);
    px__maybe_done(px);
}

static int
px_run(struct px *px, struct err *e)
{
    struct ev_loop *loop = px->loop;

    px->dns = px_dns_new(loop, 2000, 2, e);
    if (px->dns == NULL)
        return -1;
    if (px_listen(px, e) == -1)
        return -1;
    px__pipe_reset(px);
    ev_io_init(&px->accept_w, px_on_accept, px->listen_fd, EV_READ);
    ev_io_start(loop, &px->accept_w);
    ev_init(&px->accept_retry, px_on_accept_retry);
    ev_init(&px->drain, px_on_drain_timeout);
    ev_signal_init(&px->sigterm, px_on_signal, SIGTERM);
    ev_signal_init(&px->sigint, px_on_signal, SIGINT);
    ev_signal_start(loop, &px->sigterm);
    ev_signal_start(loop, &px->sigint);
    ev_unref(loop); /* signal watchers alone do not keep the loop */
    ev_unref(loop);
    ev_run(loop, 0);
    while (px->conns != NULL)
        px__conn_close(px->conns, "shutdown");
    ev_ref(loop);
    ev_ref(loop);
    ev_signal_stop(loop, &px->sigterm);
    ev_signal_stop(loop, &px->sigint);
    ev_timer_stop(loop, &px->drain);
    ev_timer_stop(loop, &px->accept_retry);
    ev_io_stop(loop, &px->accept_w);
    return 0;
}

int
main(int argc, char **argv)
{
    struct px_config cfg = {
        .header_limit = 8192,
        .header_timeout = 10,
        .idle_timeout = 600,
        .connect_timeout = 10,
        .drain_timeout = 5,
        .max_conns = 256,
    };
    struct err e = { 0 };
    struct px *px;
    int rc = 1;

    signal(SIGPIPE, SIG_IGN);
    px_allow_init(&cfg.allow);
    px = calloc(1, sizeof(*px));
    if (px == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return 1;
    }
    px->listen_fd = -1;
    px->pipe_rd = px->pipe_wr = -1;
    px->cfg = &cfg;
    if (px_parse_flags(argc, argv, &cfg, &e) == -1) {
        log_msg(LOG_ERROR, "%s", e.msg);
        rc = 2;
        goto out;
    }
    px->loop = ev_default_loop(EVFLAG_AUTO);
    if (px_run(px, &e) == -1)
        log_msg(LOG_ERROR, "%s", e.msg);
    else
        rc = 0;
out:
    if (px->listen_fd >= 0)
        close(px->listen_fd);
    if (px->pipe_rd >= 0) {
        close(px->pipe_rd);
        close(px->pipe_wr);
    }
    px_dns_free(px->dns);
    px_allow_cleanup(&cfg.allow);
    free(px);
    return rc;
}
