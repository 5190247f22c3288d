/* Bounded table lines (pm_report_lines.h). */
#include "pm_report_lines.h"
#include <stdarg.h>
#include <string.h>

#define RED "\033[31m"
#define RESET "\033[0m"

void pm_lines_init(pm_lines *t, FILE *out, int width, int color, int max_lines) {
  memset(t, 0, sizeof *t);
  t->out = out;
  t->width = width < (int)sizeof t->buf / 2 ? width : (int)sizeof t->buf / 2;
  t->color = color;
  t->max_lines = max_lines;
}

/* Appends raw bytes: visible ones count against the width, colour codes do not. */
static void put(pm_lines *t, const char *s, int visible) {
  int n = (int)strlen(s);
  if (visible) {
    int room = t->width - t->visible;
    if (room <= 0) return;
    if (n > room) n = room;
  }
  if (t->used + n >= (int)sizeof t->buf - 8) return; /* room kept for a closing RESET */
  memcpy(t->buf + t->used, s, (size_t)n);
  t->used += n;
  if (visible) t->visible += n;
  t->buf[t->used] = '\0';
}

void pm_lines_add(pm_lines *t, const char *fmt, ...) {
  char s[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s, sizeof s, fmt, ap);
  va_end(ap);
  put(t, s, 1);
}

void pm_lines_phrase(pm_lines *t, int indent, const char *sep, const char *fmt, ...) {
  char s[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s, sizeof s, fmt, ap);
  va_end(ap);
  if (t->visible + (int)(strlen(sep) + strlen(s)) > t->width && t->visible > indent) {
    pm_lines_end(t);
    pm_lines_pad(t, indent);
  } else {
    put(t, sep, 1);
  }
  put(t, s, 1);
}

void pm_lines_words(pm_lines *t, int indent, const char *text) {
  const char *sep = "";
  while (*text) {
    size_t blank = strspn(text, " "), len = strcspn(text + blank, " ");
    if (len) pm_lines_phrase(t, indent, sep, "%.*s", (int)len, text + blank);
    text += blank + len;
    sep = " ";
  }
}

void pm_lines_pad(pm_lines *t, int col) {
  while (t->visible < col && t->visible < t->width) put(t, " ", 1);
}

void pm_lines_value(pm_lines *t, double v, double flag_below) {
  char s[32];
  snprintf(s, sizeof s, "%.2f", v);
  int flag = flag_below > 0 && v < flag_below;
  if (flag && t->color) put(t, RED, 0);
  put(t, s, 1);
  if (flag) put(t, " !", 1);
  if (flag && t->color) put(t, RESET, 0);
}

void pm_lines_end(pm_lines *t) {
  while (t->visible > 0 && t->buf[t->used - 1] == ' ') { /* no trailing blanks */
    t->used--;
    t->visible--;
  }
  t->buf[t->used] = '\0';
  if (t->lines < t->max_lines) {
    fputs(t->buf, t->out);
    fputc('\n', t->out);
    t->lines++;
  } else {
    t->dropped++;
  }
  t->used = t->visible = 0;
  t->buf[0] = '\0';
}

void pm_lines_rule(pm_lines *t, char c, const char *title) {
  char s[1024];
  int n = 0;
  if (title) n = snprintf(s, sizeof s, "%c%c%c %s ", c, c, c, title);
  while (n < t->width && n < (int)sizeof s - 1) s[n++] = c;
  s[n] = '\0';
  put(t, s, 1);
  pm_lines_end(t);
}
