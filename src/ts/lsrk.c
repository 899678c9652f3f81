/* TS "lsrk": explicit low-storage Runge-Kutta schemes in Williamson's 2N form.

   Per step, for stages i = 1..s with A_1 = 0:
       K = A_i K + dt F(t + c_i dt, Q)
       Q = Q + B_i K
   Q is the solution vector itself, so the scheme needs two registers (Q and K) plus the output F
   of the right-hand side: TSComputeRHSFunction() overwrites its output, it cannot accumulate into K.
   F is only ever written by the RHS and read once by the stage update that follows.

   Schemes:
     14s4  Niegemann, Diehl, Busch, "Efficient low-storage Runge-Kutta schemes with optimized stability
           regions", J. Comput. Phys. 231 (2012) 364-372: LSRK14(4), 14 stages, order 4.
     5s4   Carpenter, Kennedy, "Fourth-order 2N-storage Runge-Kutta schemes", NASA TM-109112 (1994),
           solution 3: 5 stages, order 4. */
#include "sys/squallimpl.h"
#include "ts/lsrkimpl.h"
#include "physics/kahan.h"
#include <petsc/private/tsimpl.h>

#define LSRK_MAX_STAGES 14

typedef struct {
  const char *name;
  const char *reference;
  PetscInt    stages, order;
  PetscReal   A[LSRK_MAX_STAGES], B[LSRK_MAX_STAGES], c[LSRK_MAX_STAGES];
} LSRKScheme;

/* Niegemann, Diehl, Busch (2012), LSRK14(4): published to 16 decimals, which is all the precision there
   is; in Butcher form these values satisfy the order-4 conditions to about 1e-14 (tests/test_lsrk.c). */
static const LSRKScheme LSRK14s4 = {
  "14s4",
  "Niegemann, Diehl, Busch, J. Comput. Phys. 231 (2012)",
  14,
  4,
  {0.0, -0.7188012108672410, -0.7785331173421570, -0.0053282796654044, -0.8552979934029281, -3.9564138245774565, -1.5780575380587385, -2.0837094552574054, -0.7483334182761610, -0.7032861106563359, 0.0013917096117681, -0.0932075369637460,
   -0.9514200470875948, -7.1151571693922548},
  {0.0367762454319673, 0.3136296607553959, 0.1531848691869027, 0.0030097086818182, 0.3326293790646110, 0.2440251405350864, 0.3718879239592277, 0.6204126221582444, 0.1524043173028741, 0.0760894927419266, 0.0077604214040978, 0.0024647284755382,
   0.0780348340049386, 5.5059777270269628},
  {0.0, 0.0367762454319673, 0.1249685262725025, 0.2446177702277698, 0.2476149531070420, 0.2969311120382472, 0.3978149645802642, 0.5270854589440328, 0.6981269994175695, 0.8190890835352128, 0.8527059887098624, 0.8604711817462826, 0.8627060376969976,
   0.8734213127600976},
};

/* Carpenter, Kennedy (1994), solution 3: the coefficients are exact rationals, so they are written
   as such and rounded once by the compiler rather than copied as truncated decimals. */
static const LSRKScheme LSRK5s4 = {
  "5s4",
  "Carpenter, Kennedy, NASA TM-109112 (1994), solution 3",
  5,
  4,
  {0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0, -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0},
  {1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0, 1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0, 2277821191437.0 / 14882151754819.0},
  {0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0, 2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0},
};

static const LSRKScheme *const LSRKSchemes[] = {&LSRK14s4, &LSRK5s4};

/* K = a K + dt F; Q = Q + b K. Replaceable so that a fused device kernel can do both updates in one
   pass over memory (reading Q, K, F once, writing Q, K once) instead of two Vec operations. With comp
   (-ts_lsrk_compensated) Q, or the entries of the fields it names, is updated with compensated summation
   (Kahan): comp->C keeps the low-order part of b K that the addition to Q rounded away. */
typedef PetscErrorCode (*LSRKStageUpdateFn)(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b);

