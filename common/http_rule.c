/* http_rule.c - gateway rules and normal paths (see http_rule.h). */
#include "http_rule.h"

#include <string.h>

/* Printable ASCII without the space: a prefix is compared byte for byte
 * with a request target, which holds no controls, and is printed in
 * messages and flags. */
static bool
http_rule_prefix_chars_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
            return false;
    return strpbrk(s, "?#") == NULL;
}

const char *
http_rule_check(const char *spec, size_t *method_len)
{
    const char *sp = strchr(spec, ' ');
    size_t ml, pl;

    if (sp == NULL)
        return "want \"METHOD /path\"";
    ml = (size_t)(sp - spec);
    pl = strlen(sp + 1);
    if (ml == 0 || ml > HTTP_RULE_METHOD_MAX)
        return "bad method";
    for (size_t i = 0; i < ml; i++)
        if (spec[i] < 'A' || spec[i] > 'Z')
            return "method must be upper case";
    if (pl == 0 || pl > HTTP_RULE_PREFIX_MAX || sp[1] != '/' ||
        !http_rule_prefix_chars_ok(sp + 1, pl) ||
        !http_path_is_normal(sp + 1, pl))
        return "the path must be a normal absolute path without a query";
    *method_len = ml;
    return NULL;
}

bool
http_path_is_normal(const char *path, size_t len)
{
    size_t seg = 0; /* start of the current segment */

    if (len == 0 || path[0] != '/')
        return false;
    for (size_t i = 1; i <= len; i++) {
        /* A backslash is a separator to some servers, ";" starts path
         * parameters ("/..;/" is ".." to some). */
        if (i < len && (path[i] == '\\' || path[i] == ';'))
            return false;
        if (i < len && path[i] == '%') {
            /* %2e . %2f / %5c \ %25 % %3b ; %00: each could become a
             * separator, a dot segment or an end after one more
             * decoding. */
            if (i + 2 >= len)
                return false;
            char a = path[i + 1], b = (char)(path[i + 2] | 0x20);
            if ((a == '2' && (b == 'e' || b == 'f' || b == '5')) ||
                (a == '5' && b == 'c') || (a == '3' && b == 'b') ||
                (a == '0' && b == '0'))
                return false;
        }
        if (i == len || path[i] == '/') {
            size_t n = i - seg - 1;
            const char *s = path + seg + 1;

            if (i < len && n == 0)
                return false; /* "//" */
            if ((n == 1 && s[0] == '.') ||
                (n == 2 && s[0] == '.' && s[1] == '.'))
                return false;
            seg = i;
        }
    }
    return true;
}

const char *
http_key_check(const char *key, size_t len)
{
    if (len == 0)
        return "the key is empty";
    if (len > HTTP_KEY_MAX)
        return "the key is longer than 2048 bytes";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)key[i] < 0x21 || (unsigned char)key[i] > 0x7e)
            return "the key has a byte that cannot go into a header "
                   "(only visible ASCII)";
    return NULL;
}

const char *
http_policy_name_check(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len > HTTP_POLICY_NAME_MAX)
        return "1 to 64 characters";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f ||
            name[i] == ',' || name[i] == '"')
            return "printable ASCII without spaces, commas or quotes";
    return NULL;
}

const char *
http_header_id_check(const char *id)
{
    size_t len = strlen(id);

    if (len == 0 || len > HTTP_HEADER_ID_MAX)
        return "1 to 128 characters";
    for (size_t i = 0; i < len; i++) {
        char c = id[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return "letters, digits, '-' and '_' only";
    }
    return NULL;
}
