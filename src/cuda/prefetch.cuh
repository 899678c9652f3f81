/* L2 prefetch of a device array section, shared by the kernels that fetch the inputs of the blocks ahead of them (the
   ESDG half sweep, the hipBone layer kernels). Included by the .cu translation units; not a header of its own. */
#pragma once
#include <cstdint>

/* [p, p + bytes) into L2: one bulk prefetch (sm_90), else one per 128-byte line. The bulk form wants 16-byte bounds:
   the start is rounded down (at most 8 bytes, within the array: device arrays start 256-byte aligned) and the end too,
   so that nothing past the array is touched */
__device__ static inline void SquallPrefetchL2(const void *p, size_t bytes)
{
  const uintptr_t b = (uintptr_t)p & ~(uintptr_t)15, e = ((uintptr_t)p + bytes) & ~(uintptr_t)15;

  if (e <= b) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" : : "l"(b), "r"((unsigned)(e - b)));
#else
  for (uintptr_t q = b & ~(uintptr_t)127; q < e; q += 128) asm volatile("prefetch.global.L2 [%0];" : : "l"(q));
#endif
}
