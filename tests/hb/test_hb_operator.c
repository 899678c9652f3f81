static char help[] = "The hipBone operator (MATSHELL) against a matrix assembled independently on the host, for orders\n"
                     "-orders (default 1..6) on the mesh of the -hb_* options: A x for random x, the diagonal, SquallHBAssemble()\n"
                     "and the fused x.Ax. The reference numbers the nodes of the brick's lattice itself, forms the element\n"
                     "matrices by explicit GLL quadrature of grad(phi_p).grad(phi_q) with the element's constant Jacobian, and\n"
                     "finds the operator's unknowns by their coordinates.\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

typedef struct {
  PetscInt   N, Nq, E[3], L[3], nlat;
  PetscReal  bounds[6], shear, lambda;
  PetscBool  dirichlet;
  PetscReal  r[16], w[16], D[256];
  PetscReal *x1d[3]; /* lattice coordinates per direction, before the shear */
} Ref;

static PetscInt LatticeIndex(const Ref *ref, PetscInt ix, PetscInt iy, PetscInt iz)
{
  return ix + ref->L[0] * (iy + ref->L[1] * iz);
}

static PetscBool OnBoundary(const Ref *ref, PetscInt ix, PetscInt iy, PetscInt iz)
{
  return (PetscBool)(ix == 0 || iy == 0 || iz == 0 || ix == ref->L[0] - 1 || iy == ref->L[1] - 1 || iz == ref->L[2] - 1);
}

