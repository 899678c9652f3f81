static char help[] = "Benchmark of P1 tetrahedral assembly on the terrain-following mountain mesh, for a sweep of sizes.\n"
                     "Times the element kernel, matrix assembly (scalar CSR: mass + advection + nodal full-tensor diffusion;\n"
                     "3x3 blocks: mass + diffusion + grad-div) and right-hand sides through squall's direct assembly in its\n"
                     "three modes (-p1_assembly_mode): slots (gpu_atomic_slots), gather (atomic-free, gpu_gather) and reduce\n"
                     "(in-block sums, the GPU default: gpu_reduce), PETSc's MatSetValuesCOO with values computed in the\n"
                     "backend's memory (gpu_coo), and host MatSetValues on one core (host_setvalues); the slots and reduce\n"
                     "modes also with the elements coloured, sorted or along the Morton curve (-p1_element_order) on the\n"
                     "smaller meshes. Without a GPU the same on the host (squall's CPU references: cpu_reference_*).\n"
                     "Times: the median (time_ms) and minimum (time_ms_min) over -bench_repeats batches of the mean of\n"
                     "-bench_batch back-to-back calls between two device synchronizations (PetscDeviceContextSynchronize()).\n"
                     "Prints one JSON line per measurement (flushed one by one): tets, nodes, nnz, time, bytes counted and\n"
                     "effective bandwidth, and wall_s, the seconds since the start; the first line (method byte_model) states\n"
                     "how the bytes are counted, the last (method done) the total time. A summary table ends stdout.\n"
                     "  -bench_cells nx,ny,nz,nx,ny,nz,...  hexahedra of each mesh of the sweep (x6 tetrahedra)\n"
                     "                        default 46,46,44 (0.56 M tets) 73,73,70 (2.2 M) 97,97,93 (5.2 M) 122,122,117 (10.4 M) 154,154,148 (21.1 M)\n"
                     "  -bench_max_mtets <m>  stop the sweep after the first mesh with at least m million tetrahedra (default 20)\n"
                     "  -bench_bs3_max_mtets <m>  largest mesh for the 3x3-block matrices and right-hand sides (default 5.5)\n"
                     "  -bench_repeats <n>    timed batches on the device (default 20; host: -bench_host_repeats, default 3)\n"
                     "  -bench_batch <n>      calls per timed batch on the device (default 10; host: 1)\n"
                     "  -bench_host_max_mtets, -bench_coo_max_mtets, -bench_coo3_max_mtets, -bench_order_max_mtets, -bench_gather_max_mtets\n"
                     "                        largest meshes (million tets) for host MatSetValues (0.6), scalar COO (5.5), block COO\n"
                     "                        (0.6), the other element orders (0.6) and the gather mode (6): their set-up on the host\n"
                     "                        is slow (COO: PETSc's MatSetPreallocationCOO, ~1.5 s per million tets scalar)\n"
                     "  -bench_element_order natural|colored|sorted|morton  element order of the main runs (default natural)\n"
                     "  -bench_json <file>    write the JSON lines to file (default: stdout)\n"
                     "  -bench_require_gpu    without a CUDA device end at once with exit code 200 (the test suite's \"skipped\")\n";

#include <squall.h>
#include <petscdevice.h>

/* the layouts of the device data the byte model counts (src/physics/p1tet.h): J^-1 and the volume per
   element, and the slot map's int32 per element */
#define P1_NGEOM 10
#define P1_SLOTS(bs) ((bs) == 1 ? 16 : 20)
#define P1_MAX_ROWS 64
#define P1_PEAK_GBPS 4350.0 /* H200 HBM3e */

/* one row of the closing summary: matrix assembly of one mesh and block size (times in ms, < 0: not run) */
typedef struct {
  PetscInt64     tets;
  PetscInt       bs;
  PetscLogDouble slots, gather, reduce, coo, host, GBps, rGBps; /* GBps: the slots path, rGBps: the reduce path */
} Row;

typedef struct {
  PetscReal host, coo, coo3, order, bs3, gather; /* largest meshes (million tets) of the slow set-ups */
} Limits;

