#!/bin/sh
# Prints, then waits; on SIGTERM prints a last line and exits 0.
trap 'printf "bye after term\n"; exit 0' TERM
printf 'working\n'
while :; do sleep 0.05; done
