static char help[] = "ESDG throughput per order: RHS evaluations per second and, on the GPU, the time of each kernel.\n"
                     "Prints one JSON object per order. The brick's bounds and periodicity come from the usual options; for each order\n"
                     "the brick size and refinement are chosen so that the mesh has about -bench_nodes LGL nodes (0: the mesh options as given).\n"
                     "  -bench_orders 1,2,...,8   -bench_nodes 4096000   -bench_reps 20\n"
                     "  -bench_peak_tflops 33.4 (the measured FMA rate: FP64 33.4, FP32 65.3 in a single build)   -bench_tag text\n"
                     "Kernel times are the GPU times of the log events SqESDGVolume, SqESDGSurface, SqESDGNodeReduce (PetscLogGpuTime),\n"
                     "taken after the wall-clock RHS timing of every order so that the latter runs without the per-kernel synchronisation.\n"
                     "Run with -dm_vec_type cuda for the GPU.\n";

#include <squall.h>

#define BENCH_MAX_ORDERS 8

typedef struct {
  PetscInt   N, nglob, Np;
  SquallESDG s;
  Vec        Q, F;
  PetscBool  gpu;
  PetscReal  rhs_ms;
} BenchOrder;

/* brick b x b x b refined r times, b^3 8^r elements closest (in ratio) to nodes / (N+1)^3 */
static void BrickFor(PetscInt N, PetscReal nodes, PetscInt *b, PetscInt *r)
{
  const PetscReal target = nodes / (PetscReal)((N + 1) * (N + 1) * (N + 1));
  PetscReal       best   = PETSC_MAX_REAL;

  *b = 1;
  *r = 0;
  for (PetscInt rr = 7; rr >= 0; rr--) /* ties to the fewest base cells */
    for (PetscInt bb = 1; bb <= 8; bb++) {
      const PetscReal e = (PetscReal)(bb * bb * bb) * PetscPowReal(8.0, (PetscReal)rr), d = PetscAbsReal(PetscLogReal(e / target));
      if (d < best - 1e-12) {
        best = d;
        *b   = bb;
        *r   = rr;
      }
    }
}

static PetscErrorCode SetUpOrder(PetscInt N, PetscReal nodes, BenchOrder *o)
{
  char         v[64];
  DM           dm;
  SquallDGMesh mesh;
  VecType      vt;

  PetscFunctionBegin;
  o->N = N;
  PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, N));
  PetscCall(PetscOptionsSetValue(NULL, "-esdg_order", v));
  if (nodes > 0) {
    PetscInt b, r;
    BrickFor(N, nodes, &b, &r);
    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, b, b, b));
    PetscCall(PetscOptionsSetValue(NULL, "-dm_p4est_brick_size", v));
    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, r));
    PetscCall(PetscOptionsSetValue(NULL, "-dm_forest_initial_refinement", v));
  }
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &o->s));
  PetscCall(SquallESDGSetFromOptions(o->s));
  PetscCall(SquallESDGSetUp(o->s));
  PetscCall(SquallESDGGetDM(o->s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &o->Q));
  PetscCall(VecDuplicate(o->Q, &o->F));
  PetscCall(SquallESDGSetInitialCondition(o->s, "random", o->Q));
  PetscCall(SquallESDGGetMesh(o->s, &mesh));
  PetscCall(SquallDGMeshGetNumElements(mesh, NULL, NULL, &o->nglob));
  o->Np = (N + 1) * (N + 1) * (N + 1);
  PetscCall(VecGetType(o->Q, &vt));
  PetscCall(PetscStrbeginswith(vt, "seqcuda", &o->gpu));
  if (!o->gpu) PetscCall(PetscStrbeginswith(vt, "mpicuda", &o->gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeRHS(BenchOrder *o, PetscInt reps)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(SquallESDGComputeRHS(o->s, 0, o->Q, o->F)); /* warm-up */
  PetscCall(SquallSynchronize(o->F));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(SquallESDGComputeRHS(o->s, 0, o->Q, o->F));
  PetscCall(SquallSynchronize(o->F));
  PetscCall(PetscTime(&t1));
  o->rhs_ms = 1e3 * (t1 - t0) / reps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an event's GPU (or, on the host, wall) time per repetition in ms and its flops per repetition, summed over the ranks for the flops */
static PetscErrorCode EventPerRep(PetscLogStage stage, const char *name, PetscInt reps, PetscBool gpu, PetscReal *ms, PetscReal *flops)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  PetscLogDouble     loc[2], glob[2];

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, &info));
  loc[0] = info.time;
  loc[1] = info.flops;
#if defined(PETSC_HAVE_DEVICE)
  if (gpu) {
    loc[0] = info.GpuTime;
    loc[1] = info.GpuFlops;
  }
