/* Measurements of bench/hb_bench.c, from public squall and PETSc API only:
   - the element kernel and the Z^T gather of a MatMult(), from the library's log events "SqHBLocalOp"
     and "SqHBGather" (with HBMeasureEnableEventTiming() PETSc times their device work with its GPU
     timers, which synchronize after each timed kernel; on the host their wall time);
   - the whole MatMult(), back to back, by wall clock between two synchronizations;
   - the streaming rate: VecMAXPY() of 7 vectors, 8 reads and 1 write per entry (PETSc's device
     kernel does it in one pass), the empirical roofline of the operator.
   Included by bench/hb_bench.c only. */
#pragma once
#include <squall.h>

/* the log handler that PetscLogEventGetPerfInfo() reads (started by -log_view too) and, for device
   runs, PETSc's GPU timers */
static PetscErrorCode HBMeasureEnableEventTiming(PetscBool device)
{
  PetscBool active;

  PetscFunctionBegin;
  PetscCall(PetscLogIsActive(&active));
  if (!active) PetscCall(PetscLogDefaultBegin());
  if (device) PetscCall(PetscLogGpuTime());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* time (GPU time on the device) and flops accumulated so far by the event of this name in the main stage */
static PetscErrorCode HBMeasureEvent(const char name[], PetscBool device, PetscLogDouble *t, PetscLogDouble *flops)
{
  PetscLogEvent      ev;
  PetscLogStage      stage;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogStageGetId("Main Stage", &stage));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, &info));
  *t     = info.time;
  *flops = info.flops;
#if defined(PETSC_HAVE_DEVICE)
  if (device) {
    *t     = info.GpuTime;
    *flops = info.GpuFlops;
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogDouble t_kernel, t_gather, t_mult; /* seconds per application (this rank); t_kernel, t_gather 0 without event timing */
  PetscLogDouble flops_kernel;               /* element-kernel flops per application, as the library logs them */
} HBMeasureOperator;

/* reps back-to-back products y = A x on random x; with events, the kernel and gather times from the log */
static PetscErrorCode HBMeasureMatMult(Mat A, PetscInt reps, PetscBool events, PetscBool device, HBMeasureOperator *m)
{
  Vec            x, y;
  PetscRandom    rnd;
  PetscLogDouble t0, t1, k0 = 0, k1 = 0, g0 = 0, g1 = 0, f0 = 0, f1 = 0, fg;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)A), &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(A, x, y)); /* warm-up: the device copy of the operator, caches */
  PetscCall(SquallSynchronize(y));
  if (events) {
    PetscCall(HBMeasureEvent("SqHBLocalOp", device, &k0, &f0));
    PetscCall(HBMeasureEvent("SqHBGather", device, &g0, &fg));
  }
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y));
  PetscCall(SquallSynchronize(y));
  PetscCall(PetscTime(&t1));
  if (events) {
    PetscCall(HBMeasureEvent("SqHBLocalOp", device, &k1, &f1));
    PetscCall(HBMeasureEvent("SqHBGather", device, &g1, &fg));
  }
  m->t_mult       = (t1 - t0) / reps;
  m->t_kernel     = (k1 - k0) / reps;
  m->t_gather     = (g1 - g0) / reps;
  m->flops_kernel = (f1 - f0) / reps;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the streaming rate (bytes per second, this rank) of y += sum of 7 vectors, n entries each, of the
   type of like's vectors: reps sweeps after one untimed one */
static PetscErrorCode HBMeasureStream(Vec like, PetscInt n, PetscInt reps, PetscLogDouble *rate)
{
  Vec            v[8];
  PetscBool      cuda;
  PetscScalar    a[7] = {1, 1, 1, 1, 1, 1, 1};
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)like, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  for (PetscInt i = 0; i < 8; i++) {
    PetscCall(VecCreate(PETSC_COMM_SELF, &v[i]));
    PetscCall(VecSetSizes(v[i], n, n));
    PetscCall(VecSetType(v[i], cuda ? VECSEQCUDA : VECSEQ));
    PetscCall(VecSet(v[i], i ? 1.0 / i : 0));
  }
  PetscCall(VecMAXPY(v[0], 7, a, v + 1));
  PetscCall(SquallSynchronize(v[0]));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(VecMAXPY(v[0], 7, a, v + 1));
  PetscCall(SquallSynchronize(v[0]));
  PetscCall(PetscTime(&t1));
  *rate = 9.0 * n * sizeof(PetscScalar) * reps / (t1 - t0);
  for (PetscInt i = 0; i < 8; i++) PetscCall(VecDestroy(&v[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