typedef struct {
  const LSRKScheme      *scheme;
  Vec                    K;        /* the second 2N register */
  Vec                    F;        /* output of the RHS evaluation */
  Vec                    Q0;       /* copy of the solution at the start of the step, only with -ts_lsrk_rollback */
  PetscBool              rollback; /* keep Q0 so that rejected steps can be retried and TSRollBack() works */
  PetscInt               maxRej;   /* rejected attempts allowed over a solve (-ts_lsrk_max_rejections; -1: any number) */
  Vec                    C;        /* compensation of the solution update, only with -ts_lsrk_compensated */
  PetscBool              compensated;
  PetscInt               cfields[32], ncfields; /* -ts_lsrk_compensated_fields (none: every entry) */
  PetscInt               stride, nfields;       /* the solution's field layout (SquallTSLSRKSetFieldLayout()) */
  SquallLSRKCompensation comp;
  PetscBool              fused; /* use a fused stage where one is composed (-ts_lsrk_fused) */
  Vec                    Y[LSRK_MAX_STAGES];
  PetscReal              stage_time;
  TSStepStatus           status;
  LSRKStageUpdateFn      stageupdate;
} TS_LSRK;

/* Only Vec operations, so device vectors are updated where they live. VecAXPBY() with a = 0
   (first stage) overwrites K instead of scaling it, so a stale K (from a failed step) cannot leak in. */
