/* loop_flags.c - agent-controller's flags, their meanings and defaults
 * (docs/design.md "CLI contract"), and the --help made from them. */
#include "loop_flags.h"

#include <string.h>

/* Sized, so a row too many fails to compile (one too few leaves a
 * second NULL row, which ends the table as well). */
const struct loop_flag ctl_flags[CTL_NFLAGS + 1] = {
    { "specs", 's', "DIR",
      "the directory store: one spec file per invocation; exactly one of "
      "--specs, --etcd and --kubeconfig (or --in-cluster)",
      NULL },
    { "etcd", 'e', "URL[,URL]", "the etcd store, its endpoints comma-separated",
      NULL },
    { "etcd-prefix", 'p', "P", "key prefix in etcd", "/agentctl" },
    { "etcd-cacert", 'A', "FILE", "CA bundle that verifies https:// endpoints",
      "the system CAs" },
    { "etcd-cert", 'C', "FILE", "client certificate for etcd, with --etcd-key",
      NULL },
    { "etcd-key", 'K', "FILE", "the client certificate's key", NULL },
    { "etcd-user", 'U', "NAME",
      "authenticate to etcd as NAME before the first request", NULL },
    { "etcd-password-file", 'P', "FILE",
      "the etcd user's password: the file's first line", NULL },
    { "kubeconfig", 'k', "FILE",
      "the Kubernetes API server store: AgentInvocation objects of the "
      "server this kubeconfig names (docs/store-kube.md)",
      NULL },
    { "kube-context", 'x', "NAME", "the kubeconfig's context to use",
      "its current-context" },
    { "in-cluster", 'I', NULL,
      "the Kubernetes API server store through the pod's service account",
      NULL },
    { "state", 'S', "DIR",
      "status, events and output; recorded in <specs>/.agentctl-state so "
      "agentctl finds it",
      "<specs>/.agentctl; etcd: /var/lib/agentctl/<prefix>; kube: "
      "/var/lib/agentctl/kube" },
    { "config", 'c', "FILE",
      "the controller configuration, agent-controller.yaml(5); SIGHUP "
      "reads it again",
      "built-in defaults" },
    { "docker", 'd', "URL", "the Docker daemon's socket; only unix://",
      "$DOCKER_HOST, else unix:///var/run/docker.sock" },
    { "resync", 'r', "D", "resync period: 5s, 500ms, 2m, or seconds", "5s" },
    { "metrics", 'm', "ADDR:PORT",
      "serve /metrics, /livez and /readyz on ADDR:PORT, e.g. 127.0.0.1:9464",
      "off" },
    { "controller-id", 'i', "ID",
      "1 to 63 of a-z 0-9 - . _; goes into the managed-by label",
      "the host name, lower-cased" },
    { "once", 'o', NULL, "exit when no invocation has work pending", NULL },
    { "max-running", 'M', "N",
      "at most N unfinished claimed invocations (etcd only); 0 = no cap", "0" },
    { "lease-ttl", 'L', "D", "lease TTL (etcd, API server Lease), 2s-1h, whole s", "15s" },
    { "max-building", 'B', "N",
      "at most N boxes built at once, the others wait in line; 0 = no cap",
      "6" },
    { "help", 'h', NULL, "print this help and exit", NULL },
    { "version", 'V', NULL, "print the version and exit", NULL },
    { NULL, 0, NULL, NULL, NULL },
};

void
loop_flags_usage(FILE *out)
{
    fprintf(out, "usage: agent-controller --specs DIR | --etcd URL[,URL] | "
                 "--kubeconfig FILE | --in-cluster [FLAGS]\n"
                 "       agent-controller --help | --version\n");
}

/* Print text indented by 6, broken at spaces before column 78. */
static void
print_wrapped(FILE *out, const char *text)
{
    const size_t width = 72;

    while (strlen(text) > width) {
        size_t cut = width;

        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0) /* one long word: let it overflow */
            break;
        fprintf(out, "      %.*s\n", (int)cut, text);
        text += cut + 1;
    }
    fprintf(out, "      %s\n", text);
}

void
loop_flags_help(FILE *out)
{
    loop_flags_usage(out);
    fprintf(out,
            "\n"
            "Run AgentInvocation resources from a watched directory, etcd or "
            "a Kubernetes\nAPI server as "
            "boxed containers on the local Docker daemon, and keep their "
            "status.\n"
            "\n"
            "Flags:\n");
    for (const struct loop_flag *f = ctl_flags; f->name != NULL; f++) {
        char line[256];

        if (f->def != NULL)
            snprintf(line, sizeof(line), "%s (default: %s)", f->help, f->def);
        else
            snprintf(line, sizeof(line), "%s", f->help);
        fprintf(out, "  --%s%s%s\n", f->name, f->arg != NULL ? " " : "",
                f->arg != NULL ? f->arg : "");
        print_wrapped(out, line);
    }
    fprintf(out,
            "\n"
            "Signals:\n"
            "  SIGHUP reloads the config (a bad file keeps the old one and "
            "says why);\n"
            "  SIGTERM and SIGINT stop the loop and leave running agents in "
            "place.\n"
            "\n"
            "Environment:\n"
            "  DOCKER_HOST     the default of --docker\n"
            "  AGENTCTL_LOG    debug: log at debug level\n"
            "\n"
            "Exit codes:\n"
            "  0  a clean stop, --help, --version\n"
            "  1  it cannot start (bad config, store, Docker URL or metrics "
            "address)\n"
            "  2  usage: an unknown flag, a bad or empty value, a stray "
            "argument,\n"
            "     not exactly one of --specs, --etcd and --kubeconfig "
            "(--in-cluster)\n");
}
