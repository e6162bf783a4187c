/* utf8.c - strict UTF-8 over a buffer (utf8.h). */
#include "utf8.h"

size_t
utf8_bad_offset(const void *buf, size_t len)
{
    const unsigned char *s = buf;
    size_t i = 0;

    while (i < len) {
        unsigned char c = s[i];
        size_t need = c < 0x80                 ? 0
                      : c >= 0xC2 && c <= 0xDF ? 1
                      : c >= 0xE0 && c <= 0xEF ? 2
                      : c >= 0xF0 && c <= 0xF4 ? 3
                                               : 9;
        /* the tight ranges of the byte after E0, ED, F0 and F4 (RFC 3629
         * table 3) are what refuse overlongs, surrogates and code points
         * past U+10FFFF */
        unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;

        if (need == 0) {
            i++;
            continue;
        }
        if (need == 9 || len - i <= need)
            return i; /* not a lead byte, or cut by the end */
        for (size_t k = 1; k <= need; k++) {
            if (s[i + k] < (k == 1 ? lo : 0x80) ||
                s[i + k] > (k == 1 ? hi : 0xBF))
                return i;
        }
        i += need + 1;
    }
    return len;
}