static PetscErrorCode LSRKStageUpdate_Vec(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b)
{
  PetscFunctionBegin;
  PetscCall(VecAXPBY(K, dt, a, F));
  if (!comp) {
    PetscCall(VecAXPY(Q, b, K));
  } else {
    PetscScalar       *q, *c;
    const PetscScalar *k;
    PetscInt           n, nc = 0;

    PetscCall(VecGetLocalSize(Q, &n));
    PetscCall(VecGetArray(Q, &q));
    PetscCall(VecGetArray(comp->C, &c));
    PetscCall(VecGetArrayRead(K, &k));
    for (PetscInt i = 0; i < n; i++) {
      if (SquallLSRKCompensatedEntry(comp, i)) {
        SquallKahanAdd(&q[i], &c[i], b * k[i]);
        nc++;
      } else
        q[i] += b * k[i];
    }
    PetscCall(VecRestoreArrayRead(K, &k));
    PetscCall(VecRestoreArray(comp->C, &c));
    PetscCall(VecRestoreArray(Q, &q));
    PetscCall(PetscLogFlops(4.0 * nc + 2.0 * (n - nc)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LSRKFindScheme(TS ts, const char name[], const LSRKScheme **scheme)
{
  PetscBool match;

  PetscFunctionBegin;
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(LSRKSchemes); i++) {
    PetscCall(PetscStrcmp(LSRKSchemes[i]->name, name, &match));
    if (match) {
      *scheme = LSRKSchemes[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -ts_lsrk_type %s: valid types are 14s4, 5s4", name);
}

/* The stage check and the adaptor can reject a step after Q has been updated in place; without the
   copy Q0 there is nothing to restart from. */
static PetscErrorCode LSRKRestoreOrFail(TS ts, PetscBool touched, PetscInt stage)
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  if (!touched) PetscFunctionReturn(PETSC_SUCCESS);
  if (lsrk->Q0) {
    PetscCall(VecCopy(lsrk->Q0, ts->vec_sol));
    if (lsrk->C) PetscCall(VecZeroEntries(lsrk->C)); /* it belonged to the discarded updates */
  } else {
    /* a reason the RHS set is more informative than ours; either way the solution holds a partial step */
    if (!ts->reason) ts->reason = TS_DIVERGED_STEP_REJECTED;
    PetscCall(PetscInfo(ts, "Step %" PetscInt_FMT " abandoned at stage %" PetscInt_FMT " after the solution was updated in place; run with -ts_lsrk_rollback to keep a copy and retry\n", ts->steps, stage));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSStep_LSRK(TS ts)
{
  TS_LSRK                      *lsrk = (TS_LSRK *)ts->data;
  const LSRKScheme             *sch  = lsrk->scheme;
  const PetscInt                s    = sch->stages;
  Vec                           Q = ts->vec_sol, K = lsrk->K, F = lsrk->F;
  TSAdapt                       adapt;
  PetscInt                      rejections     = 0;
  PetscReal                     next_time_step = ts->time_step;
  SquallLSRKFusedStageFn        fused          = NULL;
  const SquallLSRKCompensation *comp           = lsrk->C ? &lsrk->comp : NULL;

  PetscFunctionBegin;
  PetscCall(TSGetAdapt(ts, &adapt));
  if (lsrk->fused) PetscCall(PetscObjectQueryFunction((PetscObject)ts, "SquallTSLSRKFusedStage_C", &fused));
  if (lsrk->Q0) PetscCall(VecCopy(Q, lsrk->Q0));
  lsrk->status = TS_STEP_INCOMPLETE;
  while (!ts->reason && lsrk->status != TS_STEP_COMPLETE) {
    const PetscReal t = ts->ptime, h = ts->time_step;
    PetscBool       stageok = PETSC_TRUE, accept;
    PetscInt        i;

    for (i = 0; i < s; i++) {
      lsrk->stage_time = t + sch->c[i] * h;
      /* The stage value Y_i is Q as the previous update left it, so post-stage follows pre-stage directly and,
         as in TSRK, comes before the stage's RHS evaluation. Only Y[i] is valid: earlier stages are not kept,
         and a change made to it changes the solution, which is accumulated in the same vector. */
      PetscCall(TSPreStage(ts, lsrk->stage_time));
      lsrk->Y[i] = Q;
      PetscCall(TSPostStage(ts, lsrk->stage_time, i, lsrk->Y));
      PetscCall(TSAdaptCheckStage(adapt, ts, lsrk->stage_time, Q, &stageok));
      if (!stageok) break;
      if (fused) {
        PetscBool done = PETSC_FALSE;
        PetscCall((*fused)(ts, lsrk->stage_time, Q, K, comp, sch->A[i], h, sch->B[i], &done));
        if (ts->reason < 0) {
          PetscCall(LSRKRestoreOrFail(ts, PETSC_TRUE, i)); /* the fused stage updates Q in place */
          PetscFunctionReturn(PETSC_SUCCESS);
        }
        if (done) continue;
      }
      PetscCall(TSComputeRHSFunction(ts, lsrk->stage_time, Q, F));
      /* an RHS that stops the solve (TSSetConvergedReason) leaves F meaningless: do not fold it into Q */
      if (ts->reason < 0) {
        PetscCall(LSRKRestoreOrFail(ts, (PetscBool)(i > 0), i));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      PetscCall(PetscLogEventBegin(SQUALL_LSRKUpdate, ts, Q, K, F));
      PetscCall((*lsrk->stageupdate)(Q, K, F, comp, sch->A[i], h, sch->B[i]));
      PetscCall(PetscLogEventEnd(SQUALL_LSRKUpdate, ts, Q, K, F));
    }
    if (stageok) {
      lsrk->status = TS_STEP_PENDING;
      PetscCall(TSAdaptCandidatesClear(adapt));
      PetscCall(TSAdaptCandidateAdd(adapt, sch->name, sch->order, 1, 1.0, (PetscReal)s, PETSC_TRUE));
      PetscCall(TSAdaptChoose(adapt, ts, h, NULL, &next_time_step, &accept));
      if (accept) {
        lsrk->status = TS_STEP_COMPLETE;
        ts->ptime += h;
        ts->time_step = next_time_step;
        break;
      }
      lsrk->status  = TS_STEP_INCOMPLETE;
      ts->time_step = next_time_step;
    }
    /* rejected, either at stage i (TSAdaptCheckStage has already shrunk the step) or by the adaptor */
    ts->reject++;
    PetscCall(LSRKRestoreOrFail(ts, (PetscBool)(i > 0), i));
    if (!ts->reason && ++rejections > ts->max_reject && ts->max_reject >= 0) {
      ts->reason = TS_DIVERGED_STEP_REJECTED;
      PetscCall(PetscInfo(ts, "Step %" PetscInt_FMT ": %" PetscInt_FMT " rejections exceed the %" PetscInt_FMT " allowed (-ts_max_reject), stopping the solve\n", ts->steps, rejections, ts->max_reject));
    }
    /* steps that keep failing here and there: a solve that only goes on by retrying is not trusted */
    if (!ts->reason && lsrk->maxRej >= 0 && ts->reject > lsrk->maxRej) {
      ts->reason = TS_DIVERGED_STEP_REJECTED;
      PetscCall(PetscInfo(ts, "Step %" PetscInt_FMT ": %" PetscInt_FMT " rejections in this solve exceed the %" PetscInt_FMT " allowed (-ts_lsrk_max_rejections), stopping the solve\n", ts->steps, ts->reject, lsrk->maxRej));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSRollBack_LSRK(TS ts)
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  PetscCheck(lsrk->Q0, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "TS lsrk updates the solution in place and can roll a step back only with -ts_lsrk_rollback (one more register)");
  PetscCall(VecCopy(lsrk->Q0, ts->vec_sol));
  if (lsrk->C) PetscCall(VecZeroEntries(lsrk->C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSInterpolate_LSRK(TS ts, PetscReal t, Vec X)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "TS lsrk keeps no stage history and does not support interpolation (-ts_exact_final_time interpolate); use -ts_exact_final_time matchstep or stepover");
}

static PetscErrorCode TSReset_LSRK(TS ts)
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&lsrk->K));
  PetscCall(VecDestroy(&lsrk->F));
  PetscCall(VecDestroy(&lsrk->Q0));
  PetscCall(VecDestroy(&lsrk->C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSDestroy_LSRK(TS ts)
{
  PetscFunctionBegin;
  PetscCall(TSReset_LSRK(ts));
  PetscCall(PetscFree(ts->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKSetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKGetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKGetTableau_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKSetFieldLayout_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSSetUp_LSRK(TS ts)
{
  TS_LSRK    *lsrk = (TS_LSRK *)ts->data;
  TSAdapt     adapt;
  TSAdaptType atype;
  PetscBool   iscfl, needserror;

  PetscFunctionBegin;
  PetscCall(TSCheckImplicitTerm(ts));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  if (!atype) {
    PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
    PetscCall(TSAdaptGetType(adapt, &atype));
  }
  PetscCall(PetscStrcmpAny(atype, &needserror, TSADAPTBASIC, TSADAPTDSP, TSADAPTGLEE, ""));
  PetscCheck(!needserror, PetscObjectComm((PetscObject)ts), PETSC_ERR_SUP, "-ts_adapt_type %s needs an embedded error estimate, which the 2N schemes of TS lsrk do not have: use -ts_adapt_type none or cfl", atype);
  /* PETSc's CFL adaptor refuses to run unless it always accepts; that suits a scheme that cannot undo an
     in-place step anyway. The adaptor then only picks the next step from the CFL time the RHS reported. */
  PetscCall(PetscStrcmp(atype, TSADAPTCFL, &iscfl));
  if (iscfl) PetscCall(TSAdaptSetAlwaysAccept(adapt, PETSC_TRUE));

  if (!lsrk->K) PetscCall(VecDuplicate(ts->vec_sol, &lsrk->K));
  if (!lsrk->F) PetscCall(VecDuplicate(ts->vec_sol, &lsrk->F));
  if (lsrk->rollback && !lsrk->Q0) PetscCall(VecDuplicate(ts->vec_sol, &lsrk->Q0));
  if (!lsrk->rollback) PetscCall(VecDestroy(&lsrk->Q0));
  if (lsrk->compensated && !lsrk->C) PetscCall(VecDuplicate(ts->vec_sol, &lsrk->C));
  if (!lsrk->compensated) PetscCall(VecDestroy(&lsrk->C));
  if (lsrk->C) PetscCall(VecZeroEntries(lsrk->C));
  PetscCall(VecZeroEntries(lsrk->K));
  lsrk->comp.C       = lsrk->C;
  lsrk->comp.stride  = 1;
  lsrk->comp.nfields = 1;
  lsrk->comp.mask    = 0;
  if (lsrk->ncfields) {
    PetscErrorCode (*layout)(TS, PetscInt *, PetscInt *) = NULL;
    PetscInt bs;
    /* the layout set on this TS, else the one its RHS provider composes (the ESDG), else the block size */
    PetscCall(VecGetBlockSize(ts->vec_sol, &bs));
    lsrk->comp.nfields = bs;
    PetscCall(PetscObjectQueryFunction((PetscObject)ts, "SquallTSLSRKFieldLayout_C", &layout));
    if (lsrk->nfields) {
      lsrk->comp.stride  = lsrk->stride;
      lsrk->comp.nfields = lsrk->nfields;
    } else if (layout)
      PetscCall((*layout)(ts, &lsrk->comp.stride, &lsrk->comp.nfields));
    PetscCheck(lsrk->comp.nfields > 1 && lsrk->comp.nfields <= 30, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_WRONGSTATE,
               "-ts_lsrk_compensated_fields needs the solution's field layout of 2 to 30 fields: SquallTSLSRKSetFieldLayout(), or the solution vector's block size (%" PetscInt_FMT ")", bs);
    for (PetscInt f = 0; f < lsrk->ncfields; f++) {
      PetscCheck(lsrk->cfields[f] >= 0 && lsrk->cfields[f] < lsrk->comp.nfields, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE,
                 "-ts_lsrk_compensated_fields: field %" PetscInt_FMT " is not in [0, %" PetscInt_FMT "), the solution's fields", lsrk->cfields[f], lsrk->comp.nfields);
      lsrk->comp.mask |= (PetscInt)1 << lsrk->cfields[f];
    }
    if (lsrk->comp.mask == ((PetscInt)1 << lsrk->comp.nfields) - 1) lsrk->comp.mask = 0; /* all of them */
  }
  /* device vectors get the fused kernel (one pass over Q, K, F instead of two vector operations) */
  {
    PetscBool iscuda;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)ts->vec_sol, &iscuda, VECSEQCUDA, VECMPICUDA, ""));
    lsrk->stageupdate = (iscuda && SquallHaveCUDA()) ? SquallLSRKStageUpdateCUDA : LSRKStageUpdate_Vec;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSSetFromOptions_LSRK(TS ts, SquallOptionItems PetscOptionsObject)
{
  TS_LSRK  *lsrk = (TS_LSRK *)ts->data;
  char      name[16];
  PetscBool flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Low-storage (2N) Runge-Kutta options");
  PetscCall(PetscStrncpy(name, lsrk->scheme->name, sizeof(name)));
  PetscCall(PetscOptionsString("-ts_lsrk_type", "Scheme: 14s4 (Niegemann-Diehl-Busch) or 5s4 (Carpenter-Kennedy)", "SquallTSLSRKSetType", name, name, sizeof(name), &flg));
  if (flg) PetscCall(SquallTSLSRKSetType(ts, name));
  PetscCall(PetscOptionsBool("-ts_lsrk_rollback", "Keep a copy of the solution at the start of each step so that rejected steps can be retried (one more register)", "TSRollBack", lsrk->rollback, &lsrk->rollback, NULL));
  PetscCall(PetscOptionsInt("-ts_lsrk_max_rejections", "Rejected step attempts allowed over a solve before it stops with DIVERGED_STEP_REJECTED (-1: any number; >= -1)", "TSStep", lsrk->maxRej, &lsrk->maxRej, NULL));
  PetscCheck(lsrk->maxRej >= -1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "-ts_lsrk_max_rejections %" PetscInt_FMT " is out of range: >= 0, or -1 for any number", lsrk->maxRej);
  PetscCall(PetscOptionsBool("-ts_lsrk_fused", "Let the RHS provider fuse the stage update into its last kernel where it can (the ESDG GPU RHS); off: RHS into F, then the update", "TSStep", lsrk->fused, &lsrk->fused, NULL));
  PetscCall(PetscOptionsBool("-ts_lsrk_compensated", "Update the solution with compensated (Kahan) summation, so that increments below its round-off are not lost (one more register; for conservation in single precision)", "TSStep", lsrk->compensated,
                             &lsrk->compensated, NULL));
  lsrk->ncfields = PETSC_STATIC_ARRAY_LENGTH(lsrk->cfields);
  PetscCall(PetscOptionsIntArray(
    "-ts_lsrk_compensated_fields",
    "Compensate only these fields of the solution (indices in its field layout, e.g. 0,4 for the ESDG's density and energy: their integrals conserved at the cost of a fifth of the register traffic each); implies -ts_lsrk_compensated",
    "SquallTSLSRKSetFieldLayout", lsrk->cfields, &lsrk->ncfields, &flg));
  if (!flg) lsrk->ncfields = 0;
  if (lsrk->ncfields) lsrk->compensated = PETSC_TRUE;
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TSView_LSRK(TS ts, PetscViewer viewer)
{
  TS_LSRK  *lsrk = (TS_LSRK *)ts->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  LSRK scheme %s: %" PetscInt_FMT " stages, order %" PetscInt_FMT " (%s)\n", lsrk->scheme->name, lsrk->scheme->stages, lsrk->scheme->order, lsrk->scheme->reference));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  work vectors: 2N register K and the RHS output%s%s\n", lsrk->rollback ? ", plus a rollback copy of the solution" : "", lsrk->compensated ? ", plus the compensation of the solution update" : ""));
    if (lsrk->compensated && lsrk->ncfields) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  compensated fields:"));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
      for (PetscInt f = 0; f < lsrk->ncfields; f++) PetscCall(PetscViewerASCIIPrintf(viewer, " %" PetscInt_FMT, lsrk->cfields[f]));
      PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    }
    if (lsrk->fused) {
      void (*fused)(void) = NULL;
      PetscCall(PetscObjectQueryFunction((PetscObject)ts, "SquallTSLSRKFusedStage_C", &fused));
      if (fused) PetscCall(PetscViewerASCIIPrintf(viewer, "  stage update fused into the RHS provider's kernels (-ts_lsrk_fused)\n"));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SquallTSLSRKSetType_LSRK(TS ts, const char name[])
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  /* the registers do not depend on the scheme, so a change after TSSetUp() needs no reallocation */
  PetscCall(LSRKFindScheme(ts, name, &lsrk->scheme));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SquallTSLSRKSetFieldLayout_LSRK(TS ts, PetscInt stride, PetscInt nfields)
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  lsrk->stride  = stride;
  lsrk->nfields = nfields;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SquallTSLSRKGetType_LSRK(TS ts, const char *name[])
{
  TS_LSRK *lsrk = (TS_LSRK *)ts->data;

  PetscFunctionBegin;
  *name = lsrk->scheme->name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SquallTSLSRKGetTableau_LSRK(TS ts, PetscInt *stages, PetscInt *order, const PetscReal *A[], const PetscReal *B[], const PetscReal *c[])
{
  const LSRKScheme *sch = ((TS_LSRK *)ts->data)->scheme;

  PetscFunctionBegin;
  if (stages) *stages = sch->stages;
  if (order) *order = sch->order;
  if (A) *A = sch->A;
  if (B) *B = sch->B;
  if (c) *c = sch->c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallTSLSRKSetType - selects the low-storage Runge-Kutta scheme of a `TS` of type "lsrk"

  Input Parameters:
+ ts   - the time stepper; ignored unless its type is "lsrk"
- name - "14s4" (Niegemann, Diehl, Busch 2012, the default) or "5s4" (Carpenter, Kennedy 1994)

  Options Database Key:
. -ts_lsrk_type <14s4,5s4> - the scheme
@*/
PetscErrorCode SquallTSLSRKSetType(TS ts, const char name[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscAssertPointer(name, 2);
  PetscTryMethod(ts, "SquallTSLSRKSetType_C", (TS, const char[]), (ts, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallTSLSRKSetFieldLayout - how the entries of the solution of a `TS` of type "lsrk" belong to fields, for
  -ts_lsrk_compensated_fields: local entry i is of field (i / stride) % nfields

  Input Parameters:
+ ts      - the time stepper; ignored unless its type is "lsrk"
. stride  - consecutive entries of one field (1: interleaved fields, the solution's block size nfields)
- nfields - number of fields, at most 30 (a bit mask of PetscInt selects them)

  Notes:
  Without a layout set here, the one the RHS provider composes on the TS ("SquallTSLSRKFieldLayout_C") is used: the
  ESDG's (`SquallESDGSetUpTS()`), per element each of the five conserved fields (rho, rho u, rho v, rho w, E) at its
  Np nodes in turn; else the solution's block size.
@*/
PetscErrorCode SquallTSLSRKSetFieldLayout(TS ts, PetscInt stride, PetscInt nfields)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscCheck(stride >= 1, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "SquallTSLSRKSetFieldLayout: stride %" PetscInt_FMT " must be >= 1", stride);
  PetscCheck(nfields >= 1 && nfields <= 30, PetscObjectComm((PetscObject)ts), PETSC_ERR_ARG_OUTOFRANGE, "SquallTSLSRKSetFieldLayout: nfields %" PetscInt_FMT " must be in [1, 30]", nfields);
  PetscTryMethod(ts, "SquallTSLSRKSetFieldLayout_C", (TS, PetscInt, PetscInt), (ts, stride, nfields));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallTSLSRKGetType - the name of the scheme of a `TS` of type "lsrk"
@*/
PetscErrorCode SquallTSLSRKGetType(TS ts, const char *name[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscAssertPointer(name, 2);
  PetscUseMethod(ts, "SquallTSLSRKGetType_C", (TS, const char *[]), (ts, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallTSLSRKGetTableau - the 2N coefficients A_i, B_i and the stage times c_i (each of length stages)
  of the scheme of a `TS` of type "lsrk". The Butcher weights, needed for instance by relaxation RK,
  follow from b_s = B_s, b_i = A_{i+1} b_{i+1} + B_i.

  Output Parameters (each may be NULL):
+ stages - number of stages
. order  - classical order
- A, B, c - arrays owned by the scheme, do not free
@*/
PetscErrorCode SquallTSLSRKGetTableau(TS ts, PetscInt *stages, PetscInt *order, const PetscReal *A[], const PetscReal *B[], const PetscReal *c[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(ts, TS_CLASSID, 1);
  PetscUseMethod(ts, "SquallTSLSRKGetTableau_C", (TS, PetscInt *, PetscInt *, const PetscReal *[], const PetscReal *[], const PetscReal *[]), (ts, stages, order, A, B, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  TSLSRK "lsrk" - explicit low-storage Runge-Kutta schemes in Williamson's 2N form: besides the
  solution, one register K and the RHS output F, whatever the number of stages.

  Options Database Keys:
+ -ts_lsrk_type <14s4,5s4> - scheme (default 14s4)
. -ts_lsrk_rollback        - keep a copy of the solution so that rejected steps are retried (default off:
                             a step rejected after its first stage then stops the solve with TS_DIVERGED_STEP_REJECTED)
. -ts_lsrk_max_rejections <n> - rejected attempts allowed over a solve (default 100, -1: any number); beyond them the
                             solve stops with TS_DIVERGED_STEP_REJECTED (-ts_max_reject limits those of one step)
. -ts_lsrk_compensated     - update the solution with compensated summation (one more register): in single precision
                             the increments of a slowly evolving state are otherwise partly rounded away, which
                             shows as a drift of the conserved integrals
. -ts_lsrk_compensated_fields <i,j,...> - compensate only these fields (SquallTSLSRKSetFieldLayout()); the other
                             entries are updated plainly and the register's passes cover these fields alone
- -ts_lsrk_fused <bool>    - let the RHS provider do the whole stage where it composes one (the ESDG GPU RHS folds
                             the update into its last kernels; default on, the same solution bit for bit)

  Notes:
  The schemes have no embedded error estimate; the default adaptor is "none", "cfl" is supported
  (the RHS reports its stable step with TSSetCFLTimeLocal()).
M*/
PetscErrorCode TSCreate_LSRK(TS ts)
{
  TS_LSRK *lsrk;

  PetscFunctionBegin;
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&lsrk));
  lsrk->scheme      = &LSRK14s4;
  lsrk->stageupdate = LSRKStageUpdate_Vec;
  lsrk->fused       = PETSC_TRUE;
  lsrk->maxRej      = 100; /* enough for the occasional rejection of a long run with an adaptor */
  ts->data          = (void *)lsrk;

  ts->ops->setup          = TSSetUp_LSRK;
  ts->ops->step           = TSStep_LSRK;
  ts->ops->reset          = TSReset_LSRK;
  ts->ops->destroy        = TSDestroy_LSRK;
  ts->ops->setfromoptions = TSSetFromOptions_LSRK;
  ts->ops->view           = TSView_LSRK;
  ts->ops->interpolate    = TSInterpolate_LSRK;
  ts->ops->rollback       = TSRollBack_LSRK;
  ts->default_adapt_type  = TSADAPTNONE;
  ts->usessnes            = PETSC_FALSE;

  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKSetType_C", SquallTSLSRKSetType_LSRK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKGetType_C", SquallTSLSRKGetType_LSRK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKGetTableau_C", SquallTSLSRKGetTableau_LSRK));
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKSetFieldLayout_C", SquallTSLSRKSetFieldLayout_LSRK));
  PetscFunctionReturn(PETSC_SUCCESS);
}
