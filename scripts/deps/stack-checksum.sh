#!/usr/bin/env bash
# The files that define squall's dependency stack, with their sha256 (sha256sum's format), for the
# record scripts/check-fresh-install.sh keeps in scripts/deps/verified.sha256 and .ci/run compares:
# scripts/install-deps.sh and every file under scripts/deps except that record.
#   stack-checksum.sh          prints the list
#   stack-checksum.sh --check  exits 1 (saying which files differ) when the list differs from the record,
#                              2 when there is no record yet (no fresh-install check has run)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
record=scripts/deps/verified.sha256
list() {
  cd "$root"
  { echo scripts/install-deps.sh; find scripts/deps -type f ! -path "$record" | LC_ALL=C sort; } | xargs sha256sum
}
if [ "${1:-}" != --check ]; then list; exit 0; fi
if [ ! -f "$root/$record" ]; then
  echo "$record is missing: no fresh-install check has verified this dependency stack; run scripts/check-fresh-install.sh" >&2
  exit 2
fi
if ! out=$(diff <(grep -v '^#' "$root/$record") <(list) 2>&1); then
  echo "the dependency stack (scripts/install-deps.sh, scripts/deps/) differs from the one the last fresh-install check verified ($record):" >&2
  echo "$out" | sed 's/^/  /' >&2
  echo "run scripts/check-fresh-install.sh (about 45 minutes on 2 cores) and commit the $record it writes" >&2
  exit 1
fi
echo "dependency stack matches $record (verified by a fresh-install check)"
