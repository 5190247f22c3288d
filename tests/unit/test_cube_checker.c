/* The .cubex checker: it accepts the minimal file of docs/cube-format.md §7 and the writer's output, reads
 * rows in CubeLib's order for each metric type, and rejects each kind of broken file the notes list
 * (most of which cube_dump would load silently). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "pm_cube.h"
#include "cube_fixture.h"
#include "cubex_read.h"

#define METRIC0 \
  "<metric "    \
  "id=\"0\"><disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom></metric>"
#define PROGRAM0                                                                                 \
  "<region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\"><name>main</name></region><cnode id=\"0\" " \
  "calleeId=\"0\"></cnode>"
#define LOCATION(id) "<location Id=\"" #id "\"><name>t</name><rank>0</rank><type>thread</type></location>"
#define SYSTEM1                                                                                         \
  "<systemtreenode Id=\"0\"><name>m</name><class>machine</class><locationgroup Id=\"0\"><name>p</name>" \
  "<rank>0</rank><type>process</type>" LOCATION(0) "</locationgroup></systemtreenode>"

static char anchor_buf[16384];
static const char *anchor(const char *version, const char *metrics, const char *program, const char *system) {
  snprintf(anchor_buf, sizeof anchor_buf,
           "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"%s\">\n<metrics>%s</metrics>\n"
           "<program>%s</program>\n<system>%s</system>\n</cube>\n",
           version, metrics, program, system);
  return anchor_buf;
}

static char err[600];

/* Opens an archive of anchor + the one-value metric 0 files (unless nodata). */
static cubex *open_anchor(const char *text, int nodata) {
  cube_member m[] = {{"0.data", cube_fixture_min_data, 18},
                     {"0.index", cube_fixture_min_index, 18},
                     {"anchor.xml", text, strlen(text)}};
  size_t size;
  unsigned char *a = cube_fixture_archive(nodata ? m + 2 : m, nodata ? 1 : 3, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  free(a);
  return c;
}

static void rejected(const char *text, int nodata, const char *why) {
  cubex *c = open_anchor(text, nodata);
  if (c) {
    cubex_close(c);
    fail_msg("accepted a file that should fail with \"%s\"", why);
  }
  if (!strstr(err, why)) fail_msg("message \"%s\" lacks \"%s\"", err, why);
}

static void test_minimal_valid(void **state) {
  (void)state;
  cubex *c = open_anchor(cube_fixture_min_anchor, 0);
  if (!c) fail_msg("%s", err);
  double v;
  assert_int_equal(cubex_value(c, 0, 0, 0, CUBEX_STORED, &v), 0);
  assert_double_equal(v, 42.5, 0);
  assert_string_equal(cubex_cnode_name(c, 0), "main");
  cubex_close(c);
  c = open_anchor(anchor("4.4", METRIC0, PROGRAM0, SYSTEM1), 0);
  if (!c) fail_msg("%s", err);
  cubex_close(c);
}

static void test_rejects_ids(void **state) {
  (void)state;
  /* cnode ids {0,1,2,3,5,6}: cube_dump printed garbage and crashed */
  rejected(
      anchor("4.4", METRIC0,
             "<region id=\"0\"><name>r</name></region><cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"0\">"
             "</cnode><cnode id=\"2\" calleeId=\"0\"></cnode><cnode id=\"3\" calleeId=\"0\"></cnode><cnode id=\"5\" "
             "calleeId=\"0\"></cnode><cnode id=\"6\" calleeId=\"0\"></cnode></cnode>",
             SYSTEM1),
      0, "0..5");
  rejected(
      anchor("4.4", METRIC0,
             "<region id=\"0\"><name>r</name></region><cnode id=\"0\" calleeId=\"0\"><cnode id=\"0\" calleeId=\"0\">"
             "</cnode></cnode>",
             SYSTEM1),
      0, "duplicate cnode id 0");
  rejected(anchor("4.4", METRIC0, "<region id=\"0\"><name>r</name></region><cnode id=\"0\" calleeId=\"7\"></cnode>",
                  SYSTEM1),
           0, "Undefined region");
  rejected(anchor("4.4", METRIC0, "<region id=\"1\"><name>r</name></region><cnode id=\"0\" calleeId=\"0\"></cnode>",
                  SYSTEM1),
           0, "region id 1");
  rejected(anchor("4.4", METRIC0, PROGRAM0,
                  "<systemtreenode Id=\"0\"><name>m</name><class>machine</class><locationgroup Id=\"0\"><name>p</name>"
                  "<rank>0</rank><type>process</type>" LOCATION(1) "</locationgroup></systemtreenode>"),
           0, "location id 1");
  rejected(anchor("4.4",
                  "<metric id=\"1\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>"
                  "<uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           1, "metric id 1");
  rejected(anchor("4.4", METRIC0, "<region id=\"0\"><name>r</name></region><cnode calleeId=\"0\"></cnode>", SYSTEM1), 0,
           "lacks the attribute id");
}

static void test_rejects_xml(void **state) {
  (void)state;
  rejected(anchor("5.0", METRIC0, PROGRAM0, SYSTEM1), 0, "not read by CubeLib");
  rejected(anchor("4.6", METRIC0, PROGRAM0, SYSTEM1), 0, "not read by CubeLib");
  rejected("<cube version=\"4.4\"><metrics>" METRIC0 "</metrics></cube>", 0, "XML declaration");
  rejected("<?xml version=\"1.0\"?><cube  version=\"4.4\"></cube>", 0, "literal");
  rejected(anchor("4.4", "<!-- c -->" METRIC0, PROGRAM0, SYSTEM1), 0, "comment");
  rejected(anchor("4.4",
                  "<metric id='0'><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>"
                  "<uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "double quotes only");
  rejected(anchor("4.4", "", PROGRAM0, SYSTEM1), 1, "lacks a <metric>");
  rejected(anchor("4.4", METRIC0, "<region id=\"0\"><name>a & b</name></region><cnode id=\"0\" calleeId=\"0\"></cnode>",
                  SYSTEM1),
           0, "'&'");
  rejected(anchor("4.4", METRIC0,
                  "<region id=\"0\"><name>a&nbsp;b</name></region><cnode id=\"0\" calleeId=\"0\"></cnode>", SYSTEM1),
           0, "'&'");
  rejected(anchor("4.4",
                  "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>time</uniq_name><uom>sec</uom>"
                  "<dtype>DOUBLE</dtype></metric>",
                  PROGRAM0, SYSTEM1),
           0, "out of order");
  rejected(anchor("4.4",
                  "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>"
                  "</metric>",
                  PROGRAM0, SYSTEM1),
           0, "lacks a <uom>");
  rejected(anchor("4.4", METRIC0, PROGRAM0 "<bogus/>", SYSTEM1), 0, "not allowed");
  rejected(anchor("4.4", METRIC0, "stray" PROGRAM0, SYSTEM1), 0, "text inside <program>");
  rejected(anchor("4.4", METRIC0, PROGRAM0, ""), 0, "lacks a <systemtreenode>");
  rejected(anchor("4.4", METRIC0, PROGRAM0,
                  "<systemtreenode Id=\"0\"><name>m</name><class>machine</class></systemtreenode>"),
           0, "no <location>");
  char trunc[4096];
  snprintf(trunc, sizeof trunc, "%s", cube_fixture_min_anchor);
  strstr(trunc, "</region>")[9] = '\0'; /* the file ends after the region, inside <program> */
  rejected(trunc, 0, "truncated");
  snprintf(trunc, sizeof trunc, "%s", cube_fixture_min_anchor);
  trunc[strlen(trunc) / 2] = '\0'; /* mid-tag: rejected too, whatever the message */
  assert_null(open_anchor(trunc, 0));
  rejected(anchor("4.4", METRIC0, PROGRAM0, SYSTEM1 "</system><system>"), 0, "too many <system>");
}

#define DERIVED(extra)                                                                     \
  "<metric id=\"1\" type=\"POSTDERIVED\"><disp_name>D</disp_name><uniq_name>d</uniq_name>" \
  "<dtype>DOUBLE</dtype><uom></uom>" extra "</metric>"

static void test_rejects_metric_definitions(void **state) {
  (void)state;
  rejected(anchor("4.4",
                  "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>REAL</dtype>"
                  "<uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "unknown dtype");
  rejected(anchor("4.4", METRIC0 DERIVED(""), PROGRAM0, SYSTEM1), 0, "no <cubepl>");
  rejected(anchor("4.4",
                  METRIC0 "<metric id=\"1\" type=\"POSTDERIVED\"><disp_name>D</disp_name><uniq_name>d</uniq_name>"
                          "<dtype>UINT64</dtype><uom></uom><cubepl>1</cubepl></metric>",
                  PROGRAM0, SYSTEM1),
           0, "DOUBLE");
  rejected(anchor("4.4", METRIC0 DERIVED("<cubepl>metric::time() &lt; 1</cubepl>"), PROGRAM0, SYSTEM1), 0,
           "even as an entity");
  rejected(anchor("4.4", METRIC0 DERIVED("<cubepl>1</cubepl><cubeplaggr cubeplaggrtype=max>1</cubeplaggr>"), PROGRAM0,
                  SYSTEM1),
           0, "not understood");
  rejected(anchor("4.4", METRIC0 DERIVED("<cubepl>1</cubepl><cubeplaggr cubeplaggrtype=\"aggr\">1</cubeplaggr>"),
                  PROGRAM0, SYSTEM1),
           0, "unquoted");
  /* read from a file, a POSTDERIVED metric's max rule is dropped by CubeLib: the maximum is a sum */
  rejected(anchor("4.4",
                  METRIC0 DERIVED("<cubepl>1</cubepl><cubeplaggr cubeplaggrtype=aggr>max(arg1, arg2)</cubeplaggr>"),
                  PROGRAM0, SYSTEM1),
           0, "CubeLib ignores");
  rejected(anchor("4.4",
                  "<metric id=\"0\" type=\"INCLUSIVE\"><disp_name>T</disp_name><uniq_name>time</uniq_name>"
                  "<dtype>MAXDOUBLE</dtype><uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "INCLUSIVE");
  rejected(anchor("4.4",
                  "<metric id=\"0\" type=\"HYBRID\"><disp_name>T</disp_name><uniq_name>time</uniq_name>"
                  "<dtype>DOUBLE</dtype><uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "unknown metric type");
  rejected(anchor("4.4",
                  "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>my time</uniq_name><dtype>DOUBLE</dtype>"
                  "<uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "[A-Za-z0-9_:]");
  rejected(anchor("4.4",
                  METRIC0 "<metric id=\"1\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>"
                          "<uom>sec</uom></metric>",
                  PROGRAM0, SYSTEM1),
           0, "used twice");
  /* a stored metric without files: cube_dump reads all zeros with rc 0 */
  rejected(cube_fixture_min_anchor, 1, "all zeros");
  /* a derived metric with data files */
  const char *d = anchor(
      "4.4",
      DERIVED("<cubepl>1</cubepl>") "<metric "
                                    "id=\"0\"><disp_name>T</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>"
                                    "<uom>sec</uom></metric>",
      PROGRAM0, SYSTEM1);
  cube_member m[] = {{"0.data", cube_fixture_min_data, 18},
                     {"0.index", cube_fixture_min_index, 18},
                     {"1.data", cube_fixture_min_data, 18},
                     {"anchor.xml", d, strlen(d)}};
  size_t size;
  unsigned char *a = cube_fixture_archive(m, 4, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "derived metric d has the data file 1.data"));
  free(a);
  /* ... and the same file without it is fine: derived metrics have no data */
  a = cube_fixture_archive((cube_member[]){m[0], m[1], m[3]}, 3, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  if (!c) fail_msg("%s", err);
  assert_string_equal(cubex_metric_cubepl(c, 1), "1");
  cubex_close(c);
  free(a);
}

/* Index and data files of the minimal file, each corrupted in one way. */
static void data_rejected(const unsigned char *index, size_t ni, const unsigned char *data, size_t nd,
                          const char *why) {
  cube_member m[] = {{"0.data", data, nd},
                     {"0.index", index, ni},
                     {"anchor.xml", cube_fixture_min_anchor, strlen(cube_fixture_min_anchor)}};
  size_t size;
  unsigned char *a = cube_fixture_archive(m, 3, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  free(a);
  if (c) {
    cubex_close(c);
    fail_msg("accepted data that should fail with \"%s\"", why);
  }
  if (!strstr(err, why)) fail_msg("message \"%s\" lacks \"%s\"", err, why);
}

static void test_rejects_data(void **state) {
  (void)state;
  unsigned char ix[18], d[32];
  memcpy(ix, cube_fixture_min_index, 18);
  ix[11] = 0;
  ix[14] = 1; /* endianness word 0x01000000 */
  data_rejected(ix, 18, cube_fixture_min_data, 18, "byte-swap");
  memcpy(ix, cube_fixture_min_index, 18);
  ix[0] = 'K';
  data_rejected(ix, 18, cube_fixture_min_data, 18, "bad index marker");
  memcpy(ix, cube_fixture_min_index, 18);
  ix[17] = 2;
  data_rejected(ix, 18, cube_fixture_min_data, 18, "neither DENSE");
  data_rejected(cube_fixture_min_index, 17, cube_fixture_min_data, 18, "bad index marker");
  memcpy(d, cube_fixture_min_data, 18);
  d[5] = '_';
  data_rejected(cube_fixture_min_index, 18, d, 18, "bad data marker");
  data_rejected(cube_fixture_min_index, 18, cube_fixture_min_data, 17, "expected 10 + 1 rows");
  memcpy(d, cube_fixture_min_data, 18);
  memset(d + 18, 0, 8);
  data_rejected(cube_fixture_min_index, 18, d, 26, "past the values");
  memcpy(d, "ZCUBEX.DATA", 11);
  data_rejected(cube_fixture_min_index, 18, d, 26, "compressed");
  /* SPARSE: one row at position 1 of a one-cnode tree is out of range */
  unsigned char sp[26];
  memcpy(sp, cube_fixture_min_index, 18);
  sp[17] = 1;
  memcpy(sp + 18, (unsigned char[]){1, 0, 0, 0, 1, 0, 0, 0}, 8);
  data_rejected(sp, 26, cube_fixture_min_data, 18, "SPARSE positions");
}

static void test_rejects_container(void **state) {
  (void)state;
  size_t size;
  const char *an = cube_fixture_min_anchor;
  cube_member first[] = {
      {"anchor.xml", an, strlen(an)}, {"0.data", cube_fixture_min_data, 18}, {"0.index", cube_fixture_min_index, 18}};
  unsigned char *a = cube_fixture_archive(first, 3, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "not the last"));
  free(a);
  a = cube_fixture_archive(first + 1, 2, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "no anchor.xml"));
  free(a);
  cube_member extra[] = {{"0.data", cube_fixture_min_data, 18},
                         {"0.index", cube_fixture_min_index, 18},
                         {"3.data", cube_fixture_min_data, 18},
                         {"anchor.xml", an, strlen(an)}};
  a = cube_fixture_archive(extra, 4, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "belongs to no metric"));
  free(a);
  cube_member twice[] = {{"0.data", cube_fixture_min_data, 18},
                         {"0.data", cube_fixture_min_data, 18},
                         {"0.index", cube_fixture_min_index, 18},
                         {"anchor.xml", an, strlen(an)}};
  a = cube_fixture_archive(twice, 4, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "appears twice"));
  free(a);
  cube_member odd[] = {{"0.data", cube_fixture_min_data, 18},
                       {"0.index", cube_fixture_min_index, 18},
                       {"notes.txt", "x", 1},
                       {"anchor.xml", an, strlen(an)}};
  a = cube_fixture_archive(odd, 4, 0, &size);
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "unexpected archive member notes.txt"));
  free(a);
  assert_null(cubex_open_buffer("", 0, err, sizeof err));
  assert_non_null(strstr(err, "not a ustar archive"));
  char junk[2048];
  memset(junk, 'j', sizeof junk);
  assert_null(cubex_open_buffer(junk, sizeof junk, err, sizeof err));
  assert_non_null(strstr(err, "not a ustar archive"));
  /* garbage in padding, a bad checksum, data after the end */
  cube_member ok[] = {
      {"0.data", cube_fixture_min_data, 18}, {"0.index", cube_fixture_min_index, 18}, {"anchor.xml", an, strlen(an)}};
  a = cube_fixture_archive(ok, 3, 0, &size);
  a[512 + 100] = 1;
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "padding"));
  a[512 + 100] = 0;
  a[20] ^= 1;
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "checksum"));
  a[20] ^= 1;
  a[size - 1] = 7;
  assert_null(cubex_open_buffer(a, size, err, sizeof err));
  assert_non_null(strstr(err, "two zero blocks"));
  a[size - 1] = 0;
  unsigned char *longer = calloc(1, size + 512);
  memcpy(longer, a, size);
  longer[size + 10] = 7;
  assert_null(cubex_open_buffer(longer, size + 512, err, sizeof err));
  assert_non_null(strstr(err, "after the end"));
  longer[size + 10] = 0; /* zeros after the end (tar records) are fine */
  cubex *c = cubex_open_buffer(longer, size + 512, err, sizeof err);
  if (!c) fail_msg("%s", err);
  cubex_close(c);
  free(longer);
  free(a);
}

/* A writer-made file cut at every block boundary and around it is always rejected. */
static void test_truncations(void **state) {
  (void)state;
  char *dir = cube_fixture_tmpdir(), path[600];
  snprintf(path, sizeof path, "%s/t.cubex", dir);
  pm_profile *p = cube_fixture_golden();
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  size_t n;
  unsigned char *b = cube_fixture_read(path, &n);
  cubex *c = cubex_open_buffer(b, n, err, sizeof err);
  if (!c) fail_msg("%s", err);
  cubex_close(c);
  int tried = 0;
  for (size_t cut = 0; cut < n; cut += (cut % 512 == 0) ? 1 : (cut % 512 == 1 ? 510 : 1)) {
    c = cubex_open_buffer(b, cut, err, sizeof err);
    if (c) {
      cubex_close(c);
      fail_msg("accepted the file cut at %zu of %zu bytes", cut, n);
    }
    tried++;
  }
  assert_true(tried >= 3 * (int)(n / 512));
  free(b);
  pm_profile_free(p);
  cube_fixture_rmdir(dir);
}

/* Byte flips anywhere in a writer-made file: an error or a valid file, never a crash. */
static void test_flips_do_not_crash(void **state) {
  (void)state;
  char *dir = cube_fixture_tmpdir(), path[600];
  snprintf(path, sizeof path, "%s/f.cubex", dir);
  pm_profile *p = cube_fixture_golden();
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  size_t n;
  unsigned char *b = cube_fixture_read(path, &n);
  static const unsigned char flips[] = {0, '<', '9', 0xff};
  int accepted = 0, rejected_n = 0;
  /* every third non-zero byte (headers, markers, values, anchor), a sample of the zero padding */
  for (size_t i = 0; i < n; i += (b[i] == 0 ? 61 : 3)) {
    unsigned char keep = b[i];
    for (size_t k = 0; k < sizeof flips; k++) {
      if (flips[k] == keep) continue;
      b[i] = flips[k];
      cubex *c = cubex_open_buffer(b, n, err, sizeof err);
      if (c)
        accepted++;
      else
        rejected_n++;
      cubex_close(c);
    }
    b[i] = keep;
  }
  assert_true(rejected_n > 0 && accepted > 0); /* e.g. a changed value is still a valid file */
  free(b);
  pm_profile_free(p);
  cube_fixture_rmdir(dir);
}

/* Row orders by metric type, on A{B{D{G}}, C{F}} with ids A0 B1 C2 D3 F4 G5 and one location; the
 * stored value of row k is 100 + k, so value(cnode) reveals its row. */
#define CN(id, callee) "<cnode id=\"" #id "\" calleeId=\"" #callee "\">"
#define TREE6                                                                                                   \
  "<region id=\"0\"><name>A</name></region><region id=\"1\"><name>B</name></region>"                            \
  "<region id=\"2\"><name>C</name></region><region id=\"3\"><name>D</name></region>"                            \
  "<region id=\"4\"><name>F</name></region><region id=\"5\"><name>G</name></region>" CN(0, 0) CN(1, 1) CN(3, 3) \
      CN(5, 5) "</cnode></cnode></cnode>" CN(2, 2) CN(4, 4) "</cnode></cnode></cnode>"
#define STORED(id, type, name)                                                               \
  "<metric id=\"" #id "\" type=\"" type "\"><disp_name>" name "</disp_name><uniq_name>" name \
  "</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom></metric>"

static void test_row_orders(void **state) {
  (void)state;
  const char *an = anchor("4.4", STORED(0, "EXCLUSIVE", "ex") STORED(1, "INCLUSIVE", "in") STORED(2, "SIMPLE", "si"),
                          TREE6, SYSTEM1);
  unsigned char data[10 + 6 * 8];
  memcpy(data, "CUBEX.DATA", 10);
  for (int k = 0; k < 6; k++) {
    double v = 100 + k;
    memcpy(data + 10 + 8 * k, &v, 8);
  }
  cube_member m[] = {{"0.data", data, sizeof data}, {"0.index", cube_fixture_min_index, 18},
                     {"1.data", data, sizeof data}, {"1.index", cube_fixture_min_index, 18},
                     {"2.data", data, sizeof data}, {"2.index", cube_fixture_min_index, 18},
                     {"anchor.xml", an, strlen(an)}};
  size_t size;
  unsigned char *a = cube_fixture_archive(m, 7, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  if (!c) fail_msg("%s", err);
  const int ex[] = {0, 1, 3, 5, 2, 4}; /* A B D G C F: depth-first */
  const int in[] = {0, 1, 2, 3, 5, 4}; /* A B C D G F: wide search (BFS would be A B C D F G) */
  for (int k = 0; k < 6; k++) {
    assert_int_equal(cubex_row_cnode(c, 0, k), ex[k]);
    assert_int_equal(cubex_row_cnode(c, 1, k), in[k]);
    assert_int_equal(cubex_row_cnode(c, 2, k), k);
    double v;
    assert_int_equal(cubex_value(c, 1, in[k], 0, CUBEX_STORED, &v), 0);
    assert_double_equal(v, 100 + k, 0);
  }
  double v;
  /* views: EXCLUSIVE storage of ex, inclusive of B = B + D + G = 101 + 102 + 103 */
  assert_int_equal(cubex_value(c, 0, 1, 0, CUBEX_INCL, &v), 0);
  assert_double_equal(v, 306, 0);
  /* INCLUSIVE storage of in: exclusive of A = A - B - C = 100 - 101 - 102 */
  assert_int_equal(cubex_value(c, 1, 0, 0, CUBEX_EXCL, &v), 0);
  assert_double_equal(v, -103, 0);
  assert_int_equal(cubex_value(c, 1, 0, 0, CUBEX_INCL, &v), 0);
  assert_double_equal(v, 100, 0);
  assert_int_equal(cubex_cnode_find(c, "A/C/F"), 4);
  assert_int_equal(cubex_cnode_find(c, "A/F"), -1);
  cubex_close(c);
  free(a);
  /* SPARSE index on the EXCLUSIVE metric: rows for positions 1 (B) and 4 (C) only */
  unsigned char sp[30], sd[10 + 2 * 8];
  memcpy(sp, cube_fixture_min_index, 18);
  sp[17] = 1;
  memcpy(sp + 18, (unsigned char[]){2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0}, 12);
  memcpy(sd, data, sizeof sd);
  const char *an1 = anchor("4.4", STORED(0, "EXCLUSIVE", "ex"), TREE6, SYSTEM1);
  cube_member ms[] = {{"0.data", sd, sizeof sd}, {"0.index", sp, 30}, {"anchor.xml", an1, strlen(an1)}};
  a = cube_fixture_archive(ms, 3, 0, &size);
  c = cubex_open_buffer(a, size, err, sizeof err);
  if (!c) fail_msg("%s", err);
  assert_int_equal(cubex_row_cnode(c, 0, 0), 1);
  assert_int_equal(cubex_row_cnode(c, 0, 1), 2);
  assert_int_equal(cubex_value(c, 0, 2, 0, CUBEX_STORED, &v), 0);
  assert_double_equal(v, 101, 0);
  assert_int_equal(cubex_value(c, 0, 3, 0, CUBEX_STORED, &v), 0);
  assert_double_equal(v, 0, 0);
  cubex_close(c);
  free(a);
}

/* The notes' cube_dump example: main{init{io}, solve} with ids main 0, init 1, solve 2, io 3 is
 * stored EXCLUSIVE in the order 0 1 3 2. */
static void test_notes_example(void **state) {
  (void)state;
  const char *an =
      anchor("4.4", METRIC0,
             "<region id=\"0\"><name>main</name></region><region id=\"1\"><name>init</name></region>"
             "<region id=\"2\"><name>solve</name></region><region id=\"3\"><name>io</name></region>" CN(0, 0) CN(1, 1)
                 CN(3, 3) "</cnode></cnode>" CN(2, 2) "</cnode></cnode>",
             SYSTEM1);
  unsigned char data[10 + 4 * 8];
  memcpy(data, "CUBEX.DATA", 10);
  for (int k = 0; k < 4; k++) {
    double v = k;
    memcpy(data + 10 + 8 * k, &v, 8);
  }
  cube_member m[] = {
      {"0.data", data, sizeof data}, {"0.index", cube_fixture_min_index, 18}, {"anchor.xml", an, strlen(an)}};
  size_t size;
  unsigned char *a = cube_fixture_archive(m, 3, 0, &size);
  cubex *c = cubex_open_buffer(a, size, err, sizeof err);
  if (!c) fail_msg("%s", err);
  const int rows[] = {0, 1, 3, 2};
  for (int k = 0; k < 4; k++) assert_int_equal(cubex_row_cnode(c, 0, k), rows[k]);
  double v;
  cubex_value(c, 0, cubex_cnode_find(c, "main/solve"), 0, CUBEX_STORED, &v);
  assert_double_equal(v, 3, 0); /* solve is the last row */
  cubex_close(c);
  free(a);
}

static void test_gpu_needs_47(void **state) {
  (void)state;
  const char *gpu =
      "<systemtreenode Id=\"0\"><name>m</name><class>machine</class><locationgroup Id=\"0\"><name>p</name>"
      "<rank>0</rank><type>process</type><location Id=\"0\"><name>s</name><rank>0</rank><type>gpu</type>"
      "</location></locationgroup></systemtreenode>";
  rejected(anchor("4.4", METRIC0, PROGRAM0, gpu), 0, "4.7");
  cubex *c = open_anchor(anchor("4.7", METRIC0, PROGRAM0, gpu), 0);
  if (!c) fail_msg("%s", err);
  assert_string_equal(cubex_location_type(c, 0), "gpu");
  cubex_close(c);
}

static char *run_cli(int argc, char **argv, int *rc) {
  FILE *out = tmpfile();
  *rc = cubex_cli(argc, argv, out, out);
  long n = ftell(out);
  rewind(out);
  char *s = calloc(1, (size_t)n + 1);
  if (fread(s, 1, (size_t)n, out) != (size_t)n) s[0] = '\0';
  fclose(out);
  return s;
}

static void test_cli(void **state) {
  (void)state;
  char *dir = cube_fixture_tmpdir(), path[600], bad[600];
  snprintf(path, sizeof path, "%s/g.cubex", dir);
  snprintf(bad, sizeof bad, "%s/bad.cubex", dir);
  pm_profile *p = cube_fixture_golden();
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  int rc;
  char *o = run_cli(2, (char *[]){"cubex_check", path, NULL}, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(o, ": OK (cube 4.4"));
  free(o);
  /* rows in file order; MPI_Send on rank 1's main thread (location 2) took 5.25 + 1 = 6.25 s */
  o = run_cli(4, (char *[]){"cubex_check", "--dump", "time", path, NULL}, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(o, "MPI_Send(id=4)\t2\t6.25\n"));
  assert_true(strstr(o, "io(id=3)\t0\t") < strstr(o, "solve(id=2)\t0\t")); /* pre-order rows */
  free(o);
  o = run_cli(5, (char *[]){"cubex_check", "--dump", "time", "--inclusive", path, NULL}, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(o, "main(id=0)\t2\t17.5625\n"));
  free(o);
  o = run_cli(4, (char *[]){"cubex_check", "--dump", "visits", path, NULL}, &rc);
  assert_non_null(strstr(o, "solve(id=2)\t0\t22\n"));
  free(o);
  o = run_cli(4, (char *[]){"cubex_check", "--dump", "pop_lb", path, NULL}, &rc);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(o, "derived"));
  free(o);
  assert_int_equal(cube_fixture_save(bad, "not a cube", 10), 0);
  o = run_cli(3, (char *[]){"cubex_check", path, bad, NULL}, &rc);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(o, "INVALID"));
  free(o);
  o = run_cli(1, (char *[]){"cubex_check", NULL}, &rc);
  assert_int_equal(rc, 2);
  free(o);
  o = run_cli(3, (char *[]){"cubex_check", "--bogus", path, NULL}, &rc);
  assert_int_equal(rc, 2);
  free(o);
  pm_profile_free(p);
  cube_fixture_rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_minimal_valid), cmocka_unit_test(test_rejects_ids),
      cmocka_unit_test(test_rejects_xml),   cmocka_unit_test(test_rejects_metric_definitions),
      cmocka_unit_test(test_rejects_data),  cmocka_unit_test(test_rejects_container),
      cmocka_unit_test(test_truncations),   cmocka_unit_test(test_flips_do_not_crash),
      cmocka_unit_test(test_row_orders),    cmocka_unit_test(test_notes_example),
      cmocka_unit_test(test_gpu_needs_47),  cmocka_unit_test(test_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
