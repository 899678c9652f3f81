/* The hipBone operator's tensor-core kernel (-hb_kernel mma) and its launcher: double precision, Nq = 8 and 16
   (N = 7, 15), compute capability 8.0 and later.
   Part of the translation units of src/cuda/hbop<geometry>.cu, through src/cuda/hboplocal.cuh; not a header of its own.

   The six contractions of an element (the gradient's three and their transposes) run as 8 x 8 x 4 products on the
   FP64 tensor cores (mma.sync m8n8k4), as C. Cui (arXiv 2407.09621) did for a DG operator and J. Tu et al. (arXiv
   2603.09038) for MFEM's: D and D^T stay in registers as the fixed operand, the element's values come from shared
   memory as the other. Fragments (PTX ISA, mma.m8n8k4 .f64; lane = 4 g + t): A (8 x 4) holds A[g][t], B (4 x 8)
   holds B[t][g], C (8 x 8) holds C[g][2 t] and C[g][2 t + 1].
   A block of 8 warps takes E = 256 / Nq^2 elements (one at Nq = 16, four at Nq = 8), a thread per element column
   (i, j) where the work is per node, and 8 layers (a slab) at a time:
     1. each thread reads its column of x through Z into q; the warps form the first slab's qt = D[k0 .. k0 + 7][:] q
        into T, by columns;
     per slab k0 .. k0 + 7:
     2. qr = q D^T per row (k, j) and qs = D q_k per layer, a layer per warp; with affine factors (and stored at
        Nq = 8, HBMmaFused) the warp applies them there, to (qr, qs, qt) in registers, and stores gr, gs, gt once;
     3. else each thread forms or loads its column's factors and applies them to R, S, T in place;
     4. G_r D + D^T G_s of the slab's layers into Y; D^T[:, slab] G_t added in registers to every layer's tiles;
        then the same column warps form the next slab's qt into T;
   5. each thread writes the nodes of its register tiles: those plus Y, with x from q.
   Every product reuses the fragment it loads from shared memory over two output tiles (Nq = 16) except qr (reloaded
   per i tile, so that qr and qs of one tile are live at once) and qt; shared memory: q and Y (Nq^3 reals per
   element), R, S, T (8 Nq^2 each), the weights and affine factors: 112 KB at Nq = 16, 80 KB at Nq = 8, two blocks
   per SM.
   Layout (HBMmaIdx): rows of Nq reals, the column index XOR-swizzled by (k + j) (and at Nq = 8 the row order by k),
   so that every fragment load (4 consecutive rows in any direction, 4 columns), every 16-byte tile store and the
   column-per-thread passes are free of bank conflicts (checked over every tile of both orders). */
#pragma once
#include "cuda/hbopdevice.cuh"

#define HB_MMA_WARPS 8
#define HB_MMA_SLAB 8

__host__ __device__ constexpr int HBMmaElems(int Nq)
{
  return 256 / (Nq * Nq);
}
__host__ __device__ constexpr size_t HBSharedMma(int Nq)
{
  return ((size_t)HBMmaElems(Nq) * (2 * Nq * Nq * Nq + 3 * HB_MMA_SLAB * Nq * Nq + SQUALL_SEM_NGEO) + Nq) * sizeof(double);
}

/* offset of node (i, j) of layer k in an element array of shared memory */
template <int Nq> __device__ static inline int HBMmaIdx(int k, int j, int i)
{
  const int v = k + j;

  if constexpr (Nq == 16)
    return (k * 16 + j) * 16 + (i ^ (((v & 1) << 3) | ((v & 2) << 1)));
  else
    return (k * 8 + (j ^ (k & 1))) * 8 + (i ^ ((v & 2) << 1));
}

/* c += a b on the tensor cores (one 8 x 8 x 4 product of the warp) */
__device__ static inline void HBDmma(double c[2], double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n" : "+d"(c[0]), "+d"(c[1]) : "d"(a), "d"(b));
#else
  __trap(); /* the host refuses -hb_kernel mma below compute capability 8.0 */
#endif
}

/* the same for M = 8 NT rows (NT = 1, 2): c[m] += a[m] b for the row tiles m, a[m] holding A[8 m + g][t]. At NT = 2
   sm_90 has it as one 16 x 8 x 4 product, whose fragments are the two 8-row ones stacked (a0, a1; c0 c1, c2 c3) */
