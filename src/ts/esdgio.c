/* Output of an ESDG state: HDF5 checkpoints that restart bitwise identically (on the same number
   of ranks), and plane slices of potential temperature as CSV for scripts/plot_slice.py. */
#include "ts/esdgimpl.h"
#include <petscviewerhdf5.h>

/* A plain MPI vector with the state's layout: the HDF5 dataset is then just the values, in the
   order of the global vector, without the DMPlex output machinery. */
static PetscErrorCode PlainVec(Vec Q, Vec *P)
{
  PetscInt n, N;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Q, &n));
  PetscCall(VecGetSize(Q, &N));
  PetscCall(VecCreateMPI(PetscObjectComm((PetscObject)Q), n, N, P));
  PetscCall(PetscObjectSetName((PetscObject)*P, "esdg_state"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGWriteCheckpoint - writes the state Q, the time, step number and time step to an HDF5 file.
  Q is the TS state as it is (in perturbation form the departure from the reference; the file
  records which, and a restart must use the same form and reference).
@*/
PetscErrorCode SquallESDGWriteCheckpoint(SquallESDG s, Vec Q, PetscReal time, PetscInt step, PetscReal dt, const char filename[])
{
  PetscViewer v;
  Vec         P;
  PetscMPIInt size;
  PetscInt    N = s->mesh->N, pert = s->perturb ? 1 : 0;
  char        tmp[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PlainVec(Q, &P));
  PetscCall(VecCopy(Q, P));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  /* written beside the old file and renamed over it once complete: a crash never loses the last checkpoint */
  PetscCall(SquallOutputTemporaryName(filename, tmp, sizeof(tmp)));
  PetscCall(PetscViewerHDF5Open(s->comm, tmp, FILE_MODE_WRITE, &v));
  PetscCall(VecView(P, v));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "time", PETSC_REAL, &time));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "step", PETSC_INT, &step));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "dt", PETSC_REAL, &dt));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "order", PETSC_INT, &N));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "ranks", PETSC_INT, &size));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", "perturbation", PETSC_INT, &pert));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecDestroy(&P));
  PetscCall(SquallOutputCommit(s->comm, filename));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGReadCheckpoint - reads a state written by SquallESDGWriteCheckpoint() into Q.
@*/
PetscErrorCode SquallESDGReadCheckpoint(SquallESDG s, const char filename[], Vec Q, PetscReal *time, PetscInt *step, PetscReal *dt)
{
  PetscViewer v;
  Vec         P;
  PetscMPIInt size;
  PetscInt    N, ranks, pert = 0, zero = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  {
    PetscBool exists;
    /* name the file in the error, before HDF5 prints its own stack */
    PetscCall(PetscTestFile(filename, 'r', &exists));
    PetscCheck(exists, s->comm, PETSC_ERR_FILE_OPEN, "Cannot read the checkpoint %s (-esdg_restart): no such readable file", filename);
  }
  PetscCall(PetscViewerHDF5Open(s->comm, filename, FILE_MODE_READ, &v));
  PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "order", PETSC_INT, NULL, &N));
  PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "ranks", PETSC_INT, NULL, &ranks));
  PetscCheck(N == s->mesh->N, s->comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint %s has order %" PetscInt_FMT ", this run -esdg_order %" PetscInt_FMT, filename, N, s->mesh->N);
  /* the global ordering of elements follows the partition */
  /* files from before the perturbation form hold the full state */
  PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "perturbation", PETSC_INT, &zero, &pert));
  PetscCheck((pert != 0) == (s->perturb != PETSC_FALSE), s->comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint %s holds the %s state, this run %s -esdg_perturbation: restart in the same form", filename, pert ? "perturbation" : "full",
             s->perturb ? "has" : "has no");
  PetscCheck(ranks == size, s->comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint %s was written on %" PetscInt_FMT " ranks; restart on the same number (this run has %d)", filename, ranks, size);
  PetscCall(PlainVec(Q, &P));
  PetscCall(VecLoad(P, v));
  PetscCall(VecCopy(P, Q));
  if (time) PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "time", PETSC_REAL, NULL, time));
  if (step) PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "step", PETSC_INT, NULL, step));
  if (dt) PetscCall(PetscViewerHDF5ReadAttribute(v, "esdg_state", "dt", PETSC_REAL, NULL, dt));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGWriteSlice - writes x, y, z and potential temperature theta = T (p0/p)^(R/cp) of every
  node on the plane coordinate[axis] = value (nodes within 1e-9 of the extent) to a CSV file; rank
  0 gathers. p0 = 1e5 Pa.
@*/
PetscErrorCode SquallESDGWriteSlice(SquallESDG s, Vec XQ, PetscInt axis, PetscReal value, const char filename[])
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  const PetscReal    tol = 1e-9 * (m->hi[axis] - m->lo[axis]), kappa = s->gas.R * (s->gas.gamma - 1) / (s->gas.gamma * s->gas.R);
  PetscInt           nloc = 0;
  PetscReal         *buf;
  PetscMPIInt        rank, size, cnt, *counts = NULL, *displs = NULL;
  PetscReal         *all = NULL;

  PetscFunctionBegin;
  PetscCheck(axis >= 0 && axis < 3, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Slice axis %" PetscInt_FMT " must be 0, 1 or 2", axis);
  PetscCall(PetscMalloc1((size_t)4 * m->nOwned * Np + 1, &buf));
  PetscCall(SquallESDGGetFullState(s, XQ, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal q[5], a[SQUALL_NAUX];
      if (PetscAbsReal(X[axis * Np + n] - value) > tol) continue;
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qa[(m->gslot[e] * 5 + f) * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      buf[4 * nloc + 0] = X[n];
      buf[4 * nloc + 1] = X[Np + n];
      buf[4 * nloc + 2] = X[2 * Np + n];
      /* (gamma-1)/gamma = R/cp */
      buf[4 * nloc + 3] = a[SQ_P] / (s->gas.R * a[SQ_RHO]) * PetscPowReal((PetscReal)1e5 / a[SQ_P], kappa);
      nloc++;
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, XQ, &Q));
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCall(PetscMPIIntCast(4 * nloc, &cnt));
  if (rank == 0) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, s->comm));
  if (rank == 0) {
    displs[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
    PetscCall(PetscMalloc1(displs[size] + 1, &all));
  }
  PetscCallMPI(MPI_Gatherv(buf, cnt, MPIU_REAL, all, counts, displs, MPIU_REAL, 0, s->comm));
  if (rank == 0) {
    FILE *fp;
    char  tmp[PETSC_MAX_PATH_LEN];
    PetscCall(SquallOutputTemporaryName(filename, tmp, sizeof(tmp)));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, tmp, "w", &fp));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "x,y,z,theta\n"));
    for (PetscMPIInt i = 0; i < displs[size]; i += 4) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.10g,%.10g,%.10g,%.12g\n", (double)all[i], (double)all[i + 1], (double)all[i + 2], (double)all[i + 3]));
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(PetscFree(buf));
  PetscCall(SquallOutputCommit(s->comm, filename));
  PetscFunctionReturn(PETSC_SUCCESS);
}
