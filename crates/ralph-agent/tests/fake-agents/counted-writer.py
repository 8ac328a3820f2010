#!/usr/bin/env python3
"""Writes 64 KiB chunks forever. After each chunk is completely written to stdout, the
running total is stored in $FAKE_OUT/written (atomically), so the test knows a lower
bound of what reached the pipe when the writer was killed."""
import os

out = os.path.join(os.environ["FAKE_OUT"], "written")
chunk = b"0123456789abcdef" * 4096
total = 0
while True:
    view = memoryview(chunk)
    while view:
        n = os.write(1, view)
        view = view[n:]
    total += len(chunk)
    with open(out + ".tmp", "w") as f:
        f.write(str(total))
    os.replace(out + ".tmp", out)
