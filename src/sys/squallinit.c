/* Package initialisation: log events, types, and the dynamic-library entry point that lets any
   PETSc program load squall with -dll_append libsquall.so. */
#include "sys/squallimpl.h"

PetscClassId  SQUALL_CLASSID;
PetscLogEvent SQUALL_DGMeshSetUp, SQUALL_ESDGRHS, SQUALL_ESDGVolume, SQUALL_ESDGSurface, SQUALL_ESDGSource, SQUALL_ESDGNodeReduce, SQUALL_LSRKUpdate, SQUALL_GPUCheck;
PetscLogEvent SQUALL_ESDGRHSHorizontal, SQUALL_ESDGRHSVertical, SQUALL_ESDGColumnJacobian, SQUALL_ESDGColumnPerturb, SQUALL_ESDGColumnExtract, SQUALL_ESDGColumnValues, SQUALL_ESDGColumnPattern, SQUALL_ESDGColumnFactor, SQUALL_ESDGColumnSolve;
PetscLogEvent SQUALL_P1SetUp, SQUALL_P1Geometry, SQUALL_P1AssembleCOO, SQUALL_P1AssembleSlots, SQUALL_P1SlotMap, SQUALL_P1AssembleGather, SQUALL_P1GatherSum, SQUALL_P1GatherMap, SQUALL_P1AssembleReduce, SQUALL_P1ReduceMap, SQUALL_P1SetValues,
  SQUALL_P1RHS, SQUALL_P1Metric;

PetscLogEvent SQUALL_HBSetUp, SQUALL_HBMult, SQUALL_HBLocalOp, SQUALL_HBGather, SQUALL_HBCGUpdate, SQUALL_HBCGSolution, SQUALL_HBCGDirection, SQUALL_HBCGDot;

static PetscBool SquallPackageInitialized = PETSC_FALSE;

static const char SquallCitation[] = "@misc{squall,\n"
                                     "  title = {squall: entropy-stable DG, P1 CG and matrix-free SEM building blocks for PETSc on GPUs},\n"
                                     "  year  = {2026}\n}\n";
static PetscBool  SquallCited      = PETSC_FALSE;

PetscBool SquallHaveCUDA(void)
{
#if defined(SQUALL_HAVE_CUDA)
  return PETSC_TRUE;
#else
  return PETSC_FALSE;
#endif
}

