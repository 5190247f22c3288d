/* Tar members the way CubeLib reads them (docs/cube-format.md §1).
 *
 * A .cubex file is a ustar archive, but CubeLib's TarReader does not use the standard padding: it
 * looks for the next header at pos + 512 + (size/512 + 1) * 512 whenever size > 0. cubew pads to
 * match, so a member whose size is an exact multiple of 512 is followed by one full extra zero block.
 * A standard tar writer omits that block and CubeLib then silently misses every later member. This
 * module writes CubeLib's layout; it is the only place that knows it. */
#ifndef PM_TAR_H
#define PM_TAR_H
#include <stdint.h>
#include <stdio.h>

#define PM_TAR_BLOCK 512
/* Largest size an 11-digit octal ustar size field holds (8 GiB - 1). cubew switches to a PAX
 * header beyond it; this writer refuses instead (pm_tar_header fails with EFBIG). */
#define PM_TAR_MAX_SIZE 077777777777ull
#define PM_TAR_MAX_NAME 99

/* Bytes that follow a header of a member of this size before the next header (data + padding). */
uint64_t pm_tar_span(uint64_t size);

/* Fills one ustar header block as cubew does (mode 0600, uname "nouser", gname "users", typeflag
 * '0'). Returns 0, or -1 with errno ENAMETOOLONG (name longer than PM_TAR_MAX_NAME or empty) or
 * EFBIG (size > PM_TAR_MAX_SIZE). */
int pm_tar_header(unsigned char block[PM_TAR_BLOCK], const char *name, uint64_t size, uint64_t mtime);

/* Streaming: a header, then exactly `size` bytes of data written by the caller, then the padding. */
int pm_tar_write_header(FILE *f, const char *name, uint64_t size, uint64_t mtime);
int pm_tar_write_padding(FILE *f, uint64_t size);
/* A whole member from memory. */
int pm_tar_write_member(FILE *f, const char *name, const void *data, uint64_t size, uint64_t mtime);
/* The end of the archive: two zero blocks. */
int pm_tar_write_end(FILE *f);
#endif
