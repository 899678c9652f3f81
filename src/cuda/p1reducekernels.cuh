/* The P1 reduce mode's kernel and its shared-memory layout.
   Part of the translation unit of src/cuda/p1assembly.cu, which includes it after its helpers; not a header of
   its own. */
#pragma once

/* Blocks of 256 threads per SM of the reduce kernel, per block size. Its closed-form element phase keeps few
   values live: bs 1 at 80 registers (3 blocks) spills ~36 bytes per thread to L1, at 128 (2 blocks) none but a
   third fewer warps hide the gathers' latency; bs 3 takes 128 registers at 2 blocks without spilling, and its
   ~80 KB of shared memory per block allow no more. */
#if !defined(P1_REDUCE_MIN_BLOCKS1)
#  define P1_REDUCE_MIN_BLOCKS1 3
#endif
#if !defined(P1_REDUCE_MIN_BLOCKS3)
#  define P1_REDUCE_MIN_BLOCKS3 2
#endif

/* SHARED: the blocks' vertex lists and the shared-memory layout of their fields (P1StageVertices()) */
typedef struct {
  const int      *voff, *vtx; /* block k's vertices vtx[voff[k]] .. vtx[voff[k+1]-1] */
  const uint16_t *ltet;       /* [4][ne] */
  int             stride;     /* of each field component's array in shared memory: the most vertices of a block, rounded up */
  int             words;      /* PetscReals of shared memory before the staged map: the vertex fields, or the element data if more */
} P1BlockVertices;

/* reduce mode: adds (or, only: stores) the sum of one entry u of scalar slot s; bs 3 finds its 3x3 block
   from the row, urow[u] */
template <int BS> __device__ static inline void P1ReduceWrite(int s, bool only, const PetscReal sum[9], const int *urow, int u, const PetscInt *__restrict__ dI, PetscScalar *__restrict__ da)
{
  if (BS == 1) {
    if (only)
      da[s] = sum[0];
    else
      atomicAdd(&da[s], (PetscScalar)sum[0]);
  } else {
    const PetscInt r = urow[u], lo = dI[r], base = 9 * lo + 3 * (s - lo), stride = 3 * (dI[r + 1] - lo);

    SQUALL_P1_UNROLL
    for (int i = 0; i < 3; i++) SQUALL_P1_UNROLL
    for (int j = 0; j < 3; j++) {
      if (only)
        da[base + i * stride + j] = sum[3 * i + j];
      else
        atomicAdd(&da[base + i * stride + j], (PetscScalar)sum[3 * i + j]);
    }
  }
}

/* Shared memory of the reduce kernel after the element data: the block's slots (int), rows (int, bs 3),
   ends (uint16) and contributions (uint16). Each array is copied in 16-byte chunks from the aligned chunk
   at or below its first index (cp.async needs aligned 16-byte copies), so it holds up to 2*8 - 2 words more
   than the block's count: nu words per entry array, nc per contribution array (both multiples of 8, so
   every array starts 16-byte aligned). The device arrays are padded so the last chunk stays in bounds. */
static inline size_t P1ReduceStagedBytes(int bs, int nu, int nc)
{
  return (size_t)SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK * sizeof(PetscReal) + (size_t)nu * ((bs == 3 ? 2 : 1) * sizeof(int) + sizeof(uint16_t)) + (size_t)nc * sizeof(uint16_t);
}

/* copies g[lo..hi) into s (from the aligned chunk at or below lo) with cp.async; lo's place in s is
   lo & (16/sizeof(T) - 1), returned */
template <typename T> __device__ static inline int P1StageAsync(T *s, const T *g, int lo, int hi)
{
  const int k = 16 / (int)sizeof(T), a = lo & ~(k - 1), n = (hi - a + k - 1) / k;

  for (int i = (int)threadIdx.x; i < n; i += P1_BLOCK) __pipeline_memcpy_async(s + i * k, g + a + i * k, 16);
  return lo - a;
}

/* SHARED: issues the copies of component-major field g (NC values per vertex) of the block's nv vertices vtx[]
   into s with cp.async, one value per thread at a time, vertex-major as in global memory: a copy reads runs of a
   vertex's values, and the block-local vertex index addresses the copy as the global index does the original */
