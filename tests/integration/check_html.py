#!/usr/bin/python3
"""Checks that an HTML report is valid HTML5 (html5lib, strict: any parse error fails) and
self-contained: no attribute pointing outside the page (only data: URIs and #anchors), no script,
link, iframe, object or embed element, no url() or @import in its styles.

    check_html.py FILE [MIN_IMAGES]   -> exit 0 when fine; prints what is wrong otherwise
"""
import re
import sys

import html5lib


def main():
    data = open(sys.argv[1], "rb").read()
    want_images = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        doc = parser.parse(data)
    except html5lib.html5parser.ParseError as e:
        print("invalid HTML:", e)
        return 1
    bad = []
    for el in doc.iter():
        if el.tag in ("script", "link", "iframe", "object", "embed", "base"):
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
