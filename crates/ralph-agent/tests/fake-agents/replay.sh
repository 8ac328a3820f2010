#!/bin/sh
# Writes a file to stdout, then exits with the given code (default 0).
cat "$1"
exit "${2:-0}"