PetscErrorCode SquallFinalizePackage(void)
{
  PetscFunctionBegin;
  SquallPackageInitialized = PETSC_FALSE;
  SquallCited              = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallInitializePackage - registers squall's classes, log events and types (TS "lsrk", KSP "hbcg", PC "esdgcolumn").
  Idempotent; called from PetscDLLibraryRegister_squall() and by every squall constructor.
@*/
PetscErrorCode SquallInitializePackage(void)
{
  PetscFunctionBegin;
  if (SquallPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  SquallPackageInitialized = PETSC_TRUE;
  PetscCall(PetscCitationsRegister(SquallCitation, &SquallCited));
  PetscCall(PetscClassIdRegister("Squall", &SQUALL_CLASSID));
  PetscCall(PetscLogEventRegister("SqDGMeshSetUp", SQUALL_CLASSID, &SQUALL_DGMeshSetUp));
  PetscCall(PetscLogEventRegister("SqESDGRHS", SQUALL_CLASSID, &SQUALL_ESDGRHS));
  PetscCall(PetscLogEventRegister("SqESDGVolume", SQUALL_CLASSID, &SQUALL_ESDGVolume));
  PetscCall(PetscLogEventRegister("SqESDGSurface", SQUALL_CLASSID, &SQUALL_ESDGSurface));
  PetscCall(PetscLogEventRegister("SqESDGSource", SQUALL_CLASSID, &SQUALL_ESDGSource));
  PetscCall(PetscLogEventRegister("SqESDGNodeReduce", SQUALL_CLASSID, &SQUALL_ESDGNodeReduce));
  PetscCall(PetscLogEventRegister("SqLSRKUpdate", SQUALL_CLASSID, &SQUALL_LSRKUpdate));
  PetscCall(PetscLogEventRegister("SqGPUCheck", SQUALL_CLASSID, &SQUALL_GPUCheck));
  PetscCall(PetscLogEventRegister("SqESDGRHSHoriz", SQUALL_CLASSID, &SQUALL_ESDGRHSHorizontal));
  PetscCall(PetscLogEventRegister("SqESDGRHSVert", SQUALL_CLASSID, &SQUALL_ESDGRHSVertical));
  PetscCall(PetscLogEventRegister("SqColJacobian", SQUALL_CLASSID, &SQUALL_ESDGColumnJacobian));
  PetscCall(PetscLogEventRegister("SqColPerturb", SQUALL_CLASSID, &SQUALL_ESDGColumnPerturb));
  PetscCall(PetscLogEventRegister("SqColExtract", SQUALL_CLASSID, &SQUALL_ESDGColumnExtract));
  PetscCall(PetscLogEventRegister("SqColValues", SQUALL_CLASSID, &SQUALL_ESDGColumnValues));
  PetscCall(PetscLogEventRegister("SqColPattern", SQUALL_CLASSID, &SQUALL_ESDGColumnPattern));
  PetscCall(PetscLogEventRegister("SqColFactor", SQUALL_CLASSID, &SQUALL_ESDGColumnFactor));
  PetscCall(PetscLogEventRegister("SqColSolve", SQUALL_CLASSID, &SQUALL_ESDGColumnSolve));
  PetscCall(PetscLogEventRegister("SqP1SetUp", SQUALL_CLASSID, &SQUALL_P1SetUp));
  PetscCall(PetscLogEventRegister("SqP1Geometry", SQUALL_CLASSID, &SQUALL_P1Geometry));
  PetscCall(PetscLogEventRegister("SqP1AssembleCOO", SQUALL_CLASSID, &SQUALL_P1AssembleCOO));
  PetscCall(PetscLogEventRegister("SqP1AssembleSlot", SQUALL_CLASSID, &SQUALL_P1AssembleSlots));
  PetscCall(PetscLogEventRegister("SqP1SlotMap", SQUALL_CLASSID, &SQUALL_P1SlotMap));
  PetscCall(PetscLogEventRegister("SqP1AssembleGath", SQUALL_CLASSID, &SQUALL_P1AssembleGather));
  PetscCall(PetscLogEventRegister("SqP1GatherSum", SQUALL_CLASSID, &SQUALL_P1GatherSum));
  PetscCall(PetscLogEventRegister("SqP1GatherMap", SQUALL_CLASSID, &SQUALL_P1GatherMap));
  PetscCall(PetscLogEventRegister("SqP1AssembleRed", SQUALL_CLASSID, &SQUALL_P1AssembleReduce));
  PetscCall(PetscLogEventRegister("SqP1ReduceMap", SQUALL_CLASSID, &SQUALL_P1ReduceMap));
  PetscCall(PetscLogEventRegister("SqP1SetValues", SQUALL_CLASSID, &SQUALL_P1SetValues));
  PetscCall(PetscLogEventRegister("SqP1RHS", SQUALL_CLASSID, &SQUALL_P1RHS));
  PetscCall(PetscLogEventRegister("SqP1Metric", SQUALL_CLASSID, &SQUALL_P1Metric));
  PetscCall(PetscLogEventRegister("SqHBSetUp", SQUALL_CLASSID, &SQUALL_HBSetUp));
  PetscCall(PetscLogEventRegister("SqHBMult", SQUALL_CLASSID, &SQUALL_HBMult));
  PetscCall(PetscLogEventRegister("SqHBLocalOp", SQUALL_CLASSID, &SQUALL_HBLocalOp));
  PetscCall(PetscLogEventRegister("SqHBGather", SQUALL_CLASSID, &SQUALL_HBGather));
  PetscCall(PetscLogEventRegister("SqHBCGUpdate", SQUALL_CLASSID, &SQUALL_HBCGUpdate));
  PetscCall(PetscLogEventRegister("SqHBCGSolution", SQUALL_CLASSID, &SQUALL_HBCGSolution));
  PetscCall(PetscLogEventRegister("SqHBCGDirection", SQUALL_CLASSID, &SQUALL_HBCGDirection));
  PetscCall(PetscLogEventRegister("SqHBCGDot", SQUALL_CLASSID, &SQUALL_HBCGDot));
  PetscCall(SquallTSRegisterAll());
  PetscCall(SquallKSPRegisterAll());
  PetscCall(PCRegister(SQUALL_PCESDGCOLUMN, PCCreate_ESDGColumn));
  PetscCall(PetscRegisterFinalize(SquallFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry point found by PetscDLLibraryRegister when libsquall.so is loaded with -dll_append. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_squall(void)
{
  PetscFunctionBegin;
  PetscCall(SquallInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
