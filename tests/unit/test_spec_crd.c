/* test_spec_crd.c - keeps the CRD and the validator in agreement.
 *
 * The CRD compiles (every keyword it uses is implemented), the examples
 * validate, and for every constraint the CRD states - type, enum, pattern,
 * lengths, bounds, item and property counts (min and max), required
 * fields, oneOf,
 * unknown fields - a document that breaks exactly that constraint is
 * generated from a valid base and must be rejected at that field. The
 * mutations are derived from the compiled schema, so a constraint added to
 * the CRD is tested without editing this file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "spec_schema.h"
#include "spec_test_util.h"

#define PROMPT_BASE                                                         \
    "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"            \
    "metadata: {name: p}\nspec:\n  vendor: claude\n  phase: review\n"       \
    "  image: a:1\n  deadlineSeconds: 60\n  prompt: review it\n"            \
    "  runner: [make, test]\n"

struct walk {
    cJSON *full, *prompt; /* valid bases, as canonical JSON */
    size_t mutations, rejected;
};

/* Find the container holding the last segment of path ("a.b[2].c"). */
static cJSON *
locate(cJSON *root, const char *path, char *last, size_t last_size,
       int *index)
{
    char buf[256], *seg, *save = NULL;
    cJSON *cur = root, *parent = NULL;

    snprintf(buf, sizeof(buf), "%s", path);
    *index = -1;
    for (seg = strtok_r(buf, ".", &save); seg != NULL;
         seg = strtok_r(NULL, ".", &save)) {
        char *br = strchr(seg, '[');
        int idx = br ? atoi(br + 1) : -1;

        if (br != NULL)
            *br = '\0';
        parent = cur;
        snprintf(last, last_size, "%s", seg);
        *index = -1;
        cur = cur ? cJSON_GetObjectItemCaseSensitive(cur, seg) : NULL;
        if (idx >= 0) {
            parent = cur;
            *index = idx;
            cur = cur ? cJSON_GetArrayItem(cur, idx) : NULL;
        }
    }
    return parent;
}

static void
set_at(cJSON *root, const char *path, cJSON *value)
{
    char last[128];
    int index;
    cJSON *parent = locate(root, path, last, sizeof(last), &index);

    assert_non_null(parent);
    if (index >= 0)
        cJSON_ReplaceItemInArray(parent, index, value);
    else if (cJSON_GetObjectItemCaseSensitive(parent, last) != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(parent, last, value);
    else
        cJSON_AddItemToObject(parent, last, value);
}

static void
remove_at(cJSON *root, const char *path, const char *key)
{
    char last[128];
    int index;
    cJSON *parent = locate(root, path, last, sizeof(last), &index);
    cJSON *obj = path[0] ? cJSON_GetObjectItemCaseSensitive(parent, last)
                         : root;

    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
}

/* Load the mutated document and require an error whose field starts with
 * `field`. JSON is YAML, so the validator reads the printed tree. */
static void
expect_rejected(struct walk *w, cJSON *doc, const char *field,
                const char *what)
{
    char *text = cJSON_Print(doc);
    struct spec_file f;
    int found = 0;

    spec_test_load(text, &f);
    for (size_t i = 0; i < f.errors.n; i++)
        if (strncmp(f.errors.items[i].field, field, strlen(field)) == 0)
            found = 1;
    w->mutations++;
    w->rejected += found;
    if (!found)
        fprintf(stderr, "NOT rejected: %s at \"%s\":\n%s\n", what, field,
                text);
    free(text);
    spec_file_cleanup(&f);
    cJSON_Delete(doc);
}

static cJSON *
base_for(struct walk *w, const char *path)
{
    if (strncmp(path, "spec.prompt", 11) == 0 ||
        strncmp(path, "spec.runner", 11) == 0)
        return cJSON_Duplicate(w->prompt, 1);
    return cJSON_Duplicate(w->full, 1);
}

static cJSON *
long_string(long n, char c)
{
    char *s = malloc((size_t)n + 1);
    cJSON *j;

    memset(s, c, (size_t)n);
    s[n] = '\0';
    j = cJSON_CreateString(s);
    free(s);
    return j;
}

static cJSON *
wrong_type(enum spec_type t)
{
    return t == SPEC_T_STRING || t == SPEC_T_ANY ? cJSON_CreateObject()
                                                 : cJSON_CreateString("x");
}

static void mutate(struct walk *w, const struct spec_schema *s,
                   const char *path);

static void
mutate_numbers(struct walk *w, const struct spec_schema *s, const char *path)
{
    cJSON *d;

    if (s->has_min) {
        d = base_for(w, path);
        set_at(d, path,
               cJSON_CreateNumber(s->exclusive_min ? s->minimum
                                                   : s->minimum - 1));
        expect_rejected(w, d, path, "minimum");
    }
    if (s->has_max) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateNumber(s->maximum + 1));
        expect_rejected(w, d, path, "maximum");
    }
}