template <int NC> __device__ static inline void P1StageField(PetscReal *s, const PetscScalar *g, const int *vtx, int nv)
{
  for (int j = (int)threadIdx.x; j < NC * nv; j += P1_BLOCK) {
    const int i = j / NC;
    __pipeline_memcpy_async(s + j, g + NC * (PetscInt)vtx[i] + (j - NC * i), sizeof(PetscReal));
  }
}

/* SHARED: issues the copies of the fields of block blockIdx.x's vertices (V.vtx[V.voff[k]..]) into s: the
   coordinates and the fields the operator reads (SquallP1NodalFieldsRead()), each array V.stride per component. El: E
   with those arrays replaced by their copies. Committed as one group. */
__device__ static inline void P1StageVertices(const SquallP1Elements *E, const SquallP1Coef *coef, const P1BlockVertices V, PetscReal *s, SquallP1Elements *El)
{
  const int  v0 = V.voff[blockIdx.x], nv = V.voff[blockIdx.x + 1] - v0, ns = V.stride;
  const int *vtx   = V.vtx + v0;
  const int  reads = SquallP1NodalFieldsRead(E->rho ? PETSC_TRUE : PETSC_FALSE, E->u ? PETSC_TRUE : PETSC_FALSE, E->K ? PETSC_TRUE : PETSC_FALSE, coef->c);
  PetscReal *xs = s, *rs = xs + 3 * ns, *us = rs + (reads & SQUALL_P1_READS_RHO ? ns : 0), *Ks = us + (reads & SQUALL_P1_READS_U ? 3 * ns : 0);

  P1StageField<3>(xs, E->x, vtx, nv);
  if (reads & SQUALL_P1_READS_RHO) P1StageField<1>(rs, E->rho, vtx, nv);
  if (reads & SQUALL_P1_READS_U) P1StageField<3>(us, E->u, vtx, nv);
  if (reads & SQUALL_P1_READS_K) P1StageField<9>(Ks, E->K, vtx, nv);
  __pipeline_commit();
  El->x   = xs;
  El->rho = reads & SQUALL_P1_READS_RHO ? rs : NULL;
  El->u   = reads & SQUALL_P1_READS_U ? us : NULL;
  El->K   = reads & SQUALL_P1_READS_K ? Ks : NULL;
}

/* The reduce kernel. Thread t of block k computes element k*P1_BLOCK + t in closed form (the gradients of an
   affine tetrahedron are constant: SquallP1ElementOperatorXYZ(), with J^-1 and the volume rebuilt from the 4
   vertices' coordinates) and stores what its matrix is made of in shared memory (p1tet.h: 16 words, 29 for
   bs 3); then each thread sums the contributions of every 256th of the block's unique entries in the map's
   fixed order and adds each sum with one atomicAdd, or stores it when no other block touches the entry. The
   block's part of the map is copied into shared memory with cp.async before the elements are computed, so its
   latency overlaps the element phase. SHARED: the fields of the block's vertices are first copied into shared
   memory (P1StageVertices()), where the elements read them through the block-local connectivity; that copy then
   makes room for the element data. Without SHARED (a block whose vertices do not fit) the elements gather
   their vertex fields from global memory: the same arithmetic on the same values.
   One piece: the three phases share the staged map and the shared-memory buffer, and are separated by block
   barriers, which a split into device functions would hide. */
