/* cli_yaml.c - JSON values out as block-style YAML with libyaml's emitter.
 *
 * libyaml picks a scalar style from the text's syntax only, so it would
 * write the string "1" as a plain 1, which reads back as an integer. Here
 * every string that a YAML 1.2 core (or 1.1) reader would take for a
 * null, bool or number is double-quoted; libyaml still quotes whatever
 * cannot be plain (": ", leading "-", ...). Multi-line strings use the
 * literal block style when libyaml allows it. */
#include "cli.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "buf.h"

#define CLI_YAML_MAX (16 * 1024 * 1024)

static int
write_out(void *data, unsigned char *buffer, size_t size)
{
    return buf_append(data, buffer, size, NULL) == 0;
}

static bool
matches(const char *re, const char *s)
{
    regex_t r;
    bool hit;

    if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0)
        return true; /* cannot tell: quote */
    hit = regexec(&r, s, 0, NULL, 0) == 0;
    regfree(&r);
    return hit;
}

/* Would a plain scalar with this text read back as something else than
 * a string? Core schema plus the YAML 1.1 spellings, to be safe with any
 * reader. */
static bool
needs_quotes(const char *s)
{
    static const char *const words[] = {
        "null", "~", "true", "false", "yes",   "no",   "on", "off",
        "y",    "n", ".inf", "-.inf", "+.inf", ".nan", "<<", "=",
    };

    if (s[0] == '\0')
        return true;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcasecmp(s, words[i]) == 0)
            return true;
    if (strchr("0123456789+-.", s[0]) == NULL)
        return false;
    return matches("^[-+]?[0-9_]*\\.?[0-9_]*([eE][-+]?[0-9]+)?$", s) ||
           matches("^[-+]?0(x[0-9a-fA-F_]+|o?[0-7_]+|b[01_]+)$", s) ||
           matches("^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?$", s) ||
           matches("^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$", s);
}

