#!/bin/sh
# Writes BYTES zero bytes to stdout as fast as possible, then exits 0.
exec head -c "$1" /dev/zero
