static char help[] = "P1 operators on the GPU against the CPU: the element (geometry) kernel, the direct assembly into\n"
                     "(MPI)AIJCUSPARSE in its three modes (-p1_assembly_mode): slots (slot map, atomicAdd), gather\n"
                     "(atomic-free, also bit for bit against itself: deterministic) and reduce (in-block sums), and\n"
                     "MatSetValuesCOO with device values, against host MatSetValues (and each mode against its CPU\n"
                     "reference), for scalar and 3-component operators with all terms, the right-hand sides, the element\n"
                     "metric kernel, and MatMult with the device-assembled matrices (PETSc must see the values written on\n"
                     "the device). Exits with 200 (skipped) when squall has no CUDA or no device is visible.\n"
                     "  -reduce_global  the reduce kernel that reads the vertex fields from global memory (as where a\n"
                     "                block's vertices do not fit in shared memory) instead of shared memory\n"
                     "  -tol <1e-14>  largest difference allowed: row-relative entrywise for matrices; for right-hand sides\n"
                     "                |b_i - b'_i| / s_i with s_i = sum over elements and columns |Op_e(i,j) f_j| (rounding scale);\n"
                     "                for MatMult |y_i - y'_i| / s_i with s_i = sum_j |A_ij x_j|\n";

#include <squall.h>
#include "mat/p1impl.h"
#include "cuda/squallcuda.h"
#include "squalltest.h"
#include "p1testfields.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode RhoFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1.2 + 0.3 * PetscSinReal(1.3e-3 * x[0] + 0.4) * PetscCosReal(0.7e-3 * x[1] - 0.9e-3 * x[2]);
  return PETSC_SUCCESS;
}

static PetscErrorCode VelocityFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 10 + 1e-4 * x[1];
  f[1] = -3 + 2e-4 * x[2];
  f[2] = 0.4 * PetscSinReal(1e-3 * (x[0] + x[1]));
  return PETSC_SUCCESS;
}

static PetscErrorCode TensorFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) f[3 * i + j] = (i == j ? 50.0 : 3.0 * (i - j)) + PetscSinReal(1e-3 * x[0] + 2 * i + j);
  return PETSC_SUCCESS;
}

static PetscErrorCode FieldFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  const PetscInt bs = *(PetscInt *)ctx;

  for (PetscInt i = 0; i < bs; i++) f[i] = PetscCosReal(2.1e-4 * x[0] - 0.5 * i) + 1e-3 * x[2] + i;
  return PETSC_SUCCESS;
}