template <int NT> __device__ static inline void HBDmmaM(double c[NT][2], const double a[NT], double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (NT == 2)
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n" : "+d"(c[0][0]), "+d"(c[0][1]), "+d"(c[1][0]), "+d"(c[1][1]) : "d"(a[0]), "d"(a[1]), "d"(b));
  else
#endif
  {
#pragma unroll
    for (int m = 0; m < NT; m++) HBDmma(c[m], a[m], b);
  }
}

__device__ static inline void HBSt2(double *p, const double c[2])
{
  *reinterpret_cast<double2 *>(p) = make_double2(c[0], c[1]);
}

#if defined(PETSC_USE_REAL_DOUBLE)
/* D's fragments for lane (g, t): F[kt][m] = D[8 m + g][4 kt + t] (the A fragments of D, the B fragments of D^T), or
   with transpose D[4 kt + t][8 m + g]. Each step loads the ones it uses (2 KB of D, in cache) rather than the kernel
   holding both sets: their 32 registers would otherwise be live through the geometric factors, where they spill */
template <int Nq> __device__ static inline void HBMmaFragments(const double *D, bool transpose, double F[Nq / 4][Nq / 8])
{
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;

#  pragma unroll
  for (int kt = 0; kt < Nq / 4; kt++) {
#  pragma unroll
    for (int m = 0; m < Nq / 8; m++) F[kt][m] = __ldg(transpose ? D + (4 * kt + t) * Nq + 8 * m + g : D + (8 * m + g) * Nq + 4 * kt + t);
  }
}

/* The six factors of node (k, j, i) of block element e where the gradient is formed (a lane holds nodes of several
   columns there): stored and affine, whose factors cost a load or a product; trilinear forms them per column
   (HBGeoColumn) in a pass of their own. sw: the block's weights and affine factors in shared memory (HBMmaLoadGeo),
   read there rather than through the read-only cache, whose early loads would hold registers through the products. */
template <int GEO> struct HBGeoNode;

template <> struct HBGeoNode<SQUALL_HB_GEOMETRY_STORED> {
  const PetscReal *G;

  __device__                        HBGeoNode(const HBOpArgs &a, PetscInt elem, int e, int Nq, const PetscReal *sw) : G(a.G + (size_t)SQUALL_SEM_NGEO * Nq * Nq * Nq * elem) {}
  template <int Nq> __device__ void at(int k, int j, int i, PetscReal g[SQUALL_SEM_NGEO]) const { HBLoadGeo(G + SQUALL_SEM_NGEO * ((k * Nq + j) * Nq + i), g); }
};

template <> struct HBGeoNode<SQUALL_HB_GEOMETRY_AFFINE> {
  const PetscReal *w, *F;

  __device__                        HBGeoNode(const HBOpArgs &a, PetscInt elem, int e, int Nq, const PetscReal *sw) : w(sw), F(sw + Nq + SQUALL_SEM_NGEO * e) {}
  template <int Nq> __device__ void at(int k, int j, int i, PetscReal g[SQUALL_SEM_NGEO]) const { SquallSEMAffineFactors(F, w[i] * w[j] * w[k], g); }
};

/* whether the layer warps apply the factors (HBGeoNode) rather than a pass per column after them: affine, and stored
   at Nq = 8. Stored at Nq = 16 keeps the column pass, whose loads of a whole layer were faster there (H100: 1.49
   against 1.74 ms at 4e7 unknowns; at Nq = 8 1.79 against 1.63 ms) */
template <int Nq, int GEO> __host__ __device__ constexpr bool HBMmaFused()
{
  return HBGeo(GEO) == SQUALL_HB_GEOMETRY_AFFINE || (HBGeo(GEO) == SQUALL_HB_GEOMETRY_STORED && Nq == 8);
}

/* affine: the weights, then the factors of the block's elements, into sw (before the first barrier); elements at or
   past e1 take element e0's. The other sources do not read sw. */
