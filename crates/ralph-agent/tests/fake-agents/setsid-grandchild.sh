#!/bin/sh
# Starts a grandchild in a new session (like pi's detached bash tool), records its pid in
# $FAKE_OUT/grandchild.pid, prints, then hangs (or exits with $1 when given).
setsid sh -c 'echo $$ > "$FAKE_OUT/grandchild.pid.tmp"; mv "$FAKE_OUT/grandchild.pid.tmp" "$FAKE_OUT/grandchild.pid"; exec sleep 1000' </dev/null >/dev/null 2>&1 &
while [ ! -s "$FAKE_OUT/grandchild.pid" ]; do sleep 0.01; done
printf 'started\n'
if [ -n "$1" ]; then exit "$1"; fi
exec sleep 1000
