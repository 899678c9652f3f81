/* The P1 kernels of the direct assembly's slots and gather modes.
   Part of the translation unit of src/cuda/p1assembly.cu, which includes it after its helpers; not a header of
   its own. */
#pragma once

/* the slot map's kernel: each element entry added with one atomicAdd at its slot, only the diagonal block
   (several ranks: MatSetValuesCOO fills the off-diagonal block, whose slots are skipped) */
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
