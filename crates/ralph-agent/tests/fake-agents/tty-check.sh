#!/bin/sh
# Reports whether stdin and stdout are terminals, prints two lines, exits 3.
if [ -t 0 ] && [ -t 1 ]; then printf 'tty yes\n'; else printf 'tty no\n'; fi
printf 'line1\nline2\n'
exit 3