static int
emit_scalar(yaml_emitter_t *em, const char *text, yaml_scalar_style_t style)
{
    yaml_event_t ev;

    if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)(uintptr_t)text,
                                      (int)strlen(text), 1, 1, style))
        return -1;
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int
emit_string(yaml_emitter_t *em, const char *s)
{
    if (needs_quotes(s))
        return emit_scalar(em, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    if (strchr(s, '\n') != NULL)
        return emit_scalar(em, s, YAML_LITERAL_SCALAR_STYLE);
    return emit_scalar(em, s, YAML_PLAIN_SCALAR_STYLE);
}

/* kubectl's order for the keys of a resource; the rest keep theirs. */
static int
key_rank(const char *k)
{
    static const char *const order[] = { "apiVersion", "kind", "metadata",
                                         "name" };
    static const char *const last[] = { "spec", "status", "items" };

    for (int i = 0; i < 4; i++)
        if (strcmp(k, order[i]) == 0)
            return i;
    for (int i = 0; i < 3; i++)
        if (strcmp(k, last[i]) == 0)
            return 10 + i;
    return 5;
}

static int emit_value(yaml_emitter_t *em, const cJSON *v, int depth);

static int
emit_object(yaml_emitter_t *em, const cJSON *v, int depth)
{
    yaml_event_t ev;

    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                        YAML_BLOCK_MAPPING_STYLE);
    if (!yaml_emitter_emit(em, &ev))
        return -1;
    for (int rank = 0; rank <= 12; rank++) {
        for (const cJSON *c = v->child; c != NULL; c = c->next) {
            if (key_rank(c->string) != rank)
                continue;
            if (emit_string(em, c->string) == -1 ||
                emit_value(em, c, depth + 1) == -1)
                return -1;
        }
    }
    yaml_mapping_end_event_initialize(&ev);
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int
emit_array(yaml_emitter_t *em, const cJSON *v, int depth)
{
    yaml_event_t ev;

    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                         YAML_BLOCK_SEQUENCE_STYLE);
    if (!yaml_emitter_emit(em, &ev))
        return -1;
    for (const cJSON *c = v->child; c != NULL; c = c->next)
        if (emit_value(em, c, depth + 1) == -1)
            return -1;
    yaml_sequence_end_event_initialize(&ev);
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int
emit_value(yaml_emitter_t *em, const cJSON *v, int depth)
{
    char num[64];

    if (depth > 64)
        return -1;
    if (cJSON_IsObject(v))
        return emit_object(em, v, depth);
    if (cJSON_IsArray(v))
        return emit_array(em, v, depth);
    if (cJSON_IsString(v))
        return emit_string(em, v->valuestring);
    if (cJSON_IsRaw(v)) /* exact integers from the spec loader */
        return emit_scalar(em, v->valuestring, YAML_PLAIN_SCALAR_STYLE);
    if (cJSON_IsNumber(v)) {
        if (v->valuedouble == (double)(long long)v->valuedouble)
            snprintf(num, sizeof(num), "%lld", (long long)v->valuedouble);
        else
            snprintf(num, sizeof(num), "%.17g", v->valuedouble);
        return emit_scalar(em, num, YAML_PLAIN_SCALAR_STYLE);
    }
    if (cJSON_IsBool(v))
        return emit_scalar(em, cJSON_IsTrue(v) ? "true" : "false",
                           YAML_PLAIN_SCALAR_STYLE);
    return emit_scalar(em, "null", YAML_PLAIN_SCALAR_STYLE);
}

static int
emit_document(yaml_emitter_t *em, const cJSON *doc)
{
    yaml_event_t ev;

    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (!yaml_emitter_emit(em, &ev))
        return -1;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if (!yaml_emitter_emit(em, &ev) || emit_value(em, doc, 0) == -1)
        return -1;
    yaml_document_end_event_initialize(&ev, 1);
    if (!yaml_emitter_emit(em, &ev))
        return -1;
    yaml_stream_end_event_initialize(&ev);
    return yaml_emitter_emit(em, &ev) && yaml_emitter_flush(em) ? 0 : -1;
}

char *
cli_yaml_emit(const cJSON *doc)
{
    yaml_emitter_t em;
    struct buf b;
    char *out = NULL;

    buf_init(&b, CLI_YAML_MAX);
    if (!yaml_emitter_initialize(&em))
        return NULL;
    yaml_emitter_set_output(&em, write_out, &b);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_indent(&em, 2);
    if (emit_document(&em, doc) == 0)
        out = buf_take(&b);
    yaml_emitter_delete(&em);
    buf_cleanup(&b);
    return out;
}

char *
cli_spec_yaml(const struct spec_invocation *inv)
{
    cJSON *r = spec_resource(inv);
    char *yaml = r ? cli_yaml_emit(r) : NULL;

    cJSON_Delete(r);
    return yaml;
}

/* JSON as kubectl prints it: 4-space indent, resource keys in the same
 * order as the YAML. Scalars are printed by cJSON (escaping). */
static int
json_value(struct buf *b, const cJSON *v, int depth)
{
    const cJSON *c;
    char *text;
    bool first = true;

    if (depth > 64)
        return -1;
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) {
        text = cJSON_PrintUnformatted(v);
        if (text == NULL)
            return -1;
        buf_puts(b, text, NULL);
        cJSON_free(text);
        return 0;
    }
    if (v->child == NULL)
        return buf_puts(b, cJSON_IsObject(v) ? "{}" : "[]", NULL);
    buf_puts(b, cJSON_IsObject(v) ? "{\n" : "[\n", NULL);
    for (int rank = 0; rank <= (cJSON_IsObject(v) ? 12 : 0); rank++)
        for (c = v->child; c != NULL; c = c->next) {
            if (cJSON_IsObject(v) && key_rank(c->string) != rank)
                continue;
            buf_printf(b, NULL, "%s%*s", first ? "" : ",\n", 4 * (depth + 1),
                       "");
            first = false;
            if (cJSON_IsObject(v)) {
                cJSON *k = cJSON_CreateString(c->string);

                text = k ? cJSON_PrintUnformatted(k) : NULL;
                cJSON_Delete(k);
                if (text == NULL)
                    return -1;
                buf_printf(b, NULL, "%s: ", text);
                cJSON_free(text);
            }
            if (json_value(b, c, depth + 1) == -1)
                return -1;
        }
    return buf_printf(b, NULL, "\n%*s%s", 4 * depth, "",
                      cJSON_IsObject(v) ? "}" : "]");
}

char *
cli_json_emit(const cJSON *doc)
{
    struct buf b;
    char *out = NULL;

    buf_init(&b, CLI_YAML_MAX);
    if (json_value(&b, doc, 0) == 0 && buf_puts(&b, "\n", NULL) == 0)
        out = buf_take(&b);
    buf_cleanup(&b);
    return out;
}
