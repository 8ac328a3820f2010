#!/bin/sh
# A command-driven agent: answers each line of stdin with `got LINE`; `abort` is answered
# with `aborted` and `DONE` (the end of its turn); `exit` makes it exit 3 with stdin still
# open; it exits 0 at end of file. TERM is ignored when $IGNORE_TERM is set.
[ -n "$IGNORE_TERM" ] && trap '' TERM
while IFS= read -r line; do
    case "$line" in
        abort) echo aborted; echo DONE ;;
        exit) exit 3 ;;
        *) echo "got $line" ;;
    esac
done
echo eof
exit 0
