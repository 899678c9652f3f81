/* P1 tetrahedral CG operators on the GPU: one thread per element for the element (geometry) kernel,
   the element matrices and right-hand sides. The atomic assembly adds each element entry into the
   device value array of the (MPI)AIJCUSPARSE matrix, and right-hand sides into the device array of
   the Vec: no host round trip. The place of an entry is found either by a binary search of its column
   in the row (-p1_assembly_mode search: ~5 dependent loads per entry from the graph, plus the row[],
   cd[], co[] gathers), or read from the slot map (slots: 16 ints per element for bs 1, 20 for bs 3,
   built on the host at the first assembly of each block size, since the sparsity is fixed, and read
   coalesced: slot k of element e at k*ne + e). The COO path computes the same element values into a
   device array for MatSetValuesCOO.

   The gather mode (-p1_assembly_mode gather) uses no atomics and is deterministic: an element kernel
   stores the element values, entry-major (coalesced stores, p1tet.h SquallP1ElementStore()), then a gather
   kernel writes every stored value of the diagonal block as the sum of its contributions in a fixed
   order, through the transposed slot map (SquallP1BuildGather(), built on the host once per sparsity).
   It costs a scratch array of 16 bs^2 scalars per element, written once and read once, instead of the
   atomic read-modify-writes, and needs no zeroing pass. One thread per stored value rather than per row
   (segment): a row has ~15 (bs 1) to ~45 (bs 3) values, so a thread per row would leave its neighbours'
   stores 120-360 bytes apart (uncoalesced) and give a warp rows of different lengths, while a thread
   per value stores consecutive values from consecutive threads and has only its own short list
   (~4-24 contributions) to sum; the warp's divergence is that of the list lengths in one or two rows.
   For bs 3 thread 9p + 3i + j writes component (i, j) of the block of scalar entry p: the nine threads
   of a block read the same contribution list (one broadcast load) and a warp's stores fall in three
   runs of ~10 consecutive values, one per block row.

   The reduce mode (-p1_assembly_mode reduce) keeps the atomics but makes them ~3x fewer: the slots mode is
   bound by the throughput of global double atomicAdds (16 per element for bs 1, 144 for bs 3, ~6 per
   entry, ~22 on the diagonal), and the gather mode by its scattered scratch stores. A thread block's
   elements put their element data in shared memory and the block sums, per matrix entry it touches,
   its contributions there in a fixed order (SquallP1BuildReduce(), once per sparsity): one atomicAdd per
   entry and block, a plain store for the entries no other block touches, and no scratch in global memory.
   Its kernel comes in variants (-p1_reduce_variant, SquallP1ReduceKernelOf(); same sums in the same order,
   bit for bit): for bs 1 the plain kernel measured slower than slots (0.83x on 2026-11-30) although it has
   3x fewer atomics. With 128 registers it runs 2 blocks (16 warps) per SM, and after the element phase each
   thread walks every 256th entry through a chain of dependent global loads (entry -> contribution range ->
   contributions -> shared element data), ~2 memory latencies per entry and ~5.5 entries per thread with
   nothing else to overlap them. staged issues the block's map (~1400 entries, 4096 contributions: ~17 KB)
   into shared memory with cp.async before the element phase, whose loads do not depend on it, so the summing
   phase waits on shared memory only; balanced also evens the threads' work (contiguous runs of the block's
   contributions instead of every 256th entry, whose lengths run from 1 to ~20); _b3 caps the registers at 80
   for 3 blocks per SM (the element phase then spills ~600 bytes per thread to L1); affine is staged with the
   element phase in closed form, affine_xyz the same without the streamed geometry (below).

   Where the reduce mode's time goes (scalar operator of bench/p1_assembly.c: mass + advection + nodal tensor
   diffusion, double, 32-bit PetscInt; the 558,624-tet mountain mesh: 99,405 nodes, 1.44 M nonzeros, 2183 blocks,
   5.49 block entries and 16 contributions per element). Bytes per element that must cross DRAM at least once:
     connectivity            4 int32                                        16 B
     geometry (J^-1, |K|)    10 double, streamed                            80 B
     nodal u (3), K (9)      96 B per node x 0.178 nodes per element        17 B   (gathered 4x per element: ~384 B of L1/L2 requests)
     map                     5.49 x (int32 slot + uint16 end) + 16 uint16   65 B
     values                  1.44 M x 8 B / 558,624                         21 B   (+21 B of zeroing memset; 4.8 atomics per element, L2)
     total                                                                 199 B   (bench's byte model: 110.98 MB, 0.118 ms -> 0.94 TB/s, 22% of 4.35)
   At ~3.3 TB/s that is ~34 us of the 118 us measured. The element phase is the rest: ptxas/cuobjdump of the staged
   bs 1 kernel (128 registers, 2 blocks = 16 warps per SM) show ~490 instructions outside the 11-point loop plus
   11 x 141 in it, ~2000 per element, ~940 of them FP64 (DFMA/DMUL/DADD): 36 M warp instructions, 16 M of them
   FP64, i.e. ~35-40 us at the H200's FP64 rate (2 warp instructions per clock per SM) with perfect issue, more
   at 16 warps per SM, whose dependent gathers (tet -> u, K) and syncthreads leave little to overlap it with. The
   slots mode (the same element phase, 16 atomics per element) measured the same 0.118 ms: the element phase, not
   the atomics, sets both. The summing phase (3.07 M block entries, ~2.9 shared-memory contributions each) and the
   map's staging are small next to it. The affine variant computes the element matrix in closed form (p1tet.h,
   SquallP1ElementOperatorAffine(): ~450 instructions, ~213 FP64, no loop) and, with far fewer live values, runs 3
   blocks per SM for bs 1 (80 registers, 12 bytes of spill) or 2 for bs 3 (127 registers, shared memory bound);
   the bytes stay those above. The affine_xyz variant cuts the 80 of the geometry: it gathers the 4 vertices'
   coordinates through the connectivity, as it gathers u and K, and rebuilds J^-1 and |K| in registers with the
   set-up's own SquallP1Geometry() (SquallP1ElementLoadAffineXYZ()); the inverted and degenerate elements were
   rejected at set-up. Its bytes per element:
     connectivity            4 int32                                        16 B
     coordinates (x)         24 B per node x 0.178 nodes per element         4 B   (gathered 4x: 96 B of L1/L2 requests, the geometry's 80 B streamed no more)
     nodal u (3), K (9)                                                     17 B
     map                                                                    65 B
     values                                                                 21 B   (+21 B of zeroing)
     total                                                                 123 B   (-38%; single precision: 16 + 2 + 9 + 65 + 10 = 102 instead of 140)
   for ~60 more instructions per element (PTX, bs 1: 895 against 833, FP64 298 against 242: the Jacobian, its
   cofactors and one division), loads 81 against 79 (12 coordinate gathers instead of 10 streamed values). The
   gathers depend on the connectivity as those of u and K do, so the chain of dependent loads gets no longer;
   the geometry's ~60 FP64 operations, ~2 us at the H200's FP64 rate for 0.56 M elements, buy 43 MB less DRAM
   traffic, ~13 us at 3.3 TB/s. ptxas (sm_90, double): bs 1 80 registers at 3 blocks per SM with 36 bytes of
   spill stores (affine: 12), bs 3 128 registers at 2, no spill (P1_AFFINE_XYZ_MIN_BLOCKS1 / 3); single precision
   72 registers for both, no spill (affine: 79), as the 10 geometry loads no longer sit in registers. The next bytes
   to cut are the 65 of the map: the 16 uint16 contribution indices per element (32 B) and the int32 slot and
   uint16 end of each of the ~5.5 block entries per element (33 B).

   Inputs: connectivity, geometry and slots are structure-of-arrays, so a warp's loads of one of them
   are one or two 128-byte lines. The nodal fields (rho, u, K) stay interleaved per node: they are
   gathered through the connectivity, and a node's 3 (u) or 9 (K) values in one or three adjacent
   32-byte sectors cost fewer transactions than 3 or 9 sectors of separate arrays; each node is
   shared by ~24 elements, so the gathers mostly hit in L1/L2.

   MPI: a MATMPIAIJCUSPARSE keeps a diagonal and an off-diagonal SEQAIJCUSPARSE block. The atomic kernel
   writes only the diagonal block, whose device values are PETSc's ordinary CSR (as on one rank). The
   off-diagonal block is filled through PETSc's documented device route, MatSetValuesCOO with device
   values, from the element matrices of the elements that touch it (SquallP1OffDiagonalElements(),
   the partition boundary): PETSc keeps B compressed (columns = garray, compressed rows on the device)
   and owns its device structure, offload mask and state, so squall never writes B's arrays behind
   its back. The same MatSetValuesCOO (INSERT_VALUES) zeroes the diagonal block, whose pattern is in
   the COO list with value 0. Cost: one extra kernel and the COO kernel over the boundary elements'
   entries plus the diagonal block's nonzeros (a copy-sized pass, replacing the memset), small next
   to the atomic kernel over all elements; SquallP1CheckLayout() still verifies the diagonal block. */
