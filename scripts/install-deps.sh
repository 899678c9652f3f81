#!/usr/bin/env bash
# Provide PETSc 3.22.5 (+ p4est 2.3.6, hypre 2.32.0, HDF5, MPICH) for squall. Idempotent.
#   1. PETSC_DIR set          -> use that PETSc as it is.
#   2. bundle already in /opt/squall-deps/<variant> -> nothing to do (runtime packages checked).
#   3. SQUALL_DEPS_CACHE has squall-deps-<variant>.tar.xz (+ .sha256) -> verify and unpack it.
#   4. otherwise build the stack from Debian source packages (scripts/deps/build-deps.sh).
# <variant> is SQUALL_DEPS_VARIANT if set, else "cuda" when an NVIDIA GPU and nvcc are present,
# else "cpu" (append "-single" for 32-bit PETSc). Prints the PETSC_DIR to use on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix_root=${SQUALL_DEPS_PREFIX:-/opt/squall-deps}
log() { echo "[install-deps] $*" >&2; }

if [ -n "${PETSC_DIR:-}" ]; then
  log "using PETSC_DIR=$PETSC_DIR${PETSC_ARCH:+ PETSC_ARCH=$PETSC_ARCH} as it is"
  echo "$PETSC_DIR"
  exit 0
fi

if [ -z "${SQUALL_DEPS_VARIANT:-}" ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU && command -v nvcc >/dev/null 2>&1; then
    SQUALL_DEPS_VARIANT=cuda
  else
    SQUALL_DEPS_VARIANT=cpu
  fi
fi
variant=$SQUALL_DEPS_VARIANT
case $variant in cpu|cuda|cpu-single|cuda-single) ;; *) log "SQUALL_DEPS_VARIANT=$variant: valid are cpu, cuda, cpu-single, cuda-single"; exit 2 ;; esac
dest=$prefix_root/$variant

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# the CPU bundles link Debian's MPICH, HDF5 (mpich flavour) and OpenBLAS; the CUDA bundles carry their own
runtime_pkgs=(libmpich-dev mpich libhdf5-mpich-dev libopenblas-dev pkg-config cmake make gcc g++ python3)
case $variant in cpu*) apt_install "${runtime_pkgs[@]}" ;; *) apt_install cmake make gcc g++ pkg-config python3 ;; esac

if [ -f "$dest/lib/libpetsc.so" ] && [ -f "$dest/lib/pkgconfig/PETSc.pc" ]; then
  log "PETSc ($variant) already installed in $dest"
  echo "$dest"
  exit 0
fi

tarball=${SQUALL_DEPS_CACHE:+$SQUALL_DEPS_CACHE/squall-deps-$variant.tar.xz}
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
  if [ -f "$tarball.sha256" ]; then
    want=$(awk '{print $1}' "$tarball.sha256")
    got=$(sha256sum "$tarball" | awk '{print $1}')
    [ "$want" = "$got" ] || { log "checksum mismatch for $tarball"; exit 1; }
  else
    log "no $tarball.sha256: refusing an unverified bundle"; exit 1
  fi
  log "unpacking $tarball into $prefix_root"
  mkdir -p "$prefix_root"
  tar -C "$prefix_root" -xJf "$tarball"
  [ -f "$dest/lib/libpetsc.so" ] || { log "bundle did not provide $dest/lib/libpetsc.so"; exit 1; }
  echo "$dest"
  exit 0
fi

# ---- build from Debian source packages
log "no bundle found (SQUALL_DEPS_CACHE=${SQUALL_DEPS_CACHE:-unset}): building PETSc from source, this takes a while"
apt_install "${runtime_pkgs[@]}" autoconf automake libtool zlib1g-dev patchelf dpkg-dev ca-certificates
src=${SQUALL_DEPS_SRC:-$prefix_root/src}
mkdir -p "$src"
if ! ls "$src"/petsc_3.22.5*.orig.tar.xz >/dev/null 2>&1 || ! ls "$src"/hypre_2.32.0.orig.tar.gz >/dev/null 2>&1 || ! ls "$src"/p4est_2.3.6.orig.tar.xz >/dev/null 2>&1; then
  # hypre 2.32 and PETSc 3.22.5 are in trixie, p4est 2.3.6 in sid: add their source lists for this download only
  lists=$(mktemp -d)
  printf 'deb-src http://deb.debian.org/debian trixie main\ndeb-src http://deb.debian.org/debian sid main\n' > "$lists/squall-src.list"
  apt-get -o Dir::Etc::SourceList="$lists/squall-src.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$lists" update -qq >&2
  (cd "$src" && for p in petsc=3.22.5+dfsg1-1 hypre p4est; do
     apt-get -o Dir::Etc::SourceList="$lists/squall-src.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$lists" \
       source --download-only "$p" >&2 || true
   done)
  rm -rf "$lists"
fi
build=${variant%-single}
if [ "$variant" != "$build" ]; then export PRECISION=single; fi
bash "$here/deps/build-deps.sh" "$build" "$dest" "$src" >&2
echo "$dest"
