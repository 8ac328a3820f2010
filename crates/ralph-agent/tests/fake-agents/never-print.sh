#!/bin/sh
# Never prints and never exits.
exec sleep 1000
