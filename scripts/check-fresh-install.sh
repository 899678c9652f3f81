#!/usr/bin/env bash
# The fresh-install check: does the README's set-up work on a fresh Debian 12 machine, from public
# sources alone? For each case (the default stack, PETSc 3.26.1, and SQUALL_PETSC_VERSION=3.22.5) it
#   - makes a clean Debian 12 root (debootstrap --variant=minbase bookworm, from Debian's archive),
#   - puts a fresh `git clone` of this repository (its committed HEAD) in /root/squall there,
#   - runs inside that root (chroot, /proc /sys /dev mounted), as root, exactly the README's commands
#       bash scripts/setup.sh
#       bash scripts/test.sh
#     printing each command's wall time and exit status, then the versions and the machine size.
# When every case passes it writes the checksum of the dependency stack it verified
# (scripts/install-deps.sh, scripts/deps/) into scripts/deps/verified.sha256, which .ci/run compares
# with the stack it runs (commit that file).
#
# usage (as root): scripts/check-fresh-install.sh [options]
#   --dir DIR        where the roots are made (default /var/tmp/squall-fresh-install; ~6 GB per case)
#   --repo DIR       the repository to clone (default: the one this script is in)
#   --case C         only this case: default or 3.22.5 (repeatable; default: both)
#   --fetch-only     stop each case before anything is built: run `install-deps.sh --fetch-only` in the
#                    root instead of the README's commands (checks apt packages and downloads; minutes)
#   --resume         rerun a failed case in its existing root (the dependency build resumes where it
#                    stopped, a fresh clone replaces the old one); refused when the dependency stack
#                    changed since that root was made
#   --fresh          redo cases that passed before (default: a case that passed with the current
#                    commit and stack is reported, not rerun)
# It takes about 45 minutes per case on 2 cores. Network: Debian's archive and PyPI; where the host
# reaches them through a TLS proxy with its own CA (a PIP_CERT or /usr/local/share/ca-certificates),
# that CA bundle is handed to pip inside the root (PIP_CERT), and the host's apt Acquire settings
# (e.g. Check-Valid-Until for a snapshot archive) are copied; nothing else comes from the host.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=/var/tmp/squall-fresh-install
cases=() fetch_only=0 resume=0 fresh=0
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=${2:?}; shift ;;
    --repo) repo=$(cd "${2:?}" && pwd); shift ;;
    --case) cases+=("${2:?}"); shift ;;
    --fetch-only) fetch_only=1 ;;
    --resume) resume=1 ;;
    --fresh) fresh=1 ;;
    -h | --help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#cases[@]} -eq 0 ] && cases=(default 3.22.5)
for c in "${cases[@]}"; do case $c in default | 3.22.5) ;; *) echo "--case $c: default or 3.22.5" >&2; exit 2 ;; esac; done
[ "$(id -u)" -eq 0 ] || { echo "run as root (debootstrap and chroot need it)" >&2; exit 1; }
say() { echo "[fresh-install] $*"; }
hms() { local s=$1; printf '%dm%02ds' $((s / 60)) $((s % 60)); }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stack=$(bash "$repo/scripts/deps/stack-checksum.sh")
stack_sum=$(echo "$stack" | sha256sum | awk '{print $1}')
if [ -n "$(git -C "$repo" status --porcelain -- scripts/install-deps.sh scripts/deps ':!scripts/deps/verified.sha256')" ]; then
  say "the dependency stack in $repo has uncommitted changes: the check clones the committed HEAD, so commit them first" >&2
  exit 1
fi

