/* cli_commands.c - agentctl's command table: every command's name,
 * synopsis, help text and flags in one place (relayctl/parser.c style).
 * agentctl.c parses argv with it, --help prints it and `agentctl
 * completion` generates the shell scripts from it, so a flag added here
 * is parsed, documented and completed at once. */
#include "cli.h"

#define END { NULL, 0, CLI_OPT_FLAG, NULL, NULL, CLI_COMPLETE_NONE, NULL }

#define OPT_FILENAME(what)                                                     \
    { "filename", 'f', CLI_OPT_LIST, "PATH",                                   \
      what " (a file, a directory of *.yaml/*.yml/*.json, or - for stdin)",   \
      CLI_COMPLETE_FILE, NULL }
#define OPT_RECURSIVE                                                          \
    { "recursive", 'R', CLI_OPT_FLAG, NULL,                                    \
      "read the directories of -f and all their subdirectories",              \
      CLI_COMPLETE_NONE, NULL }
#define OPT_SELECTOR                                                           \
    { "selector", 'l', CLI_OPT_VALUE, "SELECTOR",                              \
      "label selector: k=v, k!=v, k, !k, k in (a,b), k notin (a,b); "         \
      "comma = and",                                                           \
      CLI_COMPLETE_NONE, NULL }
#define OPT_JSON_OUTPUT(what)                                                  \
    { "output", 'o', CLI_OPT_VALUE, "json", what, CLI_COMPLETE_WORDS, "json" }

static const struct cli_opt validate_opts[] = {
    OPT_FILENAME("input to check; bare paths work too"),
    OPT_RECURSIVE,
    OPT_JSON_OUTPUT("the result as one JSON object on stdout: {valid, "
                    "documents, files, errors, errorsNotShown}"),
    END,
};

static const struct cli_opt apply_opts[] = {
    OPT_FILENAME("input to apply"),
    OPT_RECURSIVE,
    { "prune", 0, CLI_OPT_FLAG, NULL,
      "delete specs an earlier apply wrote that the input no longer has "
      "(needs -l or --all)",
      CLI_COMPLETE_NONE, NULL },
    OPT_SELECTOR,
    { "all", 0, CLI_OPT_FLAG, NULL, "with --prune: consider every spec",
      CLI_COMPLETE_NONE, NULL },
    { "dry-run", 0, CLI_OPT_OPTIONAL, "client",
      "print what would happen, write nothing (--dry-run[=client])",
      CLI_COMPLETE_WORDS, "client" },
    { "output", 'o', CLI_OPT_VALUE, "FORMAT",
      "name, json or yaml (stdout then holds only the applied resources)",
      CLI_COMPLETE_WORDS, "name json yaml" },
    END,
};

static const struct cli_opt diff_opts[] = {
    OPT_FILENAME("input to compare"),
    OPT_RECURSIVE,
    OPT_JSON_OUTPUT("{changed, items: [{name, action, diff}]} on stdout"),
    END,
};

static const struct cli_opt get_opts[] = {
    { "output", 'o', CLI_OPT_VALUE, "FORMAT",
      "wide, name, json, yaml, jsonpath=TEMPLATE, custom-columns=SPEC",
      CLI_COMPLETE_WORDS,
      "wide name json yaml jsonpath= custom-columns=" },
    OPT_SELECTOR,
    { "show-labels", 0, CLI_OPT_FLAG, NULL, "add a LABELS column",
      CLI_COMPLETE_NONE, NULL },
    { "no-headers", 0, CLI_OPT_FLAG, NULL, "print the table without its "
      "header", CLI_COMPLETE_NONE, NULL },
    { "watch", 'w', CLI_OPT_FLAG, NULL,
      "after the list, print a row each time an invocation changes, "
      "and once more when it is deleted",
      CLI_COMPLETE_NONE, NULL },
    { "sort-by", 0, CLI_OPT_VALUE, "JSONPATH",
      "order by a field (.metadata.name, .status.phase): numbers by "
      "value, strings lexically, items without it first",
      CLI_COMPLETE_WORDS,
      ".metadata.name .metadata.creationTimestamp .status.phase" },
    { "field-selector", 0, CLI_OPT_VALUE, "SELECTOR",
      "metadata.name and status.phase with =, == or !=; comma = and",
      CLI_COMPLETE_WORDS, "metadata.name= status.phase=" },
    END,
};

