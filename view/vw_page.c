/* The page: one HTML file that needs nothing else -- its style, its data and its script inline, the
 * drawing done by the script in SVG (view.js, view.css, embedded at build time into vw_assets.c).
 * The data sits in a <script type="application/json"> element, read with JSON.parse: a browser
 * parses that faster than the same text as a script, and the page stays readable by other tools. */
#include "vw.h"
#include <string.h>

extern const char vw_js[], vw_css[];

/* The title's text, escaped for HTML. */
static void html_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else
      fputc(*s, f);
  }
}

int vw_page_write(FILE *f, const vw_page *pg) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>popmeter view: ", f);
  html_text(f, pg->p->app);
  fputs("</title>\n<style>\n", f);
  fputs(vw_css, f);
  /* errors of the script are recorded in the page itself, where a test (or a person) finds them */
  fputs("</style>\n<script>window.pmErrors=[];window.onerror=function(m,s,l){window.pmErrors.push(m+' (line '+l+')');"
        "document.documentElement.setAttribute('data-errors',window.pmErrors.join(' | '));};</script>\n"
        "</head>\n<body>\n<div id=\"app\">popmeter view: the page needs JavaScript to draw.</div>\n"
        "<script id=\"pm-data\" type=\"application/json\">",
        f);
  if (vw_json_write(f, pg) != 0) return -1;
  fputs("</script>\n<script>\n", f);
  fputs(vw_js, f);
  fputs("</script>\n</body></html>\n", f);
  return ferror(f) ? -1 : 0;
}