#include "cuda/cudautil.h"
#include <petscdevice_cuda.h>
#include "cuda/p1cuda.h"
#include <cuda_pipeline.h>

#if defined(PETSC_USE_COMPLEX)
#  error "squall's CUDA kernels need a real PetscScalar"
#endif

#define P1_BLOCK 256
/* The element kernels gather ~60 values per element and hold a 4x4 element matrix; unbounded, nvcc
   gives them ~140 registers, i.e. one block of 256 threads per SM. Two blocks (128 registers, a few
   spills to L1) hide the latency of the gathers and atomics better. Tune with -DP1_MIN_BLOCKS=n. */
#if !defined(P1_MIN_BLOCKS)
#  define P1_MIN_BLOCKS 2
#endif
/* Blocks of 256 threads per SM of the affine reduce variant, per block size. Its closed-form element phase
   keeps fewer values live: unbounded it takes 140 registers (all ~66 gathers issued at once); at 80 (3 blocks)
   it spills 12 bytes, at 64 (4 blocks) 332 bytes per thread, which would go to L2, as the 4 blocks' ~200 KB of
   shared memory leave L1 little room. bs 3: 2, as its ~80 KB of shared memory per block allow no more. */
#if !defined(P1_AFFINE_MIN_BLOCKS1)
#  define P1_AFFINE_MIN_BLOCKS1 3
#endif
#if !defined(P1_AFFINE_MIN_BLOCKS3)
#  define P1_AFFINE_MIN_BLOCKS3 2
#endif
/* the same for the affine_xyz variant (geometry rebuilt from the vertex coordinates): bs 1 at 80 registers spills 36
   bytes per thread (to L1: 3 blocks leave ~80 KB of it), at 128 (2 blocks) none but a third fewer warps to hide the
   gathers' latency; bs 3 takes 128 registers at 2 blocks without spilling, as affine does */
#if !defined(P1_AFFINE_XYZ_MIN_BLOCKS1)
#  define P1_AFFINE_XYZ_MIN_BLOCKS1 3
#endif
#if !defined(P1_AFFINE_XYZ_MIN_BLOCKS3)
#  define P1_AFFINE_XYZ_MIN_BLOCKS3 2
#endif
/* the same for the affine_shared variant (the vertex fields read from shared memory) */
#if !defined(P1_AFFINE_SHARED_MIN_BLOCKS1)
#  define P1_AFFINE_SHARED_MIN_BLOCKS1 3
#endif
#if !defined(P1_AFFINE_SHARED_MIN_BLOCKS3)
#  define P1_AFFINE_SHARED_MIN_BLOCKS3 2
#endif

/* a reduce map on the device (SquallP1Reduce); maxu, maxc: the most entries and contributions of one block (the
   staged variants' shared memory) */
typedef struct {
  int      *ublk, *cblk, *slot, *row;
  uint16_t *end, *cidx;
  int       maxu, maxc;
} P1ReduceMap;