static const struct cli_opt describe_opts[] = {
    OPT_SELECTOR,
    END,
};

static const struct cli_opt delete_opts[] = {
    OPT_FILENAME("delete the invocations this input names"),
    OPT_RECURSIVE,
    OPT_SELECTOR,
    { "all", 0, CLI_OPT_FLAG, NULL, "delete every invocation",
      CLI_COMPLETE_NONE, NULL },
    { "ignore-not-found", 0, CLI_OPT_FLAG, NULL,
      "a name that does not exist is not an error", CLI_COMPLETE_NONE, NULL },
    END,
};

static const struct cli_opt logs_opts[] = {
    { "follow", 'f', CLI_OPT_FLAG, NULL,
      "keep printing until the attempt has finished", CLI_COMPLETE_NONE, NULL },
    { "egress", 0, CLI_OPT_FLAG, NULL,
      "the egress audit instead: the credential gateway's request lines "
      "and the proxy's tunnel lines (JSON), kept when the box is removed",
      CLI_COMPLETE_NONE, NULL },
    { "tail", 0, CLI_OPT_VALUE, "N",
      "print only the last N lines first (-1: all)", CLI_COMPLETE_NONE, NULL },
    { "since", 0, CLI_OPT_VALUE, "DURATION",
      "only when the output was last written less than DURATION ago "
      "(else nothing: no time is kept per line)",
      CLI_COMPLETE_NONE, NULL },
    { "timeout", 0, CLI_OPT_VALUE, "DURATION",
      "with -f: give up (exit 1) after DURATION; 0 waits forever",
      CLI_COMPLETE_NONE, NULL },
    END,
};

static const struct cli_opt changes_opts[] = {
    { "stat", 0, CLI_OPT_FLAG, NULL,
      "a line per changed, refused or undiffed path, and the totals",
      CLI_COMPLETE_NONE, NULL },
    { "output", 'o', CLI_OPT_VALUE, "FORMAT",
      "diff (the default), tar (the added and modified files, to a file "
      "or pipe) or json (the whole summary)",
      CLI_COMPLETE_WORDS, "diff tar json" },
    { "apply-to", 0, CLI_OPT_VALUE, "DIR",
      "apply the changes to DIR, a checkout of the workspace the attempt "
      "started from: every path is checked first, and a conflict changes "
      "nothing",
      CLI_COMPLETE_NONE, NULL },
    END,
};

static const struct cli_opt result_opts[] = {
    { "output", 'o', CLI_OPT_VALUE, "FORMAT",
      "json or yaml (the whole status.result but the change set) or "
      "jsonpath=TEMPLATE on it ({.json.verdict})",
      CLI_COMPLETE_WORDS, "json yaml jsonpath=" },
    END,
};

static const struct cli_opt check_opts[] = {
    { "image", 0, CLI_OPT_VALUE, "IMAGE",
      "the vendor CLI's image (required; with the CA and config it needs)",
      CLI_COMPLETE_NONE, NULL },
    { "credential", 0, CLI_OPT_VALUE, "NAME",
      "the credential: a file name in the controller's secretsDir",
      CLI_COMPLETE_NONE, NULL },
    { "env", 'e', CLI_OPT_LIST, "K=V",
      "an environment variable of the CLI (repeatable): a base URL, a CA",
      CLI_COMPLETE_NONE, NULL },
    { "prompt", 0, CLI_OPT_VALUE, "TEXT",
      "the prompt (default: answer {\"ok\": true})", CLI_COMPLETE_NONE,
      NULL },
    { "timeout", 0, CLI_OPT_VALUE, "DURATION",
      "give up after DURATION, also the spec's deadline (default 120s)",
      CLI_COMPLETE_NONE, NULL },
    { "keep", 0, CLI_OPT_FLAG, NULL,
      "keep the check's spec (describe it) instead of deleting it",
      CLI_COMPLETE_NONE, NULL },
    END,
};

