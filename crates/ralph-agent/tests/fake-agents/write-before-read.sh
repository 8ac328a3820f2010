#!/bin/sh
# Writes BYTES to stdout before it reads stdin (into $FAKE_OUT/stdin): a supervisor that
# wrote the whole prompt before reading stdout would deadlock against it.
head -c "$1" /dev/zero
cat > "$FAKE_OUT/stdin"
