/* spec_quantity.c - exact quantity parsing (see spec_quantity.h). */
#include "spec_quantity.h"

#include <string.h>

struct suffix {
    const char *text;
    uint64_t mul; /* multiplier of the unit ... */
    uint64_t div; /* ... and divisor (only "m" has one) */
};

static const struct suffix suffixes[] = {
    { "Ki", 1ULL << 10, 1 },
    { "Mi", 1ULL << 20, 1 },
    { "Gi", 1ULL << 30, 1 },
    { "Ti", 1ULL << 40, 1 },
    { "Pi", 1ULL << 50, 1 },
    { "Ei", 1ULL << 60, 1 },
    { "k", 1000ULL, 1 },
    { "M", 1000000ULL, 1 },
    { "G", 1000000000ULL, 1 },
    { "T", 1000000000000ULL, 1 },
    { "P", 1000000000000000ULL, 1 },
    { "E", 1000000000000000000ULL, 1 },
    { "m", 1, 1000 },
    { "", 1, 1 },
};

static int
mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

static int
add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return -1;
    *out = a + b;
    return 0;
}

__extension__ typedef unsigned __int128 quantity_u128;

/* ceil(num * scale / den) into *out, or -1 when it does not fit 64 bits. */
static int
frac_part(uint64_t num, uint64_t den, uint64_t scale, uint64_t *out)
{
    quantity_u128 p = (quantity_u128)num * scale;
    quantity_u128 q = p / den + (p % den != 0);

    if (q > UINT64_MAX)
        return -1;
    *out = (uint64_t)q;
    return 0;
}

/* Split "12.345Mi" into whole=12, frac digits "345", and the suffix. */
static int
quantity_split(const char *s, uint64_t *whole, const char **frac,
               size_t *frac_len, const struct suffix **sfx, struct err *e)
{
    const char *p = s;
    size_t i;

    *whole = 0;
    if (*p < '0' || *p > '9')
        return err_set(e, ERR_INVALID, "expected a quantity such as 512Mi");
    for (; *p >= '0' && *p <= '9'; p++)
        if (mul_ok(*whole, 10, whole) == -1 ||
            add_ok(*whole, (uint64_t)(*p - '0'), whole) == -1)
            return err_set(e, ERR_LIMIT, "quantity is too large");
    *frac = p;
    *frac_len = 0;
    if (*p == '.') {
        *frac = ++p;
        for (; *p >= '0' && *p <= '9'; p++)
            (*frac_len)++;
        if (*frac_len == 0)
            return err_set(e, ERR_INVALID,
                           "expected digits after the decimal point");
    }
    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        if (strcmp(p, suffixes[i].text) == 0) {
            *sfx = &suffixes[i];
            return 0;
        }
    }
    return err_set(e, ERR_INVALID, "unknown quantity suffix \"%s\"", p);
}

/* value * mul / div in thousandths, exact: fractional digits past what
 * the unit can express round up (a quantity never shrinks). */
int
spec_quantity_parse_milli(const char *s, uint64_t *milli, struct err *e)
{
    const struct suffix *sfx = NULL;
    const char *frac = NULL;
    size_t frac_len = 0, i;
    uint64_t whole, scale, num = 0, den = 1, total, part = 0;

    if (quantity_split(s, &whole, &frac, &frac_len, &sfx, e) == -1)
        return -1;
    if (frac_len > 18)
        return err_set(e, ERR_INVALID, "too many digits after the point");
    for (i = 0; i < frac_len; i++) {
        num = num * 10 + (uint64_t)(frac[i] - '0');
        den *= 10;
    }
    /* thousandths per unit of the written number */
    scale = sfx->mul;
    if (mul_ok(scale, 1000, &scale) == -1)
        return err_set(e, ERR_LIMIT, "quantity is too large");
    scale /= sfx->div;
    if (mul_ok(whole, scale, &total) == -1)
        return err_set(e, ERR_LIMIT, "quantity is too large");
    /* num/den * scale, rounded up. num < 10^18 and scale < 2^64, so the
     * product fits 128 bits; 64 would overflow for 18 fraction digits
     * ("1.999999999999999999Ki" is 2Ki, not too large). */
    if (num != 0 && frac_part(num, den, scale, &part) == -1)
        return err_set(e, ERR_LIMIT, "quantity is too large");
    if (add_ok(total, part, &total) == -1)
        return err_set(e, ERR_LIMIT, "quantity is too large");
    *milli = total;
    return 0;
}

int
spec_quantity_parse(const char *s, uint64_t *value, struct err *e)
{
    uint64_t milli;

    if (spec_quantity_parse_milli(s, &milli, e) == -1)
        return -1;
    *value = milli / 1000 + (milli % 1000 != 0);
    return 0;
}