template <int Nq, int GEO> __device__ static inline void HBMmaLoadGeo(const HBOpArgs &a, PetscInt eb, PetscInt e0, PetscInt e1, PetscReal *sw)
{
  constexpr int E = HBMmaElems(Nq);

  if constexpr (HBGeo(GEO) == SQUALL_HB_GEOMETRY_AFFINE) {
    if (threadIdx.x < Nq) sw[threadIdx.x] = __ldg(a.w + threadIdx.x);
    if (threadIdx.x < SQUALL_SEM_NGEO * E) {
      const PetscInt elem = eb + threadIdx.x / SQUALL_SEM_NGEO;

      sw[Nq + threadIdx.x] = __ldg(a.F + SQUALL_SEM_NGEO * (elem < e1 ? elem : e0) + threadIdx.x % SQUALL_SEM_NGEO);
    }
  }
}

/* The slab's qt[c][j][i] = sum_m D[c][m] q[m][j][i] (rows c = k0 .. k0 + 7) into T. Column units (j, i tile) warp,
   warp + 8, ..., the same units as the t part of step 4, so that a warp overwrites only the T it has read there */
template <int Nq> __device__ static inline void HBMmaQt(int k0, const double *D, const double *sq, double *st)
{
  constexpr int NT = Nq / 8, NK = Nq / 4, E = HBMmaElems(Nq), Np = Nq * Nq * Nq, SLN = HB_MMA_SLAB * Nq * Nq;
  const int     lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  double        Dg[NK][NT];

  HBMmaFragments<Nq>(D, false, Dg);
  static_assert((E * Nq * NT) % HB_MMA_WARPS == 0, "mma kernel: columns divide among the warps");
#  pragma unroll
  for (int u = 0; u < E * Nq * NT / HB_MMA_WARPS; u++) {
    const int ct = warp + HB_MMA_WARPS * u, e = ct / (Nq * NT), j = (ct / NT) % Nq, i0 = 8 * (ct % NT);
    double    c[2] = {};

#  pragma unroll
    for (int kt = 0; kt < NK; kt++) HBDmma(c, Dg[kt][k0 / 8], sq[e * Np + HBMmaIdx<Nq>(4 * kt + t, j, i0 + g)]);
    HBSt2(st + e * SLN + HBMmaIdx<Nq>(g, j, i0 + 2 * t), c);
  }
}

/* Step 2: qr and qs of the slab's layers (Dg[kt][m] = D[8 m + g][4 kt + t]), a layer per warp (w, w + 8, ...). Both
   come out at the same nodes of the lane, (j, i) = (8 y + g, 8 x + 2 t + h) in cr[y][h] and cs[y][h] of i tile x;
   fused (HBMmaFused), the lane reads qt there, applies the factors and stores gr, gs, gt; else it stores qr and qs.
   Elements from eb, those at or past e1 computed with the factors of element e0. */
template <int Nq, int GEO> __device__ static inline void HBMmaGradient(const HBOpArgs &a, PetscInt eb, PetscInt e0, PetscInt e1, int k0, const double *sq, const double *sw, double *sr, double *ss, double *st)
{
  constexpr int NT = Nq / 8, NK = Nq / 4, E = HBMmaElems(Nq), Np = Nq * Nq * Nq, SLN = HB_MMA_SLAB * Nq * Nq;
  const int     lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  double        Dg[NK][NT];

  HBMmaFragments<Nq>(a.D, false, Dg);

  static_assert((E * HB_MMA_SLAB) % HB_MMA_WARPS == 0, "mma kernel: layers divide among the warps");
#  pragma unroll
  for (int u = 0; u < E * HB_MMA_SLAB / HB_MMA_WARPS; u++) {
    const int el = warp + HB_MMA_WARPS * u, e = el / HB_MMA_SLAB, kl = el % HB_MMA_SLAB;
    /* an i tile x at a time, whose qr and qs are live together (both tiles at once spill) */
#  pragma unroll
    for (int x = 0; x < NT; x++) {
      double cr[NT][2] = {}, cs[NT][2] = {};

      /* qr[k][j][a] = sum_m q[k][j][m] D[a][m], a in tile x: rows j */
#  pragma unroll
      for (int kt = 0; kt < NK; kt++) {
        double q[NT];

#  pragma unroll
        for (int jt = 0; jt < NT; jt++) q[jt] = sq[e * Np + HBMmaIdx<Nq>(k0 + kl, 8 * jt + g, 4 * kt + t)];
        HBDmmaM<NT>(cr, q, Dg[kt][x]);
      }
      /* qs[k][b][i] = sum_m D[b][m] q[k][m][i], i in tile x: rows b */
#  pragma unroll
      for (int kt = 0; kt < NK; kt++) HBDmmaM<NT>(cs, Dg[kt], sq[e * Np + HBMmaIdx<Nq>(k0 + kl, 4 * kt + t, 8 * x + g)]);
#  pragma unroll
      for (int y = 0; y < NT; y++) {
        const int o = e * SLN + HBMmaIdx<Nq>(kl, 8 * y + g, 8 * x + 2 * t);

        if constexpr (HBMmaFused<Nq, GEO>()) {
          const HBGeoNode<HBGeo(GEO)> geo(a, eb + e < e1 ? eb + e : e0, e, Nq, sw);
          double                      qt[2], gr[2], gs[2], gt[2];

          HBLds2(st + o, qt[0], qt[1]);
#  pragma unroll
          for (int h = 0; h < 2; h++) {
            PetscReal gg[SQUALL_SEM_NGEO];

            geo.template at<Nq>(k0 + kl, 8 * y + g, 8 * x + 2 * t + h, gg);
            SquallSEMGeoApply(gg, cr[y][h], cs[y][h], qt[h], &gr[h], &gs[h], &gt[h]);
          }
          HBSt2(sr + o, gr);
          HBSt2(ss + o, gs);
          HBSt2(st + o, gt);
        } else {
          HBSt2(sr + o, cr[y]);
          HBSt2(ss + o, cs[y]);
        }
      }
    }
  }
}

