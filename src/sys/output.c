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
