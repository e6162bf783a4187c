/* launch_order.c - read and check one wait-mode order (launch_order.h).
 * Strict for the reason the policy file is: an order read in part, or
 * one with a member we do not know, would run something other than what
 * the controller meant. */
#include "launch_order.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static int
order_fail(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

bool
launch_order_nonce_ok(const char *nonce)
{
    size_t n = nonce != NULL ? strlen(nonce) : 0;

    if (n < LAUNCH_ORDER_NONCE_MIN || n > LAUNCH_ORDER_NONCE_MAX)
        return false;
    return strspn(nonce, "0123456789abcdef") == n;
}

/* Equal without an early exit: the time taken says nothing of where a
 * guess went wrong. */
static bool
order_same(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    unsigned char diff = alen != blen;

    for (size_t i = 0; i < blen; i++)
        diff |= (unsigned char)(b[i] ^ (i < alen ? a[i] : 0));
    return diff == 0;
}

/* A string without an embedded NUL (a C string is what exec takes). */
static char *
order_word(const struct launch_json *v)
{
    if (v == NULL || v->type != LAUNCH_JSON_STRING ||
        strlen(v->str) != v->str_len)
        return NULL;
    return v->str;
}

static int
order_argv(const struct launch_json *a, struct launch_order *o, char *why,
           size_t size)
{
    if (a == NULL || a->type != LAUNCH_JSON_ARRAY)
        return order_fail(why, size, "argv: expected an array of strings");
    for (const struct launch_json *v = a->child; v != NULL; v = v->next) {
        if (o->argc == LAUNCH_MAX_ARGS)
            return order_fail(why, size, "argv: more than %d words",
                              LAUNCH_MAX_ARGS);
        if ((o->argv[o->argc] = order_word(v)) == NULL)
            return order_fail(why, size,
                              "argv[%zu]: expected a string without NUL",
                              o->argc);
        o->argc++;
    }
    if (o->argc == 0 || o->argv[0][0] == '\0')
        return order_fail(why, size, "argv: the CLI's name is missing");
    return 0;
}

static int
order_env(const struct launch_json *a, struct launch_order *o, char *why,
          size_t size)
{
    if (a == NULL || a->type != LAUNCH_JSON_ARRAY)
        return order_fail(why, size, "env: expected an array of strings");
    for (const struct launch_json *v = a->child; v != NULL; v = v->next) {
        size_t i = o->n_env, klen;

        if (i == LAUNCH_ORDER_MAX_ENV)
            return order_fail(why, size, "env: more than %d variables",
                              LAUNCH_ORDER_MAX_ENV);
        if ((o->env[i] = order_word(v)) == NULL)
            return order_fail(why, size,
                              "env[%zu]: expected a string without NUL", i);
        klen = strcspn(o->env[i], "=");
        if (klen == 0 || o->env[i][klen] != '=')
            return order_fail(why, size, "env[%zu]: expected NAME=value", i);
        for (size_t j = 0; j < i; j++)
            if (strncmp(o->env[j], o->env[i], klen + 1) == 0)
                return order_fail(why, size, "env[%zu]: %.*s given twice", i,
                                  (int)klen, o->env[i]);
        o->n_env++;
    }
    return 0;
}

/* Every member known, none twice. */
static int
order_members(const struct launch_json *root, char *why, size_t size)
{
    static const char *const known[] = { "version", "nonce", "argv", "env",
                                         "workdir", "policy" };
    unsigned seen = 0;

    for (const struct launch_json *m = root->child; m != NULL; m = m->next) {
        size_t k = 0;

        while (k < sizeof(known) / sizeof(known[0]) &&
               strcmp(m->key, known[k]) != 0)
            k++;
        if (k == sizeof(known) / sizeof(known[0]) ||
            strlen(m->key) != m->key_len)
            return order_fail(why, size, "%.64s: unknown member", m->key);
        if (seen & (1u << k))
            return order_fail(why, size, "%s: given twice", known[k]);
        seen |= 1u << k;
    }
    return 0;
}

static int
order_check(const struct launch_json *root, const char *nonce,
            struct launch_order *o, char *why, size_t size)
{
    const struct launch_json *version = launch_json_get(root, "version");
    const struct launch_json *n = launch_json_get(root, "nonce");

    if (root->type != LAUNCH_JSON_OBJECT)
        return order_fail(why, size, "order: expected an object");
    if (order_members(root, why, size) == -1)
        return -1;
    if (version == NULL || version->type != LAUNCH_JSON_NUMBER ||
        version->raw_len != 1 || version->raw[0] != '1')
        return order_fail(why, size, "version: expected 1");
    if (n == NULL || n->type != LAUNCH_JSON_STRING)
        return order_fail(why, size, "nonce: expected a string");
    if (nonce != NULL && !order_same(n->str, n->str_len, nonce))
        return order_fail(why, size,
                          "nonce: not the one this container was created "
                          "with (an order the controller did not write)");
    if (order_argv(launch_json_get(root, "argv"), o, why, size) == -1 ||
        order_env(launch_json_get(root, "env"), o, why, size) == -1)
        return -1;
    o->workdir = order_word(launch_json_get(root, "workdir"));
    if (o->workdir == NULL || o->workdir[0] != '/')
        return order_fail(why, size, "workdir: expected an absolute path");
    if ((o->policy = order_word(launch_json_get(root, "policy"))) == NULL)
        return order_fail(why, size, "policy: expected the policy file's "
                          "text, without NUL");
    o->policy_len = strlen(o->policy);
    return 0;
}

int
launch_order_parse(const char *text, size_t len, const char *nonce,
                   struct launch_order *o, char *why, size_t why_size)
{
    const char *jwhy = NULL;

    memset(o, 0, sizeof(*o));
    if (len > LAUNCH_ORDER_MAX)
        return order_fail(why, why_size, "order: larger than %d KiB",
                          LAUNCH_ORDER_MAX / 1024);
    o->tree = launch_json_parse(text, len, &jwhy);
    if (o->tree == NULL)
        return order_fail(why, why_size, "order: not JSON: %s", jwhy);
    if (order_check(o->tree, nonce, o, why, why_size) == -1) {
        launch_order_cleanup(o);
        return -1;
    }
    return 0;
}

void
launch_order_cleanup(struct launch_order *o)
{
    launch_json_free(o->tree);
    memset(o, 0, sizeof(*o));
}
