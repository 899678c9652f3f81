static char help[] = "Benchmark of P1 tetrahedral assembly on the terrain-following mountain mesh, for a sweep of sizes.\n"
                     "Times (median of repeats; CUDA events for device work, wall clock for the host) the element kernel,\n"
                     "matrix assembly (scalar CSR: mass + advection + nodal full-tensor diffusion; 3x3 blocks: mass +\n"
                     "diffusion + grad-div) and right-hand sides, for squall's atomic kernel on the GPU in both modes (binary\n"
                     "search per entry: gpu_atomic_search; slot map built once: gpu_atomic_slots), the atomic-free gather mode\n"
                     "(element values to scratch, then one thread per stored value: gpu_gather), the in-block reduction (a thread\n"
                     "block of elements sums its contributions per entry in shared memory, one atomicAdd per entry: gpu_reduce,\n"
                     "also with the elements sorted, gpu_reduce_sorted, on the smaller meshes), PETSc's MatSetValuesCOO\n"
                     "with device values, and host MatSetValues on one core (plus squall's CPU reference); the slots kernel\n"
                     "also with the elements coloured or sorted by their smallest vertex (-p1_element_order) on the smaller meshes.\n"
                     "Prints one JSON line per measurement: tets, nodes, nnz, time, bytes counted and effective bandwidth, and\n"
                     "wall_s, the seconds since the start (the set-up of each method is the gap to the previous line); the\n"
                     "first line (method byte_model) states how the bytes are counted, the last (method done) the total time.\n"
                     "The default sweep should take about two minutes on one H200 (the host set-up of the large meshes and\n"
                     "of the COO patterns dominates; the device work is a few seconds): the 10.4 and 21.1 M meshes run the\n"
                     "scalar atomic methods only (search, slots, reduce, right-hand side); budget: 150 s.\n"
                     "  -bench_cells nx,ny,nz,nx,ny,nz,...  hexahedra of each mesh of the sweep (x6 tetrahedra)\n"
                     "                        default 46,46,44 (0.56 M tets) 73,73,70 (2.2 M) 97,97,93 (5.2 M) 122,122,117 (10.4 M) 154,154,148 (21.1 M)\n"
                     "  -bench_max_mtets <m>  stop the sweep after the first mesh with at least m million tetrahedra (default 20)\n"
                     "  -bench_bs3_max_mtets <m>  largest mesh for the 3x3-block matrices and right-hand sides (default 5.5):\n"
                     "                        above it only the scalar methods run\n"
                     "  -bench_repeats <n>    timed repeats on the device (default 20; host: -bench_host_repeats, default 3)\n"
                     "  -bench_host_max_mtets, -bench_coo_max_mtets, -bench_coo3_max_mtets, -bench_order_max_mtets  largest meshes\n"
                     "                        (million tets) for host MatSetValues (0.6), scalar COO (5.5), block COO (0.6) and the\n"
                     "                        coloured and sorted element orders (0.6): their set-up on the host is slow (COO: PETSc's\n"
                     "                        MatSetPreallocationCOO, ~1.5 s per million tets scalar, ~10-15 s for 3x3 blocks at 0.56 M)\n"
                     "  -bench_gather_max_mtets <m>  largest mesh for the gather mode (default 6: not the 10.4 and 21.1 M meshes,\n"
                     "                        whose gather maps, built on the host, would push the sweep past 150 s; 10.4 M on\n"
                     "                        2026-11-30: gather = slots = 1.79 ms)\n"
                     "  -bench_reduce_max_mtets <m>  largest mesh for the reduce mode (default 25: all; its map is built on the host)\n"
                     "  -bench_reduce_variants v,...  reduce-mode GPU kernels timed one after another on the same matrix (default all:\n"
                     "                        affine_shared,affine_xyz,affine,plain,plain_b3,staged,staged_b3,balanced,balanced_b3;\n"
                     "                        -p1_reduce_variant):\n"
                     "                        records gpu_reduce (plain) and gpu_reduce_<variant>, each with maxreldiff vs search, and\n"
                     "                        speedup_reduce_variant lines (over slots, COO, plain); the first is the summary table's reduce\n"
                     "                        column. affine computes the element matrices in closed form (equal up to rounding: maxreldiff\n"
                     "                        ~1e-15, not 0), charged the other variants' bytes (it reads the same data); affine_xyz also\n"
                     "                        rebuilds the geometry from the vertex coordinates: charged 3 coordinates per node instead of\n"
                     "                        10 geometry values per element; affine_shared, which reads its elements' vertex fields from\n"
                     "                        shared memory, 4 uint16 block-local vertices per element and the blocks' vertex lists\n"
                     "                        instead of the connectivity\n"
                     "  -bench_element_order natural|colored|sorted|morton  element order of the main runs (default natural: the mesh's;\n"
                     "                        -p1_element_order); the setup line records it\n"
                     "  -bench_json <file>    write the JSON lines to file (default: stdout); a summary table always ends stdout\n"
                     "  -bench_atomic_probe n,...  first measure atomicAdd updates per second (FP64; FP32 in single builds) into n values (each n), in the\n"
                     "                       patterns consecutive, sectors and scattered (SquallP1CUDAAtomicProbe()), -bench_atomic_updates\n"
                     "                       at a time (default 115e6: the reduce kernel's atomics at 21.1 M tets): the atomic assembly's roofline\n"
                     "  -bench_require_gpu    without a CUDA device end at once with exit code 200 (the test suite's \"skipped\")\n";

#include <squall.h>
#include "cuda/p1cuda.h"
#include "cuda/squallcuda.h"

/* one row of the closing summary: matrix assembly of one mesh and block size (times in ms, < 0: not run) */
typedef struct {
  PetscInt64     tets;
  PetscInt       bs;
  PetscLogDouble search, slots, gather, reduce, coo, host, GBps, rGBps; /* GBps: the slots path, rGBps: the reduce path */
} Row;

#define P1_MAX_ROWS 64
#define P1_PEAK_GBPS 4350.0 /* H200 HBM3e */

