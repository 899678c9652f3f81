#!/bin/sh
# A run that must fail: expect-failure.sh REGEX "FILE..." COMMAND...
# passes when COMMAND exits non-zero, its output matches the extended regular expression REGEX, and
# none of the files (removed first) was written.
regex=$1; files=$2; shift 2
for f in $files; do rm -f "$f"; done
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
# a GPU run (-test_require_gpu) without a usable device reports itself skipped: so does this test
if [ $rc -eq 200 ] && printf '%s\n' "$out" | grep -q "no usable CUDA device: skipped"; then exit 200; fi
[ $rc -ne 0 ] || { echo "expect-failure: exit status 0"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "expect-failure: no line matches: $regex"; exit 1; }
for f in $files; do [ ! -e "$f" ] || { echo "expect-failure: $f was written"; exit 1; }; done
echo "expect-failure: exit status $rc, message found, nothing written"
