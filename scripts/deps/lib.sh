# Shared by install-deps.sh and the build scripts in scripts/deps (sourced, not run).
# Progress output of the long dependency build: every step says what it does, where its log is,
# how long it took; a failed step prints the end of its log and how to resume.

_squall_t0=${_squall_t0:-$(date +%s)}
export _squall_t0

log() { echo "[install-deps] $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

hms() { # seconds -> 1h02m03s / 2m03s / 3s
  local s=$1
  if [ "$s" -ge 3600 ]; then printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
  elif [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60))
  else printf '%ds' "$s"; fi
}

_last_line() { # the last informative line of a log (no rules of = or -, no blanks)
  tail -c 4000 "$1" 2>/dev/null | tr '\r' '\n' | grep -v -E '^[[:space:]=*-]*$' | tail -n 1 | sed 's/^[[:space:]]*//' | cut -c1-110
}

# step WORKDIR ID "TITLE" COMMAND...
#   runs COMMAND with its output in WORKDIR/logs/ID.log; skipped when WORKDIR/.done-ID exists
#   (so a rerun after a failure resumes at the failed step). Prints a heartbeat every minute.
step() {
  local work=$1 id=$2 title=$3
  shift 3
  local logf="$work/logs/$id.log" start pid rc=0 n
  mkdir -p "$work/logs"
  if [ -f "$work/.done-$id" ]; then
    log "  $title: done in an earlier run (kept in $work), skipped"
    return 0
  fi
  start=$(date +%s)
  log "  $title ... (log: $logf)"
  ("$@") >"$logf" 2>&1 </dev/null &
  pid=$!
  n=$start
  while kill -0 "$pid" 2>/dev/null; do
    sleep 2
    if [ $(($(date +%s) - n)) -ge 60 ] && kill -0 "$pid" 2>/dev/null; then
      n=$(date +%s)
      log "    ... $(hms $(($(date +%s) - start))) into this step (total $(hms $(($(date +%s) - _squall_t0)))): $(_last_line "$logf")"
    fi
  done
  wait "$pid" || rc=$?
  if [ "$rc" -ne 0 ]; then
    log "FAILED: $title (exit $rc after $(hms $(($(date +%s) - start)))). Last lines of $logf:"
    tail -n 40 "$logf" | sed 's/^/    | /' >&2
    log "Fix the cause shown above (full log: $logf), then run the same command again:"
    log "the steps that finished are kept in $work and are not repeated."
    exit 1
  fi
  touch "$work/.done-$id"
  log "  $title: done in $(hms $(($(date +%s) - start))) (total $(hms $(($(date +%s) - _squall_t0))))"
}

# sha256 pin check: verify_sha256 FILE SHA256
verify_sha256() {
  local f=$1 want=$2 got
  [ -f "$f" ] || die "missing $f (its download failed; see the messages above)"
  got=$(sha256sum "$f" | awk '{print $1}')
  [ "$got" = "$want" ] || die "checksum mismatch for $f: expected sha256 $want, got $got (delete it and rerun)"
}

# MPICH's compiler wrappers: sets MPICC/MPICXX to "mpicc"/"mpicxx" when those are MPICH's (the names
# PETSc then records stay portable), else to Debian's /usr/bin/mpicc.mpich and mpicxx.mpich (where the
# alternatives point at another MPI), and makes MPICH's mpiexec come first on the PATH for the build.
use_mpich_wrappers() {
  local work=$1
  MPICC=mpicc MPICXX=mpicxx
  if mpicc -show 2>/dev/null | grep -q mpich && mpiexec --version 2>/dev/null | grep -qi hydra; then return 0; fi
  [ -x /usr/bin/mpicc.mpich ] || die "mpicc is not MPICH's and /usr/bin/mpicc.mpich is missing (apt-get install mpich libmpich-dev)"
  MPICC=/usr/bin/mpicc.mpich MPICXX=/usr/bin/mpicxx.mpich
  mkdir -p "$work/mpich-bin"
  ln -sf /usr/bin/mpiexec.mpich "$work/mpich-bin/mpiexec"
  # hydra looks for its proxy beside the mpiexec it was started as, not beside its real file
  for h in /usr/bin/hydra_*; do [ -e "$h" ] && ln -sf "$h" "$work/mpich-bin/"; done
  export PATH="$work/mpich-bin:$PATH"
  log "  mpicc is not MPICH's here: building with $MPICC and $MPICXX"
}
