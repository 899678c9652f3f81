static char help[] = "hipBone benchmark sweep; one JSON object per line.\n"
                     "  -orders 1,2,...      polynomial orders (default 1..15)\n"
                     "  -dofs n              unknowns N_G per order (default 2e6; 4e7 reproduces hipBone's size)\n"
                     "  -reps k              back-to-back applications per timing (default 50)\n"
                     "  -cg_iterations k     fixed CG iterations for the figure of merit (default 50; 0: skip CG)\n"
                     "  -solvers list        hbcg (KSP hbcg + MATSHELL), cg (PETSc cg + the same MATSHELL), cg_assembled\n"
                     "                       (PETSc cg + the operator assembled as MATAIJCUSPARSE / MATAIJ) (default hbcg,cg: the\n"
                     "                       assembled matrix is built only when cg_assembled is listed)\n"
                     "  -assembled_dofs n    size for cg_assembled, which needs E Np (3 Nq)^2 matrix entries (default 1e6)\n"
                     "  -hb_vec_type cuda    run on the GPU; else on the host\n"
                     "  -operator 0          no operator records (default 1)\n"
                     "  -event_timing 0      no element-kernel and gather times from the library's log events (default 1; on\n"
                     "                       the device PETSc's GPU timers synchronize after each timed kernel, which slows CG:\n"
                     "                       each order runs its CG before its operator records, and only the first order's CG\n"
                     "                       runs without the timers; \"gpu_timers\" in the hb_cg records says which)\n"
                     "  -kernels list        time the operator with each -hb_kernel in turn (sweep, layers, layers_tiled, mma; the\n"
                     "                       same operator, switched by MatSetFromOptions(); each where SquallHBKernelAvailable());\n"
                     "                       CG runs with the default kernel; default: the operator's kernel only\n"
                     "  -layers list         likewise for each -hb_kernel_layers (2, 3, 4) where the kernel takes layers\n"
                     "  -tag name            copied into every record\n"
                     "  -hb_log_setup 0      no timestamped setup phases on stderr (default on)\n"
                     "  -hb_geometry mode    stored, trilinear, affine or auto (default): where the kernels get the geometric\n"
                     "                       factors; -hb_mesh brick|kershaw|perturbed the mesh (each record names both and the\n"
                     "                       mode's bytes per element node, from which the roofline is counted)\n"
                     "Records: \"hb_operator\" (element kernel GFLOP/s against the streaming roofline measured in the same\n"
                     "run, the Z^T gather, the whole MatMult), \"hb_cg\" (time per iteration, NekBone FOM, DOF x iterations / s).\n";

#include <squall.h>
#include <petscdevice.h>
#include "hb_measure.h"

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  *f = PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  return PETSC_SUCCESS;
}

typedef struct {
  MPI_Comm       comm;
  PetscMPIInt    size;
  char           tag[64];
  PetscInt       reps;
  PetscBool      device, events, timers; /* timers: the event timers are on (GPU timers on the device) */
  PetscLogDouble t0;
} Bench;

/* a timestamped progress line on stderr (seconds since the start), so a run killed by a time limit
   shows where it was */
