#!/usr/bin/env python3
# Reports the size of the pipe it writes its stdout to (Linux F_GETPIPE_SZ) in $FAKE_OUT.
import fcntl
import os

F_GETPIPE_SZ = 1032
with open(os.environ["FAKE_OUT"], "w") as out:
    out.write(str(fcntl.fcntl(1, F_GETPIPE_SZ)))
