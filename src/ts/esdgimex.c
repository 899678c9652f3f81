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
   fields, and the face partners of the elements above and below. Its pattern is preallocated exactly
   (MATAIJ) and filled by finite-difference coloring (MatFDColoring): one F_V evaluation per colour,
   correct for every flux and option of the RHS without a hand-derived linearisation of the two-point
   fluxes. Since the columns do not couple, the matrix is block diagonal up to a permutation, and an
   LU of each rank's block (-pc_type bjacobi -sub_pc_type lu, or -pc_type lu on one rank) solves the
   linear system exactly: its fill stays within the columns. That needs every column on one rank
   (checked at set-up). */
#include "ts/esdgimpl.h"

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
  Vec Fref;

  PetscFunctionBegin;
  PetscCheck(part >= SQUALL_ESDG_PART_ALL && part <= SQUALL_ESDG_PART_VERTICAL, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "RHS part %d is out of range: all, horizontal or vertical", (int)part);
  PetscCall(SquallESDGSetUp(s));
  if (part == SQUALL_ESDG_PART_ALL) {
    PetscCall(SquallESDGComputeRHS(s, t, X, F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  s->rhsParts = ESDGPartTerms[part];
  Fref        = s->Fref;
  if (Fref) PetscCall(ESDGPartReference(s, part, &s->Fref));
  PetscCall(SquallESDGComputeRHS(s, t, X, F));
  s->Fref     = Fref;
  s->rhsParts = SQUALL_ESDG_ALL_TERMS;
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
  coloring's evaluations not counted) since the TS was set up.
@*/
PetscErrorCode SquallESDGGetIMEXStats(SquallESDG s, PetscInt *jacobians, PetscInt *ifunctions)
{
  PetscFunctionBegin;
  if (jacobians) *jacobians = s->nJac;
  if (ifunctions) *ifunctions = s->nIFunc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGRHSHorizontal(TS ts, PetscReal t, Vec X, Vec F, void *ctx)
{
  PetscFunctionBegin;
  (void)ts;
  PetscCall(SquallESDGComputeRHSPart((SquallESDG)ctx, SQUALL_ESDG_PART_HORIZONTAL, t, X, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGIFunction(TS ts, PetscReal t, Vec X, Vec Xdot, Vec G, void *ctx)
{
  SquallESDG s = (SquallESDG)ctx;

  PetscFunctionBegin;
  (void)ts;
  PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, t, X, G));
  PetscCall(VecAYPX(G, -1, Xdot));
  s->nIFunc++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the function the coloring differences: F_V at the time of the Jacobian */
typedef struct {
  SquallESDG s;
  PetscReal  t;
} ESDGColorCtx;

static PetscErrorCode ESDGColorFunction(void *unused, Vec X, Vec F, void *ctx)
{
  ESDGColorCtx *c = (ESDGColorCtx *)ctx;

  PetscFunctionBegin;
  (void)unused;
  PetscCall(SquallESDGComputeRHSPart(c->s, SQUALL_ESDG_PART_VERTICAL, c->t, X, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A = P = shift I - dF_V/dq */
static PetscErrorCode ESDGIJacobian(TS ts, PetscReal t, Vec X, Vec Xdot, PetscReal shift, Mat A, Mat P, void *ctx)
{
  SquallESDG   s = (SquallESDG)ctx;
  ESDGColorCtx c = {s, t};

  PetscFunctionBegin;
  (void)ts;
  (void)Xdot;
  PetscCall(MatFDColoringSetFunction(s->fdc, (PetscErrorCode(*)(void))(void (*)(void))ESDGColorFunction, &c));
  PetscCall(MatFDColoringApply(s->Jv, s->fdc, X, NULL));
  PetscCall(MatCopy(s->Jv, P, SAME_NONZERO_PATTERN));
  PetscCall(MatScale(P, -1));
  PetscCall(MatShift(P, shift));
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

/* dF_V/dq's pattern, exactly: a node's five fields couple with the five fields of every node of its
   vertical line in its element, and a bottom or top face node with its partner's across the face */
static PetscErrorCode ESDGCreateVerticalMatrix(SquallESDG s, Mat *J)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Nq = m->Nq, Np = m->Np, Nfp = m->Nfp, nloc = 5 * Np * m->nOwned, ncmax = 5 * Nq + 10;
  PetscInt       rstart, *cols;
  PetscScalar   *zeros;
  PetscInt      *partner; /* [Np] global index of the node's partner below or above (field 0), or -1 */

  PetscFunctionBegin;
  PetscCall(MatCreate(s->comm, J));
  PetscCall(MatSetSizes(*J, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*J, MATAIJ));
  {
    PetscInt *dnz, *onz;
    PetscCall(PetscMalloc2(nloc, &dnz, nloc, &onz));
    for (PetscInt i = 0; i < nloc; i++) {
      dnz[i] = ncmax;
      onz[i] = 0;
    }
    PetscCall(MatSeqAIJSetPreallocation(*J, 0, dnz));
    PetscCall(MatMPIAIJSetPreallocation(*J, 0, dnz, 0, onz));
    PetscCall(PetscFree2(dnz, onz));
  }
  PetscCall(MatGetOwnershipRange(*J, &rstart, NULL));
  PetscCall(PetscMalloc3(ncmax, &cols, ncmax, &zeros, Np, &partner));
  PetscCall(PetscArrayzero(zeros, ncmax));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscInt base = rstart + m->gslot[e] * 5 * Np;
    for (PetscInt n = 0; n < Np; n++) partner[n] = -1;
    for (PetscInt f = 4; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb < 0) continue;
      for (PetscInt k = 0; k < Nfp; k++) {
        const PetscInt p               = m->vmapP[(e * 6 + f) * Nfp + k];
        partner[m->fmask[f * Nfp + k]] = rstart + m->gslot[nb] * 5 * Np + p % Np;
      }
    }
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt line = n % (Nq * Nq);
      PetscInt       nc   = 0;
      for (PetscInt g = 0; g < 5; g++)
        for (PetscInt k = 0; k < Nq; k++) cols[nc++] = base + g * Np + line + Nq * Nq * k;
      if (partner[n] >= 0)
        for (PetscInt g = 0; g < 5; g++) cols[nc++] = partner[n] + g * Np;
      for (PetscInt f = 0; f < 5; f++) {
        const PetscInt row = base + f * Np + n;
        PetscCall(MatSetValues(*J, 1, &row, nc, cols, zeros, INSERT_VALUES));
      }
    }
  }
  PetscCall(PetscFree3(cols, zeros, partner));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the IMEX wiring of SquallESDGSetUpTS() */
PetscErrorCode SquallESDGSetUpIMEX(SquallESDG s, TS ts)
{
  Mat P;

  PetscFunctionBegin;
  PetscCheck(!s->useGPU, s->comm, PETSC_ERR_SUP, "-%simex vertical runs on the CPU only: the Jacobian of F_V and its column solve are not on the device yet (use a CPU vector type, not -dm_vec_type cuda)", s->prefix);
  PetscCall(ESDGCheckColumns(s));
  PetscCall(SquallESDGDestroyIMEX(s));
  PetscCall(ESDGCreateVerticalMatrix(s, &s->Jv));
  {
    MatColoring mc;
    ISColoring  isc;
    PetscCall(MatColoringCreate(s->Jv, &mc));
    PetscCall(MatColoringSetType(mc, MATCOLORINGGREEDY));
    PetscCall(MatColoringSetDistance(mc, 2));
    PetscCall(MatColoringSetFromOptions(mc));
    PetscCall(MatColoringApply(mc, &isc));
    PetscCall(MatColoringDestroy(&mc));
    PetscCall(MatFDColoringCreate(s->Jv, isc, &s->fdc));
    PetscCall(MatFDColoringSetFunction(s->fdc, (PetscErrorCode(*)(void))(void (*)(void))ESDGColorFunction, NULL));
    /* differencing step err * max(|q|, umin): umin 1 keeps the step of the small momenta at err (the
       energy, 1e5, gets err * E), so that the difference is far above the RHS's round-off */
    PetscCall(MatFDColoringSetParameters(s->fdc, PETSC_DEFAULT, 1.0));
    /* a step per column ("ds"), not one for all ("wp", sqrt(1 + |q|) with |q| dominated by the energy) */
    PetscCall(MatFDColoringSetType(s->fdc, MATMFFD_DS));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)s->fdc, s->prefix));
    PetscCall(MatFDColoringSetFromOptions(s->fdc));
    PetscCall(MatFDColoringSetUp(s->Jv, isc, s->fdc));
    PetscCall(ISColoringDestroy(&isc));
  }
  PetscCall(MatDuplicate(s->Jv, MAT_DO_NOT_COPY_VALUES, &P));
  PetscCall(TSSetRHSFunction(ts, NULL, ESDGRHSHorizontal, s));
  PetscCall(TSSetIFunction(ts, NULL, ESDGIFunction, s));
  PetscCall(TSSetIJacobian(ts, P, P, ESDGIJacobian, s));
  PetscCall(MatDestroy(&P));
  /* G = qdot - F_V(q): an explicit ODE, so ARKIMEX's explicit first stage needs no solve */
  PetscCall(TSSetEquationType(ts, TS_EQ_ODE_EXPLICIT));
  s->nJac   = 0;
  s->nIFunc = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyIMEX(SquallESDG s)
{
  PetscFunctionBegin;
  PetscCall(MatFDColoringDestroy(&s->fdc));
  PetscCall(MatDestroy(&s->Jv));
  for (PetscInt p = 0; p < 3; p++) PetscCall(VecDestroy(&s->FrefPart[p]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