# ---------------------------------------------------------------- mounts (always undone)
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  mounted=()
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
mount_root() {
  local r=$1
  mkdir -p "$r/proc" "$r/sys" "$r/dev"
  mount -t proc proc "$r/proc" || { echo "mounting $r/proc failed" >&2; exit 1; }
  mounted+=("$r/proc")
  if mount --bind /sys "$r/sys"; then
    mounted+=("$r/sys")
    mount -o remount,bind,ro "$r/sys" 2>/dev/null || true
  fi
  mount --bind /dev "$r/dev" || { echo "binding /dev into $r failed" >&2; exit 1; }
  mounted+=("$r/dev")
  if [ -d /dev/pts ] && mountpoint -q /dev/pts; then mount --bind /dev/pts "$r/dev/pts" && mounted+=("$r/dev/pts"); fi
  if [ -d /dev/shm ] && mountpoint -q /dev/shm; then mount --bind /dev/shm "$r/dev/shm" && mounted+=("$r/dev/shm"); fi
}
# before deleting a root: undo mounts an interrupted earlier run left there, and never cross into one
unmount_under() {
  local m
  for m in $(awk -v p="$1/" 'index($2, p) == 1 {print $2}' /proc/mounts | sort -r); do umount -l "$m" || true; done
  if awk -v p="$1/" 'index($2, p) == 1 {found=1} END {exit !found}' /proc/mounts; then echo "mounts remain under $1: not deleting it" >&2; exit 1; fi
}
safe_rm() {
  [ -e "$1" ] || return 0
  unmount_under "$1"
  rm -rf --one-file-system "$1"
}

