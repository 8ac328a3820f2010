#!/bin/sh
# Prints one line, then never prints again and never exits.
printf 'hello\n'
exec sleep 1000
