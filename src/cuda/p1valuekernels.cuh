/* The P1 kernels of the element values for MatSetValuesCOO and of the right-hand sides.
   Part of the translation unit of src/cuda/p1values.cu, which includes it after its helpers; not a header of
   its own. */
#pragma once

/* element matrices for MatSetValuesCOO, row-major per element (the layout of SquallP1COOIndices), of
   all elements (el == NULL) or of the n elements el[] */
template <int BS> __global__ static void __launch_bounds__(P1_BLOCK, P1_MIN_BLOCKS) P1ElementValuesKernel(SquallP1Elements E, SquallP1Coef coef, PetscInt n, const PetscInt *__restrict__ el, PetscScalar *__restrict__ out)
{
  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  const int      m = 4 * BS;
  PetscInt       v[4], e;
  PetscReal      g[4][3], vol, S[4][4];

  if (k >= n) return;
  e = el ? el[k] : k;
  SquallP1ElementLoad(&E, e, &coef, v, g, &vol, S);
  PetscScalar *o = out + (size_t)m * m * k;
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < BS; i++)
      for (int b = 0; b < 4; b++)
        for (int j = 0; j < BS; j++) o[m * (BS * a + i) + BS * b + j] = BS == 1 ? S[a][b] : SquallP1BlockEntry((const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol, a, i, b, j);
}

/* element right-hand sides: atomicAdd into the owned rows of b, or (out != NULL) the COO values */
template <int BS>
__global__ static void __launch_bounds__(P1_BLOCK, P1_MIN_BLOCKS) P1RHSKernel(SquallP1Elements E, SquallP1Coef coef, const PetscScalar *__restrict__ f, const PetscInt *__restrict__ row, PetscScalar *__restrict__ b, PetscScalar *__restrict__ out)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscInt       v[4];
  PetscReal      g[4][3], vol, S[4][4], fe[4 * BS], r[4 * BS];

  if (e >= E.ne) return;
  SquallP1ElementLoad(&E, e, &coef, v, g, &vol, S);
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < BS; i++) fe[BS * a + i] = f[BS * v[a] + i];
  SquallP1ElementApply(BS, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol, fe, r);
  if (out) {
    for (int k = 0; k < 4 * BS; k++) out[(size_t)4 * BS * e + k] = r[k];
  } else {
    for (int a = 0; a < 4; a++) {
      const PetscInt rr = row[v[a]];
      if (rr >= 0)
        for (int i = 0; i < BS; i++) atomicAdd(&b[BS * rr + i], (PetscScalar)r[BS * a + i]);
    }
  }
}
