#!/bin/sh
# Starts a grandchild that ignores SIGTERM (and keeps stdout open), records its pid in
# $FAKE_OUT/grandchild.pid, prints, then hangs (or exits with $1 when given).
sh -c 'trap "" TERM; echo $$ > "$FAKE_OUT/grandchild.pid.tmp"; mv "$FAKE_OUT/grandchild.pid.tmp" "$FAKE_OUT/grandchild.pid"; while :; do sleep 1; done' &
while [ ! -s "$FAKE_OUT/grandchild.pid" ]; do sleep 0.01; done
printf 'started\n'
if [ -n "$1" ]; then exit "$1"; fi
exec sleep 1000
