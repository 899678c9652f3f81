static char help[] = "HEVI (horizontally explicit, vertically implicit) ESDG checks:\n"
                     "  -test split     F_H + F_V = F to round-off; each part conserves mass and energy, and with EC fluxes entropy\n"
                     "  -test jacobian  the column-block Jacobian of F_V against a dense finite-difference Jacobian (and its pattern);\n"
                     "                  -expect_norm v -expect_rtol r: its Frobenius norm against a value measured elsewhere (GPU = CPU)\n"
                     "  -test pc        -pc_type esdgcolumn solves shift I - dF_V/dq exactly, and as bjacobi + LU does\n"
                     "  -test pcbad     -pc_type esdgcolumn on a matrix that is not the HEVI one (an error)\n"
                     "  -test pczero    -pc_type esdgcolumn on zero blocks: PC and KSP report the failure (an error with\n"
                     "                  -ksp_error_if_not_converged)\n"
                     "  -test rest      an isothermal atmosphere at rest stays at rest under TS ARKIMEX\n"
                     "  -test order     temporal order of TS ARKIMEX (-ts_arkimex_type) by self-convergence: -dt0, -tfinal, -expect\n"
                     "  -test bubble    ARKIMEX at -dt_factor times the explicit step against LSRK: max|w| at -tfinal, mass and energy drift;\n"
                     "                  -w_expect v -w_expect_rtol r: max|w| against a value measured elsewhere (GPU = CPU)\n"
                     "  -case name      initial condition (default random); -tol r\n";

#include <squall.h>
#include "squalltest.h"
#include "esdgtest.h"
#include "ts/esdgcolumn.h"

