#!/bin/sh
# Prints COUNT lines, one every INTERVAL seconds, then exits 0.
i=0
while [ "$i" -lt "$1" ]; do
    i=$((i + 1))
    printf 'line %s\n' "$i"
    sleep "$2"
done
