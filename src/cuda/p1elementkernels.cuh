/* The P1 element kernels of the atomic modes: geometry, element matrices scattered by search or through the slot
   map, and the gather mode's two steps.
   Part of the translation unit of src/cuda/p1assembly.cu, which includes it after its helpers; not a header of
   its own. */
#pragma once

/* the element kernel: Jacobian, determinant and inverse once per affine tetrahedron */
__global__ static void P1GeometryKernel(PetscInt ne, const PetscInt *__restrict__ tet, const PetscReal *__restrict__ x, PetscReal *__restrict__ geom)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscReal      X[4][3], invJ[9], vol;

  if (e >= ne) return;
  for (int a = 0; a < 4; a++) {
    const PetscInt v = tet[a * ne + e];
    for (int d = 0; d < 3; d++) X[a][d] = x[3 * v + d];
  }
  (void)SquallP1Geometry((const PetscReal(*)[3])X, invJ, &vol);
  for (int k = 0; k < 9; k++) geom[k * ne + e] = invJ[k];
  geom[9 * ne + e] = vol;
}

template <int BS>
__global__ static void __launch_bounds__(P1_BLOCK, P1_MIN_BLOCKS)
  P1AssembleKernel(SquallP1Elements E, SquallP1Coef coef, const PetscInt *__restrict__ row, const PetscInt *__restrict__ cd, const PetscInt *__restrict__ co, SquallP1CSR D, SquallP1CSR O, int *nmiss)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscInt       v[4];
  PetscReal      g[4][3], vol, S[4][4];

  if (e >= E.ne) return;
  SquallP1ElementLoad(&E, e, &coef, v, g, &vol, S);
  /* entries outside the graph (or into a block without device values) are counted, never written */
  const int miss = SquallP1ScatterElement(BS, v, row, cd, co, D, O, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol);
  if (miss) atomicAdd(nmiss, miss);
}

/* the same through the slot map: no search, no row/column maps, only the diagonal block (several
   ranks: MatSetValuesCOO fills the off-diagonal block, whose slots are skipped) */
template <int BS> __global__ static void __launch_bounds__(P1_BLOCK, P1_MIN_BLOCKS) P1AssembleSlotsKernel(SquallP1Elements E, SquallP1Coef coef, const int *__restrict__ slots, PetscScalar *__restrict__ da)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscInt       v[4];
  PetscReal      g[4][3], vol, S[4][4];

  if (e >= E.ne) return;
  SquallP1ElementLoad(&E, e, &coef, v, g, &vol, S);
  SquallP1ScatterElementSlots(BS, slots + e, E.ne, da, NULL, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol);
}

/* gather mode, step 1: the element values into the entry-major scratch w (no atomics) */
template <int BS> __global__ static void __launch_bounds__(P1_BLOCK, P1_MIN_BLOCKS) P1ElementStoreKernel(SquallP1Elements E, SquallP1Coef coef, PetscScalar *__restrict__ w)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscInt       v[4];
  PetscReal      g[4][3], vol, S[4][4];

  if (e >= E.ne) return;
  SquallP1ElementLoad(&E, e, &coef, v, g, &vol, S);
  SquallP1ElementStore(BS, w + e, E.ne, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol);
}

/* gather mode, step 2, bs 1: thread p writes value p of the diagonal block (the scalar graph's layout) */
__global__ static void P1GatherKernel1(PetscInt nval, const int *__restrict__ off, const int *__restrict__ idx, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ da)
{
  const PetscInt p = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (p >= nval) return;
  da[p] = SquallP1GatherValue(off, idx, w, p);
}

/* gather mode, step 2, bs 3: thread 9p + 3i + j writes component (i, j) of the block of scalar entry p
   (row r = prow[p]) at its place in the interleaved AIJ values (p1tet.h), from scratch plane 3i + j */
__global__ static void P1GatherKernel3(PetscInt nval, PetscInt ne, const int *__restrict__ off, const int *__restrict__ idx, const int *__restrict__ prow, const PetscInt *__restrict__ dI, const PetscScalar *__restrict__ w,
                                       PetscScalar *__restrict__ da)
{
  const PetscInt64 t = (PetscInt64)blockIdx.x * blockDim.x + threadIdx.x;

  if (t >= 9 * (PetscInt64)nval) return;
  const PetscInt p = (PetscInt)(t / 9), c = (PetscInt)(t - 9 * (PetscInt64)p), i = c / 3, j = c - 3 * i;
  const PetscInt r = prow[p], lo = dI[r], len = dI[r + 1] - lo;

  da[9 * lo + 3 * i * len + 3 * (p - lo) + j] = SquallP1GatherValue(off, idx, w + (size_t)c * 16 * ne, p);
}