struct P1CUDA {
  PetscInt    *ebnd; /* [nebnd] SquallP1OffDiagonalElements(), uploaded on first use */
  PetscInt     nebnd;
  PetscBool    hasebnd;
  PetscScalar *offv[4];                                 /* COO values of the MPI path, per block size */
  PetscInt    *tet;                                     /* [4][ne], structure of arrays */
  PetscReal   *x;                                       /* [3*nv] */
  PetscReal   *geom;                                    /* [SQUALL_P1_NGEOM][ne] */
  PetscInt    *row, *cd, *co;                           /* [nv] */
  PetscInt    *dI, *dJ, *oI, *oJ;                       /* the graph of the owned rows */
  int         *slots[4];                                /* slot maps per block size (first SquallP1NumSlots(bs, 0) slots), on first use */
  int         *goff, *gidx;                             /* gather map of the diagonal block (SquallP1BuildGather()), on first use */
  int         *gprow;                                   /* [dI[nowned]] scalar row of each diagonal-block entry (the bs 3 gather) */
  PetscInt     ngather;                                 /* contributions in the gather map */
  PetscScalar *gwork[4];                                /* element values of the gather mode, 16 bs^2 per element, entry-major */
  P1ReduceMap  rmap[2];                                 /* reduce mode: the maps of SquallP1BuildReduce() for bs 1 and 3 (blocks of P1_BLOCK elements, diagonal block only), on first use */
  int         *rvoff, *rvtx;                            /* affine_shared: the blocks' vertices (SquallP1BuildBlockVertices()), on first use */
  uint16_t    *rltet;                                   /* [4][ne] the elements' vertices as positions in their block's list */
  PetscInt     rmaxv;                                   /* the most vertices of one block */
  size_t       rsmem[4][SQUALL_P1_REDUCE_NUM_VARIANTS]; /* dynamic shared memory limit set per block size and variant */
  int         *nbad;                                    /* one counter */
};

/* affine_shared: the blocks' vertex lists and the shared-memory layout of their fields (P1StageVertices()) */
typedef struct {
  const int      *voff, *vtx; /* block k's vertices vtx[voff[k]] .. vtx[voff[k+1]-1] */
  const uint16_t *ltet;       /* [4][ne] */
  int             stride;     /* of each field component's array in shared memory: the most vertices of a block, rounded up */
  int             words;      /* PetscReals of shared memory before the staged map: the vertex fields, or the element data if more */
} P1BlockVertices;

static inline unsigned int P1Blocks(PetscInt n)
{
  return (unsigned int)PetscMax(1, (n + P1_BLOCK - 1) / P1_BLOCK);
}

/* PETSc's own kernels (MatSetValuesCOO, MatMult, ...) may run on another stream than the current
   device context's; by default that context uses the NULL stream, which orders everything. With any
   other stream, finish before handing device data to PETSc. */