typedef struct {
  PetscInt             nt, nv, nnz, nown;
  PetscInt64           tets;
  PetscBool            gpu;
  PetscInt             repeats, hrepeats, batch;
  FILE                *json;  /* the JSON lines (rank 0's stream), flushed after each line: a killed run keeps them */
  PetscLogDouble       start; /* wall clock at the start, for wall_s */
  Row                  rows[P1_MAX_ROWS];
  PetscInt             nrows;
  SquallP1ElementOrder order; /* of the main runs (-bench_element_order) */
  Limits               L;
} Bench;

typedef struct {
  SquallP1         p1;
  Mat              A;
  Vec              f, b;
  const PetscReal *coef;
} Call;

typedef PetscErrorCode (*BenchFn)(Call *);

static PetscErrorCode CallGeometry(Call *c)
{
  return SquallP1ComputeGeometry(c->p1);
}

static PetscErrorCode CallAssemble(Call *c)
{
  return SquallP1AssembleOperator(c->p1, c->coef, c->A);
}

static PetscErrorCode CallRHS(Call *c)
{
  return SquallP1AssembleRHS(c->p1, c->coef, c->f, c->b);
}

static int CmpDouble(const void *a, const void *b)
{
  const PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return x < y ? -1 : x > y;
}

static PetscErrorCode Synchronize(PetscBool device)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  if (device) {
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* median and min (ms per call) over the batches, after one untimed warm-up call (it builds the one-time maps) */
static PetscErrorCode Time(const Bench *B, PetscBool device, BenchFn fn, Call *c, PetscLogDouble *med, PetscLogDouble *tmin)
{
  const PetscInt  n = device ? B->repeats : B->hrepeats, batch = device ? B->batch : 1;
  PetscLogDouble *t;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n, &t));
  PetscCall(fn(c));
  for (PetscInt k = 0; k < n; k++) {
    PetscLogDouble t0, t1;

    PetscCall(Synchronize(device));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < batch; r++) PetscCall(fn(c));
    PetscCall(Synchronize(device));
    PetscCall(PetscTime(&t1));
    t[k] = 1e3 * (t1 - t0) / batch;
  }
  qsort(t, (size_t)n, sizeof(PetscLogDouble), CmpDouble);
  *med  = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  *tmin = t[0];
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(const Bench *b, const char *method, const char *op, PetscInt bs, PetscBool device, PetscLogDouble med, PetscLogDouble tmin, PetscLogDouble bytes, PetscReal check)
{
  char           extra[64] = "";
  PetscLogDouble now;

  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  if (check >= 0) PetscCall(PetscSNPrintf(extra, sizeof(extra), ", \"maxreldiff_vs_slots\": %.3e", (double)check));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, b->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"%s\", \"op\": \"%s\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT ", \"nodes\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"repeats\": %" PetscInt_FMT
                         ", \"batch\": %" PetscInt_FMT ", \"time_ms\": %.6f, \"time_ms_min\": %.6f, \"bytes\": %.0f, \"GBps\": %.2f%s, \"wall_s\": %.2f}\n",
                         method, op, bs, b->tets, b->nv, (PetscInt64)bs * bs * b->nnz, device ? b->repeats : b->hrepeats, device ? b->batch : 1, med, tmin, bytes, bytes / (med * 1e-3) / 1e9, extra, now - b->start));
  PetscCall(PetscFFlush(b->json));
  PetscFunctionReturn(PETSC_SUCCESS);
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

/* Bytes counted: the compulsory traffic of one pass. BYTE_MODEL says it in words, for the JSON; the functions
   below count it. Not counted: atomic read-modify-writes, the zeroing pass, shared memory and cache misses:
   the figure is an effective bandwidth. */
#define BYTE_MODEL                                                                                                                                                                              \
  "per element: 4 PetscInt connectivity + 10 PetscReal geometry (J^-1, volume); per node: the nodal fields once (matrix bs 1: u 3 + K 9 = 12 scalars; bs 3: K 9; rhs: the same + f bs); "       \
  "COO and host paths: scalar CSR row pointers and columns once (PetscInt) + bs*bs*nnz values written once; slots mode: 16 (bs 1) or 20 (bs 3) int32 slots per element instead of the CSR "     \
  "structure + the same values; gather mode: no slots, + 16*bs*bs scalars per element written and read back (scratch) + nnz+1 int32 offsets + 16 int32 contributions per element (bs 3: + nnz " \
  "int32 rows + scalar row pointers) + the same values; reduce mode: per thread block 2 int32 + per unique (block, entry) pair an int32 slot and a uint16 end (bs 3: + an int32 row + scalar "  \
  "row pointers) + a uint16 per contribution + the same values; on the GPU 3 PetscReal coordinates per node instead of the geometry (the kernel rebuilds J^-1 and the volume) and 4 uint16 "    \
  "block-local vertices per element + per block its vertex list (int32 per vertex) and offset instead of the connectivity; rhs: + bs scalars per owned row written once; element kernel: "      \
  "connectivity + 3 PetscReal coordinates per node + geometry written once; GBps = bytes / median time"

