static char help[] = "ESDG throughput: RHS evaluations per second and, on the GPU, the time of each kernel.\n"
                     "Prints one JSON object per order. The mesh comes from the usual options; the orders from\n"
                     "  -bench_orders 2,3,4   -bench_reps 20   -bench_peak_tflops 33.4 (the measured FP64 FMA rate)\n"
                     "  -bench_tag text (added to each record).\n"
                     "Run with -dm_vec_type cuda for the GPU.\n";

#include <squall.h>
#include "ts/esdgimpl.h"

int main(int argc, char **argv)
{
  PetscInt  orders[16] = {2, 3, 4}, norders = 16, reps = 20;
  PetscReal peak     = 33.4;
  char      tag[256] = "";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bench_orders", orders, &norders, NULL));
  if (norders == 16) norders = 3;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bench_reps", &reps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bench_peak_tflops", &peak, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_tag", tag, sizeof(tag), NULL));
  for (PetscInt k = 0; k < norders; k++) {
    SquallESDG     s;
    DM             dm;
    Vec            Q, F;
    char           order[8];
    PetscInt       nglob;
    PetscMPIInt    size;
    PetscLogDouble t0, t1, vflops;
    PetscReal      ms[4] = {0, 0, 0, 0}, rhs_ms;

    PetscCall(PetscSNPrintf(order, sizeof(order), "%" PetscInt_FMT, orders[k]));
    PetscCall(PetscOptionsSetValue(NULL, "-esdg_order", order));
    PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
    PetscCall(SquallESDGSetFromOptions(s));
    PetscCall(SquallESDGSetUp(s));
    PetscCall(SquallESDGGetDM(s, &dm));
    PetscCall(DMCreateGlobalVector(dm, &Q));
    PetscCall(VecDuplicate(Q, &F));
    PetscCall(SquallESDGSetInitialCondition(s, "random", Q));
    PetscCall(SquallDGMeshGetNumElements(s->mesh, NULL, NULL, &nglob));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F)); /* warm-up */
    if (s->useGPU) {
      PetscCall(SquallESDGTimeKernelsCUDA(s, Q, F, reps, ms));
      rhs_ms = ms[3];
    } else {
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t0));
      for (PetscInt r = 0; r < reps; r++) PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
      PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t1));
      rhs_ms = 1e3 * (t1 - t0) / reps;
    }
    {
      const PetscLogDouble pairs = 3.0 * s->mesh->Nfp * s->mesh->Nq * (s->mesh->Nq - 1) / 2.0 * nglob;
      const PetscReal      nodes = (PetscReal)nglob * s->mesh->Np;
      vflops                     = pairs * (99.0 + 2 * 13.0); /* the count of SquallESDGVolumeFlops, globally */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "{\"tag\": \"%s\", \"device\": \"%s\", \"ranks\": %d, \"N\": %" PetscInt_FMT ", \"elements\": %" PetscInt_FMT
                            ", \"nodes\": %.0f, \"rhs_ms\": %.6g, \"rhs_per_s\": %.6g, \"element_rhs_per_s\": %.6g, \"node_updates_per_s\": %.6g, "
                            "\"volume_full_ms\": %.6g, \"volume_half_ms\": %.6g, \"surface_ms\": %.6g, \"volume_flops\": %.6g, \"volume_half_tflops\": %.6g, \"volume_full_tflops\": %.6g, \"pct_fp64_peak_half\": %.4g, \"pct_fp64_peak_full\": %.4g}\n",
                            tag, s->useGPU ? "gpu" : "cpu", size, orders[k], nglob, (double)nodes, (double)rhs_ms, 1e3 / rhs_ms, 1e3 * nglob / rhs_ms, 1e3 * nodes / rhs_ms, (double)ms[0], (double)ms[1], (double)ms[2], (double)vflops,
                            ms[1] > 0 ? vflops / (ms[1] * 1e9) : 0.0, ms[0] > 0 ? vflops / (ms[0] * 1e9) : 0.0, ms[1] > 0 ? 100 * vflops / (ms[1] * 1e9) / peak : 0.0, ms[0] > 0 ? 100 * vflops / (ms[0] * 1e9) / peak : 0.0));
    }
    PetscCall(VecDestroy(&Q));
    PetscCall(VecDestroy(&F));
    PetscCall(SquallESDGDestroy(&s));
  }
  PetscCall(PetscFinalize());
  return 0;
}