template <int BS, bool SHARED>
__global__ static void __launch_bounds__(P1_BLOCK, BS == 1 ? P1_REDUCE_MIN_BLOCKS1 : P1_REDUCE_MIN_BLOCKS3)
  P1AssembleReduceKernel(SquallP1Elements E, SquallP1Coef coef, const int *__restrict__ ublk, const int *__restrict__ cblk, const int *__restrict__ uslot, const int *__restrict__ urow, const uint16_t *__restrict__ uend,
                         const uint16_t *__restrict__ cidx, const PetscInt *__restrict__ dI, PetscScalar *__restrict__ da, int nus, P1BlockVertices V)
{
  extern __shared__ __align__(16) unsigned char p1_reduce_smem[];
  PetscReal                                    *w  = (PetscReal *)p1_reduce_smem;
  int                                          *ss = (int *)(w + (SHARED ? V.words : SQUALL_P1_REDUCE_WORDS(BS) * P1_BLOCK));
  int                                          *sr = ss + nus; /* bs 3 only */
  uint16_t                                     *se = (uint16_t *)(ss + (BS == 3 ? 2 : 1) * nus);
  uint16_t                                     *sc = se + nus;
  __shared__ int                                hdr[2]; /* u0, c0: read back after the element phase, not kept in registers through it */
  const PetscInt                                e  = (PetscInt)blockIdx.x * P1_BLOCK + threadIdx.x;
  SquallP1Elements                              El = E; /* SHARED: the vertex fields in shared memory */
  PetscInt                                      lv[4];  /* SHARED: the element's block-local vertices, loaded first so that their latency overlaps the copies */

  if (SHARED) {
    if (e < E.ne) {
      SQUALL_P1_UNROLL
      for (int a = 0; a < 4; a++) lv[a] = V.ltet[a * E.ne + e];
    }
    P1StageVertices(&E, &coef, V, w, &El);
  }
  {
    const int u0 = ublk[blockIdx.x], u1 = ublk[blockIdx.x + 1], c0 = cblk[blockIdx.x], c1 = cblk[blockIdx.x + 1];

    (void)P1StageAsync(ss, uslot, u0, u1);
    (void)P1StageAsync(se, uend, u0, u1);
    (void)P1StageAsync(sc, cidx, c0, c1);
    if (BS == 3) (void)P1StageAsync(sr, urow, u0, u1);
    __pipeline_commit();
    if (threadIdx.x == 0) {
      hdr[0] = u0;
      hdr[1] = c0;
    }
  }
  if (SHARED) {
    PetscReal g[4][3], vol = 0, S[4][4];

    __pipeline_wait_prior(1); /* the vertex fields, not yet the map */
    __syncthreads();
    if (e < E.ne) SquallP1ElementOperatorXYZ(&El, e, &coef, lv, g, &vol, S);
    __syncthreads(); /* the element data overwrite the vertex fields */
    if (e < E.ne) SquallP1ReduceStore(BS, w + threadIdx.x, P1_BLOCK, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol);
  } else if (e < E.ne) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoadAffineXYZ(&E, e, &coef, v, g, &vol, S);
    SquallP1ReduceStore(BS, w + threadIdx.x, P1_BLOCK, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef.c[SQUALL_P1_TERM_GRADDIV] * vol);
  }
  __pipeline_wait_prior(0);
  __syncthreads();
  /* lo's place in each staged array (P1StageAsync()); the counts again from the (cached) global map */
  const int u0 = hdr[0], c0 = hdr[1], nu = ublk[blockIdx.x + 1] - u0, so = u0 & 3, ro = u0 & 3, eo = u0 & 7, co = c0 & 7;

  for (int j = (int)threadIdx.x; j < nu; j += P1_BLOCK) {
    const int  en = se[eo + j], m0 = j ? (se[eo + j - 1] & SQUALL_P1_REDUCE_MASK) : 0, m1 = en & SQUALL_P1_REDUCE_MASK;
    const bool only = (en & SQUALL_P1_REDUCE_ONLY) != 0;
    PetscReal  sum[9];

    for (int k = 0; k < BS * BS; k++) sum[k] = 0;
    for (int m = m0; m < m1; m++) SquallP1ReduceAdd(BS, sc[co + m], w, P1_BLOCK, sum);
    P1ReduceWrite<BS>(ss[so + j], only, sum, sr + ro, j, dI, da);
  }
}

typedef void (*P1ReduceKernel)(SquallP1Elements, SquallP1Coef, const int *, const int *, const int *, const int *, const uint16_t *, const uint16_t *, const PetscInt *, PetscScalar *, int, P1BlockVertices);

static P1ReduceKernel P1ReduceKernelOf(int bs, bool shared)
{
  if (bs == 1) return shared ? P1AssembleReduceKernel<1, true> : P1AssembleReduceKernel<1, false>;
  return shared ? P1AssembleReduceKernel<3, true> : P1AssembleReduceKernel<3, false>;
}
