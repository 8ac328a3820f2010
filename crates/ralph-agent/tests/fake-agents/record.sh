#!/bin/sh
# Records its arguments (NUL-terminated) and its stdin into $FAKE_OUT, then exits 0.
: > "$FAKE_OUT/argv"
for a in "$@"; do printf '%s\0' "$a" >> "$FAKE_OUT/argv"; done
cat > "$FAKE_OUT/stdin"
printf 'recorded\n'
