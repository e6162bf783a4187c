/* cli_input.c - the files named with -f (validate, apply, diff): expand
 * directories, read stdin for "-", load and check every document, and
 * the validate command itself. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
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

/* A spec file in a directory: *.yaml, *.yml or *.json (JSON is YAML to
 * the parser), not hidden. */
static bool
is_spec_name(const char *base)
{
    size_t n = strlen(base);

    return base[0] != '.' && ((n > 5 && strcmp(base + n - 5, ".yaml") == 0) ||
                              (n > 4 && strcmp(base + n - 4, ".yml") == 0) ||
                              (n > 5 && strcmp(base + n - 5, ".json") == 0));
}

static struct spec_file *
next_slot(struct cli_input *in, struct err *e)
{
    struct spec_file *f;
    size_t cap;

    if (in->n == CLI_MAX_INPUTS) {
        err_set(e, ERR_LIMIT, "too many input files (at most %d)",
                CLI_MAX_INPUTS);
        return NULL;
    }
    if (in->n == in->cap) {
        cap = in->cap ? 2 * in->cap : 16;
        f = realloc(in->files, cap * sizeof(*f));
        if (f == NULL) {
            err_set(e, ERR_NOMEM, "out of memory for the input files");
            return NULL;
        }
        in->files = f;
        in->cap = cap;
    }
    f = &in->files[in->n++];
    memset(f, 0, sizeof(*f));
    return f;
}

static int
load_stdin(struct spec_file *f)
{
    struct buf b;
    char chunk[65536];
    ssize_t got;
    int rc;

    buf_init(&b, SPEC_MAX_INPUT_BYTES);
    while ((got = read(0, chunk, sizeof(chunk))) != 0) {
        if (got == -1 && errno == EINTR)
            continue;
        if (got == -1)
            break;
        if (buf_append(&b, chunk, (size_t)got, NULL) == -1) {
            /* never the first 64 MiB checked as if they were all */
            buf_cleanup(&b);
            return spec_load_input("<stdin>", "", SPEC_MAX_INPUT_BYTES + 1,
                                   f);
        }
    }
    rc = spec_load_input("<stdin>", b.data ? b.data : "", b.len, f);
    buf_cleanup(&b);
    return rc;
}

/* The entries of dir worth reading (spec files, and with recursive its
 * subdirectories but not hidden ones), sorted by name, into *out (*k of
 * them). -1 with e when the directory cannot be read whole: a listing cut
 * short would apply part of it (and prune the rest). */
static int
list_dir(const char *dir, bool recursive, char ***out, size_t *k,
         struct err *e)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char **names = NULL, **nn;
    size_t cap = 0;
    int rc = 0;

    *out = NULL;
    *k = 0;
    if (dp == NULL)
        return err_sys(e, "%s: cannot read the directory", dir);
    while (rc == 0) {
        bool sub;

        errno = 0; /* readdir's NULL is the end or, with errno, an error */
        if ((de = readdir(dp)) == NULL)
            break;
        sub = recursive && de->d_name[0] != '.' &&
                   (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN);

        if (!sub && !is_spec_name(de->d_name))
            continue;
        if (*k == CLI_MAX_INPUTS) {
            rc = err_set(e, ERR_LIMIT, "%s: more than %d entries to read",
                         dir, CLI_MAX_INPUTS);
            break;
        }
        if (*k == cap) {
            cap = cap ? 2 * cap : 16;
            if ((nn = realloc(names, cap * sizeof(*nn))) == NULL) {
                rc = err_set(e, ERR_NOMEM, "%s: out of memory", dir);
                break;
            }
            names = nn;
        }
        if ((names[*k] = strdup(de->d_name)) == NULL)
            rc = err_set(e, ERR_NOMEM, "%s: out of memory", dir);
        else
            (*k)++;
    }
    if (rc == 0 && errno != 0)
        rc = err_sys(e, "%s: cannot read the directory", dir);
    closedir(dp);
    if (*k > 0)
        qsort(names, *k, sizeof(*names), name_cmp);
    *out = names;
    return rc;
}

