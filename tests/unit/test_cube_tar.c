/* The tar layer: CubeLib's padding rule in the writer (an exact multiple of 512 gets a whole extra
 * zero block), and the checker telling that layout from standard tar padding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pm_tar.h"
#include "cube_fixture.h"
#include "cubex_internal.h"

static void test_span(void **state) {
  (void)state;
  assert_int_equal(pm_tar_span(0), 0);
  assert_int_equal(pm_tar_span(1), 512);
  assert_int_equal(pm_tar_span(18), 512);
  assert_int_equal(pm_tar_span(511), 512);
  assert_int_equal(pm_tar_span(512), 1024);  /* the trap: not 512 */
  assert_int_equal(pm_tar_span(3072), 3584); /* not 3072 */
  assert_int_equal(pm_tar_span(3073), 3584);
}

static unsigned octal_field(const unsigned char *f, int w) {
  unsigned v = 0;
  for (int i = 0; i < w && f[i] >= '0' && f[i] <= '7'; i++) v = v * 8 + (unsigned)(f[i] - '0');
  return v;
}

static void test_header_fields(void **state) {
  (void)state;
  unsigned char b[512];
  assert_int_equal(pm_tar_header(b, "0.data", 106, 1700000000), 0);
  assert_string_equal((char *)b, "0.data");
  assert_memory_equal(b + 100, "0000600", 8);
  assert_memory_equal(b + 124, "00000000152", 12); /* 106 in octal */
  assert_int_equal(b[156], '0');
  assert_memory_equal(b + 257,
                      "ustar\0"
                      "00",
                      8);
  assert_string_equal((char *)b + 265, "nouser");
  assert_string_equal((char *)b + 297, "users");
  unsigned sum = 0;
  for (int i = 0; i < 512; i++) sum += (i >= 148 && i < 156) ? ' ' : b[i];
  assert_int_equal(octal_field(b + 148, 6), sum);
  assert_int_equal(b[154], '\0');
  assert_int_equal(b[155], ' ');
  char longname[120];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  errno = 0;
  assert_int_equal(pm_tar_header(b, longname, 1, 0), -1);
  assert_int_equal(errno, ENAMETOOLONG);
  assert_int_equal(pm_tar_header(b, "", 1, 0), -1);
  errno = 0;
  assert_int_equal(pm_tar_header(b, "big", PM_TAR_MAX_SIZE + 1, 0), -1);
  assert_int_equal(errno, EFBIG);
  assert_int_equal(pm_tar_header(b, "big", PM_TAR_MAX_SIZE, 0), 0);
}

/* A 3072-byte member followed by another: the writer leaves a whole zero block between them, the
 * next header is at 512 + 3584 = 4096 (a standard tar writer would put it at 3584). */
static void test_writer_extra_block(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  unsigned char big[3072], small[18];
  memset(big, 'x', sizeof big);
  memset(small, 'y', sizeof small);
  assert_int_equal(pm_tar_write_member(f, "big", big, sizeof big, 0), 0);
  assert_int_equal(pm_tar_write_member(f, "empty", NULL, 0, 0), 0);
  assert_int_equal(pm_tar_write_member(f, "small", small, sizeof small, 0), 0);
  assert_int_equal(pm_tar_write_end(f), 0);
  fclose(f);
  assert_int_equal(len, 512 + 3584 + 512 + 512 + 512 + 1024);
  for (size_t i = 512 + 3072; i < 4096; i++) assert_int_equal(buf[i], 0);
  assert_string_equal(buf + 4096, "empty"); /* size 0: next header right after */
  assert_string_equal(buf + 4608, "small");
  assert_memory_equal(buf + 5120, small, sizeof small);
  cx_member *m;
  int n;
  char err[400];
  assert_int_equal(cx_tar_scan((unsigned char *)buf, len, &m, &n, err, sizeof err), 0);
  assert_int_equal(n, 3);
  assert_int_equal(m[0].off, 512);
  assert_int_equal(m[0].size, 3072);
  assert_int_equal(m[1].off, 4608);
  assert_int_equal(m[1].size, 0);
  assert_int_equal(m[2].off, 5120);
  free(m);
  free(buf);
}

/* The same members with standard tar padding: the checker names the trap instead of reading on. */
static void test_checker_detects_std_padding(void **state) {
  (void)state;
  unsigned char big[3072];
  memset(big, 'x', sizeof big);
  cube_member mem[] = {{"anchor.xml", big, sizeof big}, {"0.data", cube_fixture_min_data, 18}};
  size_t size;
  unsigned char *std = cube_fixture_archive(mem, 2, 1, &size);
  cx_member *m = NULL;
  int n;
  char err[400];
  assert_int_equal(cx_tar_scan(std, size, &m, &n, err, sizeof err), -1);
  assert_non_null(strstr(err, "standard tar padding"));
  free(m);
  free(std);
  unsigned char *ok = cube_fixture_archive(mem, 2, 0, &size);
  assert_int_equal(cx_tar_scan(ok, size, &m, &n, err, sizeof err), 0);
  assert_int_equal(n, 2);
  free(m);
  free(ok);
}

/* A whole valid .cubex whose anchor.xml is exactly 3072 bytes and last: accepted with the cubew
 * layout; with standard padding and the anchor first (ref/t_gnu_first_3072.cubex: CubeLib reads
 * all zeros) it is rejected. */
static void test_anchor_of_3072_bytes(void **state) {
  (void)state;
  char anchor[3073];
  size_t base = strlen(cube_fixture_min_anchor);
  assert_true(base < 3072);
  memcpy(anchor, cube_fixture_min_anchor, base);
  memset(anchor + base, '\n', 3072 - base); /* whitespace after </cube> is allowed */
  anchor[3072] = '\0';
  cube_member last[] = {
      {"0.index", cube_fixture_min_index, 18}, {"0.data", cube_fixture_min_data, 18}, {"anchor.xml", anchor, 3072}};
  size_t size;
  char err[400];
  unsigned char *a = cube_fixture_archive(last, 3, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  assert_non_null(c);
  double v;
  assert_int_equal(cubex_value(c, 0, 0, 0, CUBEX_STORED, &v), 0);
  assert_double_equal(v, 42.5, 0);
  cubex_close(c);
  free(a);
  cube_member first[] = {
      {"anchor.xml", anchor, 3072}, {"0.index", cube_fixture_min_index, 18}, {"0.data", cube_fixture_min_data, 18}};
  a = cube_fixture_archive(first, 3, 1, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "standard tar padding"));
  free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_span),
      cmocka_unit_test(test_header_fields),
      cmocka_unit_test(test_writer_extra_block),
      cmocka_unit_test(test_checker_detects_std_padding),
      cmocka_unit_test(test_anchor_of_3072_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