static void
mutate_strings(struct walk *w, const struct spec_schema *s, const char *path)
{
    cJSON *d;

    if (s->enum_values != NULL) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateString("not-in-enum"));
        expect_rejected(w, d, path, "enum");
    }
    if (s->has_re) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateString("!!bad!!"));
        expect_rejected(w, d, path, "pattern");
    }
    if (s->min_length > 0) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateString(""));
        expect_rejected(w, d, path, "minLength");
    }
    if (s->max_length >= 0) {
        d = base_for(w, path);
        set_at(d, path, long_string(s->max_length + 1, 'a'));
        expect_rejected(w, d, path, "maxLength");
    }
}

static void
mutate_object(struct walk *w, const struct spec_schema *s, const char *path)
{
    char child[256];
    cJSON *d;

    for (size_t i = 0; i < s->nrequired; i++) {
        d = base_for(w, path);
        remove_at(d, path, s->required[i]);
        snprintf(child, sizeof(child), "%s%s%s", path, path[0] ? "." : "",
                 s->required[i]);
        expect_rejected(w, d, child, "required");
    }
    if (s->n_one_of > 0) {
        d = base_for(w, path); /* both branches set */
        for (size_t i = 0; i < s->n_one_of; i++)
            for (size_t k = 0; k < s->one_of[i]->nrequired; k++) {
                snprintf(child, sizeof(child), "%s.%s", path,
                         s->one_of[i]->required[k]);
                if (cJSON_GetObjectItem(cJSON_GetObjectItem(d, "spec"),
                                        s->one_of[i]->required[k]) == NULL)
                    set_at(d, child, k == 0 && strstr(child, "command")
                                         ? cJSON_CreateStringArray(
                                               (const char *[]){ "x" }, 1)
                                         : cJSON_CreateString("x"));
            }
        expect_rejected(w, d, path, "oneOf");
    }
    if (!s->preserve_unknown && s->additional == NULL) {
        d = base_for(w, path);
        snprintf(child, sizeof(child), "%s%szzUnknownField", path,
                 path[0] ? "." : "");
        set_at(d, child, cJSON_CreateString("x"));
        expect_rejected(w, d, path, "unknown field");
    }
    if (s->min_properties > 0) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateObject());
        expect_rejected(w, d, path, "minProperties");
    }
    if (s->max_properties >= 0) {
        d = base_for(w, path);
        cJSON *m = cJSON_CreateObject();
        for (long i = 0; i <= s->max_properties; i++) {
            snprintf(child, sizeof(child), "K%ld", i);
            cJSON_AddStringToObject(m, child, "v");
        }
        set_at(d, path, m);
        expect_rejected(w, d, path, "maxProperties");
    }
    for (size_t i = 0; i < s->nprops; i++) {
        snprintf(child, sizeof(child), "%s%s%s", path, path[0] ? "." : "",
                 s->props[i].name);
        mutate(w, s->props[i].schema, child);
    }
    if (s->additional != NULL) {
        snprintf(child, sizeof(child), "%s.K", path);
        mutate(w, s->additional, child);
    }
}

static void
mutate_array(struct walk *w, const struct spec_schema *s, const char *path)
{
    char child[256];
    cJSON *d;

    if (s->min_items > 0) {
        d = base_for(w, path);
        set_at(d, path, cJSON_CreateArray());
        expect_rejected(w, d, path, "minItems");
    }
    if (s->max_items >= 0) {
        cJSON *a = cJSON_CreateArray();

        for (long i = 0; i <= s->max_items; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString("a"));
        d = base_for(w, path);
        set_at(d, path, a);
        expect_rejected(w, d, path, "maxItems");
    }
    if (s->items != NULL) {
        snprintf(child, sizeof(child), "%s[0]", path);
        mutate(w, s->items, child);
    }
}

