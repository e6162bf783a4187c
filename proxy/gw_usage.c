/* gw_usage.c - read the vendor's token counts from a response as it
 * passes (see gw_usage.h).
 *
 * Two layers: an SSE line reader (fields "data" joined per event, an event
 * ends at a blank line) and under it an incremental JSON scanner that
 * checks the structure strictly (strings, escapes, literals, closers
 * against openers) and numbers loosely, and records the numbers at the
 * few paths gw_usage.h names. Nothing is buffered but one key.
 */
#include "gw_usage.h"

#include <string.h>

enum {
    J_VALUE,     /* a value is expected */
    J_OBJ_FIRST, /* after '{': a key or '}' */
    J_OBJ_KEY,   /* after ',' in an object: a key */
    J_COLON,     /* after a key */
    J_ARR_FIRST, /* after '[': a value or ']' */
    J_AFTER,     /* after a member or element: ',' or the closer */
    J_STR,       /* in a string (key or value) */
    J_ESC,       /* after '\\' in a string */
    J_HEX,       /* the digits of \uXXXX */
    J_NUM,       /* in a number */
    J_LIT,       /* in true, false or null */
    J_DONE,      /* the top-level value is complete */
    J_FAIL,      /* malformed */
};

/* Which count a key names (the index in gw_usage_found.v). */
enum { T_IN, T_OUT, T_CR, T_CW, T_NONE };

enum gw_api
gw_usage_api(const char *path, size_t len)
{
    const struct gw_endpoint *ep = gw_endpoint_find(path, len);

    return ep != NULL && ep->bills ? ep->api : GW_API_NONE;
}

static void
json_init(struct gw_usage_json *j)
{
    memset(j, 0, sizeof(*j));
    j->state = J_VALUE;
}

static bool
is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
leaf_slot(const char *k)
{
    if (strcmp(k, "input_tokens") == 0 || strcmp(k, "prompt_tokens") == 0)
        return T_IN;
    if (strcmp(k, "output_tokens") == 0 || strcmp(k, "completion_tokens") == 0)
        return T_OUT;
    if (strcmp(k, "cache_read_input_tokens") == 0)
        return T_CR;
    if (strcmp(k, "cache_creation_input_tokens") == 0)
        return T_CW;
    return T_NONE;
}

/* The group a number at the current depth belongs to, and its slot; NULL
 * when it is not one of the counts read. keys[i] is the key of the member
 * being read in the container at level i + 1 ("" when that level is an
 * array, or deeper than remembered). */
static struct gw_usage_found *
json_place(struct gw_usage_json *j, int *slot)
{
    uint32_t d = j->depth;
    uint32_t u; /* the level whose key is "usage" */

    if (d < 2 || d > GW_USAGE_PATH)
        return NULL;
    if (strcmp(j->keys[d - 2], "usage") == 0) {
        *slot = leaf_slot(j->keys[d - 1]);
        u = d - 2;
    } else if (d >= 3 && strcmp(j->keys[d - 3], "usage") == 0 &&
               (strcmp(j->keys[d - 2], "input_tokens_details") == 0 ||
                strcmp(j->keys[d - 2], "prompt_tokens_details") == 0) &&
               strcmp(j->keys[d - 1], "cached_tokens") == 0) {
        *slot = T_CR;
        u = d - 3;
    } else {
        return NULL;
    }
    if (*slot == T_NONE)
        return NULL;
    if (u == 0)
        return &j->top;
    if (u == 1 && (strcmp(j->keys[0], "message") == 0 ||
                   strcmp(j->keys[0], "response") == 0))
        return &j->nested;
    return NULL;
}

static bool
level_is_array(const struct gw_usage_json *j, uint32_t level)
{
    return level < GW_USAGE_DEPTH &&
           (j->arrays[level / 8] & (1u << (level % 8))) != 0;
}

static void
json_value_done(struct gw_usage_json *j)
{
    j->state = j->depth == 0 ? J_DONE : J_AFTER;
}

static void
json_number_done(struct gw_usage_json *j)
{
    struct gw_usage_found *f;
    int slot = T_NONE;

    if (j->num_plain && j->num_digits > 0 &&
        (f = json_place(j, &slot)) != NULL) {
        f->v[slot] = j->num;
        f->have |= 1u << slot;
    }
    json_value_done(j);
}