/* Step 4: the slab's G_r D + D^T G_s into Y (a layer per warp), and D^T[:, slab] G_t added to the warp's register
   tiles acc (columns (j, i tile) warp, warp + 8, ...; every c tile). Dt[kt][m] = D[4 kt + t][8 m + g]. */
template <int Nq> __device__ static inline void HBMmaTranspose(int k0, const double *D, const double *sr, const double *ss, const double *st, double *sy, double acc[][Nq / 8][2])
{
  constexpr int NT = Nq / 8, NK = Nq / 4, E = HBMmaElems(Nq), Np = Nq * Nq * Nq, SLN = HB_MMA_SLAB * Nq * Nq;
  const int     lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  double        Dt[NK][NT];

  HBMmaFragments<Nq>(D, true, Dt);

#  pragma unroll
  for (int u = 0; u < E * HB_MMA_SLAB / HB_MMA_WARPS; u++) {
    const int el = warp + HB_MMA_WARPS * u, e = el / HB_MMA_SLAB, kl = el % HB_MMA_SLAB;
    double    c[NT][NT][2] = {}; /* [i tile][j tile] */

    /* y[k][j][i] += sum_a gr[k][j][a] D[a][i]: rows j */
#  pragma unroll
    for (int kt = 0; kt < NK; kt++) {
      double r[NT];

#  pragma unroll
      for (int jt = 0; jt < NT; jt++) r[jt] = sr[e * SLN + HBMmaIdx<Nq>(kl, 8 * jt + g, 4 * kt + t)];
#  pragma unroll
      for (int it = 0; it < NT; it++) HBDmmaM<NT>(c[it], r, Dt[kt][it]);
    }
    /* y[k][j][i] += sum_b D[b][j] gs[k][b][i]: rows j */
#  pragma unroll
    for (int kt = 0; kt < NK; kt++) {
#  pragma unroll
      for (int it = 0; it < NT; it++) HBDmmaM<NT>(c[it], Dt[kt], ss[e * SLN + HBMmaIdx<Nq>(kl, 4 * kt + t, 8 * it + g)]);
    }
#  pragma unroll
    for (int it = 0; it < NT; it++) {
#  pragma unroll
      for (int jt = 0; jt < NT; jt++) HBSt2(sy + e * Np + HBMmaIdx<Nq>(k0 + kl, 8 * jt + g, 8 * it + 2 * t), c[it][jt]);
    }
  }
  /* y[c][j][i] += sum_{m in slab} D[m][c] gt[m][j][i]: rows c, every c tile */
#  pragma unroll
  for (int u = 0; u < E * Nq * NT / HB_MMA_WARPS; u++) {
    const int ct = warp + HB_MMA_WARPS * u, e = ct / (Nq * NT), j = (ct / NT) % Nq, i0 = 8 * (ct % NT);

#  pragma unroll
    for (int s = 0; s < HB_MMA_SLAB / 4; s++) HBDmmaM<NT>(acc[u], Dt[k0 / 4 + s], st[e * SLN + HBMmaIdx<Nq>(4 * s + t, j, i0 + g)]);
  }
}

