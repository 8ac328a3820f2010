#!/bin/sh
# Prints its terminal event, then hangs (like pi or Claude not exiting after the end).
printf 'working\nDONE\n'
exec sleep 1000