static void
json_push(struct gw_usage_json *j, bool array)
{
    uint32_t level = j->depth;

    if (j->depth >= (1u << 24)) { /* absurd; a counter cannot wrap */
        j->state = J_FAIL;
        return;
    }
    if (level < GW_USAGE_DEPTH) {
        if (array)
            j->arrays[level / 8] |= (uint8_t)(1u << (level % 8));
        else
            j->arrays[level / 8] &= (uint8_t) ~(1u << (level % 8));
    }
    if (level < GW_USAGE_PATH)
        j->keys[level][0] = '\0';
    j->depth++;
    j->state = array ? J_ARR_FIRST : J_OBJ_FIRST;
}

static void
json_pop(struct gw_usage_json *j, char closer)
{
    uint32_t level = j->depth - 1;

    if (level < GW_USAGE_DEPTH && level_is_array(j, level) != (closer == ']')) {
        j->state = J_FAIL;
        return;
    }
    j->depth--;
    json_value_done(j);
}

static void
json_string_start(struct gw_usage_json *j, bool key)
{
    j->str_len = 0;
    j->str_bad = false;
    j->str_is_key = key;
    j->str[0] = '\0';
    j->state = J_STR;
}

static void
json_string_done(struct gw_usage_json *j)
{
    const char *s = j->str_bad ? "" : j->str;

    if (j->str_is_key) {
        if (j->depth - 1 < GW_USAGE_PATH)
            memcpy(j->keys[j->depth - 1], s, strlen(s) + 1);
        j->state = J_COLON;
        return;
    }
    if (j->depth == 1 && strcmp(j->keys[0], "type") == 0)
        memcpy(j->type, s, strlen(s) + 1);
    json_value_done(j);
}

static void
json_string_byte(struct gw_usage_json *j, char c)
{
    if (c == '"') {
        json_string_done(j);
    } else if (c == '\\') {
        j->str_bad = true; /* the vendor escapes none of the names read */
        j->state = J_ESC;
    } else if ((unsigned char)c < 0x20) {
        j->state = J_FAIL;
    } else if (j->str_len < GW_USAGE_KEY_MAX) {
        j->str[j->str_len++] = c;
        j->str[j->str_len] = '\0';
    } else {
        j->str_bad = true;
    }
}

static void
json_escape_byte(struct gw_usage_json *j, char c)
{
    if (c == 'u') {
        j->hex = 4;
        j->state = J_HEX;
    } else if (strchr("\"\\/bfnrt", c) != NULL && c != '\0') {
        j->state = J_STR;
    } else {
        j->state = J_FAIL;
    }
}

static bool
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* A number goes on while these come; the grammar is not checked (the
 * counts read are digits only; anything else there is not a count). */
static bool
is_num(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E';
}

static void
json_number_byte(struct gw_usage_json *j, char c)
{
    if (c >= '0' && c <= '9' && j->num_plain) {
        if (++j->num_digits > 18) /* past any count: not one */
            j->num_plain = false;
        else
            j->num = j->num * 10 + (uint64_t)(c - '0');
    } else {
        j->num_plain = false;
    }
}

/* A value starts with c. */
static void
json_value_start(struct gw_usage_json *j, char c)
{
    if (c == '{' || c == '[') {
        json_push(j, c == '[');
    } else if (c == '"') {
        json_string_start(j, false);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        j->num = 0;
        j->num_digits = 0;
        j->num_plain = true;
        j->state = J_NUM;
        json_number_byte(j, c);
    } else if (c == 't' || c == 'f' || c == 'n') {
        j->lit = c == 't' ? "rue" : c == 'f' ? "alse" : "ull";
        j->state = J_LIT;
    } else {
        j->state = J_FAIL;
    }
}

static void
json_after_byte(struct gw_usage_json *j, char c)
{
    uint32_t level = j->depth - 1;

    /* Past the checked levels the kind is unknown: a key is read as a
     * string value, so its ':' is taken here. */
    if (c == ',')
        j->state = level < GW_USAGE_DEPTH && !level_is_array(j, level)
                       ? J_OBJ_KEY
                       : J_VALUE;
    else if (c == ':' && level >= GW_USAGE_DEPTH)
        j->state = J_VALUE;
    else if (c == '}' || c == ']')
        json_pop(j, c);
    else
        j->state = J_FAIL;
}

