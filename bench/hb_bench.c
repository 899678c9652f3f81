static char help[] = "hipBone benchmark sweep; one JSON object per line.\n"
                     "  -orders 1,2,...      polynomial orders (default 1..15)\n"
                     "  -dofs n              unknowns N_G per order (default 2e6; 4e7 reproduces hipBone's size)\n"
                     "  -reps k              back-to-back applications per timing (default 50)\n"
                     "  -cg_iterations k     fixed CG iterations for the figure of merit (default 50; 0: skip CG)\n"
                     "  -solvers list        hbcg (KSP hbcg + MATSHELL), cg (PETSc cg + the same MATSHELL), cg_assembled\n"
                     "                       (PETSc cg + the operator assembled as MATAIJCUSPARSE / MATAIJ) (default hbcg,cg: the\n"
                     "                       assembled matrix is built only when cg_assembled is listed)\n"
                     "  -assembled_dofs n    size for cg_assembled, which needs E Np (3 Nq)^2 matrix entries (default 1e6)\n"
                     "  -hb_vec_type cuda    run on the GPU (kernels timed with CUDA events); else on the host\n"
                     "  -tag name            copied into every record (to label variants such as -hb_kernel_switch runs)\n"
                     "  -kernel_variants v4,v5  time the operator kernel of each -hb_kernel_variant (v1, v2, v3, v4, v5, v6, v7) in turn, in this process (one\n"
                     "                       operator each, the \"kernel\" field names it; CG runs with the first); default: -hb_kernel_variant\n"
                     "  -v3_layers 2,3,4     where an operator runs the v3, v4 or v5 2D kernel, time it for each -hb_v3_layers in turn (the\n"
                     "                       same operator, switched by MatSetFromOptions(); \"kernel\" 2d_v3, 2d_v3_L3, 2d_v3_L4 (2d_v4.., 2d_v5..) and \"v3_layers\"\n"
                     "                       (the layers the kernel runs, 0 for the 3D and v6 kernels) name it; CG and later operators run with the\n"
                     "                       first); default: -hb_v3_layers\n"
                     "  -hb_log_setup 0      no timestamped setup phases on stderr (default on)\n"
                     "Records: \"hb_operator\" (element kernel GFLOP/s against the measured 8-read:1-write streaming roofline, the\n"
                     "Z^T gather, the whole MatMult), \"hb_cg\" (time per iteration, NekBone FOM, DOF x iterations / s).\n";

#include <squall.h>
#include <petscdevice.h>

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  *f = PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  return PETSC_SUCCESS;
}

static char Tag[64] = "";

/* a timestamped progress line on stderr (seconds since the start), so a run killed by a time limit
   shows where it was */
