/* Output files that survive failures: paths checked before a run starts, files replaced atomically. */
#include "sys/squallimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* the directory part of path, "." when it has none */
static void DirName(const char path[], char dir[], size_t len)
{
  char tmp[PETSC_MAX_PATH_LEN];

  (void)PetscStrncpy(tmp, path, sizeof(tmp));
  (void)PetscStrncpy(dir, dirname(tmp), len);
}

/*@C
  SquallCheckOutputPath - checks, before any work is done, that a file can be created at path: its
  directory exists and is writable. Collective; the error names the option that gave the path.

  Input Parameters:
+ comm   - the communicator whose rank 0 writes the file
. option - the option that named the path, for the message (e.g. "-esdg_checkpoint")
- path   - the file (or, for multi-file outputs, the base name) to be written
@*/
PetscErrorCode SquallCheckOutputPath(MPI_Comm comm, const char option[], const char path[])
{
  char        dir[PETSC_MAX_PATH_LEN];
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCheck(path && path[0], comm, PETSC_ERR_ARG_WRONG, "%s needs a file name", option);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  DirName(path, dir, sizeof(dir));
  if (rank == 0 && access(dir, F_OK) != 0)
    err = 1;
  else if (rank == 0 && access(dir, W_OK) != 0)
    err = 2;
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(err != 1, comm, PETSC_ERR_FILE_OPEN, "%s %s: the directory %s does not exist", option, path, dir);
  PetscCheck(err != 2, comm, PETSC_ERR_FILE_OPEN, "%s %s: the directory %s is not writable", option, path, dir);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallOutputTemporaryName - the name under which a file is written before SquallOutputCommit()
  puts it in place: path with ".partial" appended, in the same directory (so the rename is atomic).
@*/
PetscErrorCode SquallOutputTemporaryName(const char path[], char tmp[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(tmp, len, "%s.partial", path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flush a file (or directory) to the storage device */
static int SyncPath(const char path[], int flags)
{
  int fd = open(path, flags), rc;

  if (fd < 0) return -1;
  rc = fsync(fd);
  close(fd);
  return rc;
}

/*@C
  SquallOutputCommit - puts a file written under SquallOutputTemporaryName(path) in place: rank 0
  flushes it to disk and renames it over path, then flushes the directory. Until the rename the
  previous file at path is untouched, so a crash at any moment leaves either the old or the new file.
  Collective; call it after every rank has closed the temporary file.
@*/
PetscErrorCode SquallOutputCommit(MPI_Comm comm, const char path[])
{
  char        tmp[PETSC_MAX_PATH_LEN], dir[PETSC_MAX_PATH_LEN];
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCall(SquallOutputTemporaryName(path, tmp, sizeof(tmp)));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    if (SyncPath(tmp, O_RDONLY) != 0 || rename(tmp, path) != 0) err = errno ? errno : EIO;
    DirName(path, dir, sizeof(dir));
    if (!err) (void)SyncPath(dir, O_RDONLY);
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_WRITE, "Could not put %s in place of %s: %s", tmp, path, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallOutputNumberedName - the name of the file of step `step` in a series based on path: "a.h5" gives
  "a.00000120.h5" (the step zero-padded to 8 digits, so that names sort by step), a path without the
  ".h5" extension gets ".<step>" appended.
@*/
PetscErrorCode SquallOutputNumberedName(const char path[], PetscInt step, char name[], size_t len)
{
  size_t    n;
  PetscBool h5 = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(path, &n));
  if (n > 3) PetscCall(PetscStrcmp(path + n - 3, ".h5", &h5));
  if (h5)
    PetscCall(PetscSNPrintf(name, len, "%.*s.%08" PetscInt_FMT ".h5", (int)(n - 3), path, step));
  else
    PetscCall(PetscSNPrintf(name, len, "%s.%08" PetscInt_FMT, path, step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallOutputRemove - rank 0 removes the file at path (a file that is already gone is fine). Collective.
  A file that cannot be removed is reported on stderr, not as an error: removing old output must not end a run.
@*/
PetscErrorCode SquallOutputRemove(MPI_Comm comm, const char path[])
{
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && unlink(path) != 0 && errno != ENOENT) err = errno;
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  if (err) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "Warning: could not remove the old output file %s: %s\n", path, strerror(err)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