/* The spec files of dir in name order; with recursive, subdirectories'
 * files where their name sorts (kubectl apply -R). */
static int
load_dir(const char *dir, bool recursive, struct cli_input *in, struct err *e)
{
    char **names, path[4096];
    size_t k;
    struct stat st;
    int rc = list_dir(dir, recursive, &names, &k, e);

    for (size_t i = 0; i < k && rc == 0; i++) {
        struct spec_file *f;

        if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
            (int)sizeof(path)) {
            rc = err_set(e, ERR_LIMIT, "%s/%s: path too long", dir, names[i]);
            break;
        }
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (recursive)
                rc = load_dir(path, true, in, e);
            continue;
        }
        if (!is_spec_name(names[i]))
            continue;
        if ((f = next_slot(in, e)) == NULL)
            rc = -1;
        else
            spec_load_input_file(path, f);
    }
    for (size_t i = 0; i < k; i++)
        free(names[i]);
    free(names);
    return rc;
}

int
cli_input_load(char *const *paths, size_t npaths, bool recursive,
               struct cli_input *in, struct err *e)
{
    struct stat st;

    memset(in, 0, sizeof(*in));
    for (size_t i = 0; i < npaths; i++) {
        struct spec_file *f;

        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            if (load_dir(paths[i], recursive, in, e) == -1)
                return -1;
            continue;
        }
        f = next_slot(in, e);
        if (f == NULL)
            return -1;
        if (strcmp(paths[i], "-") == 0)
            load_stdin(f);
        else
            spec_load_input_file(paths[i], f);
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

/* One error as validate -o json shows it (fields that are unknown are
 * left out, as err_format leaves them out of the line). */
static void
error_json(cJSON *errors, const struct err *e)
{
    cJSON *o;

    if (errors == NULL || (o = cJSON_CreateObject()) == NULL)
        return;
    if (e->file[0] != '\0')
        cJSON_AddStringToObject(o, "file", e->file);
    if (e->line > 0)
        cJSON_AddNumberToObject(o, "line", e->line);
    if (e->col > 0)
        cJSON_AddNumberToObject(o, "column", e->col);
    if (e->field[0] != '\0')
        cJSON_AddStringToObject(o, "field", e->field);
    cJSON_AddStringToObject(o, "message", e->msg);
    cJSON_AddItemToArray(errors, o);
}

/* A name given twice in the input (in two files) is ambiguous. Every
 * pair (x in file i, y in an earlier file j) of one name is reported, in
 * the order of x then y. Found by sorting the names: 10,000 documents
 * compared pairwise were 5 * 10^7 strcmp (most of an apply's time). */
struct name_ref {
    const struct spec_invocation *inv;
    size_t file, item;
};

struct dup_pair {
    size_t i, a, j, b; /* x = files[i].items[a], y = files[j].items[b] */
};

static int
name_ref_cmp(const void *pa, const void *pb)
{
    const struct name_ref *x = pa, *y = pb;
    int c = strcmp(x->inv->name, y->inv->name);

    if (c != 0)
        return c;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

static int
dup_pair_cmp(const void *pa, const void *pb)
{
    const struct dup_pair *x = pa, *y = pb;
    const size_t kx[] = { x->i, x->a, x->j, x->b };
    const size_t ky[] = { y->i, y->a, y->j, y->b };

    for (size_t k = 0; k < 4; k++)
        if (kx[k] != ky[k])
            return kx[k] < ky[k] ? -1 : 1;
    return 0;
}

static void
report_pair(const struct cli_input *in, const struct dup_pair *p,
            cJSON *errors)
{
    const struct spec_invocation *x = in->files[p->i].items[p->a];
    const struct spec_invocation *y = in->files[p->j].items[p->b];
    struct err e = { 0 };
    char line[600];

    err_set_at(&e, ERR_INVALID, x->file, x->line, 1, "metadata.name",
               "duplicate name \"%s\" (also in %s:%u)", x->name, y->file,
               y->line);
    fprintf(stderr, "%s\n", err_format(&e, line, sizeof(line)));
    error_json(errors, &e);
}

/* The pairs within one run refs[0..n) of equal names, into *out (grown). */
static int
run_pairs(const struct name_ref *refs, size_t n, struct dup_pair **out,
          size_t *nout)
{
    for (size_t x = 0; x < n; x++)
        for (size_t y = 0; y < x; y++) {
            struct dup_pair *v;

            if (refs[y].file == refs[x].file)
                continue; /* within one file: the file's own error */
            v = realloc(*out, (*nout + 1) * sizeof(*v));
            if (v == NULL)
                return -1;
            *out = v;
            v[(*nout)++] = (struct dup_pair){ refs[x].file, refs[x].item,
                                              refs[y].file, refs[y].item };
        }
    return 0;
}

/* Out of memory is an error too: an input whose names went unchecked is
 * never applied. */
static size_t
report_unchecked(cJSON *errors)
{
    struct err e = { 0 };
    char line[600];

    err_set(&e, ERR_NOMEM,
            "out of memory checking the inputs for duplicate names");
    fprintf(stderr, "%s\n", err_format(&e, line, sizeof(line)));
    error_json(errors, &e);
    return 1;
}

static size_t
report_duplicates(const struct cli_input *in, cJSON *errors)
{
    struct dup_pair *pairs = NULL;
    struct name_ref *refs;
    size_t n = 0, npairs = 0, total = 0;
    bool unchecked = false;

    for (size_t i = 0; i < in->n; i++)
        total += in->files[i].n;
    refs = calloc(total + 1, sizeof(*refs));
    if (refs == NULL)
        return report_unchecked(errors);
    for (size_t i = 0; i < in->n; i++)
        for (size_t a = 0; a < in->files[i].n; a++)
            refs[n++] = (struct name_ref){ in->files[i].items[a], i, a };
    qsort(refs, n, sizeof(*refs), name_ref_cmp);
    for (size_t r = 0; r < n;) {
        size_t end = r + 1;

        while (end < n &&
               strcmp(refs[end].inv->name, refs[r].inv->name) == 0)
            end++;
        if (end - r > 1 && run_pairs(refs + r, end - r, &pairs, &npairs)) {
            unchecked = true;
            break;
        }
        r = end;
    }
    if (npairs > 0) /* pairs is NULL then: qsort wants a pointer */
        qsort(pairs, npairs, sizeof(*pairs), dup_pair_cmp);
    for (size_t k = 0; k < npairs; k++)
        report_pair(in, &pairs[k], errors);
    free(pairs);
    free(refs);
    return npairs + (unchecked ? report_unchecked(errors) : 0);
}

size_t
cli_input_report(const struct cli_input *in, cJSON *errors)
{
    size_t bad = 0;

    for (size_t i = 0; i < in->n; i++) {
        const struct spec_file *f = &in->files[i];

        spec_file_print_errors(f, stderr);
        for (size_t k = 0; k < f->errors.n; k++)
            error_json(errors, &f->errors.items[k]);
        bad += f->errors.n + f->errors.dropped;
    }
    return bad + report_duplicates(in, errors);
}

/* validate -o json: the whole result as one object on stdout. */
static int
print_validate_json(const struct cli_input *in, cJSON *errors, size_t problems)
{
    cJSON *o = cJSON_CreateObject(), *files, *names, *f;
    size_t dropped = 0;
    int rc = CLI_FAIL;

    if (o == NULL)
        goto out;
    cJSON_AddBoolToObject(o, "valid", problems == 0);
    cJSON_AddNumberToObject(o, "documents", (double)in->docs);
    files = cJSON_AddArrayToObject(o, "files");
    for (size_t i = 0; files != NULL && i < in->n; i++) {
        const struct spec_file *sf = &in->files[i];

        if ((f = cJSON_CreateObject()) == NULL)
            break;
        cJSON_AddItemToArray(files, f);
        cJSON_AddStringToObject(f, "path", sf->path ? sf->path : "");
        cJSON_AddBoolToObject(f, "valid",
                              sf->errors.n + sf->errors.dropped == 0);
        names = cJSON_AddArrayToObject(f, "names");
        for (size_t k = 0; names != NULL && k < sf->n; k++)
            cJSON_AddItemToArray(names, cJSON_CreateString(sf->items[k]->name));
        dropped += sf->errors.dropped;
    }
    cJSON_AddItemReferenceToObject(o, "errors", errors);
    cJSON_AddNumberToObject(o, "errorsNotShown", (double)dropped);
    rc = cli_print_doc(o, "json");
out:
    cJSON_Delete(o);
    return rc;
}

/* -o of validate and diff: absent or json. */
int
cli_json_output(const struct cli_args *a, bool *json)
{
    const char *fmt = cli_args_get(a, "output", NULL);

    if (fmt != NULL && strcmp(fmt, "json") != 0)
        return cli_usage_error(a->cmd, "--output must be json, got \"%s\"",
                               fmt);
    *json = fmt != NULL;
    return CLI_OK;
}

/* The paths of -f, then (validate only) the bare arguments. */
static int
input_paths(const struct cli_args *a, bool bare, char ***paths, size_t *np)
{
    size_t nf;
    char *const *f = cli_args_list(a, "filename", &nf);

    *np = 0;
    if (!bare && a->npos > 0)
        return cli_usage_error(a->cmd, "unexpected argument \"%s\"",
                               a->pos[0]);
    if ((*paths = calloc(nf + a->npos + 1, sizeof(char *))) == NULL)
        return CLI_FAIL;
    for (size_t i = 0; i < nf; i++)
        (*paths)[(*np)++] = f[i];
    for (size_t i = 0; bare && i < a->npos; i++)
        (*paths)[(*np)++] = a->pos[i];
    if (*np == 0)
        return cli_usage_error(a->cmd, "no input: pass -f PATH");
    return CLI_OK;
}

int
cli_input_from_args(const struct cli_args *a, bool bare, struct cli_input *in)
{
    char **paths = NULL;
    size_t np;
    struct err e = { 0 };
    int rc = input_paths(a, bare, &paths, &np);

    memset(in, 0, sizeof(*in));
    if (rc == CLI_OK &&
        cli_input_load(paths, np, cli_args_has(a, "recursive"), in, &e) ==
            -1) {
        fprintf(stderr, "error: %s (nothing was read)\n", e.msg);
        rc = CLI_FAIL;
    }
    free(paths);
    return rc;
}

int
cli_validate(struct cli *c, const struct cli_args *a)
{
    struct cli_input in;
    size_t problems;
    bool json = false;
    cJSON *errors = NULL;
    int rc;

    (void)c;
    if ((rc = cli_json_output(a, &json)) != CLI_OK)
        return rc;
    if ((rc = cli_input_from_args(a, true, &in)) != CLI_OK) {
        cli_input_cleanup(&in);
        return rc;
    }
    if (json && (errors = cJSON_CreateArray()) == NULL) {
        cli_input_cleanup(&in);
        return CLI_FAIL;
    }
    problems = cli_input_report(&in, errors);
    if (json)
        rc = print_validate_json(&in, errors, problems);
    else if (problems == 0)
        printf("%zu file(s), %zu document(s): valid\n", in.n, in.docs);
    else
        printf("%zu file(s): %zu invalid, %zu error(s)\n", in.n, in.invalid,
               problems);
    cJSON_Delete(errors);
    cli_input_cleanup(&in);
    if (rc != CLI_OK)
        return CLI_FAIL;
    return problems == 0 ? CLI_OK : CLI_FAIL;
}
