/* The hardware limits that every benchmark record is reported against, measured in the same run:
   FMA throughput in FP64 and FP32, FP64 tensor-core throughput (mma.sync m8n8k4, and m16n8k4 on sm_90: the
   peak of the hipBone mma kernel), and the streaming rate of one read + one write (copy) and of
   eight reads per write (the access mix of the hipBone operator and of most squall kernels).
   Prints one JSON object on stdout.

     limits [-mib M]    M: MiB per streamed array (default 1024, far beyond the L2 cache)

   Each figure is the best of several back-to-back launches, timed with CUDA events. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      fprintf(stderr, "limits: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* CHAINS independent FMA chains per thread hide the FMA latency; the result is stored only when it
   is a value no input can give, so the compiler keeps every FMA */
template <typename T, int CHAINS> __global__ void FMAKernel(T *out, T a, T b, int iters)
{
  T x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; c++) x[c] = (T)(threadIdx.x + c);
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++) x[c] = x[c] * a + b;
  }
  T s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; c++) s += x[c];
  if (s == (T)-1.2345) out[blockIdx.x] = s;
}

/* FP64 tensor cores: CHAINS independent accumulators per warp, M = 8 (m8n8k4) or 16 (m16n8k4, sm_90) rows */
template <int M, int CHAINS> __global__ void MmaKernel(double *out, double a, double b, int iters)
{
  double c[CHAINS][M / 4];

#pragma unroll
  for (int k = 0; k < CHAINS; k++) {
#pragma unroll
    for (int r = 0; r < M / 4; r++) c[k][r] = threadIdx.x + k + r;
  }
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < CHAINS; k++) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      if constexpr (M == 16)
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n" : "+d"(c[k][0]), "+d"(c[k][1]), "+d"(c[k][2]), "+d"(c[k][3]) : "d"(a), "d"(a), "d"(b));
      else
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n" : "+d"(c[k][0]), "+d"(c[k][1]) : "d"(a), "d"(b));
#endif
    }
  }
  double s = 0;
#pragma unroll
  for (int k = 0; k < CHAINS; k++) {
#pragma unroll
    for (int r = 0; r < M / 4; r++) s += c[k][r];
  }
  if (s == -1.2345) out[blockIdx.x] = s;
}

__global__ void CopyKernel(double2 *__restrict__ y, const double2 *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = x[i];
}

/* y = sum of 8 streams: 8 reads, 1 write per entry */
__global__ void Read8Kernel(double *__restrict__ y, const double *__restrict__ x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    double s = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) s += __ldg(&x[k * n + i]);
    y[i] = s;
  }
}

template <typename F> static double BestMs(F launch, int reps)
{
  cudaEvent_t t0, t1;
  float       best = 1e30f;

  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  launch(); /* warm-up */
  CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; r++) {
    float ms;
    CHECK(cudaEventRecord(t0));
    launch();
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    if (ms < best) best = ms;
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(t0));
  CHECK(cudaEventDestroy(t1));
  return best;
}

template <typename T> static double FMATflops(int sms)
{
  const int chains = 8, threads = 256, blocks = sms * 16, iters = 1 << 14;
  T        *out;

  CHECK(cudaMalloc(&out, blocks * sizeof(T)));
  double ms = BestMs([&] { FMAKernel<T, chains><<<blocks, threads>>>(out, (T)0.999999, (T)1e-7, iters); }, 5);
  CHECK(cudaFree(out));
  return 2.0 * chains * iters * (double)threads * blocks / (ms * 1e-3) / 1e12;
}

/* TFLOP/s of the FP64 tensor cores with M-row products; 0 where the GPU has none (or not this shape) */
template <int M> static double MmaTflops(const cudaDeviceProp &p)
{
  const int chains = 8, threads = 256, blocks = p.multiProcessorCount * 8, iters = 1 << 12;
  double   *out;

  if (p.major < 8 || (M == 16 && p.major < 9)) return 0;
  CHECK(cudaMalloc(&out, blocks * sizeof(double)));
  double ms = BestMs([&] { MmaKernel<M, chains><<<blocks, threads>>>(out, 0.999999, 1e-7, iters); }, 5);
  CHECK(cudaFree(out));
  return 2.0 * M * 8 * 4 * chains * iters * (threads / 32.0) * blocks / (ms * 1e-3) / 1e12;
}

int main(int argc, char **argv)
{
  size_t         mib = 1024;
  cudaDeviceProp p;
  int            dev, clock_khz = 0, mem_khz = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-mib") && i + 1 < argc)
      mib = strtoul(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: limits [-mib M]\n");
      return 2;
    }
  }
  if (mib < 64) {
    fprintf(stderr, "limits: -mib %zu is too small to stream past the L2 cache (at least 64)\n", mib);
    return 2;
  }
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&p, dev));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));

  const double fp64 = FMATflops<double>(p.multiProcessorCount);
  const double fp32 = FMATflops<float>(p.multiProcessorCount);
  const double mma8 = MmaTflops<8>(p), mma16 = MmaTflops<16>(p);

  const size_t n = mib * 1024 * 1024 / sizeof(double);
  double      *x, *y;
  CHECK(cudaMalloc(&x, 8 * n * sizeof(double)));
  CHECK(cudaMalloc(&y, n * sizeof(double)));
  CHECK(cudaMemset(x, 0, 8 * n * sizeof(double)));
  const int    grid  = p.multiProcessorCount * 8;
  const double copy  = BestMs([&] { CopyKernel<<<grid, 256>>>((double2 *)y, (const double2 *)x, n / 2); }, 10);
  const double read8 = BestMs([&] { Read8Kernel<<<grid, 256>>>(y, x, n); }, 10);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));

  printf("{\"gpu\": \"%s\", \"sms\": %d, \"sm_clock_max_mhz\": %d, \"mem_clock_max_mhz\": %d, \"fp64_fma_tflops\": %.2f, \"fp32_fma_tflops\": %.2f, "
         "\"fp64_mma_m8n8k4_tflops\": %.2f, \"fp64_mma_m16n8k4_tflops\": %.2f, \"copy_tbs\": %.3f, \"stream_8r1w_tbs\": %.3f, \"stream_mib\": %zu}\n",
         p.name, p.multiProcessorCount, clock_khz / 1000, mem_khz / 1000, fp64, fp32, mma8, mma16, 2.0 * n * sizeof(double) / (copy * 1e-3) / 1e12, 9.0 * n * sizeof(double) / (read8 * 1e-3) / 1e12, mib);
  return 0;
}