static PetscLogDouble BytesElements(const Bench *b)
{
  return (PetscLogDouble)b->nt * (4 * sizeof(PetscInt) + P1_NGEOM * sizeof(PetscReal));
}

static PetscLogDouble BytesGeometry(const Bench *b)
{
  return BytesElements(b) + 3.0 * b->nv * sizeof(PetscReal);
}

static PetscLogDouble BytesValues(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return (PetscLogDouble)nodal * b->nv * sizeof(PetscScalar) + (PetscLogDouble)bs * bs * b->nnz * sizeof(PetscScalar);
}

static PetscLogDouble BytesMatrix(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return BytesElements(b) + (b->nown + 1.0 + b->nnz) * sizeof(PetscInt) + BytesValues(b, bs, nodal);
}

static PetscLogDouble BytesMatrixSlots(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return BytesElements(b) + (PetscLogDouble)b->nt * P1_SLOTS(bs) * sizeof(int) + BytesValues(b, bs, nodal);
}

static PetscLogDouble BytesMatrixGather(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return BytesElements(b) + (PetscLogDouble)b->nt * (2.0 * 16 * bs * bs * sizeof(PetscScalar) + 16 * sizeof(int)) + (b->nnz + 1.0) * sizeof(int) + (bs == 3 ? b->nnz * sizeof(int) + (b->nown + 1.0) * sizeof(PetscInt) : 0) + BytesValues(b, bs, nodal);
}

/* the reduce map's sizes from SquallP1GetReduceMapSizes() of p1, after its first reduce-mode assembly */
static PetscErrorCode BytesMatrixReduce(const Bench *b, SquallP1 p1, PetscInt bs, PetscInt nodal, PetscLogDouble *bytes)
{
  PetscInt64     nblocks, nu, ncon, nbv;
  PetscLogDouble elem;

  PetscFunctionBegin;
  PetscCall(SquallP1GetReduceMapSizes(p1, &nblocks, &nu, &ncon, NULL, &nbv));
  elem   = b->gpu ? (PetscLogDouble)b->nt * 4 * sizeof(uint16_t) + ((PetscLogDouble)nbv + nblocks + 1) * sizeof(int) + 3.0 * b->nv * sizeof(PetscReal) : BytesElements(b);
  *bytes = elem + 2.0 * (nblocks + 1) * sizeof(int) + (PetscLogDouble)nu * (sizeof(int) + sizeof(uint16_t)) + (PetscLogDouble)ncon * sizeof(uint16_t) + (bs == 3 ? (PetscLogDouble)nu * sizeof(int) + (b->nown + 1.0) * sizeof(PetscInt) : 0) +
           BytesValues(b, bs, nodal);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscLogDouble BytesRHS(const Bench *b, PetscInt bs, PetscInt nodal)
{
  return BytesElements(b) + (PetscLogDouble)(nodal + bs) * b->nv * sizeof(PetscScalar) + (PetscLogDouble)bs * b->nown * sizeof(PetscScalar);
}

static PetscErrorCode ReduceMapLine(const Bench *B, SquallP1 p1, const char *suffix)
{
  PetscInt64 nblocks, nu, ncon, nonly;

  PetscFunctionBegin;
  PetscCall(SquallP1GetReduceMapSizes(p1, &nblocks, &nu, &ncon, &nonly, NULL));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"reduce_map%s%s\", \"tets\": %" PetscInt64_FMT ", \"blocks\": %" PetscInt64_FMT ", \"contributions\": %" PetscInt64_FMT ", \"block_entries\": %" PetscInt64_FMT
                         ", \"contributions_per_atomic\": %.2f, \"single_block_entries\": %" PetscInt64_FMT "}\n",
                         suffix ? "_" : "", suffix ? suffix : "", B->tets, nblocks, ncon, nu, nu ? (double)ncon / (double)nu : 0.0, nonly));
  PetscCall(PetscFFlush(B->json));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a fresh bs matrix assembled in the direct path's mode and timed, compared with Aref (if any) and reported
   under name; *t: the median time, *bytes those counted */
