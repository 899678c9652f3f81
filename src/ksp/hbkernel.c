/* The CUDA element kernel of the hipBone operator: the per-order tables of the defaults (the one place
   that says which kernel, layers per step, elements per block and scatter run by default), the options
   that override them, and their checks. */
#include "ksp/hbimpl.h"
#include <petscdevice.h>

const char *const SquallHBKernels[] = {"auto", "sweep", "layers", "layers_tiled", "mma", "SquallHBKernel", "SQUALL_HB_KERNEL_", NULL};

/* Per order N (index 0 unused): the default kernel, the layers per step of the layers and the
   layers_tiled kernels at this order (whether default or asked for), and the elements per block of the
   layers kernel. The fastest measured on the H200 (% of the streaming roofline in docs/performance.md):
   double: sweep at N <= 2, layers_tiled at N = 9, 11, 13-15, layers otherwise; single: sweep at N = 1-3
   and 5, layers_tiled at N = 9, 14, 15, layers otherwise; 4 elements per block of the layers kernel at
   N = 5, else 1. At N = 15 in double precision mma is the default on a GPU that runs it (HBAutoKernel()); this
   row is the default elsewhere. */
typedef struct {
  SquallHBKernel kernel;
  PetscInt       layers, layers_tiled, elements;
} HBKernelRow;

#define HB_SW SQUALL_HB_KERNEL_SWEEP
#define HB_LA SQUALL_HB_KERNEL_LAYERS
#define HB_LT SQUALL_HB_KERNEL_LAYERS_TILED
static const HBKernelRow HBKernelTable[SQUALL_LGL_MAX_ORDER + 1] = {
#if defined(PETSC_USE_REAL_SINGLE)
  {HB_SW, 2, 2, 1}, {HB_SW, 2, 2, 1}, {HB_SW, 2, 2, 1}, {HB_SW, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_SW, 4, 2, 4}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 1},
  {HB_LA, 4, 2, 1}, {HB_LT, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LT, 4, 4, 1}, {HB_LT, 4, 4, 1},
#else
  {HB_SW, 2, 2, 1}, {HB_SW, 2, 2, 1}, {HB_SW, 2, 2, 1}, {HB_LA, 2, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 4}, {HB_LA, 4, 2, 1}, {HB_LA, 4, 2, 1},
  {HB_LA, 3, 2, 1}, {HB_LT, 4, 2, 1}, {HB_LA, 4, 2, 1}, {HB_LT, 3, 2, 1}, {HB_LA, 3, 2, 1}, {HB_LT, 4, 2, 1}, {HB_LT, 3, 2, 1}, {HB_LT, 3, 3, 1},
#endif
};
#undef HB_SW
#undef HB_LA
#undef HB_LT

/* -hb_kernel auto at order N: mma at N = 15 where it is compiled and the current GPU runs it (compute capability 8.0
   or later, blocks with its shared memory), else the table's kernel. At N = 15 mma's kernel took 0.88x the time of
   layers_tiled's under gather and 0.64x under atomic on an H100; at N = 7 1.35x and 1.11x layers' (docs/performance.md),
   so N = 7 keeps the table. The GPU is asked only once PETSc has initialised it (device vectors exist), so that a run on
   the host never starts CUDA for this */
