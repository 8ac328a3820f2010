#!/bin/sh
# Prints a line and a line on stderr, then exits with CODE.
printf 'out\n'
printf 'something failed\n' >&2
exit "$1"
