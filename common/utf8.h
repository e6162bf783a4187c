/* utf8.h - strict UTF-8 (RFC 3629), checked over a whole buffer: a spec
 * file (model/spec_yaml.c) and a CLI's result (hostio/rc_result.c) are
 * refused at their first ill-formed byte. The captured output is checked
 * as it streams, byte by byte, in hostio/rc_output.c. */
#ifndef UTF8_H
#define UTF8_H

#include <stddef.h>

/* Offset of the first byte of the first ill-formed sequence (no
 * overlongs, no surrogates, nothing above U+10FFFF, none cut short by
 * the end), or len when all of s is strict UTF-8. */
size_t utf8_bad_offset(const void *s, size_t len);

#endif
