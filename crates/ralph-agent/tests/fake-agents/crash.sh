#!/bin/sh
# Prints, then kills itself with SIGUSR1 (default action: terminate, no core dump).
printf 'about to crash\n'
kill -s USR1 $$
sleep 5