#endif
  PetscCallMPI(MPIU_Allreduce(&loc[0], &glob[0], 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(&loc[1], &glob[1], 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  *ms    = 1e3 * glob[0] / reps;
  *flops = glob[1] / reps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Report(BenchOrder *o, PetscInt reps, PetscReal peak, const char *tag)
{
  char          name[32], flux[16] = "es";
  PetscLogStage stage;
  PetscMPIInt   size;
  PetscReal     vms, vflops, sms, sflops, rms, rflops, dt;
  const double  nodes = (double)o->nglob * o->Np;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_surface_flux", flux, sizeof(flux), NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "ESDG bench N=%" PetscInt_FMT, o->N));
  PetscCall(PetscLogStageRegister(name, &stage));
  PetscCall(PetscLogStagePush(stage));
  for (PetscInt r = 0; r < reps; r++) PetscCall(SquallESDGComputeRHS(o->s, 0, o->Q, o->F));
  for (PetscInt r = 0; r < reps; r++) PetscCall(SquallESDGComputeTimeStep(o->s, o->Q, 1, &dt));
  PetscCall(PetscLogStagePop());
  PetscCall(EventPerRep(stage, "SqESDGVolume", reps, o->gpu, &vms, &vflops));
  PetscCall(EventPerRep(stage, "SqESDGSurface", reps, o->gpu, &sms, &sflops));
  PetscCall(EventPerRep(stage, "SqESDGNodeReduce", reps, o->gpu, &rms, &rflops));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "{\"tag\": \"%s\", \"device\": \"%s\", \"precision\": \"%s\", \"ranks\": %d, \"N\": %" PetscInt_FMT ", \"elements\": %" PetscInt_FMT ", \"nodes\": %.0f, \"surface_flux\": \"%s\", \"reps\": %" PetscInt_FMT
                        ", \"rhs_ms\": %.6g, \"rhs_per_s\": %.6g, \"element_rhs_per_s\": %.6g, \"node_updates_per_s\": %.6g, \"volume_flops\": %.6g, \"volume_half_ms\": %.6g, \"volume_half_tflops\": %.5g, \"pct_fp64_peak_half\": %.4g, "
                        "\"peak_tflops\": %g, \"surface_ms\": %.6g, \"node_reduce_ms\": %.6g}\n",
                        tag, o->gpu ? "gpu" : "cpu", sizeof(PetscReal) == 4 ? "single" : "double", size, o->N, o->nglob, nodes, flux, reps, (double)o->rhs_ms, 1e3 / o->rhs_ms, 1e3 * o->nglob / o->rhs_ms, 1e3 * nodes / o->rhs_ms, (double)vflops,
                        (double)vms, vms > 0 ? vflops / (vms * 1e9) : 0.0, vms > 0 ? 100 * vflops / (vms * 1e9) / peak : 0.0, (double)peak, (double)sms, (double)rms));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt   orders[BENCH_MAX_ORDERS] = {1, 2, 3, 4, 5, 6, 7, 8}, norders = BENCH_MAX_ORDERS, reps = 20;
  PetscReal  peak = PetscDefined(USE_REAL_SINGLE) ? 65.3 : 33.4, nodes = 4096000;
  char       tag[256] = "";
  BenchOrder o[BENCH_MAX_ORDERS];
  PetscBool  gpu = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin()); /* the kernel times are read from the log events */
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bench_orders", orders, &norders, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench_reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bench_nodes", &nodes, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bench_peak_tflops", &peak, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_tag", tag, sizeof(tag), NULL));
  PetscCheck(reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_reps %" PetscInt_FMT " is out of range: it must be >= 1", reps);
  for (PetscInt k = 0; k < norders; k++) PetscCheck(orders[k] >= 1 && orders[k] <= 8, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bench_orders: %" PetscInt_FMT " is out of range: 1 to 8", orders[k]);
  /* wall-clock RHS rates first, for every order; then the per-kernel GPU times, whose timing synchronises after every kernel */
  for (PetscInt k = 0; k < norders; k++) {
    PetscCall(SetUpOrder(orders[k], nodes, &o[k]));
    PetscCall(TimeRHS(&o[k], reps));
    gpu = (PetscBool)(gpu || o[k].gpu);
  }
  if (gpu) PetscCall(PetscLogGpuTime());
  for (PetscInt k = 0; k < norders; k++) {
    PetscCall(Report(&o[k], reps, peak, tag));
    PetscCall(VecDestroy(&o[k].Q));
    PetscCall(VecDestroy(&o[k].F));
    PetscCall(SquallESDGDestroy(&o[k].s));
  }
  PetscCall(PetscFinalize());
  return 0;
}