static PetscErrorCode P1SyncForPETSc(cudaStream_t stream)
{
  PetscFunctionBegin;
  if (stream) PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T> static PetscErrorCode P1Upload(T **d, const T *h, PetscInt n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, (size_t)PetscMax(n, 1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* as P1Upload(), with pad zeroed elements after the n (reads of whole aligned chunks stay in bounds) */
template <typename T> static PetscErrorCode P1UploadPadded(T **d, const T *h, PetscInt n, PetscInt pad)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, (size_t)(n + pad) * sizeof(T)));
  PetscCallCUDA(cudaMemset(*d + n, 0, (size_t)pad * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- kernels */
#include "cuda/p1elementkernels.cuh"
#include "cuda/p1reducekernels.cuh"
#include "cuda/p1valuekernels.cuh"

/* ---- host side */

PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1 p1)
{
  P1CUDA      *cu = (P1CUDA *)p1->cuda;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(SQUALL_P1Geometry, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (p1->ne) P1GeometryKernel<<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(p1->ne, cu->tet, cu->x, cu->geom);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(60.0 * p1->ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1Geometry, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetUp(SquallP1 p1)
{
  P1CUDA        *cu;
  PetscInt      *soa;
  const PetscInt n = p1->nowned, ne = p1->ne;

  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscNew(&cu));
  p1->cuda = cu;
  /* connectivity as structure of arrays: consecutive threads read consecutive words */
  PetscCall(PetscMalloc1(4 * PetscMax(ne, 1), &soa));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt a = 0; a < 4; a++) soa[a * ne + e] = p1->tet[4 * e + a];
  PetscCall(P1Upload(&cu->tet, soa, 4 * ne));
  PetscCall(PetscFree(soa));
  PetscCall(P1Upload(&cu->x, p1->x, 3 * p1->nv));
  PetscCall(P1Upload(&cu->row, p1->row, p1->nv));
  PetscCall(P1Upload(&cu->cd, p1->cd, p1->nv));
  PetscCall(P1Upload(&cu->co, p1->co, p1->nv));
  PetscCall(P1Upload(&cu->dI, p1->dI, n + 1));
  PetscCall(P1Upload(&cu->dJ, p1->dJ, p1->dI[n]));
  PetscCall(P1Upload(&cu->oI, p1->oI, n + 1));
  PetscCall(P1Upload(&cu->oJ, p1->oJ, p1->oI[n]));
  PetscCallCUDA(cudaMalloc((void **)&cu->geom, (size_t)SQUALL_P1_NGEOM * PetscMax(ne, 1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMalloc((void **)&cu->nbad, sizeof(int)));
  PetscCall(SquallP1CUDAComputeGeometry(p1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDADestroy(SquallP1 p1)
{
  P1CUDA *cu = (P1CUDA *)p1->cuda;

  PetscFunctionBegin;
  if (!cu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(cu->tet));
  PetscCallCUDA(cudaFree(cu->x));
  PetscCallCUDA(cudaFree(cu->geom));
  PetscCallCUDA(cudaFree(cu->row));
  PetscCallCUDA(cudaFree(cu->cd));
  PetscCallCUDA(cudaFree(cu->co));
  PetscCallCUDA(cudaFree(cu->dI));
  PetscCallCUDA(cudaFree(cu->dJ));
  PetscCallCUDA(cudaFree(cu->oI));
  PetscCallCUDA(cudaFree(cu->oJ));
  PetscCallCUDA(cudaFree(cu->nbad));
  PetscCallCUDA(cudaFree(cu->ebnd));
  PetscCallCUDA(cudaFree(cu->goff));
  PetscCallCUDA(cudaFree(cu->gidx));
  PetscCallCUDA(cudaFree(cu->gprow));
  for (int k = 0; k < 2; k++) {
    P1ReduceMap *m = &cu->rmap[k];

    PetscCallCUDA(cudaFree(m->ublk));
    PetscCallCUDA(cudaFree(m->cblk));
    PetscCallCUDA(cudaFree(m->slot));
    PetscCallCUDA(cudaFree(m->row));
    PetscCallCUDA(cudaFree(m->end));
    PetscCallCUDA(cudaFree(m->cidx));
  }
  PetscCallCUDA(cudaFree(cu->rvoff));
  PetscCallCUDA(cudaFree(cu->rvtx));
  PetscCallCUDA(cudaFree(cu->rltet));
  for (PetscInt bs = 0; bs < 4; bs++) {
    PetscCallCUDA(cudaFree(cu->offv[bs]));
    PetscCallCUDA(cudaFree(cu->slots[bs]));
    PetscCallCUDA(cudaFree(cu->gwork[bs]));
    if (p1->coov[bs]) PetscCallCUDA(cudaFree(p1->coov[bs]));
    if (p1->coor[bs]) PetscCallCUDA(cudaFree(p1->coor[bs]));
    p1->coov[bs] = p1->coor[bs] = NULL;
  }
  PetscCall(PetscFree(cu));
  p1->cuda = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAGetGeometry(SquallP1 p1, PetscReal *geom)
{
  P1CUDA *cu = (P1CUDA *)p1->cuda;

  PetscFunctionBegin;
  PetscCheck(cu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The SquallP1 has no device data (backend %s)", SquallP1Backends[p1->backend]);
  PetscCallCUDA(cudaMemcpy(geom, cu->geom, (size_t)SQUALL_P1_NGEOM * p1->ne * sizeof(PetscReal), cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)SQUALL_P1_NGEOM * p1->ne * sizeof(PetscReal)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coefficient fields live in VECSEQCUDA local vectors: their device arrays */
static PetscErrorCode P1GetElementsDevice(SquallP1 p1, SquallP1Elements *E)
{
  P1CUDA *cu = (P1CUDA *)p1->cuda;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(E, sizeof(*E)));
  E->ne   = p1->ne;
  E->tet  = cu->tet;
  E->ts   = p1->ne;
  E->es   = 1;
  E->geom = cu->geom;
  E->x    = cu->x;
  if (p1->rho) PetscCall(VecCUDAGetArrayRead(p1->rho, &E->rho));
  if (p1->u) PetscCall(VecCUDAGetArrayRead(p1->u, &E->u));
  if (p1->hasK && p1->Kloc == SQUALL_P1_NODE) PetscCall(VecCUDAGetArrayRead(p1->K, &E->K));
  if (p1->hasK && p1->Kloc == SQUALL_P1_ELEMENT) PetscCall(VecCUDAGetArrayRead(p1->Ke, &E->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1RestoreElementsDevice(SquallP1 p1, SquallP1Elements *E)
{
  PetscFunctionBegin;
  if (E->rho) PetscCall(VecCUDARestoreArrayRead(p1->rho, &E->rho));
  if (E->u) PetscCall(VecCUDARestoreArrayRead(p1->u, &E->u));
  if (E->K) PetscCall(VecCUDARestoreArrayRead(p1->K, &E->K));
  if (E->Ke) PetscCall(VecCUDARestoreArrayRead(p1->Ke, &E->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1CoefStruct(const PetscReal coef[], SquallP1Coef *c)
{
  PetscFunctionBegin;
  for (int k = 0; k < SQUALL_P1_NTERMS; k++) c->c[k] = coef[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* several ranks: zeros on the diagonal block's pattern, then the element matrices of the elements that
   touch the off-diagonal block, into MatSetValuesCOO (the COO list of SquallP1OffDiagonalCOOIndices(),
   set by SquallP1AssembleOperator()) */
static PetscErrorCode P1AssembleOffDiagonalCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, const PetscReal coef[], Mat A, cudaStream_t stream)
{
  P1CUDA          *cu = (P1CUDA *)p1->cuda;
  const PetscInt   m = 4 * bs, nd = bs * bs * p1->dI[p1->nowned];
  SquallP1Elements E;

  PetscFunctionBegin;
  if (!cu->hasebnd) {
    const PetscInt *el;

    PetscCall(SquallP1OffDiagonalElements(p1, &cu->nebnd, &el));
    PetscCall(P1Upload(&cu->ebnd, el, cu->nebnd));
    cu->hasebnd = PETSC_TRUE;
  }
  if (!cu->offv[bs]) PetscCallCUDA(cudaMalloc((void **)&cu->offv[bs], (size_t)PetscMax(nd + m * m * cu->nebnd, 1) * sizeof(PetscScalar)));
  PetscCall(P1GetElementsDevice(p1, &E));
  PetscCall(PetscLogGpuTimeBegin());
  if (nd) PetscCallCUDA(cudaMemsetAsync(cu->offv[bs], 0, (size_t)nd * sizeof(PetscScalar), stream));
  if (cu->nebnd) {
    if (bs == 1)
      P1ElementValuesKernel<1><<<P1Blocks(cu->nebnd), P1_BLOCK, 0, stream>>>(E, *c, cu->nebnd, cu->ebnd, cu->offv[bs] + nd);
    else
      P1ElementValuesKernel<3><<<P1Blocks(cu->nebnd), P1_BLOCK, 0, stream>>>(E, *c, cu->nebnd, cu->ebnd, cu->offv[bs] + nd);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(SquallP1ElementFlops(coef, bs) * cu->nebnd));
  PetscCall(P1RestoreElementsDevice(p1, &E));
  PetscCall(P1SyncForPETSc(stream));
  /* PETSc writes both blocks on the device and marks them (and the matrix) as changed */
  PetscCall(MatSetValuesCOO(A, cu->offv[bs], INSERT_VALUES));
  /* PETSc's COO kernels run on the legacy default stream: finish them before the atomic kernel writes
     the diagonal block on another (possibly non-blocking) stream */
  if (stream) PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1 p1, PetscInt bs, const PetscReal coef[], Mat A)
{
  P1CUDA               *cu = (P1CUDA *)p1->cuda;
  const PetscInt        n  = p1->nowned;
  Mat                   Ad = A, Ao = NULL;
  PetscBool             ismpi, iscu, iscuo = PETSC_TRUE;
  PetscScalar          *da = NULL;
  SquallP1CSR           D, O;
  SquallP1Elements      E;
  SquallP1Coef          c;
  cudaStream_t          stream;
  PetscInt              m, nc;
  int                   nmiss  = 0;
  const PetscBool       slots  = p1->atomicmode == SQUALL_P1_ATOMIC_SLOTS ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool       gather = p1->atomicmode == SQUALL_P1_ATOMIC_GATHER ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool       reduce = p1->atomicmode == SQUALL_P1_ATOMIC_REDUCE ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool       search = !slots && !gather && !reduce ? PETSC_TRUE : PETSC_FALSE;
  PetscLogEvent         ev     = gather ? SQUALL_P1AssembleGather : (slots ? SQUALL_P1AssembleSlots : (reduce ? SQUALL_P1AssembleReduce : SQUALL_P1Assemble));
  const PetscBool       staged = reduce && p1->rvariant >= SQUALL_P1_REDUCE_STAGED ? PETSC_TRUE : PETSC_FALSE;
  PetscBool             shared = reduce && p1->rvariant == SQUALL_P1_REDUCE_AFFINE_SHARED ? PETSC_TRUE : PETSC_FALSE;
  SquallP1ReduceVariant rv     = p1->rvariant;
  size_t                rsmem  = (size_t)SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK * sizeof(PetscReal);
  int                   nus = 0, ncs = 0;
  P1BlockVertices       V;
  P1ReduceMap          *rm = &cu->rmap[bs == 3];

  PetscFunctionBegin;
  PetscCheck(cu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The SquallP1 has no device data (backend %s)", SquallP1Backends[p1->backend]);
  PetscCheck(bs == 1 || bs == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The atomic assembly supports block size 1 or 3, not %" PetscInt_FMT, bs);
  if (slots && !cu->slots[bs]) {
    int *h;

    /* built once on the host (plain integer work, the searches of the search mode), without the
       off-diagonal strides the device never reads; the host copy is not kept */
    PetscCall(SquallP1BuildSlots(p1, bs, PETSC_FALSE, &h));
    PetscCall(P1Upload(&cu->slots[bs], h, (PetscInt)SquallP1NumSlots((int)bs, 0) * p1->ne));
    PetscCall(PetscFree(h));
  }
  if (gather && !cu->goff) {
    int *off[2], *idx[2], *prow;

    /* once per sparsity, on the host (integer work), the diagonal block only: on several ranks
       MatSetValuesCOO fills the off-diagonal one; the host copies are not kept */
    PetscCall(SquallP1BuildGather(p1, PETSC_FALSE, off, idx));
    cu->ngather = off[0][p1->dI[n]];
    PetscCall(PetscMalloc1(PetscMax(p1->dI[n], 1), &prow));
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt p = p1->dI[r]; p < p1->dI[r + 1]; p++) prow[p] = (int)r;
    PetscCall(P1Upload(&cu->goff, off[0], p1->dI[n] + 1));
    PetscCall(P1Upload(&cu->gidx, idx[0], cu->ngather));
    PetscCall(P1Upload(&cu->gprow, prow, p1->dI[n]));
    PetscCall(PetscFree(off[0]));
    PetscCall(PetscFree(idx[0]));
    PetscCall(PetscFree(prow));
  }
  if (reduce && !rm->ublk) {
    SquallP1Reduce R;

    /* once per sparsity and block size, on the host, from the scalar slot map; blocks of exactly the kernel's thread
       block; the diagonal block only (several ranks: MatSetValuesCOO fills the other); not kept on the host. bs 1:
       the long entries first (SquallP1BuildReduce()), 6-8% faster at 0.56 M and 21.1 M tets; bs 3 in position
       order, whose 9 atomics per entry gain more from consecutive entries (with the classes 4% slower) */
    PetscCall(SquallP1BuildReduce(p1, P1_BLOCK, PETSC_FALSE, bs == 1 ? SQUALL_P1_REDUCE_LONG : PETSC_INT_MAX, &R));
    PetscCall(P1Upload(&rm->ublk, R.ublk, R.nblocks + 1));
    PetscCall(P1Upload(&rm->cblk, R.cblk, R.nblocks + 1));
    /* padded by a 16-byte chunk: the staged variants copy whole aligned chunks (P1StageAsync()) */
    PetscCall(P1UploadPadded(&rm->slot, R.slot, R.nu, 4));
    PetscCall(P1UploadPadded(&rm->row, R.row, R.nu, 4));
    PetscCall(P1UploadPadded(&rm->end, R.end, R.nu, 8));
    PetscCall(P1UploadPadded(&rm->cidx, R.cidx, R.ncon, 8));
    rm->maxu = rm->maxc = 0;
    for (PetscInt k = 0; k < R.nblocks; k++) {
      rm->maxu = PetscMax(rm->maxu, R.ublk[k + 1] - R.ublk[k]);
      rm->maxc = PetscMax(rm->maxc, R.cblk[k + 1] - R.cblk[k]);
    }
    PetscCall(SquallP1ReduceDestroy(&R));
  }
  PetscCall(PetscMemzero(&V, sizeof(V)));
  if (shared) {
    /* the vertex fields the operator reads, as P1StageVertices() copies them */
    const PetscInt wpv = SquallP1NodalWordsRead(SquallP1NodalFieldsRead(p1->rho ? PETSC_TRUE : PETSC_FALSE, p1->u ? PETSC_TRUE : PETSC_FALSE, p1->hasK && p1->Kloc == SQUALL_P1_NODE ? PETSC_TRUE : PETSC_FALSE, coef));

    if (!cu->rvoff) {
      int      *voff, *vtx;
      uint16_t *ltet;
      PetscInt  nblocks = (p1->ne + P1_BLOCK - 1) / P1_BLOCK;

      /* once per element order, on the host; not kept there */
      PetscCall(SquallP1BuildBlockVertices(p1, P1_BLOCK, &voff, &vtx, &ltet, &cu->rmaxv));
      PetscCall(P1Upload(&cu->rvoff, voff, nblocks + 1));
      PetscCall(P1Upload(&cu->rvtx, vtx, (PetscInt)voff[nblocks]));
      PetscCall(P1Upload(&cu->rltet, ltet, 4 * p1->ne));
      PetscCall(PetscFree(voff));
      PetscCall(PetscFree(vtx));
      PetscCall(PetscFree(ltet));
    }
    V.voff   = cu->rvoff;
    V.vtx    = cu->rvtx;
    V.ltet   = cu->rltet;
    V.stride = (int)((cu->rmaxv + 3) / 4 * 4); /* every array 16-byte aligned in either precision */
    V.words  = (int)PetscMax(wpv * V.stride, SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK);
  }
  if (reduce) {
    /* words of shared memory per entry and contribution array of the staged variants (P1ReduceStagedBytes()) */
    nus = ((rm->maxu + 16) + 7) / 8 * 8;
    ncs = ((rm->maxc + 16) + 7) / 8 * 8;
    if (staged) rsmem = P1ReduceStagedBytes((int)bs, nus, ncs);
    if (shared) {
      const size_t more = (size_t)(V.words - SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK) * sizeof(PetscReal);
      int          dev, optin;

      PetscCallCUDA(cudaGetDevice(&dev));
      PetscCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
      if (rsmem + more <= (size_t)optin)
        rsmem += more;
      else {
        /* blocks of scattered elements (up to 4 vertices each): the same matrix from the global arrays */
        PetscCall(
          PetscInfo(NULL, "affine_shared would need %zu bytes of shared memory per block (a block of %d elements touches up to %" PetscInt_FMT " vertices), more than the device's %d: using affine_xyz\n", rsmem + more, P1_BLOCK, cu->rmaxv, optin));
        shared = PETSC_FALSE;
        rv     = SQUALL_P1_REDUCE_AFFINE_XYZ;
      }
    }
    /* above the 48 KB default (bs 3 in double: 58 KB, staged bs 1 ~49 KB): raise each kernel's limit once */
    if (cu->rsmem[bs][rv] < rsmem) {
      PetscCallCUDA(cudaFuncSetAttribute(P1ReduceKernelOf((int)bs, rv), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)rsmem));
      cu->rsmem[bs][rv] = rsmem;
    }
  }
  PetscCheck(!gather || (PetscInt64)bs * bs * p1->dI[n] < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The gather kernel numbers the %" PetscInt64_FMT " values of this rank's diagonal block with 32-bit integers; use -p1_assembly_mode slots or more ranks", (PetscInt64)bs * bs * p1->dI[n]);
  if (gather && !cu->gwork[bs]) PetscCallCUDA(cudaMalloc((void **)&cu->gwork[bs], (size_t)16 * bs * bs * PetscMax(p1->ne, 1) * sizeof(PetscScalar)));
  /* the parallel matrix itself has no value array: the kernel writes its diagonal block (A, a
     SEQAIJCUSPARSE), MatSetValuesCOO the off-diagonal one (B); see the top of this file */
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi) {
    SquallP1Info *info;

    PetscCall(SquallP1GetInfo((PetscObject)A, &info));
    PetscCheck(info && info->coooff, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The %s matrix has no COO pattern for its off-diagonal block: assemble it with SquallP1AssembleOperator()", ((PetscObject)A)->type_name);
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCheck(Ad, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The %s matrix has no diagonal block (not preallocated?)", ((PetscObject)A)->type_name);
    if (Ao) PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQAIJCUSPARSE, &iscuo));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQAIJCUSPARSE, &iscu));
  PetscCheck(iscu && iscuo, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The GPU atomic assembly needs a MATAIJCUSPARSE matrix with SEQAIJCUSPARSE blocks, not %s (blocks %s, %s); create it with SquallP1CreateMatrix() and -p1_backend cuda",
             ((PetscObject)A)->type_name, ((PetscObject)Ad)->type_name, Ao ? ((PetscObject)Ao)->type_name : "none");
  /* the sizes the kernel relies on: bs*nowned rows; B (filled by PETSc) only reported */
  PetscCall(MatGetLocalSize(Ad, &m, NULL));
  PetscCheck(m == bs * n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The diagonal block has %" PetscInt_FMT " rows, expected %" PetscInt_FMT, m, bs * n);
  if (Ao) {
    PetscCall(MatGetLocalSize(Ao, &m, &nc));
    PetscCheck(m == bs * n && nc == bs * p1->ngarray, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The off-diagonal block is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT " (compressed columns)", m, nc, bs * n,
               bs * p1->ngarray);
  } else
    PetscCheck(!p1->oI[n], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The graph has off-process columns but the matrix (%s) has no off-diagonal block", ((PetscObject)A)->type_name);
  PetscCall(P1CoefStruct(coef, &c));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(ev, A, 0, 0, 0));
  /* first the COO (it rewrites the diagonal block with zeros), then the atomic adds into it */
  if (ismpi) PetscCall(P1AssembleOffDiagonalCOO(p1, bs, &c, coef, A, stream));
  /* read-write access: the first call moves the (zero) pattern to the device, later ones nothing; an
     empty diagonal block (no owned rows) is left alone: its device structure may not exist, and the
     kernel never writes it (SquallP1ScatterElement skips a block without values) */
  if (p1->dI[n]) {
    PetscCall(MatSeqAIJCUSPARSEGetArray(Ad, &da));
    PetscCheck(da, PETSC_COMM_SELF, PETSC_ERR_GPU, "The diagonal block has no device values");
  }
  PetscCall(P1GetElementsDevice(p1, &E));
  D.ia = cu->dI;
  D.ja = cu->dJ;
  D.a  = da;
  /* no off-diagonal block for the kernel: on one rank there is none (all columns are local), on
     several it is MatSetValuesCOO's (ia == NULL: SquallP1ScatterElement skips those entries) */
  O.ia = NULL;
  O.ja = NULL;
  O.a  = NULL;
  PetscCheck(ismpi || !p1->oI[n], PETSC_COMM_SELF, PETSC_ERR_PLIB, "A sequential matrix with off-process columns");
  if (search) PetscCallCUDA(cudaMemsetAsync(cu->nbad, 0, sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  /* the gather writes every stored value: no zeroing */
  if (da && !gather) PetscCallCUDA(cudaMemsetAsync(da, 0, (size_t)bs * bs * p1->dI[n] * sizeof(PetscScalar), stream));
  /* without diagonal values (no owned rows) the slots and gather kernels have nothing to write */
  if (gather && p1->ne && da) {
    if (bs == 1)
      P1ElementStoreKernel<1><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->gwork[bs]);
    else
      P1ElementStoreKernel<3><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->gwork[bs]);
  } else if (reduce && p1->ne && da) {
    P1ReduceKernel k = P1ReduceKernelOf((int)bs, rv);

    k<<<P1Blocks(p1->ne), P1_BLOCK, rsmem, stream>>>(E, c, rm->ublk, rm->cblk, rm->slot, rm->row, rm->end, rm->cidx, cu->dI, da, nus, V);
  } else if (slots && p1->ne && da) {
    if (bs == 1)
      P1AssembleSlotsKernel<1><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->slots[bs], da);
    else
      P1AssembleSlotsKernel<3><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->slots[bs], da);
  } else if (search && p1->ne) {
    if (bs == 1)
      P1AssembleKernel<1><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->row, cu->cd, cu->co, D, O, cu->nbad);
    else
      P1AssembleKernel<3><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, cu->row, cu->cd, cu->co, D, O, cu->nbad);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(SquallP1ElementFlops(coef, bs) * p1->ne + (reduce ? (PetscLogDouble)bs * bs * p1->rstats[1] : 0)));
  PetscCall(P1RestoreElementsDevice(p1, &E));
  if (gather && da) {
    const PetscInt nv = p1->dI[n];

    PetscCall(PetscLogEventBegin(SQUALL_P1GatherSum, A, 0, 0, 0));
    PetscCall(PetscLogGpuTimeBegin());
    if (bs == 1)
      P1GatherKernel1<<<P1Blocks(nv), P1_BLOCK, 0, stream>>>(nv, cu->goff, cu->gidx, cu->gwork[bs], da);
    else
      P1GatherKernel3<<<P1Blocks(9 * nv), P1_BLOCK, 0, stream>>>(nv, p1->ne, cu->goff, cu->gidx, cu->gprow, cu->dI, cu->gwork[bs], da);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops((PetscLogDouble)bs * bs * cu->ngather));
    PetscCall(PetscLogEventEnd(SQUALL_P1GatherSum, A, 0, 0, 0));
  }
  /* search: one int back, so the host waits for the kernel; slots, gather and reduce: the maps were
     checked when they were built, so nothing comes back and the host returns at once (PETSc's next
     kernels on the NULL stream are ordered after these; on another stream P1SyncForPETSc() waits) */
  if (search) {
    PetscCallCUDA(cudaMemcpyAsync(&nmiss, cu->nbad, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  } else
    PetscCall(P1SyncForPETSc(stream));
  if (da) PetscCall(MatSeqAIJCUSPARSERestoreArray(Ad, &da));
  /* the diagonal block changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogEventEnd(ev, A, 0, 0, 0));
  PetscCheck(!nmiss, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d element entries fell outside the sparsity graph on the device", nmiss);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1 p1, PetscInt bs, const PetscReal coef[])
{
  const PetscInt   m = 4 * bs;
  SquallP1Elements E;
  SquallP1Coef     c;
  cudaStream_t     stream;

  PetscFunctionBegin;
  PetscCall(P1CoefStruct(coef, &c));
  PetscCall(SquallCUDAGetStream(&stream));
  if (!p1->coov[bs]) PetscCallCUDA(cudaMalloc((void **)&p1->coov[bs], (size_t)m * m * PetscMax(p1->ne, 1) * sizeof(PetscScalar)));
  PetscCall(P1GetElementsDevice(p1, &E));
  PetscCall(PetscLogGpuTimeBegin());
  if (p1->ne) {
    if (bs == 1)
      P1ElementValuesKernel<1><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, p1->ne, NULL, p1->coov[bs]);
    else
      P1ElementValuesKernel<3><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, p1->ne, NULL, p1->coov[bs]);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(SquallP1ElementFlops(coef, bs) * p1->ne));
  PetscCall(P1RestoreElementsDevice(p1, &E));
  PetscCall(P1SyncForPETSc(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1 p1, PetscInt bs, const PetscReal coef[], Vec floc, Vec b, PetscBool coo)
{
  P1CUDA            *cu = (P1CUDA *)p1->cuda;
  const PetscScalar *fd;
  PetscScalar       *bd = NULL, *out = NULL;
  SquallP1Elements   E;
  SquallP1Coef       c;
  cudaStream_t       stream;
  PetscInt           nl, nb;

  PetscFunctionBegin;
  PetscCheck(cu, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The SquallP1 has no device data (backend %s)", SquallP1Backends[p1->backend]);
  /* floc: bs values per local vertex (owned and overlap); b: the owned rows only (an MPI VECCUDA's
     device array is its local part, no ghosts) */
  PetscCall(VecGetLocalSize(floc, &nl));
  PetscCheck(nl == bs * p1->nv, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The local field has size %" PetscInt_FMT ", expected %" PetscInt_FMT, nl, bs * p1->nv);
  if (!coo) {
    PetscCall(VecGetLocalSize(b, &nb));
    PetscCheck(nb == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The right-hand side has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, nb, bs * p1->nowned);
  }
  PetscCall(P1CoefStruct(coef, &c));
  PetscCall(SquallCUDAGetStream(&stream));
  if (coo) {
    if (!p1->coor[bs]) PetscCallCUDA(cudaMalloc((void **)&p1->coor[bs], (size_t)4 * bs * PetscMax(p1->ne, 1) * sizeof(PetscScalar)));
    out = p1->coor[bs];
  } else
    PetscCall(PetscLogEventBegin(SQUALL_P1RHS, b, 0, 0, 0));
  PetscCall(VecCUDAGetArrayRead(floc, &fd));
  PetscCheck(fd || !nl, PETSC_COMM_SELF, PETSC_ERR_GPU, "The local field has no device array");
  if (!coo) {
    PetscCall(VecCUDAGetArrayWrite(b, &bd));
    PetscCheck(bd || !p1->nowned, PETSC_COMM_SELF, PETSC_ERR_GPU, "The right-hand side has no device array");
  }
  PetscCall(P1GetElementsDevice(p1, &E));
  PetscCall(PetscLogGpuTimeBegin());
  if (!coo && p1->nowned) PetscCallCUDA(cudaMemsetAsync(bd, 0, (size_t)bs * p1->nowned * sizeof(PetscScalar), stream));
  if (p1->ne) {
    if (bs == 1)
      P1RHSKernel<1><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, fd, cu->row, bd, out);
    else
      P1RHSKernel<3><<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(E, c, fd, cu->row, bd, out);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((SquallP1ElementFlops(coef, bs) + 32.0 * bs * bs) * p1->ne));
  PetscCall(P1RestoreElementsDevice(p1, &E));
  PetscCall(P1SyncForPETSc(stream));
  if (!coo) PetscCall(VecCUDARestoreArrayWrite(b, &bd));
  PetscCall(VecCUDARestoreArrayRead(floc, &fd));
  if (!coo) PetscCall(PetscLogEventEnd(SQUALL_P1RHS, b, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1 p1, PetscReal scale, Vec L, Vec h, PetscInt *nbad)
{
  P1CUDA      *cu = (P1CUDA *)p1->cuda;
  PetscScalar *Ld, *hd = NULL;
  cudaStream_t stream;
  int          bad = 0;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(SQUALL_P1Metric, 0, 0, 0, 0));
  PetscCall(VecCUDAGetArrayWrite(L, &Ld));
  if (h) PetscCall(VecCUDAGetArrayWrite(h, &hd));
  PetscCallCUDA(cudaMemsetAsync(cu->nbad, 0, sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (p1->ne) P1MetricKernel<<<P1Blocks(p1->ne), P1_BLOCK, 0, stream>>>(p1->ne, cu->tet, cu->x, scale, Ld, hd, cu->nbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(700.0 * p1->ne));
  PetscCallCUDA(cudaMemcpyAsync(&bad, cu->nbad, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(int)));
  *nbad = bad;
  if (h) PetscCall(VecCUDARestoreArrayWrite(h, &hd));
  PetscCall(VecCUDARestoreArrayWrite(L, &Ld));
  PetscCall(PetscLogEventEnd(SQUALL_P1Metric, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- device timers (benchmarks) */

struct _n_SquallP1CUDATimer {
  cudaEvent_t start, stop;
};

PetscErrorCode SquallP1CUDATimerCreate(SquallP1CUDATimer *t)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(t));
  PetscCallCUDA(cudaEventCreate(&(*t)->start));
  PetscCallCUDA(cudaEventCreate(&(*t)->stop));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDATimerStart(SquallP1CUDATimer t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaEventRecord(t->start, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDATimerStop(SquallP1CUDATimer t, PetscLogDouble *ms)
{
  cudaStream_t stream;
  float        f;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaEventRecord(t->stop, stream));
  PetscCallCUDA(cudaEventSynchronize(t->stop));
  PetscCallCUDA(cudaEventElapsedTime(&f, t->start, t->stop));
  *ms = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDATimerDestroy(SquallP1CUDATimer *t)
{
  PetscFunctionBegin;
  if (!t || !*t) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaEventDestroy((*t)->start));
  PetscCallCUDA(cudaEventDestroy((*t)->stop));
  PetscCall(PetscFree(*t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASynchronize(void)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDACopyToHost(PetscScalar *host, const PetscScalar *device, PetscInt n)
{
  cudaStream_t stream = NULL;

  PetscFunctionBegin;
  if (n <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(host, device, (size_t)n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)n * sizeof(PetscScalar)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the atomic probe: update u of the launch adds 1 into value u mod n, 4 u mod n or a hash of u mod n */
__global__ static void __launch_bounds__(P1_BLOCK) P1AtomicProbeKernel(PetscInt n, PetscInt updates, int pattern, PetscScalar *__restrict__ a)
{
  for (PetscInt u = (PetscInt)blockIdx.x * P1_BLOCK + threadIdx.x; u < updates; u += (PetscInt)gridDim.x * P1_BLOCK) {
    const unsigned long long v = (unsigned long long)u;
    const PetscInt i = (PetscInt)(pattern == SQUALL_P1_PROBE_CONSECUTIVE ? v % (unsigned long long)n : pattern == SQUALL_P1_PROBE_SECTORS ? (4 * v + v / (unsigned long long)n) % (unsigned long long)n : (v * 2654435761ull) % (unsigned long long)n);

    atomicAdd(&a[i], (PetscScalar)1);
  }
}

PetscErrorCode SquallP1CUDAAtomicProbe(PetscInt n, PetscInt updates, PetscInt reps, PetscLogDouble rates[])
{
  PetscScalar *a;
  cudaStream_t stream;
  cudaEvent_t  t0, t1;
  PetscReal   *t;
  int          dev, sms;
  unsigned int grid;

  PetscFunctionBegin;
  PetscCheck(n >= 1 && updates >= 1 && reps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The atomic probe needs n, updates and reps >= 1, not %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT, n, updates, reps);
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  grid = (unsigned int)PetscMin((updates + P1_BLOCK - 1) / P1_BLOCK, (PetscInt)16 * sms); /* two waves of the device's resident blocks */
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaMalloc((void **)&a, (size_t)n * sizeof(PetscScalar)));
  PetscCallCUDA(cudaMemsetAsync(a, 0, (size_t)n * sizeof(PetscScalar), stream));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  PetscCall(PetscMalloc1(reps, &t));
  for (int p = 0; p < SQUALL_P1_PROBE_NUM; p++) {
    P1AtomicProbeKernel<<<grid, P1_BLOCK, 0, stream>>>(n, updates, p, a); /* warm-up */
    for (PetscInt r = 0; r < reps; r++) {
      float ms;

      PetscCallCUDA(cudaEventRecord(t0, stream));
      P1AtomicProbeKernel<<<grid, P1_BLOCK, 0, stream>>>(n, updates, p, a);
      PetscCallCUDA(cudaEventRecord(t1, stream));
      PetscCallCUDA(cudaEventSynchronize(t1));
      PetscCallCUDA(cudaEventElapsedTime(&ms, t0, t1));
      t[r] = ms;
    }
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscSortReal(reps, t));
    rates[p] = (PetscLogDouble)updates / (1e-3 * t[reps / 2]);
  }
  PetscCall(PetscFree(t));
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  {
    /* every update landed: the values add up to the number of updates (integers, exact in double; in single while a value
       stays below 2^24, which the check keeps to by its average of 2^20) */
    const PetscLogDouble expect = (PetscLogDouble)updates * (reps + 1) * SQUALL_P1_PROBE_NUM;

    if (PetscDefined(USE_REAL_DOUBLE) || expect / n <= 1048576.0) {
      PetscScalar   *h;
      PetscLogDouble sum = 0;

      PetscCall(PetscMalloc1(n, &h));
      PetscCallCUDA(cudaMemcpy(h, a, (size_t)n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
      for (PetscInt i = 0; i < n; i++) sum += (PetscLogDouble)PetscRealPart(h[i]);
      PetscCall(PetscFree(h));
      PetscCheck(sum == expect, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Atomic probe: the %" PetscInt_FMT " values add up to %.17g, not to the %.17g updates made", n, (double)sum, (double)expect);
    }
  }
  PetscCallCUDA(cudaFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
