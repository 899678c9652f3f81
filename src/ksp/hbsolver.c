/* The hipBone CG set-up that the tutorial, the benchmark and the tests share: operator, vectors,
   right-hand side and a KSP hbcg on it. */
#include "ksp/hbimpl.h"

/*@C
  SquallHBCreateSolver - the hipBone problem A x = b ready to solve: the operator of
  `SquallHBCreateOperator()`, its vectors, b = Z^T M_L f (`SquallHBComputeRHS()`) and a `KSP` of type
  hbcg on A, without preconditioner

  Collective

  Input Parameters:
+ comm       - the communicator
. order      - polynomial order N (PETSC_DECIDE: 3; -hb_order overrides it)
. elements   - elements Ex,Ey,Ez of the brick, or NULL (4,4,4; -hb_elements overrides it)
. f          - the source f at a point, or NULL for b = 0
. ctx        - context of f
- iterations - 0: the KSP's usual convergence test; > 0: exactly this many iterations whatever the
               residual (NekBone's and hipBone's figure of merit; `KSPConvergedSkip`)

  Output Parameters:
+ A   - the operator
. ksp - the solver (type `SQUALL_KSPHBCG`, `PCNONE`), not yet set from the options database
. x   - a solution vector, zero (may be NULL)
- b   - the right-hand side (may be NULL)

  Notes:
  The caller changes what it needs (`KSPGetPC()`, `KSPSetTolerances()`, `KSPSetType()` to compare with
  another solver on the same operator) and then calls `KSPSetFromOptions()`, so that the command line
  has the last word. Destroy the four objects with `MatDestroy()`, `KSPDestroy()`, `VecDestroy()`.

.seealso: `SquallHBCreateOperator()`, `SquallHBComputeRHS()`, `SquallHBElementsForDofs()`
@*/
PetscErrorCode SquallHBCreateSolver(MPI_Comm comm, PetscInt order, const PetscInt elements[], SquallHBFunction f, void *ctx, PetscInt iterations, Mat *A, KSP *ksp, Vec *x, Vec *b)
{
  PC  pc;
  Vec vx, vb;

  PetscFunctionBegin;
  PetscAssertPointer(A, 7);
  PetscAssertPointer(ksp, 8);
  PetscCheck(iterations >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "iterations %" PetscInt_FMT " is out of range: valid values are 0 (to tolerance) or positive (fixed)", iterations);
  PetscCall(SquallHBCreateOperator(comm, order, elements, A));
  PetscCall(MatCreateVecs(*A, &vx, &vb));
  PetscCall(VecZeroEntries(vx));
  if (f)
    PetscCall(SquallHBComputeRHS(*A, f, ctx, vb));
  else
    PetscCall(VecZeroEntries(vb));
  PetscCall(KSPCreate(comm, ksp));
  PetscCall(KSPSetOperators(*ksp, *A, *A));
  PetscCall(KSPSetType(*ksp, SQUALL_KSPHBCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  if (iterations) {
    PetscCall(KSPSetTolerances(*ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, iterations));
    PetscCall(KSPSetConvergenceTest(*ksp, KSPConvergedSkip, NULL, NULL));
  }
  if (x)
    *x = vx;
  else
    PetscCall(VecDestroy(&vx));
  if (b)
    *b = vb;
  else
    PetscCall(VecDestroy(&vb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
