/* -pc_type esdgcolumn: the exact solve of HEVI's implicit systems (shift I - dF_V/dq) x = b, line of
   nodes by line of nodes, with the column blocks the matrix of SquallESDGSetUpTS() carries
   (src/ts/esdgcolumn.h). Each line is block tridiagonal with dense m x m diagonal blocks (m = 5 Nq)
   and 5 x 5 face couplings, so block Thomas elimination (dense LU with partial pivoting of each
   diagonal block, physics/columnlu.h) solves it exactly in O(Kz m^3): the fill stays in the
   diagonal blocks' face corners. One device thread per line in GPU runs, the same math in C loops on
   the CPU. Registered in SquallInitializePackage(), so -help and -dll_append find it. */
#include "ts/esdgcolumn.h"
#include "cuda/columnkernels.h"
#include <petsc/private/pcimpl.h>

typedef struct {
  SquallESDGColumn col;
  PetscScalar     *LU;  /* [SQUALL_COLUMN_FACTOR_ENTRIES(m) nslot] the factors of the D'_j, L_j and G_j (physics/columnlu.h) */
  PetscInt        *piv; /* [m nslot] */
  PetscInt         nalloc;
  PetscBool        device;
} PC_ESDGColumn;

static PetscErrorCode PCReset_ESDGColumn(PC pc)
{
  PC_ESDGColumn *p = (PC_ESDGColumn *)pc->data;

  PetscFunctionBegin;
  PetscCall(SquallESDGColumnFree(p->device, p->LU));
  PetscCall(SquallESDGColumnFree(p->device, p->piv));
  p->LU     = NULL;
  p->piv    = NULL;
  p->nalloc = 0;
  p->col    = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_ESDGColumn(PC pc)
{
  PC_ESDGColumn     *p = (PC_ESDGColumn *)pc->data;
  SquallESDGColumn   c;
  PetscInt           m, bad = 0, gbad;
  SquallColumnLayout lay;

  PetscFunctionBegin;
  PetscCall(SquallESDGColumnFromMat(pc->pmat, &c));
  PetscCheck(c, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG, "-pc_type esdgcolumn needs the HEVI matrix of SquallESDGSetUpTS with -esdg_imex vertical (the preconditioning matrix carries no column data)");
  PetscCheck(!c->lay.periodic, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "-pc_type esdgcolumn needs columns with a wall below and above, and these are periodic in z (-dm_p4est_brick_periodicity x,y,1): their lines are cyclic, not tridiagonal; -pc_type bjacobi -sub_pc_type lu still works");
  lay = c->lay;
  m   = 5 * lay.Nq;
  if (p->nalloc != SQUALL_COLUMN_FACTOR_ENTRIES(m) * lay.nslot || p->device != c->device) {
    PetscCall(PCReset_ESDGColumn(pc));
    p->device = c->device;
    PetscCall(SquallESDGColumnCalloc(p->device, sizeof(PetscScalar) * (size_t)SQUALL_COLUMN_FACTOR_ENTRIES(m) * lay.nslot, (void **)&p->LU));
    PetscCall(SquallESDGColumnCalloc(p->device, sizeof(PetscInt) * (size_t)m * lay.nslot, (void **)&p->piv));
    p->nalloc = SQUALL_COLUMN_FACTOR_ENTRIES(m) * lay.nslot;
  }
  p->col = c;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnFactor, pc, 0, 0, 0));
  if (p->device)
    PetscCall(SquallColumnFactorCUDA(&lay, c->P, p->LU, p->piv, &bad));
  else {
    for (PetscInt l = 0; l < lay.nlines; l++) bad += SquallColumnFactorLine(&lay, l, c->P, p->LU, p->piv);
    PetscCall(PetscLogFlops(SQUALL_COLUMN_FACTOR_LEVEL_FLOPS(m) * lay.nslot));
  }
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnFactor, pc, 0, 0, 0));
  PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  /* as PETSc's factorisations: an error only with PCSetErrorIfFailure() (-ksp_error_if_not_converged); else the
     failure goes to the KSP (KSP_DIVERGED_PC_FAILED), and from there to SNES and TS, which may retry the step */
  PetscCheck(!gbad || !pc->erroriffailure, PetscObjectComm((PetscObject)pc), PETSC_ERR_MAT_LU_ZRPVT, "-pc_type esdgcolumn: a zero pivot in the blocks of %" PetscInt_FMT " lines of nodes", gbad);
  if (gbad) PetscCall(PetscInfo(pc, "zero pivot in the blocks of %" PetscInt_FMT " lines of nodes\n", gbad));
  PetscCall(PCSetFailedReason(pc, gbad ? PC_FACTOR_NUMERIC_ZEROPIVOT : PC_NOERROR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_ESDGColumn(PC pc, Vec b, Vec x)
{
  PC_ESDGColumn     *p = (PC_ESDGColumn *)pc->data;
  SquallESDGColumn   c = p->col;
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscMemType       mb, mx;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnSolve, pc, b, x, 0));
  PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
  PetscCall(VecGetArrayWriteAndMemType(x, &xa, &mx));
  PetscCheck((PetscBool)PetscMemTypeDevice(mb) == p->device && (PetscBool)PetscMemTypeDevice(mx) == p->device, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-pc_type esdgcolumn: the vectors' memory is not where the column factors are (host or device)");
  if (p->device)
    PetscCall(SquallColumnSolveCUDA(&c->lay, p->LU, p->piv, ba, xa));
  else {
    for (PetscInt l = 0; l < c->lay.nlines; l++) SquallColumnSolveLine(&c->lay, l, p->LU, p->piv, ba, xa);
    PetscCall(PetscLogFlops(SQUALL_COLUMN_APPLY_LEVEL_FLOPS(5 * c->lay.Nq) * c->lay.nslot));
  }
  PetscCall(VecRestoreArrayWriteAndMemType(x, &xa));
  PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnSolve, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_ESDGColumn(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_ESDGColumn(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_ESDGColumn(PC pc, PetscViewer viewer)
{
  PC_ESDGColumn *p = (PC_ESDGColumn *)pc->data;
  PetscBool      ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii && p->col)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  block Thomas along %" PetscInt_FMT " lines of nodes (this rank) of %" PetscInt_FMT " elements, blocks %" PetscInt_FMT " x %" PetscInt_FMT " (%s)\n", p->col->lay.nlines, p->col->lay.Kz,
                                     5 * p->col->lay.Nq, 5 * p->col->lay.Nq, p->device ? "device" : "host"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCCreate_ESDGColumn(PC pc)
{
  PC_ESDGColumn *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  pc->data         = (void *)p;
  pc->ops->setup   = PCSetUp_ESDGColumn;
  pc->ops->apply   = PCApply_ESDGColumn;
  pc->ops->reset   = PCReset_ESDGColumn;
  pc->ops->destroy = PCDestroy_ESDGColumn;
  pc->ops->view    = PCView_ESDGColumn;
  PetscFunctionReturn(PETSC_SUCCESS);
}