typedef struct {
  PetscInt             nt, nv, nnz, nown;
  PetscInt64           tets;
  PetscBool            gpu;
  PetscInt             repeats, hrepeats;
  FILE                *json;  /* the JSON lines (rank 0's stream), flushed after each line: a killed run keeps them */
  PetscLogDouble       start; /* wall clock at the start, for wall_s */
  Row                  rows[P1_MAX_ROWS];
  PetscInt             nrows;
  SquallP1ElementOrder order; /* of the main runs (-bench_element_order) */
} Bench;

static int CmpDouble(const void *a, const void *b)
{
  const PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return x < y ? -1 : x > y;
}

typedef PetscErrorCode (*BenchFn)(void *);

/* median and min of n timed calls (ms), after one untimed warm-up call */
static PetscErrorCode Time(PetscBool device, PetscInt n, BenchFn fn, void *ctx, PetscLogDouble *med, PetscLogDouble *tmin)
{
  PetscLogDouble *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &t));
  PetscCall(fn(ctx));
  if (device) {
    SquallP1CUDATimer timer;

    PetscCall(SquallP1CUDASynchronize());
    PetscCall(SquallP1CUDATimerCreate(&timer));
    for (PetscInt k = 0; k < n; k++) {
      PetscCall(SquallP1CUDATimerStart(timer));
      PetscCall(fn(ctx));
      PetscCall(SquallP1CUDATimerStop(timer, &t[k]));
    }
    PetscCall(SquallP1CUDATimerDestroy(&timer));
  } else {
    for (PetscInt k = 0; k < n; k++) {
      PetscLogDouble t0, t1;

      PetscCall(PetscTime(&t0));
      PetscCall(fn(ctx));
      PetscCall(PetscTime(&t1));
      t[k] = 1e3 * (t1 - t0);
    }
  }
  qsort(t, (size_t)n, sizeof(PetscLogDouble), CmpDouble);
  *med  = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  *tmin = t[0];
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(const Bench *b, const char *method, const char *op, PetscInt bs, PetscInt n, PetscLogDouble med, PetscLogDouble tmin, PetscLogDouble bytes, PetscReal check)
{
  char           extra[64] = "";
  PetscLogDouble now;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  if (check >= 0) PetscCall(PetscSNPrintf(extra, sizeof(extra), ", \"maxreldiff_vs_atomic_search\": %.3e", (double)check));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, b->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"%s\", \"op\": \"%s\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT ", \"nodes\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"repeats\": %" PetscInt_FMT
                         ", \"time_ms\": %.6f, \"time_ms_min\": %.6f, \"bytes\": %.0f, \"GBps\": %.2f%s, \"wall_s\": %.2f}\n",
                         method, op, bs, b->tets, b->nv, (PetscInt64)bs * bs * b->nnz, n, med, tmin, bytes, bytes / (med * 1e-3) / 1e9, extra, now - b->start));
  PetscCall(PetscFFlush(b->json));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  SquallP1         p1;
  Mat              A;
  Vec              f, b;
  const PetscReal *coef;
} Call;

static PetscErrorCode CallGeometry(void *ctx)
{
  return SquallP1ComputeGeometry(((Call *)ctx)->p1);
}

static PetscErrorCode CallAssemble(void *ctx)
{
  Call *c = (Call *)ctx;
  return SquallP1AssembleOperator(c->p1, c->coef, c->A);
}

static PetscErrorCode CallRHS(void *ctx)
{
  Call *c = (Call *)ctx;
  return SquallP1AssembleRHS(c->p1, c->coef, c->f, c->b);
}

static PetscErrorCode TensorFn(const PetscReal x[3], PetscScalar K[], void *ctx)
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) K[3 * i + j] = (i == j ? 100.0 : 10.0 / (1 + i + j)) + 1e-3 * x[2];
  return PETSC_SUCCESS;
}

static PetscErrorCode WindFn(const PetscReal x[3], PetscScalar u[], void *ctx)
{
  u[0] = 10 + 1e-4 * x[2];
  u[1] = -2;
  u[2] = 0.1 * PetscSinReal(1e-4 * x[0]);
  return PETSC_SUCCESS;
}

static PetscErrorCode FieldFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  const PetscInt bs = *(PetscInt *)ctx;
  for (PetscInt i = 0; i < bs; i++) f[i] = 300 + 3e-3 * x[2] + i;
  return PETSC_SUCCESS;
}

static PetscErrorCode SetFields(SquallP1 p1)
{
  Vec u, K;

  PetscFunctionBegin;
  PetscCall(SquallP1CreateVector(p1, 3, &u));
  PetscCall(SquallP1CreateVector(p1, 9, &K));
  PetscCall(SquallP1Interpolate(p1, 3, WindFn, NULL, u));
  PetscCall(SquallP1Interpolate(p1, 9, TensorFn, NULL, K));
  PetscCall(SquallP1SetVelocity(p1, u));
  PetscCall(SquallP1SetDiffusivity(p1, SQUALL_P1_NODE, K));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes counted: the compulsory traffic of one pass, i.e. per element its connectivity and geometry
   (J^{-1}, volume), the nodal fields read once, the CSR structure read once and the values written
   once (scalar graph for bs 3: squall reads it, not the 9x larger AIJ structure); for the element
   kernel connectivity, coordinates and geometry. Atomic read-modify-writes, the zeroing pass and
   cache misses are not counted: the figure is an effective bandwidth. The slots mode reads its slot
   map (16 or 20 int32 per element) instead of the CSR structure. The gather mode reads no slots but writes
   and reads back its scratch (16 bs^2 scalars per element) and reads the gather map (bs 1: nnz+1 int32
   offsets and 16 int32 contributions per element; bs 3 also one int32 row per block and the scalar row
   pointers; the nine threads of a block share their list, counted once) and one scalar per contribution
   and component, with the values written once. The reduce mode reads, besides the element data, its map:
   per thread block 2 int32 (first entry, first contribution), per unique entry of a block one int32 slot
   and one uint16 end (bs 3: + one int32 row, and the scalar row pointers once), per contribution one uint16
   (16 per element), and writes the values once (its atomics and shared-memory traffic not counted); its affine_xyz
   kernel reads the vertex coordinates (3 per node, gathered through the connectivity like the nodal fields) instead
   of the geometry. BYTE_MODEL is the same in words, for the JSON. */
#define BYTE_MODEL                                                                                                                                                                                                                                      \
  "per element: 4 PetscInt connectivity + 10 PetscReal geometry (J^-1, volume); per node: the nodal fields once (matrix bs 1: rho absent, u 3 + K 9 = 12 scalars; bs 3: K 9; rhs: the same + f bs); matrix, search mode: scalar CSR row pointers and "  \
  "columns once (PetscInt) + bs*bs*nnz values written once; matrix, slots mode: 16 (bs 1) or 20 (bs 3) int32 slots per element instead of the CSR structure + the same values; gather mode: no slots, + 16*bs*bs scalars per element written and read " \
  "back (scratch) + nnz+1 int32 offsets + 16 int32 contributions per element (bs 3: + nnz int32 rows + scalar row pointers) + the same values; COO and host paths are charged the search-mode bytes; rhs: + bs scalars "                                \
  "per owned row written once; reduce mode: no slots, + per thread block 2 int32 + per unique (block, entry) pair an int32 slot and a uint16 end (bs 3: + an int32 row + scalar row pointers) + a uint16 per contribution (element entry of an owned "  \
  "row) + the same values; reduce variant affine_xyz: 3 PetscReal coordinates per node instead of the per-element geometry (it rebuilds J^-1 and the volume from them); affine_shared: as affine_xyz with 4 uint16 block-local vertices per element "   \
  "+ per block its vertex list (int32 per vertex) and offset instead of the connectivity; element kernel: connectivity + 3 PetscReal coordinates per node + "                                                                                           \
  "geometry written once. Not counted: atomic read-modify-write traffic, the zeroing memset, cache misses; GBps = bytes / median time"
static PetscLogDouble BytesGeometry(const Bench *b)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + SQUALL_P1_NGEOM * sizeof(PetscReal)) + 3.0 * b->nv * sizeof(PetscReal);
}