/* The tensor-core kernel over elements [e0, e1); blocks of E elements, the last block's missing ones computed on zeros
   and not written */
template <int Nq, int GEO> __global__ static void __launch_bounds__(32 * HB_MMA_WARPS, 2) HBLocalOpMma(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq, NT = Nq / 8, E = HBMmaElems(Nq), SLN = HB_MMA_SLAB * Nq2, NU = E * Nq * NT / HB_MMA_WARPS;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  double                                       *sq = reinterpret_cast<double *>(hbsmem);                  /* [E][Np] x */
  double                                       *sy = sq + E * Np;                                         /* [E][Np] the slabs' r and s parts of the result */
  double                                       *sr = sy + E * Np, *ss = sr + E * SLN, *st = ss + E * SLN; /* [E][slab][Nq][Nq] */
  double                                       *sw   = st + E * SLN;                                      /* [Nq] weights, [E][6] affine factors */
  const int                                     lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  const int                                     ce = threadIdx.x / Nq2, cj = (threadIdx.x / Nq) % Nq, ci = threadIdx.x % Nq; /* the thread's column */
  const PetscInt                                eb = e0 + (PetscInt)blockIdx.x * E, elem = eb + ce;
  const bool                                    live = elem < e1;
  const size_t                                  base = (size_t)(live ? elem : e0) * Np + ci + Nq * cj;
  const HBGeoColumn<HBGeo(GEO)>                 geo(a, base, live ? elem : e0, ci, cj);
  double                                        acc[NU][NT][2] = {};

  {
    PetscInt l[Nq];

#  pragma unroll
    for (int k = 0; k < Nq; k++) l[k] = live ? __ldg(a.gidx + base + Nq2 * k) : -1;
#  pragma unroll
    for (int k = 0; k < Nq; k++) sq[ce * Np + HBMmaIdx<Nq>(k, cj, ci)] = HBReadXLdg(a, l[k]);
    HBMmaLoadGeo<Nq, GEO>(a, eb, e0, e1, sw);
  }
  __syncthreads();
  HBMmaQt<Nq>(0, a.D, sq, st);
  __syncthreads();
#  pragma unroll
  for (int k0 = 0; k0 < Nq; k0 += HB_MMA_SLAB) {
    HBMmaGradient<Nq, GEO>(a, eb, e0, e1, k0, sq, sw, sr, ss, st);
    __syncthreads();
    if constexpr (!HBMmaFused<Nq, GEO>()) {
      /* two layers at a time: unrolled over the slab, the factors of every layer are live at once and spill */
#  pragma unroll 2
      for (int kl = 0; kl < HB_MMA_SLAB; kl++) {
        const int o = ce * SLN + HBMmaIdx<Nq>(kl, cj, ci);
        PetscReal gg[SQUALL_SEM_NGEO], gr, gs, gt;

        geo.template at<Nq>(a, k0 + kl, gg);
        SquallSEMGeoApply(gg, sr[o], ss[o], st[o], &gr, &gs, &gt);
        sr[o] = gr;
        ss[o] = gs;
        st[o] = gt;
      }
      __syncthreads();
    }
    HBMmaTranspose<Nq>(k0, a.D, sr, ss, st, sy, acc);
    if (k0 + HB_MMA_SLAB < Nq) {
      __syncwarp(); /* the warp's reads of T in the t part are done before its columns of T are overwritten */
      HBMmaQt<Nq>(k0 + HB_MMA_SLAB, a.D, sq, st);
    }
    __syncthreads(); /* the next slab reads T and overwrites R, S; step 5 reads Y */
  }
  {
    PetscReal dot = 0;

#  pragma unroll
    for (int u = 0; u < NU; u++) {
      const int      ct = warp + HB_MMA_WARPS * u, e = ct / (Nq * NT), j = (ct / NT) % Nq, i = 8 * (ct % NT) + 2 * t;
      const PetscInt el      = eb + e;
      PetscReal      cdot[2] = {0, 0}; /* gather with single rows: x y of the columns (j, i), (j, i + 1) */

      if (el >= e1) continue; /* the same for the whole warp */
#  pragma unroll
      for (int c = 0; c < NT; c++) {
        const int     o = e * Np + HBMmaIdx<Nq>(8 * c + g, j, i);
        const double2 y = *reinterpret_cast<const double2 *>(sy + o), x = *reinterpret_cast<const double2 *>(sq + o);
        const size_t  n = (size_t)el * Np + (size_t)(8 * c + g) * Nq2 + j * Nq + i;

        HBStoreNode<HBAtomic(GEO)>(a, n, acc[u][c][0] + y.x, x.x, HBAtomic(GEO) ? dot : cdot[0]);
        HBStoreNode<HBAtomic(GEO)>(a, n + 1, acc[u][c][1] + y.y, x.y, HBAtomic(GEO) ? dot : cdot[1]);
      }
      if (!HBAtomic(GEO) && a.dot) {
        /* the column's nodes are in the lanes of the same t (g = 0..7, both c tiles): sum over g */
#  pragma unroll
        for (int h = 0; h < 2; h++) {
#  pragma unroll
          for (int m = 4; m < 32; m *= 2) cdot[h] += __shfl_xor_sync(0xffffffffu, cdot[h], m);
        }
        if (g == 0) HBColumnDot<Nq>(a, (size_t)el * Np + j * Nq + i, cdot[0]);
        if (g == 0) HBColumnDot<Nq>(a, (size_t)el * Np + j * Nq + i + 1, cdot[1]);
      }
    }
    HBFlushDot<HBAtomic(GEO)>(a, dot);
  }
}
#endif