static PetscErrorCode RefSetUp(Ref *ref, Mat A)
{
  SquallHBInfo info;
  PetscInt     nb = 6;

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  ref->N  = info.order;
  ref->Nq = info.Nq;
  for (PetscInt d = 0; d < 3; d++) {
    ref->E[d]              = info.elements[d];
    ref->L[d]              = ref->E[d] * ref->N + 1;
    ref->bounds[2 * d]     = 0;
    ref->bounds[2 * d + 1] = 1;
  }
  ref->nlat      = ref->L[0] * ref->L[1] * ref->L[2];
  ref->lambda    = info.lambda;
  ref->dirichlet = info.dirichlet;
  ref->shear     = 0;
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-hb_bounds", ref->bounds, &nb, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-hb_shear", &ref->shear, NULL));
  PetscCall(SquallLGLNodesWeights(ref->N, ref->r, ref->w));
  PetscCall(SquallLGLDerivativeMatrix(ref->N, NULL, ref->D));
  for (PetscInt d = 0; d < 3; d++) {
    const PetscReal h = (ref->bounds[2 * d + 1] - ref->bounds[2 * d]) / ref->E[d];

    PetscCall(PetscMalloc1(ref->L[d], &ref->x1d[d]));
    for (PetscInt ix = 0; ix < ref->L[d]; ix++) {
      const PetscInt e = PetscMin(ix / ref->N, ref->E[d] - 1), i = ix - e * ref->N;

      ref->x1d[d][ix] = ref->bounds[2 * d] + h * (e + (1 + ref->r[i]) / 2);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RefDestroy(Ref *ref)
{
  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(ref->x1d[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the nearest lattice coordinate to v in direction d */
static PetscInt Nearest(const Ref *ref, PetscInt d, PetscReal v, PetscReal *dist)
{
  PetscInt best = 0;

  for (PetscInt i = 1; i < ref->L[d]; i++)
    if (PetscAbsReal(ref->x1d[d][i] - v) < PetscAbsReal(ref->x1d[d][best] - v)) best = i;
  *dist = PetscAbsReal(ref->x1d[d][best] - v);
  return best;
}

/* sequential reference matrix over all lattice nodes (Dirichlet rows and columns left empty) */
static PetscErrorCode RefAssemble(const Ref *ref, Mat *B)
{
  const PetscInt  Nq = ref->Nq, Np = Nq * Nq * Nq, N = ref->N;
  const PetscReal s = ref->shear;
  PetscInt       *mult, *ci, *cj, ncoo = 0, nmax;
  PetscScalar    *cv;
  PetscReal      *gradp;

  PetscFunctionBegin;
  nmax = ref->E[0] * ref->E[1] * ref->E[2] * (Np * 9 * Nq * Nq + Np); /* per node m: pairs on the lines through m */
  PetscCall(PetscMalloc3(nmax, &ci, nmax, &cj, nmax, &cv));
  PetscCall(PetscCalloc1(ref->nlat, &mult));
  PetscCall(PetscMalloc1(3 * Np * Np, &gradp));
  for (PetscInt ez = 0; ez < ref->E[2]; ez++)
    for (PetscInt ey = 0; ey < ref->E[1]; ey++)
      for (PetscInt ex = 0; ex < ref->E[0]; ex++)
        for (PetscInt n = 0; n < Np; n++) mult[LatticeIndex(ref, ex * N + n % Nq, ey * N + (n / Nq) % Nq, ez * N + n / (Nq * Nq))]++;
  for (PetscInt ez = 0; ez < ref->E[2]; ez++) {
    for (PetscInt ey = 0; ey < ref->E[1]; ey++) {
      for (PetscInt ex = 0; ex < ref->E[0]; ex++) {
        /* x = S diag(h/2) r + c: J = S diag(h/2) with S the shear */
        const PetscReal h[3]    = {(ref->bounds[1] - ref->bounds[0]) / ref->E[0] / 2, (ref->bounds[3] - ref->bounds[2]) / ref->E[1] / 2, (ref->bounds[5] - ref->bounds[4]) / ref->E[2] / 2};
        const PetscReal J[3][3] = {{h[0], s * h[1], s * h[2]}, {0, h[1], s * h[2]}, {0, 0, h[2]}};
        const PetscReal detJ    = h[0] * h[1] * h[2];
        /* inverse of the upper triangular J */
        const PetscReal Ji[3][3] = {{1 / h[0], -s / h[0], (s * s - s) / h[0]}, {0, 1 / h[1], -s / h[1]}, {0, 0, 1 / h[2]}};
        PetscInt        gl[4096];

        for (PetscInt a = 0; a < 3; a++)
          for (PetscInt b = 0; b < 3; b++) {
            PetscReal v = 0;
            for (PetscInt c = 0; c < 3; c++) v += Ji[a][c] * J[c][b];
            CHECK(PetscAbsReal(v - (a == b)) < SQUALL_TOL(1e-12, 100), "reference Jacobian inverse is wrong");
          }
        for (PetscInt n = 0; n < Np; n++) {
          const PetscInt ix = ex * N + n % Nq, iy = ey * N + (n / Nq) % Nq, iz = ez * N + n / (Nq * Nq);

          gl[n] = ref->dirichlet && OnBoundary(ref, ix, iy, iz) ? -1 : LatticeIndex(ref, ix, iy, iz);
        }
        /* K_pq = sum_m w_m detJ (J^{-T} grad_r phi_p(m)) . (J^{-T} grad_r phi_q(m)) */
        for (PetscInt m = 0; m < Np; m++) {
          const PetscInt  mi = m % Nq, mj = (m / Nq) % Nq, mk = m / (Nq * Nq);
          const PetscReal wm = ref->w[mi] * ref->w[mj] * ref->w[mk] * detJ;

          for (PetscInt p = 0; p < Np; p++) {
            const PetscInt pi = p % Nq, pj = (p / Nq) % Nq, pk = p / (Nq * Nq);
            PetscReal      gr[3];

            gr[0] = (pj == mj && pk == mk) ? ref->D[mi * Nq + pi] : 0;
            gr[1] = (pi == mi && pk == mk) ? ref->D[mj * Nq + pj] : 0;
            gr[2] = (pi == mi && pj == mj) ? ref->D[mk * Nq + pk] : 0;
            /* physical gradient: g_c = sum_a dr_a/dx_c gr_a = sum_a Ji[a][c] gr[a] */
            for (PetscInt c = 0; c < 3; c++) gradp[3 * p + c] = Ji[0][c] * gr[0] + Ji[1][c] * gr[1] + Ji[2][c] * gr[2];
          }
          for (PetscInt p = 0; p < Np; p++) {
            if (gl[p] < 0 || (gradp[3 * p] == 0 && gradp[3 * p + 1] == 0 && gradp[3 * p + 2] == 0)) continue;
            for (PetscInt q = 0; q < Np; q++) {
              if (gl[q] < 0 || (gradp[3 * q] == 0 && gradp[3 * q + 1] == 0 && gradp[3 * q + 2] == 0)) continue;
              CHECK(ncoo < nmax, "COO overflow");
              ci[ncoo] = gl[p];
              cj[ncoo] = gl[q];
              cv[ncoo] = wm * (gradp[3 * p] * gradp[3 * q] + gradp[3 * p + 1] * gradp[3 * q + 1] + gradp[3 * p + 2] * gradp[3 * q + 2]);
              ncoo++;
            }
          }
        }
        for (PetscInt p = 0; p < Np; p++) {
          if (gl[p] < 0) continue;
          ci[ncoo] = cj[ncoo] = gl[p];
          cv[ncoo++]          = ref->lambda / mult[gl[p]];
        }
      }
    }
  }
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, ref->nlat, ref->nlat, ref->nlat, ref->nlat));
  PetscCall(MatSetType(*B, MATSEQAIJ));
  PetscCall(MatSetPreallocationCOO(*B, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(*B, cv, ADD_VALUES));
  PetscCall(PetscFree(gradp));
  PetscCall(PetscFree(mult));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scatter the device products use, as docs/hipbone.md states the rule: -hb_scatter if given, else on one rank in
   double precision atomic with the mma kernel and, with the others, at orders other than 13 and 15, else gather */
static PetscErrorCode CheckScatter(const SquallHBInfo *info)
{
  char        asked[16] = "auto";
  const char *expect;
  PetscMPIInt size;
  PetscBool   same;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-hb_scatter", asked, sizeof(asked), NULL));
  PetscCall(PetscStrcmp(asked, "auto", &same));
  expect = asked;
  if (same) {
    PetscBool mma;

    PetscCall(PetscStrcmp(info->kernel, "mma", &mma));
    expect = size == 1 && PetscDefined(USE_REAL_DOUBLE) && (mma || (info->order != 13 && info->order != 15)) ? "atomic" : "gather";
  }
  PetscCall(PetscStrcmp(info->scatter, expect, &same));
  CHECK(same, "N=%" PetscInt_FMT " on %d ranks with -hb_scatter %s: the operator reports scatter %s, expected %s", info->order, size, asked, info->scatter, expect);
  PetscCall(PetscStrcmp(info->scatter, "atomic", &same));
  CHECK(!same || info->nsingle == 0, "N=%" PetscInt_FMT ": under atomic the device kernels add every row, but the operator reports %" PetscInt_FMT " rows written whole", info->order, info->nsingle);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every kernel SquallHBKernelAvailable() offers at this order is taken by MatSetFromOptions() and reported back (the
   refusals of the others are the bad-option tests) */
static PetscErrorCode CheckKernels(Mat A, PetscInt N)
{
  const char *const kernels[] = {"sweep", "layers", "layers_tiled", "mma"};
  SquallHBInfo      info;

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
    PetscBool available, same;

    PetscCall(SquallHBKernelAvailable(kernels[k], N, &available));
    if (!available) continue;
    PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel", kernels[k]));
    PetscCall(MatSetFromOptions(A));
    PetscCall(SquallHBGetInfo(A, &info));
    PetscCall(PetscStrcmp(info.kernel, kernels[k], &same));
    CHECK(same, "N=%" PetscInt_FMT ": -hb_kernel %s is available but the operator reports kernel %s", N, kernels[k], info.kernel);
  }
  PetscCall(PetscOptionsClearValue(NULL, "-hb_kernel"));
  PetscCall(MatSetFromOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckOrder(PetscInt N, PetscReal tol)
{
  Mat                A, B, Aasm;
  Ref                ref;
  Vec                X, x, y, d, xl, yl, ya;
  const PetscScalar *Xa, *ya_, *yla, *da, *yaa;
  PetscScalar       *xa, *xla;
  PetscInt           nown, *map, *hit, *ghit, nmiss = 0;
  PetscReal          err = 0, ymax = 0, derr = 0, dmax = 0, aerr = 0, gerr, gmax, dot, dot2;
  PetscRandom        rnd;
  char               val[16];
  SquallHBInfo       info;
  PetscScalar        dd;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, N));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_order", val));
  PetscCall(SquallHBCreateOperator(PETSC_COMM_WORLD, PETSC_DECIDE, NULL, &A));
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(CheckScatter(&info));
  PetscCall(CheckKernels(A, N));
  PetscCall(RefSetUp(&ref, A));
  PetscCall(RefAssemble(&ref, &B));

  /* each unknown of the operator is a lattice node, and every non-Dirichlet lattice node is exactly one unknown */
  PetscCall(SquallHBGetCoordinates(A, &X));
  PetscCall(VecGetLocalSize(X, &nown));
  nown /= 3;
  PetscCall(PetscMalloc1(nown, &map));
  PetscCall(PetscCalloc2(ref.nlat, &hit, ref.nlat, &ghit));
  PetscCall(VecGetArrayRead(X, &Xa));
  for (PetscInt l = 0; l < nown; l++) {
    const PetscReal z = PetscRealPart(Xa[3 * l + 2]), yv = PetscRealPart(Xa[3 * l + 1]) - ref.shear * z, xv = PetscRealPart(Xa[3 * l]) - ref.shear * (yv + z);
    PetscReal       d0, d1, d2;
    const PetscInt  ix = Nearest(&ref, 0, xv, &d0), iy = Nearest(&ref, 1, yv, &d1), iz = Nearest(&ref, 2, z, &d2);

    CHECK(d0 < SQUALL_TOL(1e-10, 100) && d1 < SQUALL_TOL(1e-10, 100) && d2 < SQUALL_TOL(1e-10, 100), "N=%" PetscInt_FMT ": unknown %" PetscInt_FMT " at (%g,%g,%g) is no lattice node", N, l, (double)xv, (double)yv, (double)z);
    map[l] = LatticeIndex(&ref, ix, iy, iz);
    CHECK(!(ref.dirichlet && OnBoundary(&ref, ix, iy, iz)), "N=%" PetscInt_FMT ": a Dirichlet node is an unknown", N);
    hit[map[l]]++;
  }
  PetscCall(VecRestoreArrayRead(X, &Xa));
  PetscCallMPI(MPIU_Allreduce(hit, ghit, ref.nlat, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt iz = 0; iz < ref.L[2]; iz++)
    for (PetscInt iy = 0; iy < ref.L[1]; iy++)
      for (PetscInt ix = 0; ix < ref.L[0]; ix++) {
        const PetscInt g = LatticeIndex(&ref, ix, iy, iz);
        if (ghit[g] != ((ref.dirichlet && OnBoundary(&ref, ix, iy, iz)) ? 0 : 1)) nmiss++;
      }
  CHECK(nmiss == 0, "N=%" PetscInt_FMT ": %" PetscInt_FMT " lattice nodes are not exactly one unknown", N, nmiss);

  /* the same random x on every rank, in lattice numbering (zero on Dirichlet nodes) */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ref.nlat, &xl));
  PetscCall(VecDuplicate(xl, &yl));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 42 + N));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xl, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecGetArray(xl, &xla));
  for (PetscInt g = 0; g < ref.nlat; g++)
    if (!ghit[g]) xla[g] = 0;
  PetscCall(VecRestoreArray(xl, &xla));
  PetscCall(MatMult(B, xl, yl));

  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecDuplicate(y, &ya));
  PetscCall(VecGetArrayRead(xl, (const PetscScalar **)&xla));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt l = 0; l < nown; l++) xa[l] = xla[map[l]];
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(xl, (const PetscScalar **)&xla));
  PetscCall(SquallHBMultDot(A, x, y, &dot));
  PetscCall(VecDot(x, y, &dd));
  CHECK(PetscAbsReal(dot - PetscRealPart(dd)) <= SQUALL_TOL(1e-12, 1000) * PetscAbsReal(dot), "N=%" PetscInt_FMT ": fused x.Ax %.16g differs from VecDot %.16g", N, (double)dot, (double)PetscRealPart(dd));
  PetscCall(MatMult(A, x, ya));
  PetscCall(VecDot(y, ya, &dd));
  PetscCall(VecAXPY(ya, -1, y));
  PetscCall(VecNorm(ya, NORM_INFINITY, &dot2));
  CHECK(dot2 == 0, "N=%" PetscInt_FMT ": MatMult and SquallHBMultDot differ by %g", N, (double)dot2);

  PetscCall(MatGetDiagonal(A, d));
  PetscCall(SquallHBAssemble(A, MATAIJ, &Aasm));
  PetscCall(MatMult(Aasm, x, ya));
  PetscCall(VecGetArrayRead(yl, &yla));
  PetscCall(VecGetArrayRead(y, &ya_));
  PetscCall(VecGetArrayRead(d, &da));
  PetscCall(VecGetArrayRead(ya, &yaa));
  for (PetscInt l = 0; l < nown; l++) {
    PetscScalar bd;

    err  = PetscMax(err, PetscAbsScalar(ya_[l] - yla[map[l]]));
    ymax = PetscMax(ymax, PetscAbsScalar(yla[map[l]]));
    aerr = PetscMax(aerr, PetscAbsScalar(yaa[l] - ya_[l]));
    PetscCall(MatGetValue(B, map[l], map[l], &bd));
    derr = PetscMax(derr, PetscAbsScalar(da[l] - bd));
    dmax = PetscMax(dmax, PetscAbsScalar(bd));
  }
  PetscCall(VecRestoreArrayRead(ya, &yaa));
  PetscCall(VecRestoreArrayRead(d, &da));
  PetscCall(VecRestoreArrayRead(y, &ya_));
  PetscCall(VecRestoreArrayRead(yl, &yla));
  PetscCallMPI(MPIU_Allreduce(&err, &gerr, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&ymax, &gmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  err = gerr / gmax;
  PetscCallMPI(MPIU_Allreduce(&aerr, &gerr, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  aerr = gerr / gmax;
  PetscCallMPI(MPIU_Allreduce(&derr, &gerr, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&dmax, &gmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  derr = gerr / gmax;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%2" PetscInt_FMT " E=%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " N_G=%6" PetscInt_FMT ": |Ax - A_ref x|/|A_ref x| = %.2e, diagonal %.2e, assembled %.2e\n", N, info.elements[0], info.elements[1],
                        info.elements[2], info.ndof_global, (double)err, (double)derr, (double)aerr));
  CHECK(err <= tol, "N=%" PetscInt_FMT ": A x differs from the reference by %g (relative)", N, (double)err);
  CHECK(derr <= tol, "N=%" PetscInt_FMT ": the diagonal differs from the reference by %g (relative)", N, (double)derr);
  CHECK(aerr <= tol, "N=%" PetscInt_FMT ": SquallHBAssemble() x differs from the operator by %g (relative)", N, (double)aerr);

  PetscCall(MatDestroy(&Aasm));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&yl));
  PetscCall(VecDestroy(&X));
  PetscCall(PetscFree(map));
  PetscCall(PetscFree2(hit, ghit));
  PetscCall(MatDestroy(&B));
  PetscCall(RefDestroy(&ref));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  orders[16] = {1, 2, 3, 4, 5, 6}, norders = 16;
  PetscReal tol = SQUALL_TOL(1e-13, 100); /* relative round-off of a sum of (N+1)^3 products */
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &flg));
  if (!flg) norders = 6;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  for (PetscInt o = 0; o < norders; o++) PetscCall(CheckOrder(orders[o], tol));
  PetscCall(PetscFinalize());
  return 0;
}
