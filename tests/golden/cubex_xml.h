/* A strict reader for the XML subset CubeLib's anchor scanner accepts (docs/cube-format.md §2).
 *
 * CubeLib does not use an XML parser: it matches literal tokens. So this reader rejects what CubeLib
 * rejects even where XML would allow it: comments, single-quoted attributes, entities other than the
 * five predefined ones, a missing XML declaration, a <cube> tag other than the exact literal
 * <cube version="N.M">. It keeps the two CubeLib quirks: the unquoted attributes of <cubepl> and
 * <cubeplaggr> (cubeplaggrtype=aggr), and the verbatim (undecoded) content of CubePL elements. */
#ifndef CUBEX_XML_H
#define CUBEX_XML_H
#include <stddef.h>

typedef struct cx_node {
  char *tag;
  int nattr;
  char **key, **val; /* decoded attribute values */
  char *text;        /* decoded character content (CubePL elements: verbatim), "" if none */
  struct cx_node **child;
  int nchild, cap;
  struct cx_node *parent;
  int line; /* line of the start tag, for messages */
} cx_node;

/* Parses a whole anchor; returns the <cube> element (whose "version" attribute holds the literal
 * version) or NULL with a message "line N: ..." in err. */
cx_node *cx_parse(const char *buf, size_t len, char *err, size_t errlen);
void cx_free(cx_node *n);
const char *cx_attr(const cx_node *n, const char *key); /* NULL when absent */
#endif