static PetscErrorCode HBAutoKernel(PetscInt N, SquallHBKernel *kernel)
{
  PetscBool mma = PETSC_FALSE;

  PetscFunctionBegin;
  if (N == 15 && SQUALL_HB_MMA_ORDER(N) && PetscDeviceInitialized(PETSC_DEVICE_CUDA)) PetscCall(SquallHBMmaUsableCUDA(N, &mma));
  *kernel = mma ? SQUALL_HB_KERNEL_MMA : HBKernelTable[N].kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetDefaultKernel - the CUDA element kernel that an operator of `SquallHBCreateOperator()` of
  this order runs by default in this build's precision on the current GPU, with its layers per step and elements
  per block. Not collective.

  Input Parameter:
. order - the polynomial order, 1 to 15

  Output Parameters (each may be NULL):
+ kernel   - "sweep", "layers", "layers_tiled" or "mma" (the values of -hb_kernel)
. layers   - layers per step (-hb_kernel_layers) of that kernel; 0 for sweep and mma
- elements - elements per block (-hb_kernel_elements) of that kernel; 0 unless layers

  Notes:
  The table (src/ksp/hbkernel.c) is the single source of the defaults; -hb_kernel auto means this
  choice, and `SquallHBGetInfo()` reports the kernel an operator actually runs. At order 15 in double precision mma is
  the default on a GPU of compute capability 8.0 or later whose blocks may have its shared memory; without such a GPU
  (or without a GPU) the table's kernel of the order.

.seealso: `SquallHBCreateOperator()`, `SquallHBGetInfo()`
@*/
PetscErrorCode SquallHBGetDefaultKernel(PetscInt order, const char **kernel, PetscInt *layers, PetscInt *elements)
{
  HBKernelRow    row;
  SquallHBKernel k = SQUALL_HB_KERNEL_AUTO;

  PetscFunctionBegin;
  PetscCheck(order >= 1 && order <= SQUALL_LGL_MAX_ORDER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "order %" PetscInt_FMT " is out of range: valid orders are 1 to %d", order, SQUALL_LGL_MAX_ORDER);
  row = HBKernelTable[order];
  PetscCall(HBAutoKernel(order, &k));
  if (kernel) *kernel = SquallHBKernels[k];
  if (layers) *layers = k == SQUALL_HB_KERNEL_LAYERS ? row.layers : (k == SQUALL_HB_KERNEL_LAYERS_TILED ? row.layers_tiled : 0);
  if (elements) *elements = k == SQUALL_HB_KERNEL_LAYERS ? row.elements : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *const SquallHBScatters[] = {"auto", "gather", "atomic"};

/* -hb_scatter auto, per order N (index 0 unused), for the table's kernels: atomic where the H200 ran the operator's
   product (kernel and Z^T, 2e7 unknowns, double) faster that way (docs/performance.md: 0.52-0.92 of gather's time at
   N = 1-12 and 14, 1.05 at 13 and 15). Single precision was not measured: gather. The mma kernel takes atomic at both
   of its orders (SquallHBResolveScatter()). */
static const PetscBool HBAtomicTable[SQUALL_LGL_MAX_ORDER + 1] = {
#if defined(PETSC_USE_REAL_SINGLE)
  PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE,
#else
  PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE,
#endif
};

/* whether device products with the kernel that runs (SquallHBResolveKernel()) sum by atomic adds: as asked, or (auto)
   on one rank by the table, and always with the mma kernel (its figure of merit on an H100: 1.06x gather's at N = 15,
   1.17x at N = 7); on several ranks auto is gather, which sends the ghost rows' sums while it sums the owned rows
   (atomic sends them after the last element kernel, and was not measured on several GPUs) */
PetscErrorCode SquallHBResolveScatter(const Mat_HB *hb, SquallHBKernel kernel, PetscBool *atomic)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  if (hb->scatter == HB_SCATTER_AUTO)
    *atomic = size == 1 ? (PetscBool)(kernel == SQUALL_HB_KERNEL_MMA || HBAtomicTable[hb->N]) : PETSC_FALSE;
  else
    *atomic = hb->scatter == HB_SCATTER_ATOMIC ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the owned rows the element kernels write whole (-hb_single_rows): the numbering's first nsingle, where they are at
   least half of the owned rows (N >= 5 on a large brick; below, the device kernels' second read of the node index and
   the per-column sums of p.Ap, 16 bytes per element column, cost more than the gather pass saves). Device products
   use them under gather only: under atomic, plain stores of these rows measured slower on the H200 than the atomic
   adds they replace (figure of merit 4730 against 4843 GFLOP/s at N = 7, docs/performance.md); atomic: the product's
   resolved scatter (SquallHBResolveScatter(); host products: false). */
PetscInt SquallHBSingleRows(const Mat_HB *hb, PetscBool atomic)
{
  return hb->single && !atomic && 2 * hb->nsingle >= hb->nown && hb->nown > 0 ? hb->nsingle : 0;
}

/*@C
  SquallHBKernelAvailable - whether a CUDA element kernel (a value of -hb_kernel) is compiled for this order in this
  build's precision and, once the GPU is in use, runs on it. Not collective.

  Input Parameters:
+ kernel - "auto", "sweep", "layers", "layers_tiled" or "mma"
- order  - the polynomial order, 1 to 15

  Output Parameter:
. available - sweep at orders 1 to 9, mma at 7 and 15 in double precision (on a GPU of compute capability 8.0 or later
                with the shared memory it takes), the others at every order

.seealso: `SquallHBGetDefaultKernel()`, `SquallHBCreateOperator()`
@*/
PetscErrorCode SquallHBKernelAvailable(const char kernel[], PetscInt order, PetscBool *available)
{
  PetscBool sweep, mma, known = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(order >= 1 && order <= SQUALL_LGL_MAX_ORDER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "order %" PetscInt_FMT " is out of range: valid orders are 1 to %d", order, SQUALL_LGL_MAX_ORDER);
  for (PetscInt k = 0; k <= SQUALL_HB_KERNEL_MMA; k++) {
    PetscBool same;

    PetscCall(PetscStrcmp(kernel, SquallHBKernels[k], &same));
    known = (PetscBool)(known || same);
  }
  PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown hipBone kernel %s: valid kernels are auto, sweep, layers, layers_tiled, mma", kernel);
  PetscCall(PetscStrcmp(kernel, "sweep", &sweep));
  PetscCall(PetscStrcmp(kernel, "mma", &mma));
  *available = sweep ? (PetscBool)(order <= SQUALL_HB_SWEEP_MAX_ORDER) : (mma ? (PetscBool)SQUALL_HB_MMA_ORDER(order) : PETSC_TRUE);
  if (mma && *available && PetscDeviceInitialized(PETSC_DEVICE_CUDA)) PetscCall(SquallHBMmaUsableCUDA(order, available));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernel that runs: the asked-for one (AUTO: HBAutoKernel()'s), its layers per step (0 for sweep and mma) and
   elements per block (0 unless layers), each by the table unless asked for */
PetscErrorCode SquallHBResolveKernel(const Mat_HB *hb, SquallHBKernel *kernel, PetscInt *layers, PetscInt *elements)
{
  const HBKernelRow row = HBKernelTable[hb->N];
  SquallHBKernel    k   = hb->kernel;

  PetscFunctionBegin;
  if (k == SQUALL_HB_KERNEL_AUTO) PetscCall(HBAutoKernel(hb->N, &k));
  /* here, not with the other checks of the options: auto may take mma only once the GPU is in use */
  PetscCheck(hb->layers == 0 || (k != SQUALL_HB_KERNEL_SWEEP && k != SQUALL_HB_KERNEL_MMA), hb->comm, PETSC_ERR_ARG_INCOMP,
             "-hb_kernel_layers applies to -hb_kernel layers and layers_tiled, not to %s (the kernel at -hb_order %" PetscInt_FMT "): valid values with %s are 0", SquallHBKernels[k], hb->N, SquallHBKernels[k]);
  PetscCheck(hb->elements == 0 || k == SQUALL_HB_KERNEL_LAYERS, hb->comm, PETSC_ERR_ARG_INCOMP, "-hb_kernel_elements applies to -hb_kernel layers, not to %s (the kernel at -hb_order %" PetscInt_FMT "): valid values with it are 0", SquallHBKernels[k],
             hb->N);
  *kernel   = k;
  *layers   = k == SQUALL_HB_KERNEL_SWEEP || k == SQUALL_HB_KERNEL_MMA ? 0 : (hb->layers > 0 ? hb->layers : (k == SQUALL_HB_KERNEL_LAYERS ? row.layers : row.layers_tiled));
  *elements = k == SQUALL_HB_KERNEL_LAYERS ? (hb->elements > 0 ? hb->elements : row.elements) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_kernel, -hb_kernel_layers, -hb_kernel_elements: at creation and again in MatSetFromOptions() (the
   device data do not depend on the kernel, so it may change between products) */
PetscErrorCode SquallHBKernelFromOptions(SquallOptionItems PetscOptionsObject, Mat_HB *hb)
{
  SquallHBKernel k;
  PetscInt       layers, elements;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum("-hb_kernel",
                             "CUDA element kernel: auto (by order, precision and GPU, SquallHBGetDefaultKernel()), sweep (several elements per block, a thread per element column; N <= 9), layers (a thread per node of a layer, L layers per step), "
                             "layers_tiled (the layer kernel with two nodes per thread), mma (the contractions on the FP64 tensor cores; double precision, N = 7 and 15)",
                             "SquallHBCreateOperator", SquallHBKernels, (PetscEnum)hb->kernel, (PetscEnum *)&hb->kernel, NULL));
  PetscCall(PetscOptionsInt("-hb_kernel_layers", "CUDA, layers and layers_tiled kernels: layers each thread computes per step (2, 3, 4; 0: by order)", "SquallHBCreateOperator", hb->layers, &hb->layers, NULL));
  PetscCall(PetscOptionsInt("-hb_kernel_elements", "CUDA, layers kernel: elements per thread block (0: by order; 1, and at N = 5 also 2, 3, 4, 6)", "SquallHBCreateOperator", hb->elements, &hb->elements, NULL));
  PetscCall(SquallHBResolveKernel(hb, &k, &layers, &elements));
  PetscCheck(k != SQUALL_HB_KERNEL_SWEEP || hb->N <= SQUALL_HB_SWEEP_MAX_ORDER, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel sweep is available at -hb_order 1 to %d, not at %" PetscInt_FMT ": valid kernels there are auto, layers, layers_tiled%s",
             SQUALL_HB_SWEEP_MAX_ORDER, hb->N, SQUALL_HB_MMA_ORDER(hb->N) ? ", mma" : "");
#if defined(PETSC_USE_REAL_DOUBLE)
  PetscCheck(k != SQUALL_HB_KERNEL_MMA || SQUALL_HB_MMA_ORDER(hb->N), hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel mma is available at -hb_order 7 and 15, not at %" PetscInt_FMT ": valid kernels there are auto, %slayers, layers_tiled", hb->N,
             hb->N <= SQUALL_HB_SWEEP_MAX_ORDER ? "sweep, " : "");
#else
  PetscCheck(k != SQUALL_HB_KERNEL_MMA, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel mma needs double precision (FP64 tensor cores), not single: valid kernels at -hb_order %" PetscInt_FMT " are auto, %slayers, layers_tiled", hb->N,
             hb->N <= SQUALL_HB_SWEEP_MAX_ORDER ? "sweep, " : "");
#endif
  PetscCheck(hb->layers == 0 || (hb->layers >= 2 && hb->layers <= 4), hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel_layers %" PetscInt_FMT " is out of range: valid values are 0 (by order), 2, 3, 4", hb->layers);
  PetscCheck(hb->elements == 0 || hb->elements == 1 || (hb->N == 5 && (hb->elements == 2 || hb->elements == 3 || hb->elements == 4 || hb->elements == 6)), hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_kernel_elements %" PetscInt_FMT " is out of range at -hb_order %" PetscInt_FMT ": valid values are 0, 1, and at order 5 also 2, 3, 4, 6", hb->elements, hb->N);
  PetscFunctionReturn(PETSC_SUCCESS);
}
