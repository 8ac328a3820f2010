#!/bin/sh
# Prints a line, closes stdout, and keeps running without exiting.
printf 'bye stdout\n'
exec 1>&-
exec sleep 1000
