/* HEVI: horizontally explicit, vertically implicit time integration of the ESDG semi-discretisation
   through PETSc's additive Runge-Kutta IMEX integrators (TS ARKIMEX).

   F(q) = F_H(q) + F_V(q). F_V is the flux differencing along the element's third reference direction
   (the brick's z; on warped meshes the direction that stays vertical), the surface fluxes through the
   faces normal to it (the bottom and top walls included) and the gravity terms the two-point flux
   carries along it; F_H is the rest (the two other directions, the lateral faces, Coriolis). Both use
   the same two-point fluxes, so each part conserves mass and energy and, with EC fluxes, entropy.

   With -esdg_imex vertical, SquallESDGSetUpTS() gives the TS F_H as its RHSFunction and
   G(t, q, qdot) = qdot - F_V(q) as its IFunction, with the IJacobian shift I - dF_V/dq. dF_V/dq
   couples only the nodes of one vertical line through a column of elements: Nq nodes per element, 5
   fields, and the face partners of the elements above and below. src/ts/esdgcolumn.c finds the lines,
   forms the Jacobian in column blocks by a structured finite-difference colouring (on the device in
   GPU runs) and gives its values to a MATAIJ / MATAIJCUSPARSE with exactly that pattern; the default
   -pc_type esdgcolumn (src/ts/pccolumn.c) solves the linear system exactly by block Thomas
   elimination along each line, and any PETSc PC still works on the matrix (-pc_type bjacobi
   -sub_pc_type lu on the CPU: the fill of each rank's LU stays within the columns). Both need every
   column on one rank (checked at set-up). */
#include "ts/esdgcolumn.h"

const char *const SquallESDGIMEXTypes[] = {"none", "vertical", "SquallESDGIMEXType", "SQUALL_ESDG_IMEX_", NULL};

static const int ESDGPartTerms[3] = {SQUALL_ESDG_ALL_TERMS, SQUALL_ESDG_HORIZONTAL_TERMS, SQUALL_ESDG_VERTICAL_TERMS};

/* the reference residual of one part (-esdg_reference_residual): the part's terms of the RHS of the
   reference, formed as SquallESDGSetReferenceState() forms the whole one */
