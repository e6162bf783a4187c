/* cli_input.c - the files named with -f (validate, apply, diff): expand
 * directories, read stdin for "-", load and check every document, and
 * the validate command itself. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_yaml_name(const char *base)
{
    size_t n = strlen(base);

    return base[0] != '.' && ((n > 5 && strcmp(base + n - 5, ".yaml") == 0) ||
                              (n > 4 && strcmp(base + n - 4, ".yml") == 0));
}

static struct spec_file *
next_slot(struct cli_input *in)
{
    struct spec_file *f;

    if (in->n == CLI_MAX_INPUTS)
        return NULL;
    f = realloc(in->files, (in->n + 1) * sizeof(*f));
    if (f == NULL)
        return NULL;
    in->files = f;
    return &in->files[in->n++];
}

static int
load_stdin(struct spec_file *f)
{
    struct buf b;
    char chunk[65536];
    ssize_t got;
    int rc;

    buf_init(&b, SPEC_MAX_FILE_BYTES + 1);
    while ((got = read(0, chunk, sizeof(chunk))) != 0) {
        if (got == -1 && errno == EINTR)
            continue;
        if (got == -1 || buf_append(&b, chunk, (size_t)got, NULL) == -1)
            break;
    }
    rc = spec_load_buffer("<stdin>", b.data ? b.data : "", b.len, f);
    buf_cleanup(&b);
    return rc;
}

/* The *.yaml / *.yml files directly in dir, in name order. */
static int
load_dir(const char *dir, struct cli_input *in)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char **names = NULL, **nn, path[4096];
    size_t k = 0;
    int rc = 0;

    if (dp == NULL)
        return -1;
    while ((de = readdir(dp)) != NULL && k < CLI_MAX_INPUTS) {
        if (!is_yaml_name(de->d_name))
            continue;
        nn = realloc(names, (k + 1) * sizeof(*nn));
        if (nn == NULL)
            break;
        names = nn;
        names[k] = strdup(de->d_name);
        if (names[k] != NULL)
            k++;
    }
    closedir(dp);
    if (k > 0)
        qsort(names, k, sizeof(*names), name_cmp);
    for (size_t i = 0; i < k && rc == 0; i++) {
        struct spec_file *f = next_slot(in);

        if (f == NULL)
            rc = -1;
        else if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) <
                 (int)sizeof(path))
            spec_load_file(path, f);
        else
            in->n--;
    }
    for (size_t i = 0; i < k; i++)
        free(names[i]);
    free(names);
    return rc;
}

int
cli_input_load(char **paths, size_t npaths, struct cli_input *in)
{
    struct stat st;

    memset(in, 0, sizeof(*in));
    for (size_t i = 0; i < npaths; i++) {
        struct spec_file *f;

        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            if (load_dir(paths[i], in) == -1)
                return -1;
            continue;
        }
        f = next_slot(in);
        if (f == NULL)
            return -1;
        if (strcmp(paths[i], "-") == 0)
            load_stdin(f);
        else
            spec_load_file(paths[i], f);
    }
    for (size_t i = 0; i < in->n; i++) {
        if (in->files[i].errors.n + in->files[i].errors.dropped > 0)
            in->invalid++;
        else
            in->docs += in->files[i].n;
    }
    return 0;
}

void
cli_input_cleanup(struct cli_input *in)
{
    for (size_t i = 0; i < in->n; i++)
        spec_file_cleanup(&in->files[i]);
    free(in->files);
    memset(in, 0, sizeof(*in));
}

/* A name given twice in the input (in two files) is ambiguous. */
static size_t
report_duplicates(const struct cli_input *in)
{
    size_t bad = 0;

    for (size_t i = 0; i < in->n; i++)
        for (size_t a = 0; a < in->files[i].n; a++)
            for (size_t j = 0; j < i; j++)
                for (size_t b = 0; b < in->files[j].n; b++) {
                    const struct spec_invocation *x = in->files[i].items[a];
                    const struct spec_invocation *y = in->files[j].items[b];

                    if (strcmp(x->name, y->name) != 0)
                        continue;
                    fprintf(stderr,
                            "%s:%u:1: metadata.name: duplicate name \"%s\" "
                            "(also in %s:%u)\n",
                            x->file, x->line, x->name, y->file, y->line);
                    bad++;
                }
    return bad;
}

size_t
cli_input_report(const struct cli_input *in)
{
    size_t bad = 0;

    for (size_t i = 0; i < in->n; i++) {
        spec_file_print_errors(&in->files[i], stderr);
        bad += in->files[i].errors.n + in->files[i].errors.dropped;
    }
    return bad + report_duplicates(in);
}

static const char validate_usage[] =
    "usage: agentctl validate -f PATH...\n\n"
    "Check spec files (or every *.yaml/*.yml in a directory) against the\n"
    "AgentInvocation schema. Prints file:line:col: field: message for\n"
    "every error. Exit 0 when all are valid, 1 otherwise.\n";

int
cli_validate(struct cli *c, int argc, char **argv)
{
    struct cli_input in;
    char **paths;
    size_t np = 0, problems;
    int rc;

    (void)c;
    if (cli_wants_help(argc, argv, validate_usage))
        return CLI_OK;
    paths = calloc((size_t)argc, sizeof(*paths));
    if (paths == NULL)
        return CLI_FAIL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--filename") == 0) {
            if (i + 1 == argc) {
                free(paths);
                return cli_usage_error("validate", "-f needs a path");
            }
            paths[np++] = argv[++i];
        } else if (strncmp(argv[i], "--filename=", 11) == 0) {
            paths[np++] = argv[i] + 11;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            free(paths);
            return cli_usage_error("validate", "unknown option %s", argv[i]);
        } else {
            paths[np++] = argv[i]; /* validate -f a.yaml b.yaml */
        }
    }
    if (np == 0) {
        free(paths);
        return cli_usage_error("validate", "no input: pass -f PATH");
    }
    rc = cli_input_load(paths, np, &in);
    free(paths);
    if (rc == -1) {
        cli_input_cleanup(&in);
        fprintf(stderr, "error: too many input files (at most %d)\n",
                CLI_MAX_INPUTS);
        return CLI_FAIL;
    }
    problems = cli_input_report(&in);
    if (problems == 0)
        printf("%zu file(s), %zu document(s): valid\n", in.n, in.docs);
    else
        printf("%zu file(s): %zu invalid, %zu error(s)\n", in.n, in.invalid,
               problems);
    cli_input_cleanup(&in);
    return problems == 0 ? CLI_OK : CLI_FAIL;
}
