#!/usr/bin/python3
"""Checks that an HTML report is valid HTML5 (html5lib, strict: any parse error fails) and
self-contained: no attribute pointing outside the page (only data: URIs and #anchors), no script,
link, iframe, object or embed element, no url() or @import in its styles. With --inline-scripts,
scripts written in the page itself are allowed (popmeter view's page), never one with a src.

    check_html.py FILE [MIN_IMAGES] [--inline-scripts]   -> exit 0 when fine; prints what is wrong
"""
import re
import sys

import html5lib


def main():
    args = [a for a in sys.argv[1:] if a != "--inline-scripts"]
    inline = len(args) < len(sys.argv) - 1
    data = open(args[0], "rb").read()
    want_images = int(args[1]) if len(args) > 1 else 0
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        doc = parser.parse(data)
    except html5lib.html5parser.ParseError as e:
        print("invalid HTML:", e)
        return 1
    bad = []
    for el in doc.iter():
        if el.tag in ("script", "link", "iframe", "object", "embed", "base") and not (inline and el.tag == "script"):
            bad.append("element <%s>" % el.tag)
        for attr in ("src", "href", "data", "poster", "action", "srcset", "background"):
            v = el.get(attr)
            if v is not None and not v.startswith("data:") and not v.startswith("#"):
                bad.append("%s=%r on <%s>" % (attr, v[:80], el.tag))
        style = (el.text or "") if el.tag == "style" else (el.get("style") or "")
        if re.search(r"url\(|@import", style):
            bad.append("external reference in a style")
    images = [el for el in doc.iter() if el.tag == "img"]
    if len(images) < want_images:
        bad.append("%d images, expected at least %d" % (len(images), want_images))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
