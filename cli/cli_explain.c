/* cli_explain.c - agentctl explain: a field of AgentInvocation as the
 * embedded CRD describes it, laid out like `kubectl explain` (kind,
 * version, the field's type and description, its children), plus the
 * limits the schema sets (default, enum, bounds, pattern). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_node.h"
#include "spec_schema.h"

static const char *
scalar(const struct spec_node *m, const char *key)
{
    const struct spec_node *v = spec_node_get(m, key);

    return v != NULL && v->kind == SPEC_NODE_SCALAR ? v->value : NULL;
}

static const char *
type_of(const struct spec_node *s)
{
    const char *t = scalar(s, "type");

    if (t == NULL && scalar(s, "x-kubernetes-int-or-string") != NULL)
        return "int-or-string";
    if (t != NULL && strcmp(t, "array") == 0) {
        const char *it = scalar(spec_node_get(s, "items"), "type");

        return it && strcmp(it, "string") == 0 ? "[]string" : "[]Object";
    }
    if (t != NULL && strcmp(t, "object") == 0)
        return spec_node_get(s, "additionalProperties") ? "map[string]string"
                                                        : "Object";
    return t ? t : "Object";
}

static bool
required_in(const struct spec_node *parent, const char *name)
{
    const struct spec_node *r = spec_node_get(parent, "required");

    for (size_t i = 0; r != NULL && r->kind == SPEC_NODE_SEQ && i < r->n; i++)
        if (strcmp(r->items[i]->value, name) == 0)
            return true;
    return false;
}

static const struct spec_node *
child(const struct spec_node *s, const char *name)
{
    const struct spec_node *n = spec_node_get(spec_node_get(s, "properties"), name);

    if (n == NULL) /* a list of objects: its items' fields */
        n = spec_node_get(
            spec_node_get(spec_node_get(s, "items"), "properties"), name);
    return n;
}

/* Strip "agentinvocation." (kubectl's form) and walk the properties. */
static const struct spec_node *
find(const struct spec_node *root, const char *path,
     const struct spec_node **parent)
{
    const struct spec_node *s = root;
    char buf[256], *save = NULL, *tok;

    snprintf(buf, sizeof(buf), "%s", path);
    for (size_t i = 0; cli_invocation_words[i] != NULL; i++) {
        size_t n = strlen(cli_invocation_words[i]);

        if (strncmp(buf, cli_invocation_words[i], n) == 0 &&
            (buf[n] == '.' || buf[n] == '\0')) {
            memmove(buf, buf + n + (buf[n] == '.'), strlen(buf + n) + 1);
            break;
        }
    }
    *parent = NULL;
    for (tok = strtok_r(buf, ".", &save); tok != NULL && s != NULL;
         tok = strtok_r(NULL, ".", &save)) {
        *parent = s;
        s = child(s, tok);
    }
    return s;
}

static void
print_limits(const struct spec_node *s)
{
    static const char *const keys[] = {
        "default",       "minimum",       "exclusiveMinimum", "maximum",
        "minLength",     "maxLength",     "minItems",         "maxItems",
        "minProperties", "maxProperties", "pattern",          NULL
    };
    const struct spec_node *en = spec_node_get(s, "enum");
    const struct spec_node *rules = spec_node_get(s, "x-kubernetes-validations");
    bool any = false;

    for (size_t i = 0; keys[i] != NULL; i++) {
        const char *v = scalar(s, keys[i]);

        if (v != NULL) {
            printf("%s    %s: %s\n", any ? "" : "\nLIMITS:\n", keys[i], v);
            any = true;
        }
    }
    if (en != NULL && en->kind == SPEC_NODE_SEQ) {
        printf("%s    enum:", any ? "" : "\nLIMITS:\n");
        for (size_t i = 0; i < en->n; i++)
            printf(" %s", en->items[i]->value);
        printf("\n");
        any = true;
    }
    for (size_t i = 0; rules && rules->kind == SPEC_NODE_SEQ && i < rules->n;
         i++) {
        const char *m = scalar(rules->items[i], "message");

        printf("%s    rule: %s\n", any ? "" : "\nLIMITS:\n",
               m ? m : scalar(rules->items[i], "rule"));
        any = true;
    }
}

static void
print_field(const struct spec_node *root, const struct spec_node *s,
            const struct spec_node *parent, const char *path)
{
    const struct spec_node *props = spec_node_get(s, "properties");
    const char *dot = strrchr(path, '.');
    const char *desc = cli_explain_description(root, s);

    if (spec_node_get(s, "items") != NULL && props == NULL)
        props = spec_node_get(spec_node_get(s, "items"), "properties");
    if (parent != NULL)
        printf("FIELD: %s <%s>%s\n\n", dot ? dot + 1 : path, type_of(s),
               required_in(parent, dot ? dot + 1 : path) ? " -required-" : "");
    printf("DESCRIPTION:\n    %s\n", desc ? desc : "<empty>");
    print_limits(s);
    if (props == NULL || props->kind != SPEC_NODE_MAP)
        return;
    printf("\nFIELDS:\n");
    for (size_t i = 0; i < props->n; i++) {
        const char *name = props->pairs[i].key->value;

        printf("  %s\t<%s>%s\n", name, type_of(props->pairs[i].value),
               required_in(s, name) ? " -required-" : "");
    }
}

int
cli_explain(struct cli *c, const struct cli_args *a)
{
    const struct spec_crd *crd = spec_crd_builtin(NULL);
    const struct spec_node *doc, *ver, *root, *s, *parent;

    (void)c;
    if (a->npos != 1)
        return cli_usage_error(a->cmd, "expected one FIELD, for example "
                                       "agentinvocation.spec.resources");
    if (crd == NULL || crd->stream.n == 0)
        return CLI_FAIL;
    doc = crd->stream.docs[0];
    ver = spec_node_get(spec_node_get(doc, "spec"), "versions");
    ver = ver && ver->n > 0 ? ver->items[0] : NULL;
    root = spec_node_get(spec_node_get(ver, "schema"), "openAPIV3Schema");
    if ((s = find(root, a->pos[0], &parent)) == NULL) {
        fprintf(stderr, "error: field \"%s\" does not exist\n", a->pos[0]);
        return CLI_FAIL;
    }
    printf("GROUP:      agentctl.dev\nKIND:       AgentInvocation\n"
           "VERSION:    v1alpha1\n\n");
    print_field(root, s, parent, a->pos[0]);
    return CLI_OK;
}