static PetscErrorCode Stamp(MPI_Comm comm, PetscLogDouble t0, const char fmt[], ...)
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
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "[hb_bench %8.3f s] %s\n", (double)(t - t0), msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchOperator(Mat A, PetscInt reps, PetscMPIInt size)
{
  MPI_Comm            comm = PetscObjectComm((PetscObject)A);
  SquallHBInfo        info;
  SquallHBBenchResult r;
  PetscLogDouble      loc[3], glob[3];
  PetscReal           tmax[4], tl[4];

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(SquallHBBenchmarkOperator(A, reps, &r));
  /* the slowest rank sets the times; flops and bytes add up */
  tl[0] = r.t_kernel;
  tl[1] = r.t_gather;
  tl[2] = r.t_mult;
  tl[3] = r.t_stream;
  PetscCallMPI(MPIU_Allreduce(tl, tmax, 4, MPIU_REAL, MPIU_MAX, comm));
  loc[0] = r.flops_kernel;
  loc[1] = r.bytes_kernel;
  loc[2] = r.bytes_stream;
  PetscCallMPI(MPIU_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, comm));
  {
    const PetscLogDouble gflops = glob[0] / tmax[0] / 1e9, gbs = glob[1] / tmax[0] / 1e9, stream = glob[2] / tmax[3] / 1e9, roof = stream * glob[0] / glob[1];
    const PetscLogDouble Nq = info.Nq, Np = Nq * Nq * Nq, nekflops = (15 * Np + 12 * Np * Nq) * info.nelem_global;

    PetscCall(PetscPrintf(comm,
                          "{\"bench\":\"hb_operator\",\"tag\":\"%s\",\"N\":%" PetscInt_FMT ",\"E\":%" PetscInt_FMT ",\"NG\":%" PetscInt_FMT ",\"NL\":%" PetscInt_FMT ",\"ranks\":%d,\"device\":%s,\"kernel\":\"%s\",\"v3_layers\":%" PetscInt_FMT
                          ",\"reps\":%" PetscInt_FMT ",\"t_kernel\":%.6e,\"kernel_gflops\":%.2f,\"kernel_gbs\":%.1f,\"kernel_bytes\":%.6e,\"kernel_flops\":%.6e,\"stream_gbs\":%.1f,\"roofline_gflops\":%.2f,\"roofline_fraction\":%.3f"
                          ",\"t_gather\":%.6e,\"t_mult\":%.6e,\"mult_gflops_nekbone\":%.2f}\n",
                          Tag, info.order, info.nelem_global, info.ndof_global, info.nlocal_global, size, r.device ? "true" : "false", info.kernel, info.layers, reps, (double)tmax[0], gflops, gbs, glob[1], glob[0], stream, roof, gflops / roof,
                          (double)tmax[1], (double)tmax[2], nekflops / tmax[2] / 1e9));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operator benchmark; an operator on the v3, v4 or v5 2D kernel is timed for each of the nlayers values
   of -v3_layers (switched by MatSetFromOptions()) and left on the first */
static PetscErrorCode BenchOperatorLayers(Mat A, PetscInt reps, PetscMPIInt size, PetscInt nlayers, const PetscInt layers[])
{
  SquallHBInfo info;
  PetscBool    v3, v4, v5;

  PetscFunctionBegin;
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(PetscStrbeginswith(info.kernel, "2d_v3", &v3));
  PetscCall(PetscStrbeginswith(info.kernel, "2d_v4", &v4)); /* v4 and v5 take -hb_v3_layers too */
  PetscCall(PetscStrbeginswith(info.kernel, "2d_v5", &v5));
  if (!(v3 || v4 || v5) || !nlayers) {
    PetscCall(BenchOperator(A, reps, size));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt l = nlayers - 1; l >= 0; l--) { /* the first last: CG and later operators run with it */
    char v[16];

    PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, layers[l]));
    PetscCall(PetscOptionsSetValue(NULL, "-hb_v3_layers", v));
    PetscCall(MatSetFromOptions(A));
    PetscCall(BenchOperator(A, reps, size));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BenchCG(Mat A, Mat P, const char solver[], KSPType type, PetscInt iterations, const SquallHBInfo *info, PetscMPIInt size)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)A);
  KSP            ksp;
  PC             pc;
  Vec            x, b;
  PetscLogDouble t0, t1, dt;
  PetscInt       its;
  PetscReal      rnorm;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(SquallHBComputeRHS(P, Source, NULL, b));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, iterations));
  PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSolve(ksp, b, x)); /* warm-up: device copies, first-touch, caches */
  PetscCall(VecZeroEntries(x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  dt = t1 - t0;
  {
    const PetscLogDouble Nq = info->Nq, Np = Nq * Nq * Nq, flops = (15 * Np + 19 * Np + 12 * Np * Nq) * info->nelem_global * its;

    PetscCall(PetscPrintf(comm,
                          "{\"bench\":\"hb_cg\",\"tag\":\"%s\",\"solver\":\"%s\",\"N\":%" PetscInt_FMT ",\"E\":%" PetscInt_FMT ",\"NG\":%" PetscInt_FMT ",\"ranks\":%d,\"iterations\":%" PetscInt_FMT
                          ",\"time\":%.6e,\"t_iter\":%.6e,\"fom_gflops\":%.2f,\"dofs_iter_per_s\":%.6e,\"rnorm\":%.6e}\n",
                          Tag, solver, info->order, info->nelem_global, info->ndof_global, size, its, dt, dt / its, flops / dt / 1e9, (PetscLogDouble)info->ndof_global * its / dt, (double)rnorm));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  PetscInt       orders[16], norders = 16, reps = 50, iterations = 50, nsolvers = 3, nvariants = 4, layers[3], nlayers = 3;
  PetscReal      dofs = 2e6, adofs = 1e6;
  char          *solvers[3] = {NULL, NULL, NULL}, *variants[4] = {NULL, NULL, NULL, NULL};
  PetscBool      flg, run[3]                                   = {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};
  PetscLogDouble t0;
  PetscMPIInt    size;
  const char    *names[3] = {"hbcg", "cg", "cg_assembled"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-hb_log_setup", &flg));
  if (!flg) PetscCall(PetscOptionsSetValue(NULL, "-hb_log_setup", "1"));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscInt o = 0; o < 15; o++) orders[o] = o + 1;
  PetscOptionsBegin(comm, NULL, "hipBone benchmark sweep", NULL);
  PetscCall(PetscOptionsIntArray("-orders", "Polynomial orders", NULL, orders, &norders, &flg));
  if (!flg) norders = 15;
  PetscCall(PetscOptionsReal("-dofs", "Unknowns per order", NULL, dofs, &dofs, NULL));
  PetscCall(PetscOptionsInt("-reps", "Back-to-back applications per timing", NULL, reps, &reps, NULL));
  PetscCheck(reps >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " is out of range: must be at least 1", reps);
  PetscCall(PetscOptionsInt("-cg_iterations", "Fixed CG iterations (0: no CG)", NULL, iterations, &iterations, NULL));
  PetscCheck(iterations >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cg_iterations %" PetscInt_FMT " is out of range: must be at least 0", iterations);
  PetscCall(PetscOptionsStringArray("-solvers", "hbcg, cg, cg_assembled", NULL, solvers, &nsolvers, &flg));
  if (flg) {
    for (PetscInt s = 0; s < 3; s++) run[s] = PETSC_FALSE;
    for (PetscInt s = 0; s < nsolvers; s++) {
      PetscInt k;

      PetscCall(PetscEListFind(3, names, solvers[s], &k, &flg));
      PetscCheck(flg, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -solvers entry %s: valid entries are hbcg, cg, cg_assembled", solvers[s]);
      run[k] = PETSC_TRUE;
      PetscCall(PetscFree(solvers[s]));
    }
  }
  PetscCall(PetscOptionsString("-tag", "Label copied into every record", NULL, Tag, Tag, sizeof(Tag), NULL));
  PetscCall(PetscOptionsReal("-assembled_dofs", "Unknowns for PETSc cg + assembled matrix", NULL, adofs, &adofs, NULL));
  PetscCall(PetscOptionsStringArray("-kernel_variants", "-hb_kernel_variant values to time in turn (v1, v2, v3, v4, v5, v6, v7)", NULL, variants, &nvariants, &flg));
  if (!flg) nvariants = 0;
  PetscCall(PetscOptionsIntArray("-v3_layers", "-hb_v3_layers values to time in turn for the v3, v4 and v5 2D kernels (2, 3, 4)", NULL, layers, &nlayers, &flg));
  if (!flg) nlayers = 0;
  for (PetscInt l = 0; l < nlayers; l++) PetscCheck(layers[l] >= 2 && layers[l] <= 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "-v3_layers: %" PetscInt_FMT " is out of range: valid values are 2, 3, 4", layers[l]);
  PetscOptionsEnd();

  for (PetscInt o = 0; o < norders; o++) {
    const PetscInt N = orders[o];
    PetscInt       E[3];
    Mat            A;
    SquallHBInfo   info;

    PetscCheck(N >= 1 && N <= SQUALL_LGL_MAX_ORDER, comm, PETSC_ERR_ARG_OUTOFRANGE, "-orders: %" PetscInt_FMT " is out of range: valid orders are 1 to %d", N, SQUALL_LGL_MAX_ORDER);
    PetscCall(SquallHBElementsForDofs(N, dofs, E));
    /* the later variants first, each on its own operator, so that the one CG runs with stays */
    for (PetscInt v = nvariants - 1; v >= 0; v--) {
      PetscCall(PetscOptionsSetValue(NULL, "-hb_kernel_variant", variants[v]));
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": operator setup (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " elements), -hb_kernel_variant %s", N, E[0], E[1], E[2], variants[v]));
      PetscCall(SquallHBCreateOperator(comm, N, E, &A));
      if (v == 0) break;
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": operator benchmark", N));
      PetscCall(BenchOperatorLayers(A, reps, size, nlayers, layers));
      PetscCall(MatDestroy(&A));
    }
    if (!nvariants) {
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": operator setup (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " elements)", N, E[0], E[1], E[2]));
      PetscCall(SquallHBCreateOperator(comm, N, E, &A));
    }
    PetscCall(SquallHBGetInfo(A, &info));
    PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": operator benchmark", N));
    PetscCall(BenchOperatorLayers(A, reps, size, nlayers, layers));
    if (iterations && run[0]) {
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": hbcg", N));
      PetscCall(BenchCG(A, A, names[0], SQUALL_KSPHBCG, iterations, &info, size));
    }
    if (iterations && run[1]) {
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": cg", N));
      PetscCall(BenchCG(A, A, names[1], KSPCG, iterations, &info, size));
    }
    PetscCall(MatDestroy(&A));
    if (iterations && run[2]) {
      Mat          B;
      Vec          v;
      VecType      vtype;
      PetscBool    dev;
      SquallHBInfo ainfo;

      /* the assembled comparison at its own, smaller size (memory: E Np (3 Nq)^2 entries to assemble) */
      PetscCall(SquallHBElementsForDofs(N, adofs, E));
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": small operator for cg_assembled", N));
      PetscCall(SquallHBCreateOperator(comm, N, E, &A));
      PetscCall(SquallHBGetInfo(A, &ainfo));
      PetscCall(MatCreateVecs(A, &v, NULL));
      PetscCall(VecGetType(v, &vtype));
      PetscCall(PetscStrbeginswith(vtype, "seqcuda", &dev));
      if (!dev) PetscCall(PetscStrbeginswith(vtype, "mpicuda", &dev));
      PetscCall(VecDestroy(&v));
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": assembly", N));
      PetscCall(SquallHBAssemble(A, dev ? MATAIJCUSPARSE : MATAIJ, &B));
      PetscCall(Stamp(comm, t0, "N=%" PetscInt_FMT ": hbcg_small, cg_assembled", N));
      PetscCall(BenchCG(A, A, "hbcg_small", SQUALL_KSPHBCG, iterations, &ainfo, size));
      PetscCall(BenchCG(B, A, names[2], KSPCG, iterations, &ainfo, size));
      PetscCall(MatDestroy(&B));
      PetscCall(MatDestroy(&A));
    }
  }
  for (PetscInt v = 0; v < nvariants; v++) PetscCall(PetscFree(variants[v]));
  PetscCall(PetscFinalize());
  return 0;
}
