# A text file as the lines of a C string literal (view/Makefile.am embeds view.js and view.css).
s/\\/\\\\/g
s/"/\\"/g
s/^/"/
s/$/\\n"/
