static char help[] = "ESDG throughput: RHS evaluations per second and, on the GPU, the time of each kernel.\n"
                     "Prints one JSON object per order (on the GPU: the time of every kernel and of the ablation variants at N = 4). The mesh comes from the usual options; the orders from\n"
                     "  -bench_orders 2,3,4   -bench_reps 20   -bench_peak_tflops 33.4 (the measured FMA rate: FP64 33.4, FP32 65.3 in a single build)\n"
                     "  -bench_tag text (added to each record).\n"
                     "Run with -dm_vec_type cuda for the GPU.\n";

#include <squall.h>
#include "ts/esdgimpl.h"

int main(int argc, char **argv)
{
  PetscInt  orders[16] = {2, 3, 4}, norders = 16, reps = 20;
  PetscReal peak     = PetscDefined(USE_REAL_SINGLE) ? 65.3 : 33.4; /* the H200's measured FMA rates, FP32 and FP64 (spec/h200-anchors.md) */
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
    PetscReal      rhs_ms;

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
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F)); /* warm-up, and the ghost values for the face kernels */
    {
      const PetscReal nodes   = (PetscReal)nglob * s->mesh->Np;
      const char     *names[] = {"rhs",        "rhs_element", "volume_full",      "volume_half", "volume_lift", "faces",    "surface_element", "abl_unbalanced", "abl_nolog",   "abl_unfused",      "tune_minb1",
                                 "tune_minb6", "tune_minb8",  "tune_faces_minb5", "tune_minb7",  "tune_db5",    "tune_db6", "tune_recv_add",   "tune_minb10",    "tune_minb12", "tune_faces_minb4", "tune_faces_minb6"};
      const PetscInt  nn      = s->useGPU ? (PetscInt)(sizeof(names) / sizeof(names[0])) : 0;
      PetscReal       ms[sizeof(names) / sizeof(names[0])];
      char            rec[4096];
      size_t          len;

      {
        PetscLogDouble lf;
        /* the count the library logs (SquallESDGVolumeFlops), summed over the ranks */
        PetscCall(SquallESDGVolumeFlops(s, PETSC_TRUE, &lf));
        PetscCallMPI(MPIU_Allreduce(&lf, &vflops, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
      }
      for (PetscInt k2 = 0; k2 < nn; k2++) PetscCall(SquallESDGTimeKernelCUDA(s, Q, F, names[k2], reps, &ms[k2]));
      if (s->useGPU) {
        rhs_ms = ms[0];
      } else {
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        PetscCall(PetscTime(&t0));
        for (PetscInt r = 0; r < reps; r++) PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        PetscCall(PetscTime(&t1));
        rhs_ms = 1e3 * (t1 - t0) / reps;
      }
      PetscCall(PetscSNPrintf(rec, sizeof(rec),
                              "{\"tag\": \"%s\", \"device\": \"%s\", \"precision\": \"%s\", \"ranks\": %d, \"N\": %" PetscInt_FMT ", \"elements\": %" PetscInt_FMT
                              ", \"nodes\": %.0f, \"surface_flux\": \"%s\", \"rhs_ms\": %.6g, \"rhs_per_s\": %.6g, \"element_rhs_per_s\": %.6g, \"node_updates_per_s\": %.6g, \"volume_flops\": %.6g",
                              tag, s->useGPU ? "gpu" : "cpu", sizeof(PetscReal) == 4 ? "single" : "double", size, orders[k], nglob, (double)nodes, SquallSurfaceFluxTypes[s->surface], (double)rhs_ms, 1e3 / rhs_ms, 1e3 * nglob / rhs_ms,
                              1e3 * nodes / rhs_ms, (double)vflops));
      for (PetscInt k2 = 1; k2 < nn; k2++) { /* rhs_ms (k2 = 0) is in the record already */
        if (ms[k2] < 0) continue;
        PetscCall(PetscStrlen(rec, &len));
        PetscCall(PetscSNPrintf(rec + len, sizeof(rec) - len, ", \"%s_ms\": %.6g", names[k2], (double)ms[k2]));
        PetscBool face;
        PetscCall(PetscStrbeginswith(names[k2], "tune_faces", &face));
        if (k2 == 3 || (k2 >= 7 && !face)) { /* volume kernels without faces: FP64 (FP32) rate of the useful flops */
          PetscCall(PetscStrlen(rec, &len));
          PetscCall(PetscSNPrintf(rec + len, sizeof(rec) - len, ", \"%s_tflops\": %.5g, \"%s_pct_peak\": %.4g", names[k2], vflops / (ms[k2] * 1e9), names[k2], 100 * vflops / (ms[k2] * 1e9) / peak));
        }
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s}\n", rec));
    }
    PetscCall(VecDestroy(&Q));
    PetscCall(VecDestroy(&F));
    PetscCall(SquallESDGDestroy(&s));
  }
  PetscCall(PetscFinalize());
  return 0;
}
