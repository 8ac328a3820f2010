#!/bin/sh
# Writes a file to stdout (a real agent transcript), then hangs like an agent that does
# not exit after its terminal event.
cat "$1"
exec sleep 1000