/* One byte of JSON. A number ends at the byte after it, which is then
 * read again in the state the number left. */
static void
json_byte(struct gw_usage_json *j, char c)
{
    switch (j->state) {
    case J_NUM:
        if (is_num(c)) {
            json_number_byte(j, c);
            return;
        }
        json_number_done(j);
        json_byte(j, c);
        return;
    case J_STR:
        json_string_byte(j, c);
        return;
    case J_ESC:
        json_escape_byte(j, c);
        return;
    case J_HEX:
        if (!is_hex(c))
            j->state = J_FAIL;
        else if (--j->hex == 0)
            j->state = J_STR;
        return;
    case J_LIT:
        if (c != *j->lit)
            j->state = J_FAIL;
        else if (*++j->lit == '\0')
            json_value_done(j);
        return;
    case J_FAIL:
        return;
    default:
        break;
    }
    if (is_ws(c))
        return;
    switch (j->state) {
    case J_VALUE:
        json_value_start(j, c);
        break;
    case J_ARR_FIRST:
        if (c == ']')
            json_pop(j, c);
        else
            json_value_start(j, c);
        break;
    case J_OBJ_FIRST:
        if (c == '}')
            json_pop(j, c);
        else if (c == '"')
            json_string_start(j, true);
        else
            j->state = J_FAIL;
        break;
    case J_OBJ_KEY:
        if (c == '"')
            json_string_start(j, true);
        else
            j->state = J_FAIL;
        break;
    case J_COLON:
        j->state = c == ':' ? J_VALUE : J_FAIL;
        break;
    case J_AFTER:
        json_after_byte(j, c);
        break;
    default: /* J_DONE: only white space may follow */
        j->state = J_FAIL;
        break;
    }
}

/* The document ended: true when it was one complete value. */
static bool
json_end(struct gw_usage_json *j)
{
    if (j->state == J_NUM && j->depth == 0)
        json_number_done(j);
    return j->state == J_DONE;
}

static void
tokens_set(struct gw_tokens *t, const struct gw_usage_found *f, bool all)
{
    uint64_t *dst[4] = { &t->input, &t->output, &t->cache_read,
                         &t->cache_write };

    for (int i = 0; i < 4; i++)
        if (all || (f->have & (1u << i)))
            *dst[i] = f->have & (1u << i) ? f->v[i] : 0;
}

/* A complete event's document: take what its type says to. */
static void
sse_commit(struct gw_usage *u)
{
    const struct gw_usage_json *j = &u->js;
    const char *type = j->type;

    if (u->api == GW_API_ANTHROPIC) {
        if (strcmp(type, "message_start") == 0 && j->nested.have) {
            tokens_set(&u->t, &j->nested, true);
            u->known = true;
        } else if (strcmp(type, "message_delta") == 0 && j->top.have &&
                   u->known) {
            tokens_set(&u->t, &j->top, false); /* cumulative: replace */
        }
        return;
    }
    if ((strcmp(type, "response.completed") == 0 ||
         strcmp(type, "response.incomplete") == 0 ||
         strcmp(type, "response.failed") == 0) &&
        j->nested.have) {
        tokens_set(&u->t, &j->nested, true);
        u->known = true;
    } else if (type[0] == '\0' && j->top.have) { /* a chat chunk */
        tokens_set(&u->t, &j->top, true);
        u->known = true;
    }
}

void
gw_usage_init(struct gw_usage *u, enum gw_api api, bool sse, bool coded)
{
    memset(u, 0, sizeof(*u));
    u->api = api;
    u->sse = sse;
    u->failed = coded || api == GW_API_NONE;
    json_init(&u->js);
}

/* SSE line states. */
enum {
    L_START, /* at the start of a line */
    L_NAME,  /* in the field name */
    L_SPACE, /* after "data:": one optional space */
    L_DATA,  /* in a data value */
    L_SKIP,  /* in a line passed over (comment, other field) */
};

/* A blank line: the event is complete. */
static void
sse_event_end(struct gw_usage *u)
{
    if (u->ev_json) {
        if (json_end(&u->js))
            sse_commit(u);
        else
            u->failed = true;
    }
    u->ev_data = u->ev_json = u->ev_skip = false;
    json_init(&u->js);
}