static PetscErrorCode TimeMode(Bench *B, Call *c, PetscInt bs, SquallP1AssemblyMode mode, const char *name, Mat Aref, PetscLogDouble *t, PetscLogDouble *bytes, Mat *Aout)
{
  const PetscInt nodal = bs == 1 ? 12 : 9;
  Mat            A;
  PetscLogDouble med = 0, tmin = 0;
  PetscReal      diff = -1;

  PetscFunctionBegin;
  PetscCall(SquallP1SetAssemblyType(c->p1, SQUALL_P1_ASSEMBLY_DIRECT));
  PetscCall(SquallP1SetAssemblyMode(c->p1, mode));
  PetscCall(SquallP1CreateMatrix(c->p1, bs, &A));
  c->A = A;
  PetscCall(Time(B, B->gpu, CallAssemble, c, &med, &tmin));
  if (Aref) PetscCall(SquallP1MatCompare(Aref, A, &diff));
  if (mode == SQUALL_P1_MODE_REDUCE)
    PetscCall(BytesMatrixReduce(B, c->p1, bs, nodal, bytes));
  else
    *bytes = mode == SQUALL_P1_MODE_SLOTS ? BytesMatrixSlots(B, bs, nodal) : BytesMatrixGather(B, bs, nodal);
  PetscCall(Report(B, name, "matrix", bs, B->gpu, med, tmin, *bytes, diff));
  c->A = NULL;
  if (Aout)
    *Aout = A;
  else
    PetscCall(MatDestroy(&A));
  *t = med;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the right-hand side of block size bs through the SquallP1's assembly type, reported under name */
static PetscErrorCode TimeRHS(Bench *B, Call *c, PetscInt bs, PetscBool device, const char *name, Vec bref)
{
  const PetscReal cr[SQUALL_P1_NUM_TERMS] = {1, -30, -30, 0}, c3[SQUALL_P1_NUM_TERMS] = {1, 0, 600, 600};
  PetscInt        bsf = bs;
  PetscLogDouble  med = 0, tmin = 0;
  PetscReal       diff = -1;

  PetscFunctionBegin;
  PetscCall(SquallP1CreateVector(c->p1, bs, &c->f));
  PetscCall(SquallP1Interpolate(c->p1, bs, FieldFn, &bsf, c->f));
  PetscCall(VecDuplicate(c->f, &c->b));
  c->coef = bs == 1 ? cr : c3;
  PetscCall(Time(B, device, CallRHS, c, &med, &tmin));
  if (bref) PetscCall(SquallP1VecCompare(bref, c->b, &diff));
  PetscCall(Report(B, name, "rhs", bs, device, med, tmin, BytesRHS(B, bs, bs == 1 ? 12 : 9), diff >= 0 ? diff : -1));
  PetscCall(VecDestroy(&c->f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one block size on the main SquallP1: the three direct modes, COO, the right-hand sides; fills the summary row */
static PetscErrorCode RunBlockSize(Bench *B, Call *c, PetscInt bs, Row *row)
{
  const PetscReal c1[SQUALL_P1_NUM_TERMS] = {1, 60, 60, 0}, c3[SQUALL_P1_NUM_TERMS] = {1, 0, 600, 600};
  const char     *dev = B->gpu ? "gpu" : "cpu_reference";
  char            name[64];
  Mat             As, Ac;
  Vec             bd;
  PetscLogDouble  bytes, med = 0, tmin = 0;
  PetscReal       diff;

  PetscFunctionBegin;
  c->coef = bs == 1 ? c1 : c3;
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s_atomic_slots", dev));
  PetscCall(TimeMode(B, c, bs, SQUALL_P1_MODE_SLOTS, name, NULL, &row->slots, &bytes, &As));
  row->GBps = bytes / (row->slots * 1e-3) / 1e9;
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s_reduce", dev));
  PetscCall(TimeMode(B, c, bs, SQUALL_P1_MODE_REDUCE, name, As, &row->reduce, &bytes, NULL));
  row->rGBps = bytes / (row->reduce * 1e-3) / 1e9;
  PetscCall(ReduceMapLine(B, c->p1, NULL));
  row->gather = -1;
  if (B->tets <= B->L.gather * 1e6) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_gather", dev));
    PetscCall(TimeMode(B, c, bs, SQUALL_P1_MODE_GATHER, name, As, &row->gather, &bytes, NULL));
  }
  row->coo = -1;
  if (B->tets <= (bs == 1 ? B->L.coo : B->L.coo3) * 1e6) {
    PetscCall(SquallP1SetAssemblyType(c->p1, SQUALL_P1_ASSEMBLY_COO));
    PetscCall(SquallP1CreateMatrix(c->p1, bs, &Ac));
    c->A = Ac;
    PetscCall(Time(B, B->gpu, CallAssemble, c, &med, &tmin));
    PetscCall(SquallP1MatCompare(As, Ac, &diff));
    row->coo = med;
    PetscCall(Report(B, B->gpu ? "gpu_coo" : "cpu_coo", "matrix", bs, B->gpu, med, tmin, BytesMatrix(B, bs, bs == 1 ? 12 : 9), diff));
    PetscCall(MatDestroy(&Ac));
    c->A = NULL;
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"speedup\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT
                         ", \"reduce_over_slots\": %.2f, \"gather_over_slots\": %.2f, \"slots_over_coo\": %.2f, \"gather_over_coo\": %.2f, \"reduce_over_coo\": %.2f}\n",
                         bs, B->tets, row->slots / row->reduce, row->gather > 0 ? row->slots / row->gather : 0.0, row->coo > 0 ? row->coo / row->slots : 0.0, row->coo > 0 && row->gather > 0 ? row->coo / row->gather : 0.0,
                         row->coo > 0 ? row->coo / row->reduce : 0.0));
  PetscCall(PetscFFlush(B->json));
  PetscCall(MatDestroy(&As));
  /* right-hand sides (element-wise operator applied to a nodal field): the direct path, then COO against it */
  PetscCall(SquallP1SetAssemblyType(c->p1, SQUALL_P1_ASSEMBLY_DIRECT));
  PetscCall(TimeRHS(B, c, bs, B->gpu, B->gpu ? "gpu_atomic" : "cpu_reference", NULL));
  bd = c->b;
  if (B->tets <= B->L.coo * 1e6) {
    PetscCall(SquallP1SetAssemblyType(c->p1, SQUALL_P1_ASSEMBLY_COO));
    PetscCall(TimeRHS(B, c, bs, B->gpu, B->gpu ? "gpu_coo" : "cpu_coo", bd));
    PetscCall(VecDestroy(&c->b));
  }
  PetscCall(VecDestroy(&bd));
  c->b = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the slots and reduce modes with the elements in another order: coloured (no two threads of a warp add into one
   entry), sorted by their smallest vertex (a warp's atomics into neighbouring rows), along the Morton curve
   (compact reduce blocks) */
static PetscErrorCode RunOrders(Bench *B, DM dm, PetscInt bsmax)
{
  const PetscReal      c1[SQUALL_P1_NUM_TERMS] = {1, 60, 60, 0}, c3[SQUALL_P1_NUM_TERMS] = {1, 0, 600, 600};
  SquallP1ElementOrder orders[3] = {SQUALL_P1_ORDER_COLORED, SQUALL_P1_ORDER_SORTED, SQUALL_P1_ORDER_MORTON};
  Call                 c         = {NULL, NULL, NULL, NULL, NULL};

  PetscFunctionBegin;
  for (PetscInt o = 0; o < 3; o++) {
    const char    *on = SquallP1ElementOrders[orders[o]];
    char           name[64];
    PetscLogDouble t, bytes;

    if (orders[o] == B->order) continue;
    PetscCall(SquallP1Create(dm, &c.p1));
    PetscCall(SquallP1SetBackend(c.p1, B->gpu ? SQUALL_P1_CUDA : SQUALL_P1_HOST));
    PetscCall(SquallP1SetElementOrder(c.p1, orders[o]));
    PetscCall(SquallP1SetUp(c.p1));
    PetscCall(SetFields(c.p1));
    for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
      c.coef = bs == 1 ? c1 : c3;
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_reduce_%s", B->gpu ? "gpu" : "cpu_reference", on));
      PetscCall(TimeMode(B, &c, bs, SQUALL_P1_MODE_REDUCE, name, NULL, &t, &bytes, NULL));
      PetscCall(ReduceMapLine(B, c.p1, on));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_slots_%s", B->gpu ? "gpu_atomic" : "cpu_reference", on));
      PetscCall(TimeMode(B, &c, bs, SQUALL_P1_MODE_SLOTS, name, NULL, &t, &bytes, NULL));
      PetscCall(TimeRHS(B, &c, bs, B->gpu, name, NULL));
      PetscCall(VecDestroy(&c.b));
    }
    PetscCall(SquallP1Destroy(&c.p1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host MatSetValues, element by element on one core */
static PetscErrorCode RunHost(Bench *B, DM dm, PetscInt bsmax, Row *row[2])
{
  const PetscReal c1[SQUALL_P1_NUM_TERMS] = {1, 60, 60, 0}, c3[SQUALL_P1_NUM_TERMS] = {1, 0, 600, 600};
  Call            c   = {NULL, NULL, NULL, NULL, NULL};
  PetscLogDouble  med = 0, tmin = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1Create(dm, &c.p1));
  PetscCall(SquallP1SetBackend(c.p1, SQUALL_P1_HOST));
  PetscCall(SquallP1SetUp(c.p1));
  PetscCall(SetFields(c.p1));
  PetscCall(SquallP1SetAssemblyType(c.p1, SQUALL_P1_ASSEMBLY_SETVALUES));
  for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
    Row *r = row[bs == 3];

    c.coef = bs == 1 ? c1 : c3;
    PetscCall(SquallP1CreateMatrix(c.p1, bs, &c.A));
    PetscCall(Time(B, PETSC_FALSE, CallAssemble, &c, &med, &tmin));
    PetscCall(Report(B, "host_setvalues", "matrix", bs, PETSC_FALSE, med, tmin, BytesMatrix(B, bs, bs == 1 ? 12 : 9), -1));
    if (r) r->host = med;
    if (r && B->gpu)
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                             "{\"bench\": \"p1_assembly\", \"method\": \"speedup\", \"op\": \"matrix\", \"bs\": %" PetscInt_FMT ", \"tets\": %" PetscInt64_FMT ", \"slots_over_host_setvalues\": %.1f, \"reduce_over_host_setvalues\": %.1f}\n", bs,
                             B->tets, med / r->slots, med / r->reduce));
    PetscCall(PetscFFlush(B->json));
    PetscCall(MatDestroy(&c.A));
    PetscCall(TimeRHS(B, &c, bs, PETSC_FALSE, "host_setvalues", NULL));
    PetscCall(VecDestroy(&c.b));
  }
  PetscCall(SquallP1Destroy(&c.p1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunSize(Bench *B, const PetscInt cells[3])
{
  SquallP1Mountain m;
  DM               dm;
  PetscLogDouble   t0, t1, t2, med = 0, tmin = 0;
  PetscInt         bsmax;
  PetscInt64       nnz;
  Call             c      = {NULL, NULL, NULL, NULL, NULL};
  Row             *row[2] = {NULL, NULL};

  PetscFunctionBegin;
  PetscCall(SquallP1MountainSetFromOptions(PETSC_COMM_WORLD, &m));
  for (PetscInt d = 0; d < 3; d++) m.cells[d] = cells[d];
  PetscCall(PetscTime(&t0));
  PetscCall(SquallP1MountainCreateMesh(PETSC_COMM_WORLD, &m, &dm));
  PetscCall(PetscTime(&t1));
  PetscCall(SquallP1Create(dm, &c.p1));
  PetscCall(SquallP1SetBackend(c.p1, B->gpu ? SQUALL_P1_CUDA : SQUALL_P1_HOST));
  PetscCall(SquallP1SetElementOrder(c.p1, B->order));
  PetscCall(SquallP1SetUp(c.p1));
  PetscCall(PetscTime(&t2));
  PetscCall(SquallP1GetSizes(c.p1, &B->nown, &B->nv, &B->nt, NULL));
  PetscCall(SquallP1GetNonzeros(c.p1, &B->nnz, &nnz));
  B->tets = B->nt;
  /* 3x3 blocks only up to L.bs3: their AIJ set-up on the host (9x the scalar nonzeros, per matrix) is slow */
  bsmax = B->tets <= B->L.bs3 * 1e6 ? 3 : 1;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B->json,
                         "{\"bench\": \"p1_assembly\", \"method\": \"setup\", \"cells\": [%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "], \"tets\": %" PetscInt64_FMT ", \"nodes\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT
                         ", \"backend\": \"%s\", \"element_order\": \"%s\", \"mesh_s\": %.2f, \"setup_s\": %.2f, \"wall_s\": %.2f}\n",
                         cells[0], cells[1], cells[2], B->tets, B->nv, nnz, B->gpu ? "cuda" : "host", SquallP1ElementOrders[B->order], t1 - t0, t2 - t1, t2 - B->start));
  PetscCall(PetscFFlush(B->json));
  PetscCall(SetFields(c.p1));
  PetscCall(Time(B, B->gpu, CallGeometry, &c, &med, &tmin));
  PetscCall(Report(B, B->gpu ? "gpu_element_kernel" : "cpu_reference", "element_kernel", 1, B->gpu, med, tmin, BytesGeometry(B), -1));
  for (PetscInt bs = 1; bs <= bsmax; bs += 2) {
    Row r = {B->tets, bs, -1, -1, -1, -1, -1, 0, 0};

    PetscCall(RunBlockSize(B, &c, bs, &r));
    if (B->nrows < P1_MAX_ROWS) {
      B->rows[B->nrows] = r;
      row[bs == 3]      = &B->rows[B->nrows++];
    }
  }
  PetscCall(SquallP1Destroy(&c.p1));
  if (B->tets <= B->L.order * 1e6) PetscCall(RunOrders(B, dm, bsmax));
  if (B->tets <= B->L.host * 1e6) PetscCall(RunHost(B, dm, bsmax, row));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the closing table on stdout, so that a run's tail shows the key numbers */
static PetscErrorCode Summary(const Bench *B)
{
  char col[6][24];

  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nP1 matrix assembly (%s; median ms; GB/s: effective bandwidth of the slots and reduce paths, %% of %.2f TB/s; speed-ups of reduce)\n", B->gpu ? "GPU" : "no GPU: CPU reference", P1_PEAK_GBPS / 1e3));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%12s %3s %10s %10s %10s %10s %10s %9s %9s %8s %7s %8s %7s\n", "tets", "bs", "reduce_ms", "slots_ms", "gather_ms", "coo_ms", "host_ms", "vs_slots", "vs_coo", "GB/s", "%peak", "redGB/s", "%peak"));
  for (PetscInt k = 0; k < B->nrows; k++) {
    const Row *r = &B->rows[k];

    PetscCall(PetscSNPrintf(col[0], sizeof(col[0]), r->gather >= 0 ? "%.3f" : "-", r->gather));
    PetscCall(PetscSNPrintf(col[1], sizeof(col[1]), r->coo >= 0 ? "%.3f" : "-", r->coo));
    PetscCall(PetscSNPrintf(col[2], sizeof(col[2]), r->host >= 0 ? "%.1f" : "-", r->host));
    PetscCall(PetscSNPrintf(col[3], sizeof(col[3]), r->coo >= 0 ? "%.2fx" : "-", r->coo / r->reduce));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%12" PetscInt64_FMT " %3" PetscInt_FMT " %10.3f %10.3f %10s %10s %10s %8.2fx %9s %8.1f %6.1f%% %8.1f %6.1f%%\n", r->tets, r->bs, r->reduce, r->slots, col[0], col[1], col[2], r->slots / r->reduce, col[3],
                          r->GBps, 100 * r->GBps / P1_PEAK_GBPS, r->rGBps, 100 * r->rGBps / P1_PEAK_GBPS));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchSetFromOptions(Bench *B, PetscInt cells[], PetscInt *n, PetscReal *maxm, PetscBool *requiregpu)
{
  char      json[PETSC_MAX_PATH_LEN] = "";
  PetscBool flg, hasjson;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "P1 assembly benchmark", NULL);
  PetscCall(PetscOptionsIntArray("-bench_cells", "Hexahedra nx,ny,nz of each mesh of the sweep", NULL, cells, n, &flg));
  if (!flg) *n = 15;
  PetscCall(PetscOptionsReal("-bench_max_mtets", "Stop after the first mesh with at least this many million tetrahedra", NULL, *maxm, maxm, NULL));
  PetscCall(PetscOptionsInt("-bench_repeats", "Timed batches on the device", NULL, B->repeats, &B->repeats, NULL));
  PetscCall(PetscOptionsInt("-bench_host_repeats", "Timed repeats on the host", NULL, B->hrepeats, &B->hrepeats, NULL));
  PetscCall(PetscOptionsInt("-bench_batch", "Calls per timed batch on the device", NULL, B->batch, &B->batch, NULL));
  PetscCall(PetscOptionsReal("-bench_bs3_max_mtets", "Largest mesh (million tets) for the 3x3-block matrices and right-hand sides", NULL, B->L.bs3, &B->L.bs3, NULL));
  PetscCall(PetscOptionsReal("-bench_host_max_mtets", "Largest mesh (million tets) for host MatSetValues", NULL, B->L.host, &B->L.host, NULL));
  PetscCall(PetscOptionsReal("-bench_coo_max_mtets", "Largest mesh (million tets) for the scalar COO path", NULL, B->L.coo, &B->L.coo, NULL));
  PetscCall(PetscOptionsReal("-bench_coo3_max_mtets", "Largest mesh (million tets) for the block COO path", NULL, B->L.coo3, &B->L.coo3, NULL));
  PetscCall(PetscOptionsReal("-bench_gather_max_mtets", "Largest mesh (million tets) for the gather mode", NULL, B->L.gather, &B->L.gather, NULL));
  PetscCall(PetscOptionsReal("-bench_order_max_mtets", "Largest mesh (million tets) for the other element orders", NULL, B->L.order, &B->L.order, NULL));
  PetscCall(PetscOptionsEnum("-bench_element_order", "Element order of the main runs", NULL, SquallP1ElementOrders, (PetscEnum)B->order, (PetscEnum *)&B->order, NULL));
  PetscCall(PetscOptionsString("-bench_json", "File for the JSON lines (default: stdout)", NULL, json, json, sizeof(json), &hasjson));
  PetscCall(PetscOptionsBool("-bench_require_gpu", "Without a CUDA device end at once with exit code 200 (skipped)", NULL, *requiregpu, requiregpu, NULL));
  PetscOptionsEnd();
  PetscCheck(*n % 3 == 0 && *n > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-bench_cells needs triples nx,ny,nz; got %" PetscInt_FMT " values", *n);
  PetscCheck(B->repeats >= 1 && B->hrepeats >= 1 && B->batch >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_repeats, -bench_host_repeats and -bench_batch must be >= 1");
  B->json = PETSC_STDOUT;
  if (hasjson && json[0]) PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "w", &B->json));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       cells[30] = {46, 46, 44, 73, 73, 70, 97, 97, 93, 122, 122, 117, 154, 154, 148}, n = 30;
  PetscReal      maxm = 20;
  PetscLogDouble end;
  PetscMPIInt    size;
  PetscBool      requiregpu = PETSC_FALSE;
  Bench          B;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "The benchmark runs on one rank (one GPU, or one core for the host paths)");
  PetscCall(PetscMemzero(&B, sizeof(B)));
  PetscCall(PetscTime(&B.start));
  B.repeats  = 20;
  B.hrepeats = 3;
  B.batch    = 10;
  B.L        = (Limits){0.6, 5.5, 0.6, 0.6, 5.5, 6};
  PetscCall(BenchSetFromOptions(&B, cells, &n, &maxm, &requiregpu));
  PetscCall(SquallCUDAAvailable(PETSC_COMM_WORLD, &B.gpu));
  if (!B.gpu && requiregpu) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no GPU: skipped (-bench_require_gpu)\n"));
    PetscCall(PetscFinalize());
    return 200;
  }
  if (!B.gpu) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "# no GPU: squall's CPU reference and PETSc's COO on the host instead of the GPU paths\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "{\"bench\": \"p1_assembly\", \"method\": \"byte_model\", \"scalar_bytes\": %d, \"int_bytes\": %d, \"peak_GBps\": %.0f, \"model\": \"%s\"}\n", (int)sizeof(PetscScalar), (int)sizeof(PetscInt),
                         P1_PEAK_GBPS, BYTE_MODEL));
  for (PetscInt k = 0; k < n / 3; k++) {
    PetscCall(RunSize(&B, &cells[3 * k]));
    if (B.tets >= maxm * 1e6) break;
  }
  PetscCall(PetscTime(&end));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, B.json, "{\"bench\": \"p1_assembly\", \"method\": \"done\", \"wall_s\": %.2f}\n", end - B.start));
  if (B.json != PETSC_STDOUT) PetscCall(PetscFClose(PETSC_COMM_WORLD, B.json));
  PetscCall(Summary(&B));
  PetscCall(PetscFinalize());
  return 0;
}