# ---------------------------------------------------------------- the base root
base=$dir/base
if [ ! -f "$base/.squall-base-done" ]; then
  command -v debootstrap >/dev/null || { say "apt-get install debootstrap"; apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  safe_rm "$base"
  say "debootstrap --variant=minbase bookworm $base (from http://deb.debian.org/debian)"
  t=$(date +%s)
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian > "$dir/debootstrap.log" 2>&1 ||
    { tail -n 20 "$dir/debootstrap.log"; say "debootstrap failed (log: $dir/debootstrap.log)"; exit 1; }
  # the network as the host reaches it (DNS, the proxy's CA for pip, apt's Acquire settings)
  cp -L /etc/resolv.conf "$base/etc/resolv.conf" 2>/dev/null || true
  cat > "$base/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  touch "$base/.squall-base-done"
  say "  base root ready in $(hms $(($(date +%s) - t)))"
fi
host_ca=""
if [ -n "${PIP_CERT:-}" ] || ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  host_ca=${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}
fi
apt_net=$(grep -h -E '^[[:space:]]*Acquire::(Check-Valid-Until|Check-Date|http::Proxy|https::Proxy)' /etc/apt/apt.conf /etc/apt/apt.conf.d/* 2>/dev/null || true)

machine="$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) memory"
say "machine: $machine; host load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
say "dependency stack: sha256 of its file list $stack_sum"

# ---------------------------------------------------------------- one case
results=()
run_case() {
  local c=$1 r=$dir/case-$1 env=() shown="" rcs="" line cmd t rc logf
  if [ "$c" = 3.22.5 ]; then env+=(SQUALL_PETSC_VERSION=3.22.5); shown="SQUALL_PETSC_VERSION=3.22.5 "; fi
  if [ "$fresh" = 0 ] && [ -f "$r/.result" ] && grep -q "^pass $stack_sum$" "$r/.result" 2>/dev/null; then
    say "case $c: passed before with this dependency stack (kept; --fresh reruns it):"
    sed 's/^/  /' "$r/summary.txt"
    results+=("$c pass")
    return 0
  fi
  if [ "$resume" = 1 ] && [ -d "$r/root" ]; then
    [ "$(cat "$r/stack" 2>/dev/null)" = "$stack_sum" ] ||
      { say "case $c: the dependency stack changed since $r was made: --resume refused (run without it)"; exit 1; }
    say "case $c: resuming in $r/root (fresh clone, dependency build kept)"
    unmount_under "$r/root"
    rm -rf "$r/root/root/squall"
  else
    say "case $c: fresh root $r/root (copy of the base)"
    safe_rm "$r"
    mkdir -p "$r"
    cp -a "$base" "$r/root"
    echo "$stack_sum" > "$r/stack"
  fi
  rm -f "$r/.result"
  git clone -q --no-local "$repo" "$r/root/root/squall"
  if [ -n "$host_ca" ]; then
    cp -L "$host_ca" "$r/root/etc/host-proxy-ca.crt"
    env+=(PIP_CERT=/etc/host-proxy-ca.crt)
    say "case $c: pip inside the root trusts the host's CA bundle $host_ca (PIP_CERT), as the host's pip does"
  fi
  [ -n "$apt_net" ] && echo "$apt_net" > "$r/root/etc/apt/apt.conf.d/99host-network"
  mount_root "$r/root"
  local cmds=("bash scripts/setup.sh" "bash scripts/test.sh")
  [ "$fetch_only" = 1 ] && cmds=("bash scripts/install-deps.sh --fetch-only")
  : > "$r/summary.txt"
  for cmd in "${cmds[@]}"; do
    logf=$r/$(echo "$cmd" | sed 's/^bash scripts\///; s/[^a-z0-9.-]/_/g').log
    say "case $c: $shown$cmd   (output: $logf; its progress lines follow)"
    t=$(date +%s)
    rm -f "$r/.rc"
    { chroot "$r/root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${env[@]}" \
        bash -c "cd /root/squall && $cmd" || echo $? > "$r/.rc"; } 2>&1 | tee "$logf" |
      { grep --line-buffered -E '^\[install-deps\]|tests passed|tests failed' || true; } | sed -u 's/^/    /'
    rc=0
    if [ -f "$r/.rc" ]; then rc=$(cat "$r/.rc"); rm -f "$r/.rc"; fi
    line="$shown$cmd: exit $rc, wall $(hms $(($(date +%s) - t)))"
    say "case $c: $line"
    echo "$line" >> "$r/summary.txt"
    rcs+=" $rc"
    if [ "$rc" -ne 0 ]; then
      tail -n 30 "$logf" | sed 's/^/    | /'
      break
    fi
  done
  # versions
  local pd ver
  pd=$(ls -d "$r"/root/opt/squall-deps/*/include/petscversion.h 2>/dev/null | head -n 1 || true)
  ver=$(awk '/^#define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)[ \t]/ {v=v (v==""?"":".") $3} END {print v}' "$pd" 2>/dev/null || true)
  pd=${pd%/include/petscversion.h}
  pd=${pd#"$r/root"}
  {
    echo "Debian $(cat "$r/root/etc/debian_version"), $(chroot "$r/root" sh -c 'gcc --version 2>/dev/null | head -n1; cmake --version 2>/dev/null | head -n1; dpkg-query -W -f="mpich \${Version}, hdf5 " mpich 2>/dev/null; dpkg-query -W -f="\${Version}, openblas " libhdf5-mpich-dev 2>/dev/null; dpkg-query -W -f="\${Version}\n" libopenblas-dev 2>/dev/null' | paste -sd';' | sed 's/;/; /g')"
    if [ -n "$ver" ]; then echo "PETSc $ver in $pd (p4est 2.3.6, hypre 2.32.0)"; else echo "PETSc: not installed"; fi
    grep -h -E '^(100% tests passed|[0-9]+% tests passed)' "$r"/*.log 2>/dev/null | tail -n 1 || true
    echo "machine: $machine"
  } >> "$r/summary.txt"
  cleanup
  sed 's/^/  /' "$r/summary.txt"
  if [ -z "$(echo "$rcs" | tr -d ' 0')" ] && [ "$fetch_only" = 0 ]; then
    echo "pass $stack_sum" > "$r/.result"
    results+=("$c pass")
  elif [ -z "$(echo "$rcs" | tr -d ' 0')" ]; then
    results+=("$c fetch-only-pass")
  else
    results+=("$c FAIL")
  fi
}

for c in "${cases[@]}"; do run_case "$c"; done
say "results: ${results[*]}"
all_pass=1
for c in default 3.22.5; do
  grep -q "^pass $stack_sum$" "$dir/case-$c/.result" 2>/dev/null || all_pass=0
done
if [ "$all_pass" = 1 ]; then
  {
    echo "# The dependency stack the last fresh-install check (scripts/check-fresh-install.sh) verified:"
    echo "# both cases passed the README's two commands in a fresh Debian 12 root, $(date -u +%F)."
    for c in default 3.22.5; do sed "s/^/# [$c] /" "$dir/case-$c/summary.txt"; done
    echo "$stack"
  } > "$repo/scripts/deps/verified.sha256"
  say "both cases passed: wrote scripts/deps/verified.sha256 (commit it; .ci/run compares it with the stack)"
else
  say "scripts/deps/verified.sha256 not written: it needs both cases (default, 3.22.5) passed with this dependency stack"
  case " ${results[*]} " in *FAIL*) exit 1 ;; esac
fi