static void
sse_line_end(struct gw_usage *u)
{
    if (u->line == L_START)
        sse_event_end(u);
    else if (u->line == L_NAME && u->field_len == 4 &&
             memcmp(u->field, "data", 4) == 0)
        u->ev_data = true; /* "data" alone: an empty line of data */
    u->line = L_START;
    u->field_len = 0;
}

/* A byte of a data value. */
static void
sse_data_byte(struct gw_usage *u, char c)
{
    if (u->ev_skip)
        return;
    if (!u->ev_json) {
        if (is_ws(c))
            return;
        if (c != '{') {
            u->ev_skip = true; /* "[DONE]" and other non-objects */
            return;
        }
        u->ev_json = true;
    }
    json_byte(&u->js, c);
}

static void
sse_byte(struct gw_usage *u, char c)
{
    if (c == '\n' && u->cr) {
        u->cr = false;
        return;
    }
    u->cr = c == '\r';
    if (c == '\r' || c == '\n') {
        sse_line_end(u);
        return;
    }
    switch (u->line) {
    case L_START:
        if (c == ':') {
            u->line = L_SKIP;
            return;
        }
        u->line = L_NAME;
        /* fall through */
    case L_NAME:
        if (c != ':') {
            if (u->field_len < sizeof(u->field))
                u->field[u->field_len] = c;
            u->field_len++;
            return;
        }
        if (u->field_len != 4 || memcmp(u->field, "data", 4) != 0) {
            u->line = L_SKIP;
            return;
        }
        if (u->ev_data && u->ev_json) /* lines of one data join with LF */
            json_byte(&u->js, '\n');
        u->ev_data = true;
        u->line = L_SPACE;
        return;
    case L_SPACE:
        u->line = L_DATA;
        if (c == ' ')
            return;
        /* fall through */
    case L_DATA:
        sse_data_byte(u, c);
        return;
    default: /* L_SKIP */
        return;
    }
}

/* Bytes of the inside of a string already known to match nothing (too
 * long): passed over in bulk, up to the next byte the scanner must see
 * ('"', '\\', a control character: CR and LF too, which end an SSE line).
 * Most of an answer is such a string (a model's text, a tool's input):
 * byte by byte through the SSE and JSON layers it cost about 12 ns a
 * byte (hack/bench/gateway). Returns how many bytes of p it took. */
static size_t
skip_string(struct gw_usage *u, const char *p, size_t n)
{
    size_t k = 0;

    if (u->js.state != J_STR || !u->js.str_bad ||
        (u->sse && (u->line != L_DATA || !u->ev_json || u->ev_skip)))
        return 0;
    while (k < n && p[k] != '"' && p[k] != '\\' && (unsigned char)p[k] >= 0x20)
        k++;
    if (k > 0)
        u->cr = false;
    return k;
}

void
gw_usage_feed(struct gw_usage *u, const char *p, size_t n)
{
    size_t i = 0;

    while (i < n && !u->failed) {
        size_t k = skip_string(u, p + i, n - i);

        if (k > 0) {
            i += k;
            continue;
        }
        if (u->sse)
            sse_byte(u, p[i]);
        else
            json_byte(&u->js, p[i]);
        if (u->js.state == J_FAIL)
            u->failed = true;
        i++;
    }
}

bool
gw_usage_finish(struct gw_usage *u, struct gw_tokens *t)
{
    if (u->failed)
        return false;
    if (!u->sse) {
        if (!json_end(&u->js) || !u->js.top.have)
            return false;
        tokens_set(&u->t, &u->js.top, true);
        u->known = true;
    }
    if (u->known)
        *t = u->t;
    return u->known;
}

uint64_t
gw_tokens_billed(enum gw_api api, const struct gw_tokens *t)
{
    uint64_t v[4] = { t->input, t->output, t->cache_read, t->cache_write };
    uint64_t sum = 0;
    int n = api == GW_API_ANTHROPIC ? 4 : 2; /* OpenAI's cached is input */

    for (int i = 0; i < n; i++)
        sum = UINT64_MAX - sum < v[i] ? UINT64_MAX : sum + v[i];
    return sum;
}
