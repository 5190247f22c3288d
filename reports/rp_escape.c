/* Escaping for the text formats the report writes. Region names come from the measured program
 * and may hold anything: every writer goes through here, so that the HTML stays valid, the CSV
 * parseable and the Markdown table unbroken whatever a name contains. */
#include "rp_output.h"
#include "pm_util.h"
#include <stdlib.h>
#include <string.h>

typedef const char *(*escape_fn)(unsigned char c);

/* Walks s as UTF-8; ASCII bytes go through esc (NULL: as is), the rest is copied or replaced. */
static void put_escaped(FILE *out, const char *s, escape_fn esc) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    size_t n = pm_utf8_seq(p);
    if (n == 0) {
      fputs("\xEF\xBF\xBD", out);
      p++;
    } else if (n > 1) {
      fwrite(p, 1, n, out);
      p += n;
    } else {
      const char *e = esc(*p);
      if (e)
        fputs(e, out);
      else if (*p < 0x20 || *p == 0x7F)
        fputc(' ', out);
      else
        fputc(*p, out);
      p++;
    }
  }
}

static const char *esc_html(unsigned char c) {
  switch (c) {
  case '&': return "&amp;";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '"': return "&quot;";
  case '\'': return "&#39;";
  default: return NULL;
  }
}

static const char *esc_csv(unsigned char c) { return c == '"' ? "\"\"" : NULL; }

static const char *esc_md(unsigned char c) {
  static char buf[256][3];
  if (!strchr("|\\`*_<>[]", c) || c == 0) return NULL;
  buf[c][0] = '\\';
  buf[c][1] = (char)c;
  return buf[c];
}

void rp_put_html(FILE *out, const char *s) { put_escaped(out, s, esc_html); }
void rp_put_md(FILE *out, const char *s) { put_escaped(out, s, esc_md); }

void rp_put_csv(FILE *out, const char *s) {
  int quote = s && strpbrk(s, ",\"\r\n") != NULL;
  if (quote) fputc('"', out);
  put_escaped(out, s, esc_csv);
  if (quote) fputc('"', out);
}

char *rp_utf8_clean(const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  char *out = malloc(3 * strlen((const char *)p) + 1), *o = out;
  if (!out) return NULL;
  while (*p) {
    size_t n = pm_utf8_seq(p);
    if (n == 0) {
      memcpy(o, "\xEF\xBF\xBD", 3);
      o += 3;
      p++;
    } else {
      memcpy(o, p, n);
      o += n;
      p += n;
    }
  }
  *o = '\0';
  return out;
}

void rp_put_base64(FILE *out, const unsigned char *d, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i;
  for (i = 0; i + 2 < n; i += 3) {
    unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
    fputc(tab[v >> 18], out);
    fputc(tab[(v >> 12) & 63], out);
    fputc(tab[(v >> 6) & 63], out);
    fputc(tab[v & 63], out);
  }
  if (i < n) {
    unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0);
    fputc(tab[v >> 18], out);
    fputc(tab[(v >> 12) & 63], out);
    fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', out);
    fputc('=', out);
  }
}