static void
mutate(struct walk *w, const struct spec_schema *s, const char *path)
{
    cJSON *d;

    if (strcmp(path, "status") == 0)
        return; /* preserved as is: not validated */
    if (path[0] != '\0' && strchr(path, '.') != NULL) {
        d = base_for(w, path);
        set_at(d, path, s->int_or_string ? cJSON_CreateObject()
                                         : wrong_type(s->type));
        expect_rejected(w, d, path, "type");
    }
    if (s->int_or_string) {
        for (size_t i = 0; i < s->n_any_of; i++)
            mutate(w, s->any_of[i], path);
        return;
    }
    if (s->type == SPEC_T_OBJECT)
        mutate_object(w, s, path);
    else if (s->type == SPEC_T_ARRAY)
        mutate_array(w, s, path);
    else if (s->type == SPEC_T_STRING)
        mutate_strings(w, s, path);
    else if (s->type == SPEC_T_INTEGER || s->type == SPEC_T_NUMBER)
        mutate_numbers(w, s, path);
}

static cJSON *
base_json(const char *text)
{
    struct spec_file f;
    cJSON *r;

    assert_int_equal(spec_test_load(text, &f), 0);
    r = spec_resource(f.items[0]);
    spec_file_cleanup(&f);
    return r;
}

static void
test_spec_crd_every_constraint_mutation_is_rejected(void **state)
{
    struct walk w = { 0 };
    const struct spec_crd *crd = spec_crd_builtin(NULL);

    (void)state;
    assert_non_null(crd);
    w.full = base_json(SPEC_TEST_FULL);
    w.prompt = base_json(PROMPT_BASE);
    mutate(&w, crd->root, "");
    print_message("%zu mutations, %zu rejected\n", w.mutations, w.rejected);
    assert_true(w.mutations > 60);
    assert_int_equal(w.rejected, w.mutations);
    cJSON_Delete(w.full);
    cJSON_Delete(w.prompt);
}

static void
test_spec_crd_compiles_with_group_and_kind(void **state)
{
    struct err e = { 0 };
    const struct spec_crd *crd = spec_crd_builtin(&e);

    (void)state;
    assert_non_null(crd);
    assert_string_equal(crd->api_version, "agentctl.dev/v1alpha1");
    assert_string_equal(crd->kind, "AgentInvocation");
    assert_non_null(spec_schema_find(crd->root, "spec.workspace.size"));
}

/* Negative control: a keyword the validator does not implement makes the
 * CRD fail to compile instead of being ignored. */
static void
test_spec_crd_unknown_keyword_is_refused(void **state)
{
    const char *crd = "apiVersion: apiextensions.k8s.io/v1\n"
                      "kind: CustomResourceDefinition\n"
                      "spec:\n  group: g\n  names: {kind: K}\n  versions:\n"
                      "  - name: v1\n    schema:\n      openAPIV3Schema:\n"
                      "        type: object\n        multipleOf: 2\n";
    struct err e = { 0 };

    (void)state;
    assert_null(spec_crd_load("bad-crd.yaml", crd, strlen(crd), &e));
    assert_int_equal(e.line, 11);
    assert_non_null(strstr(e.msg, "not implemented by the validator: "
                                  "multipleOf"));
}

static void
test_spec_crd_examples_validate(void **state)
{
    const char *root = getenv("AGENTCTL_SOURCE_DIR");
    const char *names[] = { "demo.yaml", NULL };
    char path[512];
    struct spec_file f;

    (void)state;
    if (root == NULL)
        skip();
    for (size_t i = 0; names[i] != NULL; i++) {
        snprintf(path, sizeof(path), "%s/manifests/examples/%s", root,
                 names[i]);
        if (access(path, R_OK) != 0)
            continue;
        assert_int_equal(spec_load_file(path, &f), 0);
        spec_file_cleanup(&f);
    }
}

/* A FIFO with no writer is read as an empty file at once: the open does
 * not wait for a writer (agentctl validate -f FIFO used to hang). */
static void
test_spec_load_file_fifo_does_not_block(void **state)
{
    char dir[] = "/tmp/test_spec_fifo.XXXXXX", path[64];
    struct spec_file f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(spec_load_file(path, &f), -1);
    assert_true(f.errors.n > 0);
    assert_non_null(strstr(f.errors.items[0].msg, "no documents"));
    spec_file_cleanup(&f);
    unlink(path);
    rmdir(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_crd_compiles_with_group_and_kind),
        cmocka_unit_test(test_spec_crd_unknown_keyword_is_refused),
        cmocka_unit_test(test_spec_crd_every_constraint_mutation_is_rejected),
        cmocka_unit_test(test_spec_crd_examples_validate),
        cmocka_unit_test(test_spec_load_file_fifo_does_not_block),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