static PetscErrorCode Stamp(const Bench *b, const char fmt[], ...)
{
  PetscLogDouble t;
  char           msg[256];
  size_t         len;
  va_list        ap;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t));
  va_start(ap, fmt);
  PetscCall(PetscVSNPrintf(msg, sizeof(msg), fmt, &len, ap));
  va_end(ap);
  PetscCall(PetscFPrintf(b->comm, PETSC_STDERR, "[hb_bench %8.3f s] %s\n", (double)(t - b->t0), msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the streaming rate of the operator's vector type over all ranks (GB/s), on about as many entries as
   the element kernel streams, bounded so that it leaves L2 behind and fits beside the operator */
static PetscErrorCode StreamRate(const Bench *b, Mat A, PetscLogDouble *gbs)
{
  SquallHBInfo   info;
  Vec            x;
  PetscLogDouble r;
  const PetscInt lo = b->device ? 1 << 22 : 1 << 20, hi = b->device ? 1 << 26 : 1 << 24;

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(HBMeasureStream(x, PetscMax(PetscMin(info.nelem_local * info.Np, hi), lo), b->reps, &r));
  PetscCall(VecDestroy(&x));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &r, 1, MPI_DOUBLE, MPI_SUM, b->comm));
  *gbs = r / 1e9;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the fraction of the unknowns whose rows the element kernels write whole (-hb_single_rows) */
static PetscErrorCode HBSingleRows(MPI_Comm comm, const SquallHBInfo *info, double *fraction)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&info->nsingle, &n, 1, MPIU_INT, MPI_SUM, comm));
  *fraction = info->ndof_global ? (double)n / info->ndof_global : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchOperator(const Bench *b, Mat A, PetscLogDouble stream)
{
  SquallHBInfo      info;
  HBMeasureOperator m;
  PetscLogDouble    loc[2], glob[2], tl[3], tmax[3];
  double            single;

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(HBMeasureMatMult(A, b->reps, b->events, b->device, &m));
  /* the slowest rank sets the times; flops and bytes add up. Minimum traffic of the element kernel:
     per element node its index, W, the result and the geometry of the mode in use (6 factors per node,
     or 24 / 6 reals per element: SquallHBInfo.geometry_bytes_per_node counts them, with x per node);
     each assembled unknown's x once */
  tl[0] = m.t_kernel;
  tl[1] = m.t_gather;
  tl[2] = m.t_mult;
  PetscCallMPI(MPIU_Allreduce(tl, tmax, 3, MPI_DOUBLE, MPI_MAX, b->comm));
  PetscCall(HBSingleRows(b->comm, &info, &single));
  loc[0] = m.flops_kernel;
  loc[1] = (PetscLogDouble)info.nelem_local * info.Np * (info.geometry_bytes_per_node - sizeof(PetscScalar)) + (PetscLogDouble)info.ndof_local * sizeof(PetscScalar);
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, b->comm));
  {
    const PetscLogDouble tk = tmax[0] > 0 ? tmax[0] : -1, gflops = glob[0] / tk / 1e9, gbs = glob[1] / tk / 1e9, roof = stream * glob[0] / glob[1];
    const PetscLogDouble Nq = info.Nq, Np = Nq * Nq * Nq, nekflops = (15 * Np + 12 * Np * Nq) * info.nelem_global;

    PetscCall(PetscPrintf(b->comm,
                          "{\"bench\":\"hb_operator\",\"tag\":\"%s\",\"N\":%" PetscInt_FMT ",\"E\":%" PetscInt_FMT ",\"NG\":%" PetscInt_FMT ",\"NL\":%" PetscInt_FMT ",\"ranks\":%d,\"device\":%s,\"kernel\":\"%s\",\"layers\":%" PetscInt_FMT
                          ",\"elements\":%" PetscInt_FMT ",\"reps\":%" PetscInt_FMT ",\"t_kernel\":%.6e,\"kernel_gflops\":%.2f,\"kernel_gbs\":%.1f,\"kernel_bytes\":%.6e,\"kernel_flops\":%.6e,\"stream_gbs\":%.1f,\"roofline_gflops\":%.2f"
                          ",\"roofline_fraction\":%.3f,\"t_gather\":%.6e,\"t_mult\":%.6e,\"mult_gflops_nekbone\":%.2f,\"mesh\":\"%s\",\"geometry\":\"%s\",\"bytes_per_node\":%.3f,\"scatter\":\"%s\",\"single_rows\":%.3f}\n",
                          b->tag, info.order, info.nelem_global, info.ndof_global, info.nlocal_global, b->size, b->device ? "true" : "false", info.kernel, info.layers, info.block_elements, b->reps, (double)tmax[0], b->events ? gflops : 0,
                          b->events ? gbs : 0, glob[1], glob[0], stream, roof, b->events ? gflops / roof : 0, (double)tmax[1], (double)tmax[2], nekflops / tmax[2] / 1e9, info.mesh, info.geometry, (double)info.geometry_bytes_per_node, info.scatter,
                          (double)single));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operator records: with kernel or layer lists, one per valid combination (switched through the
   options database and MatSetFromOptions()), and the operator left on its defaults (-hb_kernel auto) */
static PetscErrorCode BenchOperatorKernels(const Bench *b, Mat A, PetscInt nkernels, char *kernels[], PetscInt nlayers, const PetscInt layers[])
{
  SquallHBInfo   info;
  PetscLogDouble stream;

  PetscFunctionBegin;
  PetscCall(StreamRate(b, A, &stream));
  if (!nkernels && !nlayers) {
    PetscCall(BenchOperator(b, A, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SquallHBGetInfo(A, &info));
  for (PetscInt k = 0; k < PetscMax(nkernels, 1); k++) {
    PetscBool available = PETSC_TRUE, layered;

    PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel", nkernels ? kernels[k] : "auto"));
    PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel_layers", "0"));
    if (nkernels) PetscCall(SquallHBKernelAvailable(kernels[k], info.order, &available));
    if (!available) continue;
    PetscCall(MatSetFromOptions(A));
    PetscCall(SquallHBGetInfo(A, &info));
    layered = (PetscBool)(info.layers > 0); /* layers and layers_tiled */
    for (PetscInt l = 0; l < (layered ? PetscMax(nlayers, 1) : 1); l++) {
      if (nlayers && layered) {
        char v[16];

        PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, layers[l]));
        PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel_layers", v));
        PetscCall(MatSetFromOptions(A));
      }
      PetscCall(BenchOperator(b, A, stream));
    }
  }
  PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel", "auto"));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel_layers", "0"));
  PetscCall(MatSetFromOptions(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one timed solve after an untimed one, from x = 0 */
static PetscErrorCode BenchCG(const Bench *b, KSP ksp, Vec x, Vec rhs, const char solver[], const SquallHBInfo *info, PetscLogDouble stream)
{
  PetscLogDouble t0, t1, dt;
  PetscInt       its;
  PetscReal      rnorm;
  PetscBool      hbcg, devscalars = PETSC_TRUE;
  double         single;

  PetscFunctionBegin;
  /* hbcg keeps p.Ap and alpha on the device on one rank unless told otherwise (test_gpu_hb checks that it does) */
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, SQUALL_KSPHBCG, &hbcg));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ksp_hbcg_device_scalars", &devscalars, NULL));
  devscalars = (PetscBool)(devscalars && hbcg && b->device && b->size == 1);
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, rhs, x)); /* warm-up: device copies, first-touch, caches */
  PetscCall(VecZeroEntries(x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, rhs, x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  dt = t1 - t0;
  PetscCall(HBSingleRows(b->comm, info, &single));
  {
    const PetscLogDouble Nq = info->Nq, Np = Nq * Nq * Nq, flops = (15 * Np + 19 * Np + 12 * Np * Nq) * info->nelem_global * its;

    PetscCall(PetscPrintf(b->comm,
                          "{\"bench\":\"hb_cg\",\"tag\":\"%s\",\"solver\":\"%s\",\"N\":%" PetscInt_FMT ",\"E\":%" PetscInt_FMT ",\"NG\":%" PetscInt_FMT ",\"ranks\":%d,\"device\":%s,\"kernel\":\"%s\",\"iterations\":%" PetscInt_FMT
                          ",\"time\":%.6e,\"t_iter\":%.6e,\"fom_gflops\":%.2f,\"dofs_iter_per_s\":%.6e,\"rnorm\":%.6e,\"stream_gbs\":%.1f,\"gpu_timers\":%s,\"mesh\":\"%s\",\"geometry\":\"%s\",\"bytes_per_node\":%.3f,\"scatter\":\"%s\",\"device_"
                          "scalars\":%s,\"single_rows\":%.3f}\n",
                          b->tag, solver, info->order, info->nelem_global, info->ndof_global, b->size, b->device ? "true" : "false", info->kernel, its, dt, dt / its, flops / dt / 1e9, (PetscLogDouble)info->ndof_global * its / dt, (double)rnorm,
                          stream, b->device && b->timers ? "true" : "false", info->mesh, info->geometry, (double)info->geometry_bytes_per_node, info->scatter, devscalars ? "true" : "false", (double)single));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* hbcg and PETSc cg on the MATSHELL at the full size; at the assembled size hbcg again and PETSc cg
   on the assembled matrix */
static PetscErrorCode BenchSolvers(const Bench *b, PetscInt N, PetscReal adofs, PetscInt iterations, const PetscBool run[3], Mat A, KSP ksp, Vec x, Vec rhs)
{
  SquallHBInfo   info;
  PetscLogDouble stream;

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(StreamRate(b, A, &stream));
  PetscCall(KSPSetFromOptions(ksp));
  if (run[0]) {
    PetscCall(Stamp(b, "N=%" PetscInt_FMT ": hbcg", N));
    PetscCall(BenchCG(b, ksp, x, rhs, "hbcg", &info, stream));
  }
  if (run[1]) {
    PetscCall(Stamp(b, "N=%" PetscInt_FMT ": cg", N));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(BenchCG(b, ksp, x, rhs, "cg", &info, stream));
  }
  if (run[2]) {
    Mat          As, B;
    KSP          ks;
    Vec          xs, bs;
    PetscInt     E[3];
    SquallHBInfo sinfo;

    /* the assembled comparison at its own, smaller size (memory: E Np (3 Nq)^2 entries to assemble) */
    PetscCall(SquallHBElementsForDofs(N, adofs, E));
    PetscCall(Stamp(b, "N=%" PetscInt_FMT ": small operator for cg_assembled", N));
    PetscCall(SquallHBCreateSolver(b->comm, N, E, Source, NULL, iterations, &As, &ks, &xs, &bs));
    PetscCall(SquallHBGetInfo(As, &sinfo));
    PetscCall(KSPSetFromOptions(ks));
    PetscCall(Stamp(b, "N=%" PetscInt_FMT ": hbcg_small", N));
    PetscCall(BenchCG(b, ks, xs, bs, "hbcg_small", &sinfo, stream));
    PetscCall(Stamp(b, "N=%" PetscInt_FMT ": assembly, cg_assembled", N));
    PetscCall(SquallHBAssemble(As, b->device ? MATAIJCUSPARSE : MATAIJ, &B));
    PetscCall(KSPSetOperators(ks, B, B));
    PetscCall(KSPSetType(ks, KSPCG));
    PetscCall(BenchCG(b, ks, xs, bs, "cg_assembled", &sinfo, stream));
    PetscCall(MatDestroy(&B));
    PetscCall(KSPDestroy(&ks));
    PetscCall(VecDestroy(&xs));
    PetscCall(VecDestroy(&bs));
    PetscCall(MatDestroy(&As));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Bench       b;
  PetscInt    orders[16], norders = 16, iterations = 50, nsolvers = 3, nkernels = 3, layers[3], nlayers = 3;
  PetscReal   dofs = 2e6, adofs = 1e6;
  char       *solvers[3] = {NULL, NULL, NULL}, *kernels[3] = {NULL, NULL, NULL};
  PetscBool   flg, op = PETSC_TRUE, run[3] = {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};
  const char *names[3] = {"hbcg", "cg", "cg_assembled"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscMemzero(&b, sizeof(b)));
  b.comm   = PETSC_COMM_WORLD;
  b.reps   = 50;
  b.events = PETSC_TRUE;
  PetscCall(PetscTime(&b.t0));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-hb_log_setup", &flg));
  if (!flg) PetscCall(PetscOptionsSetValue(NULL, "-hb_log_setup", "1"));
  PetscCallMPI(MPI_Comm_size(b.comm, &b.size));
  for (PetscInt o = 0; o < 15; o++) orders[o] = o + 1;
  PetscOptionsBegin(b.comm, NULL, "hipBone benchmark sweep", NULL);
  PetscCall(PetscOptionsIntArray("-orders", "Polynomial orders", NULL, orders, &norders, &flg));
  if (!flg) norders = 15;
  for (PetscInt o = 0; o < norders; o++) PetscCheck(orders[o] >= 1 && orders[o] <= 15, b.comm, PETSC_ERR_ARG_OUTOFRANGE, "-orders: %" PetscInt_FMT " is out of range: valid orders are 1 to 15", orders[o]);
  PetscCall(PetscOptionsReal("-dofs", "Unknowns per order", NULL, dofs, &dofs, NULL));
  PetscCall(PetscOptionsInt("-reps", "Back-to-back applications per timing", NULL, b.reps, &b.reps, NULL));
  PetscCheck(b.reps >= 1, b.comm, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " is out of range: must be at least 1", b.reps);
  PetscCall(PetscOptionsInt("-cg_iterations", "Fixed CG iterations (0: no CG)", NULL, iterations, &iterations, NULL));
  PetscCheck(iterations >= 0, b.comm, PETSC_ERR_ARG_OUTOFRANGE, "-cg_iterations %" PetscInt_FMT " is out of range: must be at least 0", iterations);
  PetscCall(PetscOptionsStringArray("-solvers", "hbcg, cg, cg_assembled", NULL, solvers, &nsolvers, &flg));
  if (flg) {
    for (PetscInt s = 0; s < 3; s++) run[s] = PETSC_FALSE;
    for (PetscInt s = 0; s < nsolvers; s++) {
      PetscInt k;

      PetscCall(PetscEListFind(3, names, solvers[s], &k, &flg));
      PetscCheck(flg, b.comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -solvers entry %s: valid entries are hbcg, cg, cg_assembled", solvers[s]);
      run[k] = PETSC_TRUE;
      PetscCall(PetscFree(solvers[s]));
    }
  }
  PetscCall(PetscOptionsString("-tag", "Label copied into every record", NULL, b.tag, b.tag, sizeof(b.tag), NULL));
  PetscCall(PetscOptionsReal("-assembled_dofs", "Unknowns for PETSc cg + assembled matrix", NULL, adofs, &adofs, NULL));
  PetscCall(PetscOptionsBool("-operator", "Operator records", NULL, op, &op, NULL));
  PetscCall(PetscOptionsBool("-event_timing", "Element kernel and gather times from the log events (device: synchronizing GPU timers)", NULL, b.events, &b.events, NULL));
  PetscCall(PetscOptionsStringArray("-kernels", "-hb_kernel values to time in turn (sweep, layers, layers_tiled, mma)", NULL, kernels, &nkernels, &flg));
  if (!flg) nkernels = 0;
  PetscCall(PetscOptionsIntArray("-layers", "-hb_kernel_layers values to time in turn (2, 3, 4)", NULL, layers, &nlayers, &flg));
  if (!flg) nlayers = 0;
  for (PetscInt l = 0; l < nlayers; l++) PetscCheck(layers[l] >= 2 && layers[l] <= 4, b.comm, PETSC_ERR_ARG_OUTOFRANGE, "-layers: %" PetscInt_FMT " is out of range: valid values are 2, 3, 4", layers[l]);
  PetscOptionsEnd();

  for (PetscInt o = 0; o < norders; o++) {
    const PetscInt N = orders[o];
    PetscInt       E[3];
    Mat            A;
    KSP            ksp;
    Vec            x, rhs;

    PetscCall(SquallHBElementsForDofs(N, dofs, E));
    PetscCall(Stamp(&b, "N=%" PetscInt_FMT ": set-up (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " elements)", N, E[0], E[1], E[2]));
    /* without CG no right-hand side: at N = 3 and 4e7 unknowns its host loop over 9.5e7 element nodes takes seconds */
    PetscCall(SquallHBCreateSolver(b.comm, N, E, iterations ? Source : NULL, NULL, iterations, &A, &ksp, &x, &rhs));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &b.device, VECSEQCUDA, VECMPICUDA, ""));
    /* CG first: once the event timers are on (they cannot be turned off) they slow it down */
    if (iterations) PetscCall(BenchSolvers(&b, N, adofs, iterations, run, A, ksp, x, rhs));
    if (op) {
      if (b.events && !b.timers) PetscCall(HBMeasureEnableEventTiming(b.device));
      b.timers = b.events;
      PetscCall(Stamp(&b, "N=%" PetscInt_FMT ": operator benchmark", N));
      PetscCall(BenchOperatorKernels(&b, A, nkernels, kernels, nlayers, layers));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&rhs));
    PetscCall(MatDestroy(&A));
  }
  for (PetscInt k = 0; k < nkernels; k++) PetscCall(PetscFree(kernels[k]));
  PetscCall(PetscFinalize());
  return 0;
}