static PetscErrorCode ESDGPartReference(SquallESDG s, SquallESDGPart part, Vec *Fp)
{
  PetscFunctionBegin;
  if (!s->FrefPart[part]) {
    Vec       F, Fref = s->Fref;
    PetscBool perturb = s->perturb;
    PetscCall(VecDuplicate(s->Qref, &F));
    s->Fref = NULL;
    if (s->gas.departures) {
      Vec Z;
      PetscCall(VecDuplicate(s->Qref, &Z));
      PetscCall(VecZeroEntries(Z));
      PetscCall(SquallESDGComputeRHS(s, 0, Z, F));
      PetscCall(VecDestroy(&Z));
    } else {
      s->perturb = PETSC_FALSE;
      PetscCall(SquallESDGComputeRHS(s, 0, s->Qref, F));
      s->perturb = perturb;
    }
    s->Fref           = Fref;
    s->FrefPart[part] = F;
  }
  *Fp = s->FrefPart[part];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGComputeRHSPart - one part of the RHS of the TS state X: the whole F
  (SQUALL_ESDG_PART_ALL, as SquallESDGComputeRHS()), the horizontal part F_H or the vertical part F_V
  (F_H + F_V = F to round-off). With a reference residual each part subtracts its own.
@*/
PetscErrorCode SquallESDGComputeRHSPart(SquallESDG s, SquallESDGPart part, PetscReal t, Vec X, Vec F)
{
  const PetscLogEvent event = part == SQUALL_ESDG_PART_VERTICAL ? SQUALL_ESDGRHSVertical : SQUALL_ESDGRHSHorizontal;
  Vec                 Fref;

  PetscFunctionBegin;
  PetscCheck(part >= SQUALL_ESDG_PART_ALL && part <= SQUALL_ESDG_PART_VERTICAL, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "RHS part %d is out of range: all, horizontal or vertical", (int)part);
  PetscCall(SquallESDGSetUp(s));
  if (part == SQUALL_ESDG_PART_ALL) {
    PetscCall(SquallESDGComputeRHS(s, t, X, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(event, X, F, 0, 0));
  s->rhsParts = ESDGPartTerms[part];
  Fref        = s->Fref;
  if (Fref) PetscCall(ESDGPartReference(s, part, &s->Fref));
  PetscCall(SquallESDGComputeRHS(s, t, X, F));
  s->Fref     = Fref;
  s->rhsParts = SQUALL_ESDG_ALL_TERMS;
  PetscCall(PetscLogEventEnd(event, X, F, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGSetIMEX - the HEVI split of SquallESDGSetUpTS() (-esdg_imex none|vertical): with
  SQUALL_ESDG_IMEX_VERTICAL the TS gets F_H as its RHSFunction and qdot - F_V(q) as its IFunction, for
  TS ARKIMEX. Set before SquallESDGSetUpTS().
@*/
PetscErrorCode SquallESDGSetIMEX(SquallESDG s, SquallESDGIMEXType type)
{
  PetscFunctionBegin;
  PetscCheck(type == SQUALL_ESDG_IMEX_NONE || type == SQUALL_ESDG_IMEX_VERTICAL, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%simex %d is out of range: none or vertical", s->prefix, (int)type);
  s->imex = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGGetIMEXStats - how many Jacobians of F_V were formed and IFunctions evaluated (the
  colouring's evaluations not counted) since the TS was set up.
@*/
PetscErrorCode SquallESDGGetIMEXStats(SquallESDG s, PetscInt *jacobians, PetscInt *ifunctions)
{
  PetscFunctionBegin;
  if (jacobians) *jacobians = s->nJac;
  if (ifunctions) *ifunctions = s->nIFunc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One part of the RHS where an unphysical state is not an error of the run: *bad says whether there was one
   (the RHS printed where; F holds no usable values then) */
static PetscErrorCode ESDGComputePartLenient(SquallESDG s, SquallESDGPart part, PetscReal t, Vec X, Vec F, PetscBool *bad)
{
  PetscFunctionBegin;
  s->domainSoft = PETSC_TRUE;
  s->domainBad  = PETSC_FALSE;
  PetscCall(SquallESDGComputeRHSPart(s, part, t, X, F));
  s->domainSoft = PETSC_FALSE;
  *bad          = s->domainBad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ARKIMEX may evaluate F_H at a stage Newton converged to with density or pressure <= 0 before its domain check
   (TSSetFunctionDomainError()) rejects that stage: F is then left for the rejected stage, not an error */
static PetscErrorCode ESDGRHSHorizontal(TS ts, PetscReal t, Vec X, Vec F, void *ctx)
{
  PetscBool bad = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ESDGComputePartLenient((SquallESDG)ctx, SQUALL_ESDG_PART_HORIZONTAL, t, X, F, &bad));
  if (bad) PetscCall(PetscInfo(ts, "unphysical state in F_H\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Newton iterate or line-search point with density or pressure <= 0 is a domain error of SNES, not an
   error of the run: SNES stops with DIVERGED_FUNCTION_DOMAIN and the TS rejects the step (and fails it
   cleanly where it cannot retry) */
static PetscErrorCode ESDGIFunction(TS ts, PetscReal t, Vec X, Vec Xdot, Vec G, void *ctx)
{
  SquallESDG s = (SquallESDG)ctx;
  SNES       snes;
  PetscBool  bad = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ESDGComputePartLenient(s, SQUALL_ESDG_PART_VERTICAL, t, X, G, &bad));
  s->nIFunc++;
  if (bad) {
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(SNESSetFunctionDomainError(snes));
    PetscCall(PetscInfo(ts, "unphysical state in the IFunction: SNES domain error\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecAYPX(G, -1, Xdot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A = P = shift I - dF_V/dq */
static PetscErrorCode ESDGIJacobian(TS ts, PetscReal t, Vec X, Vec Xdot, PetscReal shift, Mat A, Mat P, void *ctx)
{
  SquallESDG s = (SquallESDG)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)Xdot;
  PetscCall(SquallESDGColumnComputeJacobian(s, s->column, t, X));
  PetscCall(SquallESDGColumnSetShift(s->column, shift, P));
  if (A != P) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  s->nJac++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every element's neighbours below and above are on this rank (or walls): the columns of elements
   are not split. p4est orders a brick tree by tree, each in Morton order, and splits the elements
   evenly: with one tree in z (-dm_p4est_brick_size a,b,1) and a rank count that divides a b, every
   cut falls between trees and keeps the columns whole */
static PetscErrorCode ESDGCheckColumns(SquallESDG s)
{
  SquallDGMesh m     = s->mesh;
  PetscInt     split = 0, gsplit;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 4; f < 6; f++)
      if (m->nbr[6 * e + f] >= m->nOwned) split++;
  PetscCallMPI(MPIU_Allreduce(&split, &gsplit, 1, MPIU_INT, MPI_SUM, s->comm));
  PetscCheck(!gsplit || !m->shell, s->comm, PETSC_ERR_SUP,
             "-%simex vertical needs every column of elements on one rank, and this partition splits columns at %" PetscInt_FMT " element faces: on the shell use a number of ranks that divides 24 (its trees)", s->prefix, gsplit);
  PetscCheck(!gsplit, s->comm, PETSC_ERR_SUP,
             "-%simex vertical needs every column of elements on one rank, and this partition splits columns at %" PetscInt_FMT
             " element faces: use one tree in z (-dm_p4est_brick_size a,b,1 with -dm_forest_initial_refinement for the levels) and a number of ranks that divides a*b",
             s->prefix, gsplit);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Newton in single precision: a fixed three iterations (a default; -snes_convergence_test default and -snes_max_it
   override it). Once X has moved, qdot = shift (X - Z) carries the rounding of X, so the stage residual has a floor of
   about eps shift |X|, set by the energy (1e5 times the momenta): 1 on the HEVI bubble's columns, where the physical
   residual after Newton's first iteration is 5e-3 and hidden under it. No residual test sees that, and PETSc's
   single-precision -snes_stol 1e-5 ends Newton after the first iteration (the bubble's max|w| 7% off at 50 s). Three
   iterations with the lagged Jacobian, as in double, give it to 0.9% there and to 0.1% at 1000 s (docs/precision.md). */
static PetscErrorCode ESDGSingleNewton(TS ts)
{
  SNES snes;

  PetscFunctionBegin;
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESSetConvergenceTest(snes, SNESConvergedSkip, NULL, NULL));
  PetscCall(SNESSetTolerances(snes, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, 3, PETSC_CURRENT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the IMEX wiring of SquallESDGSetUpTS() */
PetscErrorCode SquallESDGSetUpIMEX(SquallESDG s, TS ts)
{
  PetscFunctionBegin;
  PetscCall(ESDGCheckColumns(s));
  PetscCall(SquallESDGDestroyIMEX(s));
  PetscCall(SquallESDGColumnCreate(s, &s->column));
  PetscCall(SquallESDGColumnCreateMatrix(s, s->column, &s->Pv));
  PetscCall(TSSetRHSFunction(ts, NULL, ESDGRHSHorizontal, s));
  PetscCall(TSSetIFunction(ts, NULL, ESDGIFunction, s));
  PetscCall(TSSetIJacobian(ts, s->Pv, s->Pv, ESDGIJacobian, s));
  /* G = qdot - F_V(q): an explicit ODE, so ARKIMEX's explicit first stage needs no solve */
  PetscCall(TSSetEquationType(ts, TS_EQ_ODE_EXPLICIT));
  if (PetscDefined(USE_REAL_SINGLE)) PetscCall(ESDGSingleNewton(ts));
  s->nJac   = 0;
  s->nIFunc = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyIMEX(SquallESDG s)
{
  PetscFunctionBegin;
  /* the matrix may outlive the solver in a TS: it no longer carries the column data */
  if (s->Pv) PetscCall(PetscObjectCompose((PetscObject)s->Pv, SQUALL_ESDG_COLUMN_KEY, NULL));
  PetscCall(MatDestroy(&s->Pv));
  PetscCall(SquallESDGColumnDestroy(&s->column));
  for (PetscInt p = 0; p < 3; p++) PetscCall(VecDestroy(&s->FrefPart[p]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