/* max over the entries of field f of |v| */
static PetscErrorCode FieldMax(SquallESDG s, Vec V, PetscReal mx[5])
{
  SquallDGMesh       m = s->mesh;
  const PetscScalar *va;
  PetscReal          loc[5] = {0, 0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(V, &va));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 0; f < 5; f++)
      for (PetscInt n = 0; n < m->Np; n++) loc[f] = PetscMax(loc[f], PetscAbsScalar(va[(m->gslot[e] * 5 + f) * m->Np + n]));
  PetscCall(VecRestoreArrayRead(V, &va));
  PetscCallMPI(MPIU_Allreduce(loc, mx, 5, MPIU_REAL, MPIU_MAX, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a TS ARKIMEX of the split with a fixed step; the options database may change it */
static PetscErrorCode CreateIMEXTS(SquallESDG s, PetscReal dt, PetscReal tmax, TS *ts)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGSetIMEX(s, SQUALL_ESDG_IMEX_VERTICAL));
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSSetType(*ts, TSARKIMEX));
  PetscCall(SquallESDGSetUpTS(s, *ts));
  PetscCall(TSSetTimeStep(*ts, dt));
  PetscCall(TSSetMaxTime(*ts, tmax));
  PetscCall(TSSetMaxSteps(*ts, 1000000));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(*ts));
  {
    TSAdapt adapt;
    PetscCall(TSGetAdapt(*ts, &adapt));
    PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the IJacobian shift I - dF_V/dq at X (shift 0: -dF_V/dq) */
static PetscErrorCode FormIJacobian(SquallESDG s, TS ts, Vec X, PetscReal shift, Mat *P)
{
  Vec Xdot;
  Mat A;

  PetscFunctionBegin;
  PetscCall(TSGetIJacobian(ts, &A, NULL, NULL, NULL));
  PetscCall(VecDuplicate(X, &Xdot));
  PetscCall(VecZeroEntries(Xdot));
  PetscCall(TSComputeIJacobian(ts, 0, X, Xdot, shift, A, A, PETSC_FALSE));
  PetscCall(VecDestroy(&Xdot));
  *P = A;
  (void)s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the system of an implicit stage at 10 times the explicit step (its shift that of a stage coefficient 0.4), on the TS
   whose IJacobian matrix it is */
static PetscErrorCode StageMatrix(SquallESDG s, Vec Q, TS *ts, Mat *P)
{
  PetscReal dt;

  PetscFunctionBegin;
  PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
  PetscCall(CreateIMEXTS(s, 10 * dt, 1, ts));
  PetscCall(FormIJacobian(s, *ts, Q, 1 / (0.4 * 10 * dt), P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a direct column solve: preonly with -pc_type esdgcolumn, or block Jacobi over the ranks with an LU per block */
static PetscErrorCode ColumnKSP(Mat A, PCType type, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPPREONLY));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, type));
  PetscCall(KSPSetUp(*ksp));
  if (!strcmp(type, PCBJACOBI)) {
    KSP     *sub;
    PetscInt nsub;
    PC       spc;
    PetscCall(PCBJacobiGetSubKSP(pc, &nsub, NULL, &sub));
    for (PetscInt i = 0; i < nsub; i++) {
      PetscCall(KSPSetType(sub[i], KSPPREONLY));
      PetscCall(KSPGetPC(sub[i], &spc));
      PetscCall(PCSetType(spc, PCLU));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the componentwise backward error max_i |A x - b|_i / (|A| |x| + |b|)_i (Oettli-Prager): the fields' scales
   differ by 1e5 (density, energy), so a norm-wise one would hide the small rows; and the norm-wise relative residual
   |A x - b| / (|A| |x| + |b|) (infinity norms; |A x - b| / |b| alone measures the conditioning of the row scaling too) */
static PetscErrorCode BackwardError(Mat P, Vec x, Vec b, PetscReal *w, PetscReal *rel)
{
  const PetscScalar *xa, *ra, *ba;
  PetscInt           rs, re;
  PetscReal          lw = 0, nb, nr, na, nx;
  Vec                r;
  Mat                H; /* a host copy: MatGetRow of a device matrix */

  PetscFunctionBegin;
  PetscCall(MatConvert(P, MATAIJ, MAT_INITIAL_MATRIX, &H));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(P, x, r));
  PetscCall(VecAXPY(r, -1, b));
  PetscCall(MatGetOwnershipRange(H, &rs, &re));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayRead(b, &ba));
  for (PetscInt i = rs; i < re; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscReal          ax = PetscAbsScalar(ba[i - rs]);
    PetscCall(MatGetRow(H, i, &nc, &cols, &vals));
    for (PetscInt c = 0; c < nc; c++) {
      PetscCheck(cols[c] >= rs && cols[c] < re, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a column couples across ranks");
      ax += PetscAbsScalar(vals[c]) * PetscAbsScalar(xa[cols[c] - rs]);
    }
    PetscCall(MatRestoreRow(H, i, &nc, &cols, &vals));
    lw = PetscMax(lw, PetscAbsScalar(ra[i - rs]) / ax);
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCallMPI(MPIU_Allreduce(&lw, w, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  PetscCall(MatNorm(H, NORM_INFINITY, &na));
  *rel = nr / (na * nx + nb);
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG s;
  DM         dm;
  Vec        Q, F, FH, FV;
  PetscReal  tol          = SQUALL_TOL(1e-12, 1000);
  char       test[32]     = "split";
  char       casename[64] = "random";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", casename, sizeof(casename), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  {
    /* the split through the GPU kernels (-dm_vec_type cuda) is skipped where there is no device */
    PetscBool wantgpu = PETSC_FALSE;
    PetscCall(SquallTestWantsGPU(&wantgpu));
    if (wantgpu) SQUALL_TEST_SKIP_WITHOUT_GPU();
  }
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGSetUp(s));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(VecDuplicate(Q, &F));
  PetscCall(VecDuplicate(Q, &FH));
  PetscCall(VecDuplicate(Q, &FV));
  PetscCall(SquallESDGSetInitialCondition(s, casename, Q));

  if (!strcmp(test, "split")) {
    PetscReal fmax[5], hmax[5], vmax[5], dmax[5], worst = 0;
    Vec       D;
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_HORIZONTAL, 0, Q, FH));
    PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, 0, Q, FV));
    PetscCall(VecDuplicate(Q, &D));
    PetscCall(VecWAXPY(D, 1, FH, FV));
    PetscCall(VecAXPY(D, -1, F));
    PetscCall(FieldMax(s, F, fmax));
    PetscCall(FieldMax(s, FH, hmax));
    PetscCall(FieldMax(s, FV, vmax));
    PetscCall(FieldMax(s, D, dmax));
    PetscCall(VecDestroy(&D));
    for (PetscInt f = 0; f < 5; f++) {
      const PetscReal r = dmax[f] / PetscMax(hmax[f] + vmax[f], PETSC_SMALL);
      worst             = PetscMax(worst, r);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%" PetscInt_FMT " %s %s: max|F_H + F_V - F| / (max|F_H| + max|F_V|) = %.2e; max|F_V| / max|F| per field %.2e %.2e %.2e %.2e %.2e\n", s->mesh->N, SquallSurfaceFluxTypes[s->surface],
                          s->mesh->cartesian ? "Cartesian" : "curvilinear", (double)worst, (double)(vmax[0] / PetscMax(fmax[0], PETSC_SMALL)), (double)(vmax[1] / PetscMax(fmax[1], PETSC_SMALL)), (double)(vmax[2] / PetscMax(fmax[2], PETSC_SMALL)),
                          (double)(vmax[3] / PetscMax(fmax[3], PETSC_SMALL)), (double)(vmax[4] / PetscMax(fmax[4], PETSC_SMALL))));
    PetscCheck(worst < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "F_H + F_V differs from F by %g relative (tolerance %g)", (double)worst, (double)tol);
    if (!s->mesh->cartesian && s->surface == SQUALL_FLUX_EC) {
      PetscReal rate, scale;
      PetscCall(SquallESDGComputeEntropyRate(s, Q, F, &rate));
      PetscCall(SquallTestEntropyScale(s, Q, F, &scale));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  curvilinear: the parts' entropy rates cancel in F only: dS/dt of F %.2e (relative)\n", (double)(rate / scale)));
      PetscCheck(PetscAbsReal(rate) < tol * scale, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "EC entropy rate of F %g is not at round-off (scale %g)", (double)rate, (double)scale);
    }
    for (PetscInt p = 0; p < 2; p++) {
      Vec       P = p ? FV : FH;
      PetscReal msum, mabs, esum, eabs, rate, scale;
      PetscCall(SquallTestFieldSums(s, P, 0, &msum, &mabs));
      PetscCall(SquallTestFieldSums(s, P, 4, &esum, &eabs));
      PetscCall(SquallESDGComputeEntropyRate(s, Q, P, &rate));
      PetscCall(SquallTestEntropyScale(s, Q, P, &scale));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s part: mass rate %.2e, energy rate %.2e, dS/dt %.2e (relative)\n", p ? "vertical" : "horizontal", (double)(msum / PetscMax(mabs, PETSC_SMALL)), (double)(esum / PetscMax(eabs, PETSC_SMALL)),
                            (double)(rate / PetscMax(scale, PETSC_SMALL))));
      PetscCheck(PetscAbsReal(msum) <= tol * mabs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the %s part does not conserve mass: %g (scale %g)", p ? "vertical" : "horizontal", (double)msum, (double)mabs);
      PetscCheck(PetscAbsReal(esum) <= tol * eabs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the %s part does not conserve energy: %g (scale %g)", p ? "vertical" : "horizontal", (double)esum, (double)eabs);
      /* on curvilinear elements a part's entropy rate keeps the term psi . (D_d Ja^d) of its directions,
         which only the sum over all three directions (the discrete metric identities) cancels */
      if (!s->mesh->cartesian) continue;
      if (s->surface == SQUALL_FLUX_EC)
        PetscCheck(PetscAbsReal(rate) < tol * scale, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the %s part's EC entropy rate %g is not at round-off (scale %g)", p ? "vertical" : "horizontal", (double)rate, (double)scale);
      else
        PetscCheck(rate <= tol * scale, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the %s part's entropy rate %g is positive (scale %g)", p ? "vertical" : "horizontal", (double)rate, (double)scale);
    }
  } else if (!strcmp(test, "jacobian")) {
    /* column j of the dense Jacobian by the same one-sided difference the coloring takes (step err max(|q_j|, umin),
       umin 1): a node's F_V sees only its own column's values, so both differences see the same perturbed inputs */
    TS          ts;
    Mat         P;
    Vec         Xp, F0, Fp, Fm;
    PetscInt    N, rstart, rend, outside = 0;
    PetscReal   err = PetscSqrtReal(PETSC_MACHINE_EPSILON), maxdiff = 0, maxcen = 0, maxent = 0, maxout = 0;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-test jacobian runs on one rank");
    Mat       Pd;
    PetscReal nrm, expect = -1, ertol = 1e-5;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-expect_norm", &expect, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-expect_rtol", &ertol, NULL));
    PetscCall(CreateIMEXTS(s, 1, 1, &ts));
    PetscCall(FormIJacobian(s, ts, Q, 0, &Pd)); /* -dF_V/dq */
    PetscCall(MatNorm(Pd, NORM_FROBENIUS, &nrm));
    PetscCall(MatConvert(Pd, MATAIJ, MAT_INITIAL_MATRIX, &P)); /* a host copy for MatGetRow */
    PetscCall(VecGetSize(Q, &N));
    PetscCall(VecGetOwnershipRange(Q, &rstart, &rend));
    PetscCall(VecDuplicate(Q, &Xp));
    PetscCall(VecDuplicate(Q, &F0));
    PetscCall(VecDuplicate(Q, &Fp));
    PetscCall(VecDuplicate(Q, &Fm));
    PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, 0, Q, F0));
    for (PetscInt j = 0; j < N; j++) {
      PetscScalar       *xp;
      const PetscScalar *fp, *fm, *f0;
      PetscReal          dx;
      PetscCall(VecCopy(Q, Xp));
      PetscCall(VecGetArray(Xp, &xp));
      dx = PetscRealPart(xp[j]);
      if (PetscAbsReal(dx) < 1) dx = dx >= 0 ? 1 : -1;
      dx *= err;
      xp[j] += dx;
      PetscCall(VecRestoreArray(Xp, &xp));
      PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, 0, Xp, Fp));
      PetscCall(VecGetArray(Xp, &xp));
      xp[j] -= 2 * dx;
      PetscCall(VecRestoreArray(Xp, &xp));
      PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, 0, Xp, Fm));
      PetscCall(VecGetArrayRead(Fp, &fp));
      PetscCall(VecGetArrayRead(Fm, &fm));
      PetscCall(VecGetArrayRead(F0, &f0));
      for (PetscInt i = 0; i < N; i++) {
        const PetscReal dense = PetscRealPart(fp[i] - f0[i]) / dx, central = PetscRealPart(fp[i] - fm[i]) / (2 * dx);
        PetscScalar     v;
        PetscBool       in = PETSC_FALSE;
        {
          PetscInt           ncols;
          const PetscInt    *cols;
          const PetscScalar *vals;
          PetscCall(MatGetRow(P, i, &ncols, &cols, &vals));
          v = 0;
          for (PetscInt c = 0; c < ncols; c++)
            if (cols[c] == j) {
              in = PETSC_TRUE;
              v  = -vals[c];
            }
          PetscCall(MatRestoreRow(P, i, &ncols, &cols, &vals));
        }
        if (!in && dense != 0) {
          outside++;
          maxout = PetscMax(maxout, PetscAbsReal(dense));
        }
        maxdiff = PetscMax(maxdiff, PetscAbsReal(dense - PetscRealPart(v)));
        maxcen  = PetscMax(maxcen, PetscAbsReal(central - PetscRealPart(v)));
        maxent  = PetscMax(maxent, PetscAbsReal(dense));
      }
      PetscCall(VecRestoreArrayRead(Fp, &fp));
      PetscCall(VecRestoreArrayRead(Fm, &fm));
      PetscCall(VecRestoreArrayRead(F0, &f0));
    }
    {
      MatInfo info;
      PetscCall(MatGetInfo(P, MAT_GLOBAL_SUM, &info));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "N=%" PetscInt_FMT ": Jacobian of F_V, %" PetscInt_FMT " rows, %.0f nonzeros in the column pattern; blocks vs dense FD (same step): max difference / max entry %.2e; vs dense central differences %.2e; %" PetscInt_FMT
                            " dense entries outside the pattern; Frobenius norm %.10e\n",
                            s->mesh->N, N, info.nz_used, (double)(maxdiff / maxent), (double)(maxcen / maxent), outside, (double)nrm));
    }
    if (expect > 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Frobenius norm against the expected %.10e: %.2e relative\n", (double)expect, (double)(PetscAbsReal(nrm - expect) / expect)));
      PetscCheck(PetscAbsReal(nrm - expect) <= ertol * expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the Jacobian's Frobenius norm %.10e differs from the expected %.10e by more than %g relative", (double)nrm, (double)expect, (double)ertol);
    }
    PetscCheck(maxdiff < 1e-6 * maxent, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "colored Jacobian differs from the dense one by %g (max entry %g)", (double)maxdiff, (double)maxent);
    PetscCheck(maxcen < SQUALL_TOL(1e-5, 1e5) * maxent, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "colored Jacobian differs from central differences by %g (max entry %g)", (double)maxcen, (double)maxent);
    PetscCheck(!outside, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " dense Jacobian entries outside the column pattern (max %g)", outside, (double)maxout);
    PetscCall(VecDestroy(&Xp));
    PetscCall(VecDestroy(&F0));
    PetscCall(VecDestroy(&Fp));
    PetscCall(VecDestroy(&Fm));
    PetscCall(MatDestroy(&P));
    PetscCall(TSDestroy(&ts));
  } else if (!strcmp(test, "pc")) {
    /* the system of an implicit stage at 10 times the explicit step: esdgcolumn's block Thomas solves it exactly, and
       as the LU of each rank's block does */
    TS        ts;
    Mat       P;
    KSP       ksp, kspl;
    Vec       b, x, xl;
    PetscReal w, rel, wl, rell, nx, nd;
    PetscCall(StageMatrix(s, Q, &ts, &P));
    PetscCall(VecDuplicate(Q, &b));
    PetscCall(VecDuplicate(Q, &x));
    PetscCall(VecDuplicate(Q, &xl));
    PetscCall(VecSetRandom(b, NULL));
    PetscCall(ColumnKSP(P, SQUALL_PCESDGCOLUMN, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(BackwardError(P, x, b, &w, &rel));
    {
      /* bjacobi + LU on a host copy (PETSc's LU runs on the host) */
      Mat H;
      Vec bh, xh;
      PetscCall(MatConvert(P, MATAIJ, MAT_INITIAL_MATRIX, &H));
      PetscCall(MatCreateVecs(H, &xh, &bh));
      PetscCall(SquallTestCopyValues(b, bh));
      PetscCall(ColumnKSP(H, PCBJACOBI, &kspl));
      PetscCall(KSPSolve(kspl, bh, xh));
      PetscCall(BackwardError(H, xh, bh, &wl, &rell));
      PetscCall(SquallTestCopyValues(xh, xl));
      PetscCall(VecDestroy(&bh));
      PetscCall(VecDestroy(&xh));
      PetscCall(MatDestroy(&H));
    }
    PetscCall(VecNorm(xl, NORM_INFINITY, &nx));
    PetscCall(VecAXPY(xl, -1, x));
    PetscCall(VecNorm(xl, NORM_INFINITY, &nd));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "column solve esdgcolumn: componentwise backward error %.2e, |A x - b| / (|A| |x| + |b|) = %.2e; bjacobi + LU: %.2e, %.2e; max|x - x_LU| / max|x_LU| = %.2e\n", (double)w, (double)rel, (double)wl,
                          (double)rell, (double)(nd / nx)));
    /* the componentwise backward error is about 1e4 eps (block Thomas pivots inside a level's block, not across
       levels; LU: a few eps): 3e-13 at 2 levels and 2e-12 at 8 in double, 1e-3 in single; the normwise one and
       the difference to LU stay at round-off */
    PetscCheck(w < SQUALL_TOL(1e-10, 1e5), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the column solve is not exact: componentwise backward error %g", (double)w);
    PetscCheck(rel < SQUALL_TOL(1e-12, 1000), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the column solve's relative residual %g is above 1e-12", (double)rel);
    PetscCheck(nd < SQUALL_TOL(1e-12, 1000) * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "esdgcolumn and bjacobi + LU differ by %g relative", (double)(nd / nx));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xl));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(KSPDestroy(&kspl));
    PetscCall(TSDestroy(&ts));
  } else if (!strcmp(test, "pczero")) {
    /* the blocks of the HEVI matrix zeroed (host: a CPU run): every line has a zero pivot, which esdgcolumn reports
       the PETSc way, as a failed PC and a diverged KSP, not as a solution */
    TS                 ts;
    Mat                P;
    KSP                ksp;
    PC                 pc;
    Vec                b, x;
    PetscContainer     ct = NULL;
    SquallESDGColumn   c;
    PCFailedReason     pcr;
    KSPConvergedReason kr;
    PetscCall(StageMatrix(s, Q, &ts, &P));
    PetscCall(PetscObjectQuery((PetscObject)P, SQUALL_ESDG_COLUMN_KEY, (PetscObject *)&ct));
    PetscCheck(ct, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the HEVI matrix carries no column data");
    PetscCall(PetscContainerGetPointer(ct, (void **)&c));
    PetscCheck(!c->device, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-test pczero zeroes host blocks: run it on the CPU");
    PetscCall(PetscArrayzero(c->P, (size_t)SQUALL_COLUMN_BLOCK_ENTRIES(5 * c->lay.Nq) * c->lay.nslot));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, P, P));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, SQUALL_PCESDGCOLUMN));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecDuplicate(Q, &b));
    PetscCall(VecDuplicate(Q, &x));
    PetscCall(VecSet(b, 1));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PCGetFailedReason(pc, &pcr));
    PetscCall(KSPGetConvergedReason(ksp, &kr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "zero blocks: PC %s, KSP %s\n", PCFailedReasons[pcr], KSPConvergedReasons[kr]));
    PetscCheck(pcr == PC_FACTOR_NUMERIC_ZEROPIVOT, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the PC does not report the zero pivot: %s", PCFailedReasons[pcr]);
    PetscCheck(kr == KSP_DIVERGED_PC_FAILED, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the KSP does not report the failed PC: %s", KSPConvergedReasons[kr]);
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(TSDestroy(&ts));
  } else if (!strcmp(test, "pcbad")) {
    /* esdgcolumn on a matrix without the column data: the identity of the state's size */
    Mat A;
    KSP ksp;
    Vec x;
    {
      PetscInt n;
      PetscCall(VecGetLocalSize(Q, &n));
      PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, n, n, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 0, NULL, &A));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatShift(A, 1));
    PetscCall(VecDuplicate(Q, &x));
    PetscCall(ColumnKSP(A, SQUALL_PCESDGCOLUMN, &ksp));
    PetscCall(KSPSolve(ksp, Q, x));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
  } else if (!strcmp(test, "rest") || !strcmp(test, "bubble")) {
    /* ARKIMEX at dt_factor times the explicit step (CFL 1 of the vertical sound speed) */
    TS                ts;
    PetscReal         dt, factor = 8, tfinal = 10, mdrift, edrift;
    SquallESDGStats   s0, s1;
    PetscInt          steps, nits = 0, lits = 0, jac, ifn;
    TSConvergedReason reason;
    Vec               Q0;
    TSARKIMEXType     tstype;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt_factor", &factor, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tfinal", &tfinal, NULL));
    PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
    PetscCall(VecDuplicate(Q, &Q0));
    PetscCall(VecCopy(Q, Q0));
    PetscCall(SquallESDGComputeStats(s, Q, &s0));
    PetscCall(CreateIMEXTS(s, factor * dt, tfinal, &ts));
    PetscCall(TSSolve(ts, Q));
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(TSARKIMEXGetType(ts, &tstype));
    PetscCall(TSGetStepNumber(ts, &steps));
    PetscCall(TSGetSNESIterations(ts, &nits));
    PetscCall(TSGetKSPIterations(ts, &lits));
    PetscCall(SquallESDGGetIMEXStats(s, &jac, &ifn));
    PetscCall(SquallESDGComputeStats(s, Q, &s1));
    mdrift = (s1.mass - s0.mass) / s0.mass;
    edrift = (s1.energy - s0.energy) / s0.energy;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "ARKIMEX %s, dt %.4g (%.3g x explicit %.4g): %" PetscInt_FMT " steps to t = %g (%s), Newton %.2f and Krylov %.2f iterations per step, %" PetscInt_FMT " Jacobians; max|w| %.6e, mass drift %.2e, energy drift %.2e\n", tstype,
                          (double)(factor * dt), (double)factor, (double)dt, steps, (double)tfinal, TSConvergedReasons[reason], (double)nits / steps, (double)lits / steps, jac, (double)s1.maxw, (double)mdrift, (double)edrift));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ARKIMEX did not reach t = %g: %s", (double)tfinal, TSConvergedReasons[reason]);
    if (!strcmp(test, "rest")) {
      PetscCheck(s1.maxw < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the atmosphere at rest moved: max|w| %g m/s (tolerance %g)", (double)s1.maxw, (double)tol);
    } else {
      /* the explicit reference: LSRK14 at CFL 0.5 */
      SquallESDGStats se;
      TS              te;
      PetscReal       wtol = 0.02, dtol = 1e-10;
      PetscCall(PetscOptionsGetReal(NULL, NULL, "-w_tol", &wtol, NULL));
      PetscCall(PetscOptionsGetReal(NULL, NULL, "-drift_tol", &dtol, NULL));
      SquallESDG sx; /* a solver of its own: the IFunction of the split lives on the DM of s */
      PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &sx));
      PetscCall(SquallESDGSetFromOptions(sx));
      PetscCall(SquallESDGSetIMEX(sx, SQUALL_ESDG_IMEX_NONE));
      PetscCall(SquallESDGSetUp(sx));
      PetscCall(SquallTestCreateTS(sx, 0.5 * dt, 1000000, tfinal, &te));
      PetscCall(TSSetExactFinalTime(te, TS_EXACTFINALTIME_MATCHSTEP));
      PetscCall(TSSolve(te, Q0));
      PetscCall(TSGetStepNumber(te, &steps));
      PetscCall(SquallESDGComputeStats(sx, Q0, &se));
      PetscCall(SquallESDGDestroy(&sx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "LSRK14 dt %.4g: %" PetscInt_FMT " steps, max|w| %.6e; ARKIMEX max|w| differs by %.2e relative\n", (double)(0.5 * dt), steps, (double)se.maxw, (double)(PetscAbsReal(s1.maxw - se.maxw) / se.maxw)));
      PetscCheck(PetscAbsReal(s1.maxw - se.maxw) < wtol * se.maxw, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "ARKIMEX max|w| %g differs from the explicit %g by more than %g relative", (double)s1.maxw, (double)se.maxw, (double)wtol);
      PetscCheck(PetscAbsReal(mdrift) < dtol && PetscAbsReal(edrift) < dtol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mass or energy drift %g, %g above %g", (double)mdrift, (double)edrift, (double)dtol);
      {
        PetscReal wexp = -1, wrtol = 1e-10;
        PetscCall(PetscOptionsGetReal(NULL, NULL, "-w_expect", &wexp, NULL));
        PetscCall(PetscOptionsGetReal(NULL, NULL, "-w_expect_rtol", &wrtol, NULL));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ARKIMEX max|w| %.12e\n", (double)s1.maxw));
        if (wexp > 0) {
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  against the expected %.12e: %.2e relative\n", (double)wexp, (double)(PetscAbsReal(s1.maxw - wexp) / wexp)));
          PetscCheck(PetscAbsReal(s1.maxw - wexp) <= wrtol * wexp, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "ARKIMEX max|w| %.12e differs from the expected %.12e by more than %g relative", (double)s1.maxw, (double)wexp, (double)wrtol);
        }
      }
      PetscCall(TSDestroy(&te));
    }
    PetscCall(VecDestroy(&Q0));
    PetscCall(TSDestroy(&ts));
  } else if (!strcmp(test, "order")) {
    /* self-convergence: e(dt) = |q_dt - q_dt/2|, order log2(e(dt) / e(dt/2)) */
    PetscReal dt0 = 0.1, tfinal = 1, expect = 2, e[2], order;
    Vec       Qs[3];
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt0", &dt0, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tfinal", &tfinal, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-expect", &expect, NULL));
    for (PetscInt l = 0; l < 3; l++) {
      TS ts;
      PetscCall(VecDuplicate(Q, &Qs[l]));
      PetscCall(SquallESDGSetInitialCondition(s, casename, Qs[l]));
      PetscCall(CreateIMEXTS(s, dt0 / (1 << l), tfinal, &ts));
      PetscCall(TSSolve(ts, Qs[l]));
      PetscCall(TSDestroy(&ts));
    }
    for (PetscInt l = 0; l < 2; l++) {
      PetscCall(VecAXPY(Qs[l], -1, Qs[l + 1]));
      PetscCall(VecNorm(Qs[l], NORM_2, &e[l]));
    }
    order = PetscLog2Real(e[0] / e[1]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "temporal self-convergence: |q(dt) - q(dt/2)| %.3e, |q(dt/2) - q(dt/4)| %.3e, order %.2f (nominal %g)\n", (double)e[0], (double)e[1], (double)order, (double)expect));
    PetscCheck(PetscAbsReal(order - expect) < 0.2, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "temporal order %g is not within 0.2 of %g", (double)order, (double)expect);
    for (PetscInt l = 0; l < 3; l++) PetscCall(VecDestroy(&Qs[l]));
  } else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-test %s unknown: valid are split, jacobian, pc, pcbad, rest, order, bubble", test);

  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&FH));
  PetscCall(VecDestroy(&FV));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&s));
  PetscCall(PetscFinalize());
  return 0;
}
