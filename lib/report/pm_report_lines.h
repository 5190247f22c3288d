/* Lines of a bounded text table: each line is cut at the table's width (counting only visible
 * characters), flagged values may be coloured, and lines past the table's line budget are dropped
 * (counted, so a test can assert the budget is never needed). */
#ifndef PM_REPORT_LINES_H
#define PM_REPORT_LINES_H
#include <stdio.h>

typedef struct {
  FILE *out;
  int width, color, max_lines;
  int lines, dropped; /* written, and dropped for the budget */
  char buf[1024];     /* the current line, colour codes included */
  int used;           /* bytes in buf */
  int visible;        /* columns in buf */
} pm_lines;

void pm_lines_init(pm_lines *t, FILE *out, int width, int color, int max_lines);
/* Appends text (printf-style) to the current line, cut at the width. */
void pm_lines_add(pm_lines *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a phrase that is not to be cut: when the rest of the line has no room for sep + the
 * phrase, the line ends and the phrase goes on a new line, indented by indent columns, without sep
 * (a phrase wider than a whole line is still cut at the width). */
void pm_lines_phrase(pm_lines *t, int indent, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends text word by word, each a phrase separated by one blank: prose that wraps under indent
 * instead of being cut. */
void pm_lines_words(pm_lines *t, int indent, const char *text);
/* Appends spaces up to visible column col (nothing when already there). */
void pm_lines_pad(pm_lines *t, int col);
/* Appends an efficiency "0.87", followed by " !" (red with colours) when below flag_below; with
 * flag_below <= 0 never flagged. */
void pm_lines_value(pm_lines *t, double v, double flag_below);
/* Ends the current line: written when within the budget. */
void pm_lines_end(pm_lines *t);
/* A full-width rule of c, with an optional title after three of them. */
void pm_lines_rule(pm_lines *t, char c, const char *title);
#endif