/* whether the current GPU runs the kernel at Nq: FP64 tensor cores (compute capability 8.0 or later) and blocks that
   may have its shared memory (consumer Ampere allows 99 KB); with err, an error saying which is missing instead of
   false. Without a GPU: false. */
static inline PetscErrorCode HBMmaDevice(int Nq, PetscBool err, PetscBool *usable)
{
  const size_t shm = HBSharedMma(Nq);
  int          dev, major, minor, optin;

  PetscFunctionBegin;
  *usable = PETSC_FALSE;
  if (!SQUALL_HB_MMA_ORDER(Nq - 1)) PetscFunctionReturn(PETSC_SUCCESS);
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError(); /* no GPU here: the error is an answer, not a failure */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  PetscCheck(!err || major >= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel mma needs FP64 tensor cores (compute capability 8.0 or later); this GPU has %d.%d: valid kernels are auto, layers, layers_tiled", major, minor);
  PetscCheck(!err || (size_t)optin >= shm, PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel mma at order %d needs %zu KB of shared memory per block; this GPU allows %d KB: valid kernels are auto, layers, layers_tiled", Nq - 1, shm / 1024, optin / 1024);
  *usable = (PetscBool)(major >= 8 && (size_t)optin >= shm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tensor-core kernel's launch; its dynamic shared memory is above 48 KB */
template <int Nq, int GEO> static PetscErrorCode HBLaunchMma(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
#if defined(PETSC_USE_REAL_DOUBLE)
  if constexpr (SQUALL_HB_MMA_ORDER(Nq - 1)) {
    static bool   allowed = false;
    const size_t  shm     = HBSharedMma(Nq);
    constexpr int E       = HBMmaElems(Nq);

    static_assert(2 * HBSharedMma(Nq) <= 227 * 1024, "mma kernel: two blocks per SM in the 227 KB of sm_90");
    if (!allowed) {
      PetscBool usable;

      PetscCall(HBMmaDevice(Nq, PETSC_TRUE, &usable));
      PetscCheck(usable, PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel mma needs a GPU: valid kernels are auto, layers, layers_tiled");
      PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpMma<Nq, GEO>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      allowed = true;
    }
    HBLocalOpMma<Nq, GEO><<<(unsigned int)((e1 - e0 + E - 1) / E), 32 * HB_MMA_WARPS, shm, stream>>>(e0, e1, a);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel mma is compiled for orders 7 and 15 in double precision, not for order %d", Nq - 1);
}