static PetscErrorCode SetFields(SquallP1 p1)
{
  PetscFunctionBegin;
  PetscCall(P1TestSetFields(p1, RhoFn, VelocityFn, TensorFn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Assemble(SquallP1 p1, SquallP1AssemblyType type, PetscInt bs, const PetscReal coef[], Mat *A, Vec *b)
{
  Vec      f;
  PetscInt bsf = bs;

  PetscFunctionBegin;
  PetscCall(SquallP1SetAssemblyType(p1, type));
  PetscCall(SquallP1CreateMatrix(p1, bs, A));
  PetscCall(SquallP1AssembleOperator(p1, coef, *A));
  PetscCall(SquallP1CreateVector(p1, bs, &f));
  PetscCall(SquallP1Interpolate(p1, bs, FieldFn, &bsf, f));
  PetscCall(VecDuplicate(f, b));
  PetscCall(SquallP1AssembleRHS(p1, coef, f, *b));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rounding scale of a right-hand side, s_i = sum_e sum_j |Op_e(i,j) f_j|, on the host SquallP1 (after
   a SquallP1AssembleRHS() with block size bs, which set up the scatter). b_i = sum_e sum_j Op_e(i,j) f_j
   can cancel: on the unit cube of tests/data/p1_cube.msh the diffusion terms (~ K h) nearly cancel on
   the smooth field (max s / max |b| ~ 3e3), so rounding differences of size eps * s_i, e.g. from the
   device's fused multiply-adds in the element code (reproduced on the CPU: 9e-14 relative to max |b|),
   are far above eps * max |b|. On the mountain mesh the mass term dominates and s ~ |b|. */
static PetscErrorCode RHSScale(SquallP1 p1, PetscInt bs, const PetscReal coef[], Vec s)
{
  Vec                f, fl;
  const PetscScalar *fa;
  PetscScalar       *sa;
  SquallP1Elements   E;
  SquallP1Coef       c;
  PetscInt           bsf = bs;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < SQUALL_P1_NUM_TERMS; k++) c.c[k] = coef[k];
  PetscCall(SquallP1CreateVector(p1, bs, &f));
  PetscCall(SquallP1Interpolate(p1, bs, FieldFn, &bsf, f));
  PetscCall(VecDuplicate(p1->lwork[bs], &fl));
  PetscCall(VecScatterBegin(p1->g2l[bs], f, fl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(p1->g2l[bs], f, fl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  PetscCall(VecZeroEntries(s));
  PetscCall(VecGetArray(s, &sa));
  PetscCall(VecGetArrayRead(fl, &fa));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoad(&E, e, &c, v, g, &vol, S);
    for (int a = 0; a < 4; a++) {
      if (p1->row[v[a]] < 0) continue;
      for (int i = 0; i < bs; i++)
        for (int b = 0; b < 4; b++)
          for (int j = 0; j < bs; j++) {
            const PetscReal op = bs == 1 ? S[a][b] : SquallP1BlockEntry((const PetscReal(*)[4])S, (const PetscReal(*)[3])g, c.c[SQUALL_P1_GRADDIV] * vol, a, i, b, j);
            sa[bs * p1->row[v[a]] + i] += PetscAbsReal(op * PetscRealPart(fa[bs * v[b] + j]));
          }
    }
  }
  PetscCall(VecRestoreArrayRead(fl, &fa));
  PetscCall(VecRestoreArray(s, &sa));
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(VecDestroy(&fl));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max_i |a_i - b_i| / s_i */
static PetscErrorCode VecCompareScaled(Vec a, Vec b, Vec s, PetscReal *d)
{
  const PetscScalar *x, *y, *z;
  PetscInt           n;
  PetscReal          m = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(s, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  PetscCall(VecGetArrayRead(s, &z));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal diff = PetscAbsScalar(x[i] - y[i]), sc = PetscRealPart(z[i]);
    m = PetscMax(m, sc > 0 ? diff / sc : diff);
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(VecRestoreArrayRead(s, &z));
  PetscCallMPI(MPIU_Allreduce(&m, d, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)s)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A|: a copy of the host matrix with every stored value replaced by its absolute value (SEQAIJ or MPIAIJ) */
static PetscErrorCode MatAbsCopy(Mat A, Mat *B)
{
  Mat       blk[2] = {NULL, NULL};
  PetscBool ismpi;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(PetscStrbeginswith(((PetscObject)*B)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi)
    PetscCall(MatMPIAIJGetSeqAIJ(*B, &blk[0], &blk[1], NULL));
  else
    blk[0] = *B;
  for (PetscInt k = 0; k < 2; k++) {
    PetscScalar *a;
    MatInfo      info;

    if (!blk[k]) continue;
    PetscCall(MatGetInfo(blk[k], MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetArray(blk[k], &a));
    for (PetscInt q = 0; q < (PetscInt)info.nz_used; q++) a[q] = PetscAbsScalar(a[q]);
    PetscCall(MatSeqAIJRestoreArray(blk[k], &a));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)*B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x for a GPU and a host matrix with the same x: the device values must be the ones used.
   *d = max_i |y_i - y'_i| / s_i with s_i = sum_j |A_ij x_j| (the host matrix): the rounding scale of
   row i. Like the right-hand sides, y_i can cancel (on tests/data/p1_cube.msh the diffusion terms
   nearly cancel on the smooth x), so rounding differences of size eps * s_i, e.g. from the device's
   fused multiply-adds in the element code and cuSPARSE's summation order, are far above
   eps * max |y|; relative to s_i they are a few eps, and a wrong entry or a stale block is O(1). */
static PetscErrorCode CompareMult(SquallP1 pg, SquallP1 ph, PetscInt bs, Mat Ag, Mat Ah, PetscReal *d)
{
  Vec      xg, xh, yg, yh, xa, s;
  Mat      Habs;
  PetscInt bsf = bs;

  PetscFunctionBegin;
  PetscCall(SquallP1CreateVector(pg, bs, &xg));
  PetscCall(SquallP1CreateVector(ph, bs, &xh));
  PetscCall(SquallP1Interpolate(pg, bs, FieldFn, &bsf, xg));
  PetscCall(SquallP1Interpolate(ph, bs, FieldFn, &bsf, xh));
  PetscCall(VecDuplicate(xg, &yg));
  PetscCall(VecDuplicate(xh, &yh));
  PetscCall(MatMult(Ag, xg, yg));
  PetscCall(MatMult(Ah, xh, yh));
  PetscCall(MatAbsCopy(Ah, &Habs));
  PetscCall(VecDuplicate(xh, &xa));
  PetscCall(VecCopy(xh, xa));
  PetscCall(VecAbs(xa));
  PetscCall(VecDuplicate(xh, &s));
  PetscCall(MatMult(Habs, xa, s));
  PetscCall(VecCompareScaled(yh, yg, s, d));
  PetscCall(MatDestroy(&Habs));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&xg));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yg));
  PetscCall(VecDestroy(&yh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every direct mode, COO and the host paths for block size bs on the device SquallP1 pg against the host one ph;
   mode0: the mode of the first direct matrix and its right-hand side */
static PetscErrorCode CompareBlockSize(SquallP1 pg, SquallP1 ph, PetscInt bs, SquallP1AssemblyMode mode0, PetscBool reduceglobal, PetscReal tol)
{
  const PetscReal coef[4] = {1.3, 0.7, 0.9, bs == 3 ? 0.4 : 0}, coef2[4] = {0.5, 0, 2.0, 0};
  Mat             Ag, Ac, Ah, Ar, As, At[2], Atr, Au, Aur;
  Vec             bg, bc, bh, br, sc;
  PetscReal       d[3], dv[3], dn, dm1, dm2, ds[3], dsm[2], dt[4], dtm[2], du[3], dum[2];

  PetscFunctionBegin;
  /* the direct assembly in the SquallP1's mode (Ag, with its right-hand side: reduce unless -p1_assembly_mode)
     and with the slot map (As) */
  PetscCall(SquallP1SetAssemblyMode(pg, mode0));
  PetscCall(Assemble(pg, SQUALL_P1_ASSEMBLY_DIRECT, bs, coef, &Ag, &bg));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_SLOTS));
  PetscCall(SquallP1CreateMatrix(pg, bs, &As));
  PetscCall(SquallP1AssembleOperator(pg, coef, As));
  /* the atomic-free gather mode, twice into two matrices (a fixed summation order: identical bits),
     the first assembled twice (every value overwritten, nothing accumulates), and its CPU reference */
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_GATHER));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(SquallP1CreateMatrix(pg, bs, &At[k]));
    PetscCall(SquallP1AssembleOperator(pg, coef, At[k]));
  }
  PetscCall(SquallP1AssembleOperator(pg, coef, At[0]));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_SLOTS));
  PetscCall(SquallP1SetAssemblyType(ph, SQUALL_P1_ASSEMBLY_DIRECT));
  PetscCall(SquallP1SetAssemblyMode(ph, SQUALL_P1_MODE_GATHER));
  PetscCall(SquallP1CreateMatrix(ph, bs, &Atr));
  PetscCall(SquallP1AssembleOperator(ph, coef, Atr));
  PetscCall(SquallP1SetAssemblyMode(ph, SQUALL_P1_MODE_SLOTS));
  /* the in-block reduction, assembled twice into one matrix (zeroed, not accumulated, each time; the
     adds of different blocks come in any order, so not bit for bit), and its CPU reference */
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_REDUCE));
  PetscCall(SquallP1CreateMatrix(pg, bs, &Au));
  PetscCall(SquallP1AssembleOperator(pg, coef, Au));
  PetscCall(SquallP1AssembleOperator(pg, coef, Au));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_SLOTS));
  PetscCall(SquallP1SetAssemblyMode(ph, SQUALL_P1_MODE_REDUCE));
  PetscCall(SquallP1CreateMatrix(ph, bs, &Aur));
  PetscCall(SquallP1AssembleOperator(ph, coef, Aur));
  PetscCall(SquallP1SetAssemblyMode(ph, SQUALL_P1_MODE_SLOTS));
  PetscCall(Assemble(pg, SQUALL_P1_ASSEMBLY_COO, bs, coef, &Ac, &bc));
  PetscCall(Assemble(ph, SQUALL_P1_ASSEMBLY_SETVALUES, bs, coef, &Ah, &bh));
  PetscCall(Assemble(ph, SQUALL_P1_ASSEMBLY_DIRECT, bs, coef, &Ar, &br));
  PetscCall(SquallP1MatCompare(Ah, At[0], &dt[0]));
  PetscCall(SquallP1MatCompare(Atr, At[0], &dt[1]));
  PetscCall(SquallP1MatCompare(As, At[0], &dt[2]));
  PetscCall(SquallP1MatCompare(At[1], At[0], &dt[3]));
  PetscCall(CompareMult(pg, ph, bs, At[0], Ah, &dtm[0]));
  PetscCall(CompareMult(pg, ph, bs, Ag, Ah, &dm1));
  PetscCall(SquallP1MatCompare(Ah, Ag, &d[0]));
  PetscCall(SquallP1MatCompare(Ac, Ag, &d[1]));
  PetscCall(SquallP1MatCompare(Ar, Ag, &d[2]));
  PetscCall(SquallP1MatCompare(Ah, As, &ds[0]));
  PetscCall(SquallP1MatCompare(Ar, As, &ds[1]));
  PetscCall(SquallP1MatCompare(Ag, As, &ds[2]));
  PetscCall(CompareMult(pg, ph, bs, As, Ah, &dsm[0]));
  PetscCall(SquallP1MatCompare(Ah, Au, &du[0]));
  PetscCall(SquallP1MatCompare(Aur, Au, &du[1]));
  PetscCall(SquallP1MatCompare(As, Au, &du[2]));
  PetscCall(CompareMult(pg, ph, bs, Au, Ah, &dum[0]));
  PetscCall(VecDuplicate(bh, &sc));
  PetscCall(RHSScale(ph, bs, coef, sc));
  PetscCall(VecCompareScaled(bh, bg, sc, &dv[0]));
  PetscCall(VecCompareScaled(bc, bg, sc, &dv[1]));
  PetscCall(VecCompareScaled(br, bg, sc, &dv[2]));
  PetscCall(SquallP1VecCompare(bh, bg, &dn)); /* relative to max |b|: reported only */
  PetscCall(VecDestroy(&sc));
  /* reassemble on the device after the host has read the matrix: the new values must be used */
  PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_DIRECT));
  PetscCall(SquallP1SetAssemblyMode(pg, mode0));
  PetscCall(SquallP1AssembleOperator(pg, coef2, Ag));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_SLOTS));
  PetscCall(SquallP1AssembleOperator(pg, coef2, As));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_GATHER));
  PetscCall(SquallP1AssembleOperator(pg, coef2, At[0]));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_REDUCE));
  PetscCall(SquallP1AssembleOperator(pg, coef2, Au));
  PetscCall(SquallP1SetAssemblyMode(pg, SQUALL_P1_MODE_SLOTS));
  PetscCall(SquallP1SetAssemblyType(ph, SQUALL_P1_ASSEMBLY_SETVALUES));
  PetscCall(SquallP1AssembleOperator(ph, coef2, Ah));
  PetscCall(CompareMult(pg, ph, bs, Ag, Ah, &dm2));
  PetscCall(CompareMult(pg, ph, bs, As, Ah, &dsm[1]));
  PetscCall(CompareMult(pg, ph, bs, At[0], Ah, &dtm[1]));
  PetscCall(CompareMult(pg, ph, bs, Au, Ah, &dum[1]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "bs %" PetscInt_FMT ": GPU direct (%s) vs host MatSetValues %.1e, vs GPU COO %.1e, vs CPU reference %.1e; rhs %.1e, %.1e, %.1e (relative to max |b| %.1e); MatMult %.1e, after reassembly %.1e (relative to sum_j |A_ij x_j|)\n",
                        bs, SquallP1AssemblyModes[mode0], (double)d[0], (double)d[1], (double)d[2], (double)dv[0], (double)dv[1], (double)dv[2], (double)dn, (double)dm1, (double)dm2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bs %" PetscInt_FMT ": GPU slots vs host MatSetValues %.1e, vs CPU reference %.1e, vs GPU default mode %.1e; MatMult %.1e, after reassembly %.1e\n", bs, (double)ds[0], (double)ds[1], (double)ds[2],
                        (double)dsm[0], (double)dsm[1]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bs %" PetscInt_FMT ": GPU gather vs host MatSetValues %.1e, vs CPU gather %.1e, vs GPU slots %.1e, vs itself %.1e; MatMult %.1e, after reassembly %.1e\n", bs, (double)dt[0], (double)dt[1], (double)dt[2],
                        (double)dt[3], (double)dtm[0], (double)dtm[1]));
  CHECK(d[0] <= tol && d[1] <= tol && d[2] <= tol, "bs %" PetscInt_FMT ": GPU matrices differ beyond %g", bs, (double)tol);
  CHECK(dt[0] <= tol && dt[1] <= tol && dt[2] <= tol, "bs %" PetscInt_FMT ": GPU gather-mode matrices differ beyond %g (%g %g %g)", bs, (double)tol, (double)dt[0], (double)dt[1], (double)dt[2]);
  CHECK(dt[3] == 0, "bs %" PetscInt_FMT ": two GPU gather-mode assemblies differ (%g): not deterministic", bs, (double)dt[3]);
  CHECK(dtm[0] <= tol && dtm[1] <= tol, "bs %" PetscInt_FMT ": MatMult with the gather-mode matrix differs beyond %g (%g, %g)", bs, (double)tol, (double)dtm[0], (double)dtm[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bs %" PetscInt_FMT ": GPU reduce (vertex fields from %s memory) vs host MatSetValues %.1e, vs CPU reduce %.1e, vs GPU slots %.1e; MatMult %.1e, after reassembly %.1e\n", bs,
                        reduceglobal ? "global" : "shared", (double)du[0], (double)du[1], (double)du[2], (double)dum[0], (double)dum[1]));
  CHECK(du[0] <= tol && du[1] <= tol && du[2] <= tol, "bs %" PetscInt_FMT ": GPU reduce-mode matrices differ beyond %g (%g %g %g)", bs, (double)tol, (double)du[0], (double)du[1], (double)du[2]);
  CHECK(dum[0] <= tol && dum[1] <= tol, "bs %" PetscInt_FMT ": MatMult with the reduce-mode matrix differs beyond %g (%g, %g)", bs, (double)tol, (double)dum[0], (double)dum[1]);
  CHECK(ds[0] <= tol && ds[1] <= tol && ds[2] <= tol, "bs %" PetscInt_FMT ": GPU slot-map matrices differ beyond %g (%g %g %g)", bs, (double)tol, (double)ds[0], (double)ds[1], (double)ds[2]);
  CHECK(dsm[0] <= tol && dsm[1] <= tol, "bs %" PetscInt_FMT ": MatMult with the slot-map matrix differs beyond %g (%g, %g)", bs, (double)tol, (double)dsm[0], (double)dsm[1]);
  CHECK(dv[0] <= tol && dv[1] <= tol && dv[2] <= tol, "bs %" PetscInt_FMT ": GPU right-hand sides differ beyond %g", bs, (double)tol);
  CHECK(dm1 <= tol && dm2 <= tol, "bs %" PetscInt_FMT ": MatMult with the device-assembled matrix differs beyond %g (%g, %g)", bs, (double)tol, (double)dm1, (double)dm2);
  PetscCall(MatDestroy(&Ag));
  PetscCall(MatDestroy(&Ac));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Ar));
  PetscCall(MatDestroy(&As));
  PetscCall(MatDestroy(&At[0]));
  PetscCall(MatDestroy(&At[1]));
  PetscCall(MatDestroy(&Atr));
  PetscCall(MatDestroy(&Au));
  PetscCall(MatDestroy(&Aur));
  PetscCall(VecDestroy(&bg));
  PetscCall(VecDestroy(&bc));
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&br));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt ne;
  /* 45 eps: an entry sums up to ~30 element contributions in another order; 16 eps: the element geometry
     (Jacobian, inverse, determinant) is a few operations per value */
  PetscReal   tol = SQUALL_TOL(1e-14, 45), dg = 0, gmax = 0;
  DM          dm;
  SquallP1    pg, ph;
  PetscReal  *geom;
  PetscMPIInt rank;
  PetscBool   reduceglobal = PETSC_FALSE;

  SquallP1AssemblyMode mode0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  SQUALL_TEST_SKIP_WITHOUT_GPU();
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(SquallP1CreateMeshFromOptions(PETSC_COMM_WORLD, &dm));
  PetscCall(SquallP1Create(dm, &pg));
  PetscCall(SquallP1Create(dm, &ph));
  PetscCall(SquallP1SetFromOptions(pg)); /* e.g. -p1_element_order colored; the backends are fixed below */
  PetscCall(SquallP1SetFromOptions(ph));
  PetscCall(SquallP1SetBackend(pg, SQUALL_P1_CUDA));
  PetscCall(SquallP1SetBackend(ph, SQUALL_P1_HOST));
  PetscCall(SquallP1SetUp(pg));
  PetscCall(SquallP1SetUp(ph));
  PetscCall(SquallP1GetAssemblyMode(pg, &mode0));
  /* the reduce kernel that reads the vertex fields from global memory, which runs where a block's vertices
     do not fit in shared memory */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-reduce_global", &reduceglobal, NULL));
  if (reduceglobal) PetscCall(SquallP1CUDASetSharedMemoryLimit(pg->dev, 0));
  PetscCall(SquallP1View(pg, NULL));

  /* the element kernel against the CPU reference */
  PetscCall(SquallP1GetSizes(pg, NULL, NULL, &ne, NULL));
  PetscCall(PetscMalloc1(SQUALL_P1_NGEOM * PetscMax(ne, 1), &geom));
  PetscCall(SquallP1CUDAGetGeometry(pg->dev, geom));
  for (PetscInt k = 0; k < SQUALL_P1_NGEOM * ne; k++) gmax = PetscMax(gmax, PetscAbsReal(ph->geom[k]));
  for (PetscInt e = 0; e < ne; e++) {
    PetscReal rmax = 0;
    for (PetscInt k = 0; k < 9; k++) rmax = PetscMax(rmax, PetscAbsReal(ph->geom[k * ne + e]));
    for (PetscInt k = 0; k < 9; k++) dg = PetscMax(dg, PetscAbsReal(geom[k * ne + e] - ph->geom[k * ne + e]) / rmax);
    dg = PetscMax(dg, PetscAbsReal(geom[9 * ne + e] - ph->geom[9 * ne + e]) / ph->geom[9 * ne + e]);
  }
  PetscCall(PetscFree(geom));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dg, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "element kernel: J^{-1} and volume match the CPU to %.1e\n", (double)dg));
  CHECK(dg <= SQUALL_TOL(1e-13, 16), "GPU element geometry differs from the CPU by %g", (double)dg);

  PetscCall(SetFields(pg));
  PetscCall(SetFields(ph));
  for (PetscInt bs = 1; bs <= 3; bs += 2) PetscCall(CompareBlockSize(pg, ph, bs, mode0, reduceglobal, tol));

  /* the metric kernel (6x6 solves and 3x3 eigenpairs on the device) and per-element diffusivity */
  {
    const PetscReal cd[4] = {0, 0, 1, 0};
    Vec             Lg, Lh, hg, hh;
    Mat             Ag, Ah;
    PetscReal       dl, dh, da;

    PetscCall(SquallP1CreateElementVector(pg, 9, &Lg));
    PetscCall(SquallP1CreateElementVector(ph, 9, &Lh));
    PetscCall(SquallP1CreateElementVector(pg, 3, &hg));
    PetscCall(SquallP1CreateElementVector(ph, 3, &hh));
    PetscCall(SquallP1ComputeElementMetric(pg, 0.1, Lg, hg));
    PetscCall(SquallP1ComputeElementMetric(ph, 0.1, Lh, hh));
    PetscCall(SquallP1VecCompare(Lh, Lg, &dl));
    PetscCall(SquallP1VecCompare(hh, hg, &dh));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dl, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dh, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(SquallP1SetDiffusivity(pg, SQUALL_P1_ELEMENT, Lg));
    PetscCall(SquallP1SetDiffusivity(ph, SQUALL_P1_ELEMENT, Lh));
    PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_DIRECT));
    PetscCall(SquallP1SetAssemblyType(ph, SQUALL_P1_ASSEMBLY_SETVALUES));
    PetscCall(SquallP1CreateMatrix(pg, 1, &Ag));
    PetscCall(SquallP1CreateMatrix(ph, 1, &Ah));
    PetscCall(SquallP1AssembleOperator(pg, cd, Ag));
    PetscCall(SquallP1AssembleOperator(ph, cd, Ah));
    PetscCall(SquallP1MatCompare(Ah, Ag, &da));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "metric kernel: length-scale tensors match the CPU to %.1e, lengths to %.1e; metric diffusion GPU vs host %.1e\n", (double)dl, (double)dh, (double)da));
    CHECK(dl <= SQUALL_TOL(1e-12, 4500) && dh <= SQUALL_TOL(1e-12, 4500) && da <= SQUALL_TOL(1e-12, 4500), "GPU metric differs from the CPU (%g %g %g)", (double)dl, (double)dh, (double)da);
    PetscCall(MatDestroy(&Ag));
    PetscCall(MatDestroy(&Ah));
    PetscCall(VecDestroy(&Lg));
    PetscCall(VecDestroy(&Lh));
    PetscCall(VecDestroy(&hg));
    PetscCall(VecDestroy(&hh));
  }
  PetscCall(SquallP1Destroy(&pg));
  PetscCall(SquallP1Destroy(&ph));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