static PetscLogDouble BytesMatrix(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + SQUALL_P1_NGEOM * sizeof(PetscReal)) + (PetscLogDouble)nodal * b->nv * sizeof(PetscScalar) + (b->nown + 1.0 + b->nnz) * sizeof(PetscInt) +
         (PetscLogDouble)bs * bs * b->nnz * sizeof(PetscScalar);
}

static PetscLogDouble BytesMatrixSlots(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + SQUALL_P1_NGEOM * sizeof(PetscReal) + SquallP1NumSlots((int)bs, 0) * sizeof(int)) + (PetscLogDouble)nodal * b->nv * sizeof(PetscScalar) + (PetscLogDouble)bs * bs * b->nnz * sizeof(PetscScalar);
}

static PetscLogDouble BytesMatrixGather(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + SQUALL_P1_NGEOM * sizeof(PetscReal) + 2.0 * 16 * bs * bs * sizeof(PetscScalar) + 16 * sizeof(int)) + (PetscLogDouble)nodal * b->nv * sizeof(PetscScalar) + (b->nnz + 1.0) * sizeof(int) +
         (bs == 3 ? b->nnz * sizeof(int) + (b->nown + 1.0) * sizeof(PetscInt) : 0) + (PetscLogDouble)bs * bs * b->nnz * sizeof(PetscScalar);
}

/* p1: the SquallP1 whose reduce map was built last (its sizes, p1->rstats); v: the GPU kernel, whose element data are
   the connectivity and the geometry (J^-1, volume) per element, or for affine_xyz, which rebuilds the geometry from
   the vertex coordinates, the connectivity and 3 coordinates per node (the CPU reference reads the geometry); for
   affine_shared, the block-local connectivity and the blocks' vertex lists instead of the connectivity */
static PetscLogDouble BytesMatrixReduce(const Bench *b, SquallP1 p1, PetscInt bs, PetscInt nodal, SquallP1ReduceVariant v)
{
  const PetscLogDouble nu = (PetscLogDouble)p1->rstats[0], ncon = (PetscLogDouble)p1->rstats[1], nblocks = (PetscLogDouble)p1->rstats[3];
  const PetscBool      xyz = b->gpu && (v == SQUALL_P1_REDUCE_AFFINE_XYZ || v == SQUALL_P1_REDUCE_AFFINE_SHARED) ? PETSC_TRUE : PETSC_FALSE, shared = b->gpu && v == SQUALL_P1_REDUCE_AFFINE_SHARED ? PETSC_TRUE : PETSC_FALSE;
  const PetscLogDouble geom = xyz ? 3.0 * b->nv * sizeof(PetscReal) : (PetscLogDouble)b->nt * SQUALL_P1_NGEOM * sizeof(PetscReal);
  /* affine_shared: 4 uint16 block-local vertices per element, and per block its vertex list (int32) and offset */
  const PetscLogDouble conn = shared ? (PetscLogDouble)b->nt * 4 * sizeof(uint16_t) + ((PetscLogDouble)p1->rstats[4] + nblocks + 1) * sizeof(int) : (PetscLogDouble)b->nt * 4 * sizeof(PetscInt);

  return conn + geom + (PetscLogDouble)nodal * b->nv * sizeof(PetscScalar) + 2 * (nblocks + 1) * sizeof(int) + nu * (sizeof(int) + sizeof(uint16_t)) + ncon * sizeof(uint16_t) + (bs == 3 ? nu * sizeof(int) + (b->nown + 1.0) * sizeof(PetscInt) : 0) +
         (PetscLogDouble)bs * bs * b->nnz * sizeof(PetscScalar);
}

static PetscLogDouble BytesRHS(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + SQUALL_P1_NGEOM * sizeof(PetscReal)) + (PetscLogDouble)(nodal + bs) * b->nv * sizeof(PetscScalar) + (PetscLogDouble)bs * b->nown * sizeof(PetscScalar);
}

/* the largest meshes (million tetrahedra) of the methods whose set-up is slow or memory-hungry */
typedef struct {
  PetscReal             host, coo, coo3, order, bs3, gather, reduce;
  SquallP1ReduceVariant rv[SQUALL_P1_REDUCE_NUM_VARIANTS]; /* the reduce kernels timed (-bench_reduce_variants), rv[0] the summary's */
  PetscInt              nrv;
} Limits;

/* the method name of a reduce-mode record: gpu_reduce for the default (plain) kernel, as before, else
   gpu_reduce_<variant>; suffix: the element order where not the mesh's */
