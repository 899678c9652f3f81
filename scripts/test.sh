#!/usr/bin/env bash
# The README's test command: install what is missing, build, and run the whole test suite.
# GPU tests (label gpu) skip themselves where there is no GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
. "$root/scripts/env.sh"
cd "${SQUALL_BUILD_DIR:-$root/build}"
ctest -j"${SQUALL_JOBS:-$(nproc)}" --output-on-failure --timeout 600 "$@"
