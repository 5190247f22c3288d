/* Names that come from the program — argv, the executable, region and codelet names, host names —
 * are byte strings. Every output format needs valid UTF-8 without control characters: jansson
 * refuses anything else (and with it the whole profile), XML 1.0 forbids control characters even
 * escaped (CUBE), and OTF2 readers decode their strings as UTF-8. The profile therefore holds only
 * clean text: each byte that is not part of a well-formed UTF-8 character, and each control
 * character (U+0000-U+001F, U+007F), is written as the four characters \xHH (upper-case hex), so a
 * name like $'caf\xe9' reads "caf\xE9" in every output. A name that does not fit its field is cut
 * at a character boundary, never inside a character or an escape. */
#ifndef PM_TEXT_H
#define PM_TEXT_H
#include <stddef.h>

/* Writes the clean form of src into dst (size bytes, always NUL-terminated when size > 0), cut at
 * the last whole character or escape that fits. Returns the length written. */
size_t pm_text_clean(char *dst, size_t size, const char *src);
/* The clean form of src, malloc'd (NULL out of memory). */
char *pm_text_clean_dup(const char *src);
/* 1 when src is already clean (pm_text_clean would copy it unchanged). */
int pm_text_is_clean(const char *src);
/* Cleans a fixed-size field in place (the field keeps its size: the clean form is cut to fit). */
void pm_text_clean_field(char *field, size_t size);
/* Cleans a malloc'd string in place: *s is replaced by its clean form when it differs. 0, or -1
 * out of memory (then *s is left as it was). */
int pm_text_clean_heap(char **s);
#endif