static PetscErrorCode ReduceName(const Bench *B, SquallP1ReduceVariant v, const char *suffix, char *name, size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, len, "%s%s%s%s%s", B->gpu ? "gpu_reduce" : "cpu_reference_reduce", B->gpu && v != SQUALL_P1_REDUCE_PLAIN ? "_" : "", B->gpu && v != SQUALL_P1_REDUCE_PLAIN ? SquallP1ReduceVariants[v] : "", suffix ? "_" : "",
                          suffix ? suffix : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a fresh bs matrix assembled through the atomic mode (its one-time map built in the untimed warm-up
   call) and timed, compared with Aref and reported under name; *t: the median time */
static PetscErrorCode TimeAtomicMode(Bench *B, Call *c, SquallP1 p1, PetscInt bs, SquallP1AtomicMode mode, const char *name, PetscLogDouble bytes, Mat Aref, PetscLogDouble *t)
{
  Mat            A;
  PetscLogDouble med, tmin;
  PetscReal      diff;

  PetscFunctionBegin;
  PetscCall(SquallP1SetAtomicMode(p1, mode));
  PetscCall(SquallP1CreateMatrix(p1, bs, &A));
  c->A = A;
  PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, c, &med, &tmin));
  PetscCall(SquallP1MatCompare(Aref, A, &diff));
  PetscCall(Report(B, name, "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, bytes, diff));
  PetscCall(MatDestroy(&A));
  c->A = NULL;
  *t   = med;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSize(Bench *B, const PetscInt cells[3], const Limits *L)
{
  const PetscReal  c1[SQUALL_P1_NUM_TERMS] = {1, 60, 60, 0}, c3[SQUALL_P1_NUM_TERMS] = {1, 0, 600, 600}, cr[SQUALL_P1_NUM_TERMS] = {1, -30, -30, 0};
  SquallP1Mountain m;
  DM               dm;
  SquallP1         pg = NULL, ph = NULL;
  PetscLogDouble   t0, t1, t2, med, tmin, tsearch[2] = {0, 0}, tslots[2] = {0, 0}, tgather[2] = {0, 0}, treduce[2] = {0, 0}, trv[SQUALL_P1_REDUCE_NUM_VARIANTS];
  const PetscReal  hostmax = L->host, coomax = L->coo, coo3max = L->coo3, ordermax = L->order;
  PetscInt         bsmax;
  Call             c;
  PetscInt         bsf;
  PetscInt64       nnz;
  Row             *row[2] = {NULL, NULL};

  PetscFunctionBegin;
  PetscCall(SquallP1MountainSetFromOptions(PETSC_COMM_WORLD, &m));
  for (PetscInt d = 0; d < 3; d++) m.cells[d] = cells[d];
  PetscCall(PetscTime(&t0));
  PetscCall(SquallP1MountainCreateMesh(PETSC_COMM_WORLD, &m, &dm));
  PetscCall(PetscTime(&t1));
  PetscCall(SquallP1Create(dm, &pg));
  PetscCall(SquallP1SetBackend(pg, B->gpu ? SQUALL_P1_CUDA : SQUALL_P1_HOST));
  PetscCall(SquallP1SetElementOrder(pg, B->order));
  PetscCall(SquallP1SetUp(pg));
  PetscCall(PetscTime(&t2));
  PetscCall(SquallP1GetSizes(pg, &B->nown, &B->nv, &B->nt, NULL));
  PetscCall(SquallP1GetNonzeros(pg, &B->nnz, &nnz));
  B->tets = B->nt;
  /* 3x3 blocks only up to L->bs3: their AIJ set-up on the host (9x the scalar nonzeros, per matrix) is slow */
  bsmax = B->tets <= L->bs3 * 1e6 ? 3 : 1;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"setup\", \"cells\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "], \"tets\": %" PetscInt64_FMT ", \"nodes\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT
                         ", \"backend\": \"%s\", \"element_order\": \"%s\", \"mesh_s\": %.2f, \"setup_s\": %.2f, \"wall_s\": %.2f}\n",
                         cells[0], cells[1], cells[2], B->tets, B->nv, nnz, B->gpu ? "cuda" : "host", SquallP1ElementOrders[B->order], t1 - t0, t2 - t1, t2 - B->start));
  PetscCall(PetscFFlush(B->json));
  PetscCall(SetFields(pg));
  c.p1 = pg;

  /* element kernel */
  PetscCall(Time(B->gpu, B->repeats, CallGeometry, &c, &med, &tmin));
  PetscCall(Report(B, B->gpu ? "gpu_element_kernel" : "cpu_reference", "element_kernel", 1, B->repeats, med, tmin, BytesGeometry(B), -1));

  for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
    Mat       Aa, Ac = NULL;
    PetscReal diff;

    Mat As;

    c.coef = bs == 1 ? c1 : c3;
    /* squall's atomic kernel (on the host: the CPU reference, one core), binary search per entry */
    PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_ATOMIC));
    PetscCall(SquallP1SetAtomicMode(pg, SQUALL_P1_ATOMIC_SEARCH));
    PetscCall(SquallP1CreateMatrix(pg, bs, &Aa));
    c.A = Aa;
    PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, &c, &med, &tmin));
    tsearch[bs == 3] = med;
    PetscCall(Report(B, B->gpu ? "gpu_atomic_search" : "cpu_reference_search", "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesMatrix(B, bs, bs == 1 ? 12 : 9), -1));
    /* the same through the slot map (its one-time build happens in the untimed warm-up call) */
    PetscCall(TimeAtomicMode(B, &c, pg, bs, SQUALL_P1_ATOMIC_SLOTS, B->gpu ? "gpu_atomic_slots" : "cpu_reference_slots", BytesMatrixSlots(B, bs, bs == 1 ? 12 : 9), Aa, &tslots[bs == 3]));
    /* the atomic-free gather mode (its map and scratch are built in the untimed warm-up call) */
    tgather[bs == 3] = -1;
    if (B->tets <= L->gather * 1e6) {
      PetscCall(TimeAtomicMode(B, &c, pg, bs, SQUALL_P1_ATOMIC_GATHER, B->gpu ? "gpu_gather" : "cpu_reference_gather", BytesMatrixGather(B, bs, bs == 1 ? 12 : 9), Aa, &tgather[bs == 3]));
      PetscCall(SquallP1SetAtomicMode(pg, SQUALL_P1_ATOMIC_SLOTS));
    } /* else the gather speed-ups below are reported as 0 */
    /* the in-block reduction (its map is built in the untimed warm-up call of the first kernel), each kernel
       variant of -bench_reduce_variants (one on the host: the CPU reference has no variants); treduce: the
       first variant's time (the summary table's), trv[] each one's */
    treduce[bs == 3] = -1;
    for (PetscInt k = 0; k < L->nrv; k++) trv[k] = -1;
    if (B->tets <= L->reduce * 1e6) {
      PetscCall(SquallP1SetAtomicMode(pg, SQUALL_P1_ATOMIC_REDUCE));
      PetscCall(SquallP1CreateMatrix(pg, bs, &As));
      c.A = As;
      for (PetscInt k = 0; k < (B->gpu ? L->nrv : 1); k++) {
        char rname[64];

        PetscCall(SquallP1SetReduceVariant(pg, L->rv[k]));
        PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, &c, &med, &tmin));
        trv[k] = med;
        if (!k) treduce[bs == 3] = med;
        PetscCall(SquallP1MatCompare(Aa, As, &diff));
        PetscCall(ReduceName(B, L->rv[k], NULL, rname, sizeof(rname)));
        PetscCall(Report(B, rname, "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesMatrixReduce(B, pg, bs, bs == 1 ? 12 : 9, L->rv[k]), diff));
      }
      PetscCall(SquallP1SetReduceVariant(pg, SQUALL_P1_REDUCE_PLAIN));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                             "{\"bench\": \"p1_assembly\", \"method\": \"reduce_map\", \"tets\": %" PetscInt64_FMT ", \"blocks\": %" PetscInt64_FMT ", \"contributions\": %" PetscInt64_FMT ", \"block_entries\": %" PetscInt64_FMT
                             ", \"contributions_per_atomic\": %.2f, \"single_block_entries\": %" PetscInt64_FMT "}\n",
                             B->tets, pg->rstats[3], pg->rstats[1], pg->rstats[0], pg->rstats[0] ? (double)pg->rstats[1] / (double)pg->rstats[0] : 0.0, pg->rstats[2]));
      PetscCall(MatDestroy(&As));
      PetscCall(SquallP1SetAtomicMode(pg, SQUALL_P1_ATOMIC_SLOTS));
    }
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                           "{\"bench\": \"p1_assembly\", \"method\": \"speedup\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT
                           ", \"slots_over_search\": %.2f, \"gather_over_slots\": %.2f, \"reduce_over_slots\": %.2f, \"reduce_over_search\": %.2f}\n",
                           bs, B->tets, tsearch[bs == 3] / tslots[bs == 3], tgather[bs == 3] > 0 ? tslots[bs == 3] / tgather[bs == 3] : 0.0, treduce[bs == 3] > 0 ? tslots[bs == 3] / treduce[bs == 3] : 0.0,
                           treduce[bs == 3] > 0 ? tsearch[bs == 3] / treduce[bs == 3] : 0.0));
    PetscCall(PetscFFlush(B->json));
    if (B->nrows < P1_MAX_ROWS) {
      row[bs == 3]         = &B->rows[B->nrows++];
      row[bs == 3]->tets   = B->tets;
      row[bs == 3]->bs     = bs;
      row[bs == 3]->search = tsearch[bs == 3];
      row[bs == 3]->slots  = tslots[bs == 3];
      row[bs == 3]->gather = tgather[bs == 3];
      row[bs == 3]->reduce = treduce[bs == 3];
      row[bs == 3]->rGBps  = treduce[bs == 3] > 0 ? BytesMatrixReduce(B, pg, bs, bs == 1 ? 12 : 9, L->rv[0]) / (treduce[bs == 3] * 1e-3) / 1e9 : -1;
      row[bs == 3]->GBps   = BytesMatrixSlots(B, bs, bs == 1 ? 12 : 9) / (tslots[bs == 3] * 1e-3) / 1e9;
      row[bs == 3]->coo = row[bs == 3]->host = -1;
    }
    /* PETSc's COO assembly with the element values computed in the backend's memory */
    if (B->tets <= (bs == 1 ? coomax : coo3max) * 1e6) {
      PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_COO));
      PetscCall(SquallP1CreateMatrix(pg, bs, &Ac));
      c.A = Ac;
      PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, &c, &med, &tmin));
      PetscCall(SquallP1MatCompare(Aa, Ac, &diff));
      if (row[bs == 3]) row[bs == 3]->coo = med;
      PetscCall(Report(B, B->gpu ? "gpu_coo" : "cpu_coo", "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesMatrix(B, bs, bs == 1 ? 12 : 9), diff));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                             "{\"bench\": \"p1_assembly\", \"method\": \"speedup\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT
                             ", \"search_over_coo\": %.2f, \"slots_over_coo\": %.2f, \"gather_over_coo\": %.2f, \"reduce_over_coo\": %.2f}\n",
                             bs, B->tets, med / tsearch[bs == 3], med / tslots[bs == 3], tgather[bs == 3] > 0 ? med / tgather[bs == 3] : 0.0, treduce[bs == 3] > 0 ? med / treduce[bs == 3] : 0.0));
      PetscCall(PetscFFlush(B->json));
      PetscCall(MatDestroy(&Ac));
    }
    /* each reduce kernel against slots, COO (when timed; else 0) and the plain kernel (when timed; else 0) */
    for (PetscInt k = 0; B->gpu && k < L->nrv && trv[k] > 0; k++) {
      PetscLogDouble tplain = 0;

      for (PetscInt l = 0; l < L->nrv; l++)
        if (L->rv[l] == SQUALL_P1_REDUCE_PLAIN) tplain = trv[l];
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                             "{\"bench\": \"p1_assembly\", \"method\": \"speedup_reduce_variant\", \"variant\": \"%s\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT
                             ", \"time_ms\": %.6f, \"over_slots\": %.2f, \"over_coo\": %.2f, \"over_plain\": %.2f}\n",
                             SquallP1ReduceVariants[L->rv[k]], bs, B->tets, trv[k], tslots[bs == 3] / trv[k], row[bs == 3] && row[bs == 3]->coo > 0 ? row[bs == 3]->coo / trv[k] : 0.0, tplain > 0 ? tplain / trv[k] : 0.0));
    }
    PetscCall(PetscFFlush(B->json));
    /* right-hand sides (element-wise operator applied to a nodal field) */
    bsf = bs;
    PetscCall(SquallP1CreateVector(pg, bs, &c.f));
    PetscCall(SquallP1Interpolate(pg, bs, FieldFn, &bsf, c.f));
    PetscCall(VecDuplicate(c.f, &c.b));
    c.coef = bs == 1 ? cr : c3;
    PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_ATOMIC));
    PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallRHS, &c, &med, &tmin));
    PetscCall(Report(B, B->gpu ? "gpu_atomic" : "cpu_reference", "rhs", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesRHS(B, bs, bs == 1 ? 12 : 9), -1));
    if (B->tets <= coomax * 1e6) {
      Vec b2;

      PetscCall(VecDuplicate(c.b, &b2));
      PetscCall(VecCopy(c.b, b2));
      PetscCall(SquallP1SetAssemblyType(pg, SQUALL_P1_ASSEMBLY_COO));
      PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallRHS, &c, &med, &tmin));
      PetscCall(SquallP1VecCompare(b2, c.b, &diff));
      PetscCall(Report(B, B->gpu ? "gpu_coo" : "cpu_coo", "rhs", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesRHS(B, bs, bs == 1 ? 12 : 9), diff));
      PetscCall(VecDestroy(&b2));
    }
    PetscCall(VecDestroy(&c.f));
    PetscCall(VecDestroy(&c.b));
    PetscCall(MatDestroy(&Aa));
  }

  /* the slots kernel with the elements coloured (no two threads of a warp add into one entry) and sorted
     by their smallest vertex (a warp's atomics into neighbouring rows) */
  for (PetscInt o = 0; o < 2 && B->tets <= ordermax * 1e6; o++) {
    const SquallP1ElementOrder order = o ? SQUALL_P1_ORDER_SORTED : SQUALL_P1_ORDER_COLORED;
    SquallP1                   pc;
    char                       name[64];

    PetscCall(SquallP1Create(dm, &pc));
    PetscCall(SquallP1SetBackend(pc, B->gpu ? SQUALL_P1_CUDA : SQUALL_P1_HOST));
    PetscCall(SquallP1SetElementOrder(pc, order));
    PetscCall(SquallP1SetUp(pc));
    PetscCall(SquallP1SetAtomicMode(pc, SQUALL_P1_ATOMIC_SLOTS));
    PetscCall(SetFields(pc));
    c.p1 = pc;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_slots_%s", B->gpu ? "gpu_atomic" : "cpu_reference", SquallP1ElementOrders[order]));
    for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
      c.coef = bs == 1 ? c1 : c3;
      PetscCall(SquallP1CreateMatrix(pc, bs, &c.A));
      PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, &c, &med, &tmin));
      PetscCall(Report(B, name, "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesMatrixSlots(B, bs, bs == 1 ? 12 : 9), -1));
      PetscCall(MatDestroy(&c.A));
      /* the reduce mode profits most from compact blocks of elements */
      if (order == SQUALL_P1_ORDER_SORTED && B->tets <= L->reduce * 1e6) {
        char rname[64];

        PetscCall(SquallP1SetAtomicMode(pc, SQUALL_P1_ATOMIC_REDUCE));
        PetscCall(SquallP1CreateMatrix(pc, bs, &c.A));
        for (PetscInt k = 0; k < (B->gpu ? L->nrv : 1); k++) {
          PetscCall(SquallP1SetReduceVariant(pc, L->rv[k]));
          PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallAssemble, &c, &med, &tmin));
          PetscCall(ReduceName(B, L->rv[k], SquallP1ElementOrders[order], rname, sizeof(rname)));
          PetscCall(Report(B, rname, "matrix", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesMatrixReduce(B, pc, bs, bs == 1 ? 12 : 9, L->rv[k]), -1));
        }
        PetscCall(SquallP1SetReduceVariant(pc, SQUALL_P1_REDUCE_PLAIN));
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                               "{\"bench\": \"p1_assembly\", \"method\": \"reduce_map_%s\", \"tets\": %" PetscInt64_FMT ", \"blocks\": %" PetscInt64_FMT ", \"contributions\": %" PetscInt64_FMT ", \"block_entries\": %" PetscInt64_FMT
                               ", \"contributions_per_atomic\": %.2f, \"single_block_entries\": %" PetscInt64_FMT "}\n",
                               SquallP1ElementOrders[order], B->tets, pc->rstats[3], pc->rstats[1], pc->rstats[0], pc->rstats[0] ? (double)pc->rstats[1] / (double)pc->rstats[0] : 0.0, pc->rstats[2]));
        PetscCall(MatDestroy(&c.A));
        PetscCall(SquallP1SetAtomicMode(pc, SQUALL_P1_ATOMIC_SLOTS));
      }
      bsf = bs;
      PetscCall(SquallP1CreateVector(pc, bs, &c.f));
      PetscCall(SquallP1Interpolate(pc, bs, FieldFn, &bsf, c.f));
      PetscCall(VecDuplicate(c.f, &c.b));
      c.coef = bs == 1 ? cr : c3;
      PetscCall(Time(B->gpu, B->gpu ? B->repeats : B->hrepeats, CallRHS, &c, &med, &tmin));
      PetscCall(Report(B, name, "rhs", bs, B->gpu ? B->repeats : B->hrepeats, med, tmin, BytesRHS(B, bs, bs == 1 ? 12 : 9), -1));
      PetscCall(VecDestroy(&c.f));
      PetscCall(VecDestroy(&c.b));
    }
    PetscCall(SquallP1Destroy(&pc));
  }

  /* host MatSetValues, element by element on one core */
  if (B->tets <= hostmax * 1e6) {
    PetscCall(SquallP1Create(dm, &ph));
    PetscCall(SquallP1SetBackend(ph, SQUALL_P1_HOST));
    PetscCall(SquallP1SetUp(ph));
    PetscCall(SetFields(ph));
    PetscCall(SquallP1SetAssemblyType(ph, SQUALL_P1_ASSEMBLY_SETVALUES));
    c.p1 = ph;
    for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
      c.coef = bs == 1 ? c1 : c3;
      PetscCall(SquallP1CreateMatrix(ph, bs, &c.A));
      PetscCall(Time(PETSC_FALSE, B->hrepeats, CallAssemble, &c, &med, &tmin));
      PetscCall(Report(B, "host_setvalues", "matrix", bs, B->hrepeats, med, tmin, BytesMatrix(B, bs, bs == 1 ? 12 : 9), -1));
      if (row[bs == 3]) row[bs == 3]->host = med;
      if (B->gpu)
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                               "{\"bench\": \"p1_assembly\", \"method\": \"speedup\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT ", \"search_over_host_setvalues\": %.1f, \"slots_over_host_setvalues\": %.1f}\n", bs,
                               B->tets, med / tsearch[bs == 3], med / tslots[bs == 3]));
      PetscCall(PetscFFlush(B->json));
      PetscCall(MatDestroy(&c.A));
      bsf = bs;
      PetscCall(SquallP1CreateVector(ph, bs, &c.f));
      PetscCall(SquallP1Interpolate(ph, bs, FieldFn, &bsf, c.f));
      PetscCall(VecDuplicate(c.f, &c.b));
      c.coef = bs == 1 ? cr : c3;
      PetscCall(Time(PETSC_FALSE, B->hrepeats, CallRHS, &c, &med, &tmin));
      PetscCall(Report(B, "host_setvalues", "rhs", bs, B->hrepeats, med, tmin, BytesRHS(B, bs, bs == 1 ? 12 : 9), -1));
      PetscCall(VecDestroy(&c.f));
      PetscCall(VecDestroy(&c.b));
    }
    PetscCall(SquallP1Destroy(&ph));
  }
  PetscCall(SquallP1Destroy(&pg));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the closing table on stdout, so that a run's tail shows the key numbers */