static const struct cli_opt wait_opts[] = {
    { "for", 0, CLI_OPT_VALUE, "CONDITION",
      "phase=PHASE, condition=TYPE[=STATUS], "
      "jsonpath='{.status.result.json.verdict}'[=VALUE] or delete",
      CLI_COMPLETE_WORDS,
      "phase=Succeeded phase=Failed phase=Running condition= jsonpath= "
      "delete" },
    { "timeout", 0, CLI_OPT_VALUE, "DURATION",
      "give up after DURATION (default 30s; 90, 1h30m, 500ms)",
      CLI_COMPLETE_NONE, NULL },
    END,
};

static const struct cli_opt version_opts[] = {
    { "output", 'o', CLI_OPT_VALUE, "FORMAT", "json or yaml",
      CLI_COMPLETE_WORDS, "json yaml" },
    END,
};

static const struct cli_opt no_opts[] = { END };

const struct cli_command cli_commands[] = {
    { "validate", cli_validate, CLI_STORE_NONE, "-f PATH... [-o json]",
      "check spec files (0 valid, 1 not)",
      "Check spec files against the AgentInvocation schema. Prints\n"
      "file:line:col: field: message for every error. Exit 0 when all are\n"
      "valid, 1 otherwise, 2 on usage errors.\n",
      validate_opts, CLI_COMPLETE_FILE },
    { "apply", cli_apply, CLI_STORE_WRITE, "-f PATH [--prune (-l SELECTOR | --all)]",
      "write specs into the store",
      "Validate every document of every input first; when one is invalid,\n"
      "print the errors and write nothing. Then write each invocation to\n"
      "the store. --prune deletes what an earlier apply wrote that the\n"
      "input no longer has (never hand-written or hand-edited files); like\n"
      "kubectl it needs -l SELECTOR or --all.\n",
      apply_opts, CLI_COMPLETE_NONE },
    { "diff", cli_diff, CLI_STORE_READ, "-f PATH [-o json]",
      "show what apply would change",
      "Show how the input differs from the stored specs (canonical YAML,\n"
      "unified format). Exit 0 when nothing differs, 1 when something\n"
      "does, 2 on errors (including invalid input).\n",
      diff_opts, CLI_COMPLETE_NONE },
    { "get", cli_get, CLI_STORE_READ,
      "[agentinvocation] [NAME...] [-o FORMAT] [-l SELECTOR] [-w] | pool",
      "list invocations or show some; get pool: the warm pool",
      "List invocations (NAME PHASE ATTEMPT STOP AGE), or the ones named.\n"
      "Files that do not validate show with PHASE Invalid, deleted\n"
      "invocations the controller still cleans up with PHASE Terminating.\n"
      "`get pool` lists the boxes of every controller's warm pool (NAME\n"
      "VENDOR STATE SUBNET AGE; -o wide adds CONTROLLER; -o json|yaml\n"
      "prints the pool documents as a List); exit 1 when a pool document\n"
      "cannot be read. A first argument naming a type is the type, as in\n"
      "kubectl: pool, or agentinvocation (ai, ainv, agentinvocations);\n"
      "so an invocation called pool is `get agentinvocation pool`.\n",
      get_opts, CLI_COMPLETE_WORDS },
    { "describe", cli_describe, CLI_STORE_READ, "NAME... | -l SELECTOR",
      "show invocations in detail",
      "Show invocations in detail: spec, status, the Docker resources\n"
      "they own, conditions and events.\n",
      describe_opts, CLI_COMPLETE_WORDS },
    { "delete", cli_delete, CLI_STORE_WRITE, "(NAME... | -f PATH | -l SELECTOR | --all)",
      "remove invocations' specs",
      "Remove the specs of the invocations named. The controller then\n"
      "stops their attempts and removes everything it created for them;\n"
      "until it has, they are Terminating (get, describe), the name\n"
      "cannot be applied again, and `wait --for=delete` waits.\n",
      delete_opts, CLI_COMPLETE_WORDS },
    { "cancel", cli_cancel, CLI_STORE_WRITE, "NAME...", "stop the running attempt",
      "Set spec.cancel: true in each named spec (atomically). The\n"
      "controller stops the attempt with stopReason cancelled.\n",
      no_opts, CLI_COMPLETE_WORDS },
    { "logs", cli_logs, CLI_STORE_READ, "NAME [-f] [--egress] [--tail N] [--since D]",
      "print the captured output",
      "Print the captured output (stdout and stderr) of NAME's attempt.\n"
      "With -f, wait for the attempt to start (saying so on stderr) and\n"
      "keep printing until its phase is final. With --egress, print its\n"
      "egress audit instead: one JSON line per request through the\n"
      "credential gateway and per CONNECT through the proxy, written when\n"
      "the attempt's box is removed.\n",
      logs_opts, CLI_COMPLETE_WORDS },
    { "changes", cli_changes, CLI_STORE_READ,
      "NAME [--stat | -o diff|tar|json | --apply-to DIR]",
      "show or apply the agent's changes to /work",
      "Show what the agent of NAME's last attempt changed in /work (phases\n"
      "execute and fix), read back when its box was removed: a unified\n"
      "diff of the text files (default), a summary (--stat), the archive\n"
      "of the added and modified files (-o tar) or the JSON summary\n"
      "(-o json). --apply-to DIR writes the changes into DIR, a checkout\n"
      "of the same base, refusing any path outside it and changing\n"
      "nothing on a conflict. Exit 1 when there is no change set.\n",
      changes_opts, CLI_COMPLETE_WORDS },
    { "check", cli_check, CLI_STORE_WRITE,
      "vendor NAME --image IMAGE [--credential C] [-e K=V]... [--timeout D]",
      "run a tiny schema'd prompt through a real box of a vendor",
      "Run a tiny prompt with a schema through a real box of vendor NAME\n"
      "(the controller's admission, proxy, boundary probe, launcher and,\n"
      "in credentialMode gateway, gateway: a spec check-NAME-XXXXXX in the\n"
      "store) and report each step as it is reached, with the seconds\n"
      "since the check began: admitted, box verified, CLI started, CLI\n"
      "answered, the vendor (reached and authenticated: exit 0, no\n"
      "is_error; else the CLI's own words) and valid output. The spec is\n"
      "deleted at the end. The command to run after changing a key, a\n"
      "pin or the egress profile. Exit 1 at the first step that failed.\n",
      check_opts, CLI_COMPLETE_NONE },
    { "result", cli_result, CLI_STORE_READ,
      "NAME [-o json|yaml|jsonpath=TEMPLATE]",
      "print the agent's result (the answer its CLI returned)",
      "Print the result NAME's agent returned through its CLI's documented\n"
      "channel (Claude Code's JSON envelope, Codex's --output-last-message\n"
      "file), as the controller read and checked it: the JSON answer when\n"
      "spec.output.schema is set and it validates, else the text. -o\n"
      "prints the whole status.result (text, json, isError, turns, valid,\n"
      "errors with their JSON paths, problem). Exit 1 when there is no\n"
      "result yet, when it is unusable (missing, oversized, not UTF-8,\n"
      "invalid against the schema) or the CLI reported an error.\n",
      result_opts, CLI_COMPLETE_WORDS },
    { "wait", cli_wait, CLI_STORE_READ, "NAME... --for=CONDITION [--timeout=D]",
      "wait for a phase, a condition or deletion",
      "Wait until every named invocation meets the condition. Exit 0 when\n"
      "it does, 1 on timeout, when it is not found, or at once when its\n"
      "phase is final and cannot become the one asked for.\n",
      wait_opts, CLI_COMPLETE_WORDS },
    { "explain", cli_explain, CLI_STORE_NONE, "FIELD",
      "document a field of the resource, from the CRD",
      "Print the schema of a field of AgentInvocation (for example\n"
      "spec.resources.cpus) as the embedded CRD states it.\n",
      no_opts, CLI_COMPLETE_NONE },
    { "completion", cli_completion, CLI_STORE_NONE, "bash|zsh",
      "print a shell completion script",
      "Print a completion script for bash or zsh, generated from this\n"
      "command table:  source <(agentctl completion bash)\n",
      no_opts, CLI_COMPLETE_WORDS },
    { "help", cli_help, CLI_STORE_NONE, "[COMMAND]",
      "print this help, or a command's",
      "Print the commands and the global options, or with COMMAND its help\n"
      "(the same as agentctl COMMAND --help).\n",
      no_opts, CLI_COMPLETE_NONE },
    { "version", cli_version, CLI_STORE_NONE, "[-o json|yaml]", "print the version",
      "Print agentctl's version (also: agentctl --version).\n", version_opts,
      CLI_COMPLETE_NONE },
};

const size_t cli_ncommands = sizeof(cli_commands) / sizeof(cli_commands[0]);
