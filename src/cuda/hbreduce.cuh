/* Device helpers of the hipBone CUDA files (src/cuda/hbop.cu, src/cuda/hbcg.cu): launch sizes, deterministic block
   reductions (fixed grids and a fixed summation tree, so that a residual history is reproducible
   run to run, which atomics would not give). */
#pragma once

#include <petscdevice_cuda.h>
#include "cuda/hbkernels.h"
#include "cuda/cudautil.h"

#define HB_BLOCK 256
#define HB_MAX_BLOCKS 1024

/* grid of a grid-stride loop over n entries; it depends on n alone, so reductions are reproducible */
static inline int HBGrid(PetscInt n)
{
  return (int)PetscMax(1, PetscMin((n + HB_BLOCK - 1) / HB_BLOCK, HB_MAX_BLOCKS));
}

/* sums of K values over a block of HB_BLOCK threads; the result is valid in thread 0. Once per kernel. */
template <int K> __device__ static inline void HBBlockSum(PetscReal v[K])
{
  __shared__ PetscReal s[K][HB_BLOCK / 32];
  const int            lane = threadIdx.x % 32, warp = threadIdx.x / 32;

#pragma unroll
  for (int c = 0; c < K; c++) {
    for (int o = 16; o > 0; o /= 2) v[c] += __shfl_down_sync(0xffffffffu, v[c], o);
    if (lane == 0) s[c][warp] = v[c];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int c = 0; c < K; c++) {
      v[c] = lane < HB_BLOCK / 32 ? s[c][lane] : 0;
      for (int o = 16; o > 0; o /= 2) v[c] += __shfl_down_sync(0xffffffffu, v[c], o);
    }
  }
}

/* out[c] = sum of partial[c * HB_MAX_BLOCKS + b] over b < nb; one block */
template <int K> __global__ static void __launch_bounds__(HB_BLOCK) HBFinalSum(int nb, const PetscReal *__restrict__ partial, PetscReal *__restrict__ out)
{
  PetscReal v[K];

#pragma unroll
  for (int c = 0; c < K; c++) {
    v[c] = 0;
    for (int b = threadIdx.x; b < nb; b += HB_BLOCK) v[c] += partial[c * HB_MAX_BLOCKS + b];
  }
  HBBlockSum<K>(v);
  if (threadIdx.x == 0)
    for (int c = 0; c < K; c++) out[c] = v[c];
}