static PetscErrorCode Summary(const Bench *B)
{
  char col[8][16];

  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nP1 matrix assembly (%s; median ms; GB/s: effective bandwidth of the slots and reduce paths, %% of %.2f TB/s; speed-ups of slots, and of reduce over COO)\n", B->gpu ? "GPU" : "no GPU: CPU reference",
                        P1_PEAK_GBPS / 1e3));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%12s %3s %10s %10s %10s %10s %10s %10s %9s %9s %9s %9s %8s %7s %8s %7s\n", "tets", "bs", "search_ms", "slots_ms", "gather_ms", "reduce_ms", "coo_ms", "host_ms", "vs_search", "vs_coo", "vs_host",
                        "red_vs_coo", "GB/s", "%peak", "redGB/s", "%peak"));
  for (PetscInt k = 0; k < B->nrows; k++) {
    const Row *r = &B->rows[k];

    PetscCall(PetscSNPrintf(col[0], sizeof(col[0]), r->coo >= 0 ? "%.3f" : "-", r->coo));
    PetscCall(PetscSNPrintf(col[1], sizeof(col[1]), r->host >= 0 ? "%.1f" : "-", r->host));
    PetscCall(PetscSNPrintf(col[2], sizeof(col[2]), r->coo >= 0 ? "%.2fx" : "-", r->coo / r->slots));
    PetscCall(PetscSNPrintf(col[3], sizeof(col[3]), r->host >= 0 ? "%.0fx" : "-", r->host / r->slots));
    PetscCall(PetscSNPrintf(col[4], sizeof(col[4]), r->gather >= 0 ? "%.3f" : "-", r->gather));
    PetscCall(PetscSNPrintf(col[5], sizeof(col[5]), r->reduce >= 0 ? "%.3f" : "-", r->reduce));
    PetscCall(PetscSNPrintf(col[6], sizeof(col[6]), r->reduce > 0 && r->coo >= 0 ? "%.2fx" : "-", r->coo / r->reduce));
    PetscCall(PetscSNPrintf(col[7], sizeof(col[7]), r->reduce > 0 ? "%.1f %6.1f%%" : "-", r->rGBps, 100 * r->rGBps / P1_PEAK_GBPS));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%12" PetscInt64_FMT " %3" PetscInt_FMT " %10.3f %10.3f %10s %10s %10s %10s %8.2fx %9s %9s %10s %8.1f %6.1f%% %16s\n", r->tets, r->bs, r->search, r->slots, col[4], col[5], col[0], col[1],
                          r->search / r->slots, col[2], col[3], col[6], r->GBps, 100 * r->GBps / P1_PEAK_GBPS, col[7]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       cells[30] = {46, 46, 44, 73, 73, 70, 97, 97, 93, 122, 122, 117, 154, 154, 148}, n = 30;
  PetscReal      maxm = 20;
  Limits         L    = {0.6, 5.5, 0.6, 0.6, 5.5, 6, 25, {SQUALL_P1_REDUCE_PLAIN}, SQUALL_P1_REDUCE_NUM_VARIANTS}; /* host, coo, coo3, order, bs3, gather, reduce; variants */
  PetscLogDouble end;
  PetscInt       ndev = 0, probe[8], nprobe = 8;
  PetscReal      pupdates = 115e6;
  PetscMPIInt    size;
  PetscBool      flg, hasjson, requiregpu = PETSC_FALSE;
  Bench          B;
  char           json[PETSC_MAX_PATH_LEN] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on one rank (one GPU, or one core for the host paths)");
  PetscCall(PetscMemzero(&B, sizeof(B)));
  PetscCall(PetscTime(&B.start));
  B.repeats  = 20;
  B.hrepeats = 3;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "P1 assembly benchmark", NULL);
  PetscCall(PetscOptionsIntArray("-bench_cells", "Hexahedra nx,ny,nz of each mesh of the sweep", NULL, cells, &n, &flg));
  PetscCall(PetscOptionsReal("-bench_max_mtets", "Stop after the first mesh with at least this many million tetrahedra", NULL, maxm, &maxm, NULL));
  PetscCall(PetscOptionsInt("-bench_repeats", "Timed repeats on the device", NULL, B.repeats, &B.repeats, NULL));
  PetscCall(PetscOptionsInt("-bench_host_repeats", "Timed repeats on the host", NULL, B.hrepeats, &B.hrepeats, NULL));
  PetscCall(PetscOptionsReal("-bench_bs3_max_mtets", "Largest mesh (million tets) for the 3x3-block matrices and right-hand sides", NULL, L.bs3, &L.bs3, NULL));
  PetscCall(PetscOptionsReal("-bench_host_max_mtets", "Largest mesh (million tets) for host MatSetValues", NULL, L.host, &L.host, NULL));
  PetscCall(PetscOptionsReal("-bench_coo_max_mtets", "Largest mesh (million tets) for the scalar COO path", NULL, L.coo, &L.coo, NULL));
  PetscCall(PetscOptionsReal("-bench_coo3_max_mtets", "Largest mesh (million tets) for the block COO path", NULL, L.coo3, &L.coo3, NULL));
  PetscCall(PetscOptionsReal("-bench_gather_max_mtets", "Largest mesh (million tets) for the gather mode", NULL, L.gather, &L.gather, NULL));
  PetscCall(PetscOptionsReal("-bench_reduce_max_mtets", "Largest mesh (million tets) for the reduce mode", NULL, L.reduce, &L.reduce, NULL));
  /* the default order: the library's default kernel (affine_shared) first, as the summary's reduce column, then affine_xyz,
     affine, then the rest */
  L.rv[0] = SQUALL_P1_REDUCE_AFFINE_SHARED;
  L.rv[1] = SQUALL_P1_REDUCE_AFFINE_XYZ;
  L.rv[2] = SQUALL_P1_REDUCE_AFFINE;
  for (PetscInt k = 0; k < SQUALL_P1_REDUCE_AFFINE; k++) L.rv[k + 3] = (SquallP1ReduceVariant)k;
  {
    PetscBool set;
    /* an absent option sets the count to 0: then time them all */
    PetscCall(PetscOptionsEnumArray("-bench_reduce_variants", "Reduce-mode GPU kernels to time, the first for the summary", NULL, SquallP1ReduceVariants, (PetscEnum *)L.rv, &L.nrv, &set));
    if (!set) L.nrv = SQUALL_P1_REDUCE_NUM_VARIANTS;
  }
  PetscCall(PetscOptionsReal("-bench_order_max_mtets", "Largest mesh (million tets) for the coloured and sorted element orders", NULL, L.order, &L.order, NULL));
  PetscCall(PetscOptionsEnum("-bench_element_order", "Element order of the main runs (the coloured and sorted comparisons set their own)", NULL, SquallP1ElementOrders, (PetscEnum)B.order, (PetscEnum *)&B.order, NULL));
  PetscCall(PetscOptionsString("-bench_json", "File for the JSON lines (default: stdout)", NULL, json, json, sizeof(json), &hasjson));
  PetscCall(PetscOptionsIntArray("-bench_atomic_probe", "Values n of the atomicAdd probe (each n in turn)", NULL, probe, &nprobe, &flg));
  if (!flg) nprobe = 0;
  PetscCall(PetscOptionsReal("-bench_atomic_updates", "Updates per launch of the atomic probe", NULL, pupdates, &pupdates, NULL));
  PetscCall(PetscOptionsBool("-bench_require_gpu", "Without a CUDA device end at once with exit code 200 (skipped)", NULL, requiregpu, &requiregpu, NULL));
  PetscCheck(pupdates >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_atomic_updates %g is out of range: must be at least 1", (double)pupdates);
  for (PetscInt k = 0; k < nprobe; k++) PetscCheck(probe[k] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_atomic_probe: %" PetscInt_FMT " values, must be at least 1", probe[k]);
  PetscOptionsEnd();
  B.json = PETSC_STDOUT;
  if (hasjson && json[0]) PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "w", &B.json));
  if (!flg) n = 15;
  PetscCheck(n % 3 == 0 && n > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-bench_cells needs triples nx,ny,nz; got %" PetscInt_FMT " values", n);
  PetscCheck(B.repeats >= 1 && B.hrepeats >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_repeats and -bench_host_repeats must be >= 1");
  if (SquallHaveCUDA()) PetscCall(SquallCUDADeviceCount(&ndev));
  B.gpu = ndev > 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!B.gpu && requiregpu) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no GPU: skipped (-bench_require_gpu)\n"));
    PetscCall(PetscFinalize());
    return 200;
  }
  if (!B.gpu) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "# no GPU: squall's CPU reference and PETSc's COO on the host instead of the GPU paths\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "{\"bench\": \"p1_assembly\", \"method\": \"byte_model\", \"scalar_bytes\": %d, \"int_bytes\": %d, \"peak_GBps\": %.0f, \"model\": \"%s\"}\n", (int)sizeof(PetscScalar), (int)sizeof(PetscInt),
                         P1_PEAK_GBPS, BYTE_MODEL));
  for (PetscInt k = 0; k < nprobe && B.gpu; k++) {
    PetscLogDouble r[SQUALL_P1_PROBE_NUM];

    PetscCall(SquallP1CUDAAtomicProbe(probe[k], (PetscInt)pupdates, B.repeats, r));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "{\"bench\": \"p1_assembly\", \"method\": \"atomic_probe\", \"values\": %" PetscInt_FMT ", \"updates\": %.0f, \"repeats\": %" PetscInt_FMT, probe[k], (double)pupdates, B.repeats));
    for (PetscInt p = 0; p < SQUALL_P1_PROBE_NUM; p++) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, ", \"%s_Gps\": %.2f", SquallP1AtomicProbePatterns[p], r[p] * 1e-9));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "}\n"));
  }
  for (PetscInt k = 0; k < n / 3; k++) {
    PetscCall(RunSize(&B, &cells[3 * k], &L));
    if (B.tets >= maxm * 1e6) break;
  }
  PetscCall(PetscTime(&end));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "{\"bench\": \"p1_assembly\", \"method\": \"done\", \"wall_s\": %.2f}\n", end - B.start));
  if (B.json != PETSC_STDOUT) PetscCall(PetscFClose(PETSC_COMM_WORLD, B.json));
  PetscCall(Summary(&B));
  PetscCall(PetscFinalize());
  return 0;
}
