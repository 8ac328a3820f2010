#!/bin/sh
# Prints its terminal event, then exits 0 shortly after.
printf 'DONE\n'
sleep 0.2
exit 0
