/* The hipBone-style operator A = Z^T (S_L + lambda W) Z as a MATSHELL: a brick of hex spectral
   elements split over the ranks, numbered as if unstructured (src/ksp/semnumbering.c), applied by
   the CPU reference below or the CUDA kernels of src/cuda/hbop.cu, depending on where the vectors
   live. The pointwise arithmetic is src/physics/sem.h for both. */
#include "ksp/hbimpl.h"
#include "physics/sem.h"
#include <petscdmforest.h>
#include <petscdmplex.h>

static const char HBComposedName[] = "SquallHBMultDot_C";

const char *const SquallHBKernelVariants[] = {"v1", "v2", "v3", "v4", "v5", "v6", "v7", "SquallHBKernelVariant", "SQUALL_HB_KERNEL_", NULL};

/* the CUDA element kernel this operator's order runs (the "kernel" of SquallHBGetInfo() and of the
   benchmark records); the register cap exists for the v1 2D kernel from Nq = 14 on; the v3 2D kernel
   with 3 or 4 layers per step is "2d_v3_L3", "2d_v3_L4" (the default 2 keeps the name "2d_v3"), v4's
   "2d_v4", "2d_v4_L3", "2d_v4_L4", and v5's "2d_v5", "2d_v5_L3", "2d_v5_L4"; v6's low-order sweep is
   "3d_v6" (it replaces the 3D kernel), and from the switch on v6 runs v4's 2D kernel and takes its names */
const char *SquallHBKernelName(const Mat_HB *hb)
{
  const PetscBool use3d = SquallHBUse3D(hb);

  if (hb->kvariant == SQUALL_HB_KERNEL_V1) return use3d ? "3d" : (hb->capregs && hb->Nq >= 14 ? "2d_capped" : "2d");
  if (hb->kvariant == SQUALL_HB_KERNEL_V6 && use3d) return "3d_v6";
  if (hb->kvariant == SQUALL_HB_KERNEL_V7) return "v7_dmma";
  if (hb->kvariant >= SQUALL_HB_KERNEL_V3) { /* v3, v4 and v5 have no 3D kernel of their own; their 2D one by layers 2, 3, 4 */
    static const char *const    name[3][3] = {{"2d_v3", "2d_v3_L3", "2d_v3_L4"}, {"2d_v4", "2d_v4_L3", "2d_v4_L4"}, {"2d_v5", "2d_v5_L3", "2d_v5_L4"}};
    const SquallHBKernelVariant v          = hb->kvariant == SQUALL_HB_KERNEL_V6 ? SQUALL_HB_KERNEL_V4 : hb->kvariant;

    return use3d ? "3d_v2" : name[v - SQUALL_HB_KERNEL_V3][SquallHBV3Layers(hb) - 2];
  }
  return use3d ? "3d_v2" : "2d_v2";
}

PetscErrorCode SquallHBIsDeviceVec(Vec x, PetscBool *dev)
{
  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  if (SquallHaveCUDA()) PetscCall(PetscObjectTypeCompareAny((PetscObject)x, dev, VECSEQCUDA, VECMPICUDA, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBGetContext(Mat A, Mat_HB **hb)
{
  PetscErrorCode (*f)(void) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, HBComposedName, &f));
  PetscCheck(f, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat is not an operator made by SquallHBCreateOperator()");
  PetscCall(MatShellGetContext(A, hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_v3_layers, at creation and again in MatSetFromOptions() (a kernel choice only: the benchmark
   times every L on one operator) */
static PetscErrorCode HBV3LayersFromOptions(SquallOptionItems PetscOptionsObject, Mat_HB *hb)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-hb_v3_layers",
                            "CUDA, v3-v6 layer-by-layer kernel: layers each thread computes per step (2, 3 or 4; more layers share each shared-memory load of D and q, for more registers and shared memory; 0: the fastest measured for the order)",
                            "SquallHBCreateOperator", hb->v3layers, &hb->v3layers, NULL));
  PetscCheck(hb->v3layers == 0 || (hb->v3layers >= 2 && hb->v3layers <= 4), hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_v3_layers %" PetscInt_FMT " is out of range: valid values are 0 (by order), 2, 3, 4", hb->v3layers);
  PetscCall(PetscOptionsInt("-hb_2d_elements", "CUDA, v3/v4 layer-by-layer kernel: elements per thread block (0: by order, 4 at N = 5, whose one-element blocks fill 18 of a warp's 32 lanes, else 1; 2, 3, 4, 6 at N = 5)", "SquallHBCreateOperator",
                            hb->elems2d, &hb->elems2d, NULL));
  PetscCheck(hb->elems2d == 0 || hb->elems2d == 1 || (hb->N == 5 && (hb->elems2d == 2 || hb->elems2d == 3 || hb->elems2d == 4 || hb->elems2d == 6)), hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_2d_elements %" PetscInt_FMT " is out of range at N = %" PetscInt_FMT ": valid values are 0, 1, and at N = 5 also 2, 3, 4, 6", hb->elems2d, hb->N);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSetFromOptions_HB(Mat A, SquallOptionItems PetscOptionsObject)
{
  Mat_HB *hb;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscOptionsHeadBegin(PetscOptionsObject, "hipBone-style spectral-element operator (kernel choices that may change after creation)");
  PetscCall(HBV3LayersFromOptions(PetscOptionsObject, hb));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBSetFromOptions(Mat_HB *hb)
{
  PetscInt  nE = 3, nb = 6;
  PetscBool flg, set;

  PetscFunctionBegin;
  {
    /* without -hb_vec_type, a global -vec_type cuda (or standard) decides, as it does for PETSc's own objects */
    char      vt[64];
    PetscBool set, known;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vt, sizeof(vt), &set));
    if (set) {
      PetscCall(PetscStrcmpAny(vt, &known, "standard", VECSEQ, VECMPI, "cuda", VECSEQCUDA, VECMPICUDA, ""));
      if (known) PetscCall(PetscStrncpy(hb->vectype, vt, sizeof(hb->vectype)));
    }
  }
  PetscOptionsBegin(hb->comm, NULL, "hipBone-style spectral-element operator", "SquallHBCreateOperator");
  PetscCall(PetscOptionsInt("-hb_order", "Polynomial order N of the hex spectral elements (GLL nodes)", "SquallHBCreateOperator", hb->N, &hb->N, NULL));
  PetscCheck(hb->N >= 1 && hb->N <= SQUALL_LGL_MAX_ORDER, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_order %" PetscInt_FMT " is out of range: valid orders are 1 to %d", hb->N, SQUALL_LGL_MAX_ORDER);
  PetscCall(PetscOptionsIntArray("-hb_elements", "Elements Ex,Ey,Ez of the brick (one value: the same in every direction)", "SquallHBCreateOperator", hb->E, &nE, &flg));
  PetscCall(SquallOptionsCheckArrayCount(hb->comm, PetscOptionsObject->prefix, "-hb_elements", 3, 1));
  if (flg && nE == 1) hb->E[1] = hb->E[2] = hb->E[0];
  for (PetscInt d = 0; d < 3; d++) PetscCheck(hb->E[d] >= 1, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_elements: %" PetscInt_FMT " elements in direction %c, must be at least 1", hb->E[d], (char)('x' + d));
  PetscCall(PetscOptionsRealArray("-hb_bounds", "Extent x0,x1,y0,y1,z0,z1 of the brick", "SquallHBCreateOperator", hb->bounds, &nb, &flg));
  PetscCall(SquallOptionsCheckArrayCount(hb->comm, PetscOptionsObject->prefix, "-hb_bounds", 6, 0));
  for (PetscInt d = 0; d < 3; d++) PetscCheck(hb->bounds[2 * d + 1] > hb->bounds[2 * d], hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_bounds: the %c extent [%g, %g] is empty", (char)('x' + d), (double)hb->bounds[2 * d], (double)hb->bounds[2 * d + 1]);
  PetscCall(PetscOptionsBool("-hb_dirichlet", "Homogeneous Dirichlet conditions on the brick boundary (its nodes are not unknowns)", "SquallHBCreateOperator", hb->dirichlet, &hb->dirichlet, NULL));
  PetscCall(PetscOptionsReal("-hb_lambda", "Screening coefficient lambda of A = Z^T (S_L + lambda W) Z", "SquallHBCreateOperator", hb->lambda, &hb->lambda, NULL));
  PetscCheck(hb->lambda >= 0, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_lambda %g is out of range: valid values are >= 0", (double)hb->lambda);
  PetscCheck(hb->lambda > 0 || hb->dirichlet, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_lambda 0 without -hb_dirichlet makes the operator singular (constants): use lambda > 0 or Dirichlet conditions");
  PetscCall(PetscOptionsReal("-hb_shear", "Shear s of the map x' = x + s (y + z), y' = y + s z (full geometric factors)", "SquallHBCreateOperator", hb->shear, &hb->shear, NULL));
  PetscCheck(PetscAbsReal(hb->shear) <= 1, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_shear %g is out of range: valid values are -1 to 1", (double)hb->shear);
  PetscCall(
    PetscOptionsInt("-hb_kernel_switch", "CUDA operator: 3D thread blocks (v6: its multi-element sweep) for orders below this, layer-by-layer 2D blocks from it on (0: 3, or 10 for v6)", "SquallHBCreateOperator", hb->kswitch, &hb->kswitch, NULL));
  PetscCheck(hb->kswitch >= 0 && hb->kswitch <= 10, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel_switch %" PetscInt_FMT " is out of range: valid values are 0 (by variant), 1 (always 2D) to 10 (3D up to order 9)", hb->kswitch);
  PetscCall(PetscOptionsEnum("-hb_kernel_variant",
                             "CUDA operator kernels: v1 (first version: 2D keeps q and the result in registers), v2 (3D loads before the first barrier, 2D keeps q in shared memory), v3 (v2 in 3D; 2D two layers per step, fewer shared loads per node) "
                             "v4 (v3 with the 2D block shape and shared-memory pitches chosen per order against the bank conflicts of odd Nq) "
                             "v5 (v3's 2D sweep with two nodes per thread: each shared load of a column serves both, fewer shared-memory cycles per node, more registers) "
                             "v6 (below the switch a layer sweep with several elements per block, the t-direction in registers; v4 from the switch on) "
                             "or v7 (double precision, N = 9..15: one element per block, the contractions on the FP64 tensor cores)",
                             "SquallHBCreateOperator", SquallHBKernelVariants, (PetscEnum)hb->kvariant, (PetscEnum *)&hb->kvariant, &set));
  if (!set) hb->kvariant = SquallHBDefaultVariant(hb->N);
  PetscCheck(hb->kvariant != SQUALL_HB_KERNEL_V7 || (hb->N >= 9 && hb->N <= 15 && PetscDefined(USE_REAL_DOUBLE)), hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_kernel_variant v7 is available at -hb_order 9 to 15 in double precision, not at %" PetscInt_FMT "%s", hb->N, PetscDefined(USE_REAL_DOUBLE) ? "" : " (this build is single precision)");
  PetscCall(HBV3LayersFromOptions(PetscOptionsObject, hb));
  PetscCall(PetscOptionsBool("-hb_kernel_cap_registers", "CUDA, v1 layer-by-layer kernel, orders >= 13: cap registers at 128 for two blocks per SM (spills a little)", "SquallHBCreateOperator", hb->capregs, &hb->capregs, NULL));
  PetscCall(PetscOptionsBool("-hb_overlap", "Overlap the halo exchanges with the interior elements and owned rows (off: complete each exchange first, to measure what the overlap hides)", "SquallHBCreateOperator", hb->overlap, &hb->overlap, NULL));
  PetscCall(PetscOptionsBool("-hb_scramble_keys", "Number the nodes from scrambled lattice keys (a bijection that spreads each rank's keys over the whole range): checks that nothing relies on the brick's order", "SquallHBCreateOperator",
                             hb->scramble, &hb->scramble, NULL));
  {
    const char *parts[] = {"slabs", "forest"};
    PetscInt    part    = hb->forest ? 1 : 0;

    PetscCall(PetscOptionsEList("-hb_partition", "Elements of each rank: slabs (contiguous in the brick's lexicographic order) or forest (as a p8est DMForest of the same brick partitions them, squall's ESDG mesh)", "SquallHBCreateOperator", parts, 2,
                                parts[part], &part, NULL));
    hb->forest = part == 1 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscOptionsBool("-hb_log_setup", "Print the time of each setup phase to stderr", "SquallHBCreateOperator", hb->logsetup, &hb->logsetup, NULL));
  PetscCall(PetscOptionsString("-hb_vec_type", "Vectors of MatCreateVecs(): standard (host) or cuda (device); default -vec_type", "SquallHBCreateOperator", hb->vectype, hb->vectype, sizeof(hb->vectype), NULL));
  PetscOptionsEnd();
  {
    PetscBool std, cuda;

    PetscCall(PetscStrcmpAny(hb->vectype, &std, "standard", VECSEQ, VECMPI, ""));
    PetscCall(PetscStrcmpAny(hb->vectype, &cuda, "cuda", VECSEQCUDA, VECMPICUDA, ""));
    PetscCheck(std || cuda, hb->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -hb_vec_type %s: valid types are standard, cuda", hb->vectype);
    PetscCheck(!cuda || SquallHaveCUDA(), hb->comm, PETSC_ERR_SUP_SYS, "-hb_vec_type cuda: squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)");
    PetscCall(PetscStrncpy(hb->vectype, cuda ? VECCUDA : VECSTANDARD, sizeof(hb->vectype)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* node coordinates (xyz[3n+a]) of local element e, and optionally its geometric factors and node
   masses; the Jacobian comes from differentiating the coordinates, as for any element map */
static PetscErrorCode HBElementGeometry(Mat_HB *hb, PetscInt e, PetscReal *xyz, PetscReal *Ge, PetscReal *wJ)
{
  const PetscInt   Nq = hb->Nq, g = hb->elem[e];
  const PetscInt   ei[3] = {g % hb->E[0], (g / hb->E[0]) % hb->E[1], g / (hb->E[0] * hb->E[1])};
  const PetscReal *D = hb->D, s = hb->shear;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt  n     = i + Nq * (j + Nq * k);
        const PetscReal rr[3] = {hb->r[i], hb->r[j], hb->r[k]};
        PetscReal       X[3];

        for (PetscInt d = 0; d < 3; d++) X[d] = hb->bounds[2 * d] + (hb->bounds[2 * d + 1] - hb->bounds[2 * d]) * (ei[d] + (1 + rr[d]) / 2) / hb->E[d];
        xyz[3 * n + 0] = X[0] + s * (X[1] + X[2]);
        xyz[3 * n + 1] = X[1] + s * X[2];
        xyz[3 * n + 2] = X[2];
      }
    }
  }
  if (!Ge && !wJ) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt n    = i + Nq * (j + Nq * k);
        PetscReal      J[9] = {0}, Gn[SQUALL_SEM_NGEO], m;

        for (PetscInt a = 0; a < 3; a++) {
          for (PetscInt l = 0; l < Nq; l++) {
            J[3 * a + 0] += D[i * Nq + l] * xyz[3 * (l + Nq * (j + Nq * k)) + a];
            J[3 * a + 1] += D[j * Nq + l] * xyz[3 * (i + Nq * (l + Nq * k)) + a];
            J[3 * a + 2] += D[k * Nq + l] * xyz[3 * (i + Nq * (j + Nq * l)) + a];
          }
        }
        m = SquallSEMGeometricFactors(J, hb->w[i] * hb->w[j] * hb->w[k], Gn);
        PetscCheck(m > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "element %" PetscInt_FMT " is inverted at node %" PetscInt_FMT " (check -hb_shear, -hb_bounds)", g, n);
        if (Ge)
          for (PetscInt c = 0; c < SQUALL_SEM_NGEO; c++) Ge[SQUALL_SEM_NGEO * n + c] = Gn[c];
        if (wJ) wJ[n] = m;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_scramble_keys: key -> 16 ((a key) mod p), p the smallest prime >= nlat and 0 < a < p, a bijection of
   the lattice's keys onto every 16th number of [0, 16 p). The numbering may rely on nothing but the keys'
   identity: the operator is the same up to the order of its unknowns (the tests compare it by the nodes'
   coordinates and the CG histories across rank counts), and each rank's keys spread over more than four
   times their number (on several ranks; on one from order 2), where the numbering finds the distinct ones
   by sorting instead of a table of the range. */
static PetscBool HBIsPrime(PetscInt64 p)
{
  for (PetscInt64 d = 2; d * d <= p; d++)
    if (p % d == 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode HBScrambleKeys(PetscInt64 nlat, PetscInt n, PetscInt keys[])
{
  PetscInt64 p = PetscMax(nlat, 2), a;

  PetscFunctionBegin;
  while (!HBIsPrime(p)) p++;
  PetscCheck(16 * p <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_scramble_keys: the lattice of %" PetscInt64_FMT " nodes is too large for scrambled keys in PetscInt", nlat);
  a = (PetscInt64)(0.6180339887 * (double)p) % p; /* the golden ratio's fraction of p: consecutive keys land far apart */
  if (a == 0) a = 1;
  for (PetscInt i = 0; i < n; i++)
    if (keys[i] >= 0) keys[i] = (PetscInt)(16 * ((keys[i] * a) % p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_partition forest: the lexicographic indices of the elements p8est gives this rank on a brick of
   hb->E base cells (no refinement, no overlap), sorted. The brick is made with options of its own (a
   private database: the user's -dm_ options are for other DMs) and bounds [0, E], so that a cell's
   centroid is its lattice index + 1/2. */
static PetscErrorCode HBForestElements(Mat_HB *hb, PetscInt *nelem, PetscInt **glist)
{
  PetscOptions opts;
  DM           forest, plex;
  PetscInt     cStart, cEnd;
  char         size[128], bounds[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(size, sizeof(size), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscSNPrintf(bounds, sizeof(bounds), "0,%" PetscInt_FMT ",0,%" PetscInt_FMT ",0,%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_size", size));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_bounds", bounds));
  PetscCall(PetscOptionsSetValue(opts, "-dm_forest_initial_refinement", "0"));
  PetscCall(DMCreate(hb->comm, &forest));
  PetscCall(PetscObjectSetOptions((PetscObject)forest, opts));
  PetscCall(DMSetType(forest, DMP8EST));
  PetscCall(DMForestSetTopology(forest, "brick"));
  PetscCall(DMSetFromOptions(forest));
  PetscCall(DMSetUp(forest));
  PetscCall(DMConvert(forest, DMPLEX, &plex));
  PetscCall(DMPlexGetHeightStratum(plex, 0, &cStart, &cEnd));
  *nelem = cEnd - cStart;
  PetscCall(PetscMalloc1(PetscMax(*nelem, 1), glist));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscReal vol, x[3];
    PetscInt  l[3];

    PetscCall(DMPlexComputeCellGeometryFVM(plex, c, &vol, x, NULL));
    for (PetscInt d = 0; d < 3; d++) {
      l[d] = (PetscInt)PetscFloorReal(x[d]);
      PetscCheck(l[d] >= 0 && l[d] < hb->E[d] && PetscAbsReal(x[d] - l[d] - (PetscReal)0.5) < (PetscReal)1e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-hb_partition forest: cell %" PetscInt_FMT " is not a unit cell of the brick (centroid %g in %c)", c,
                 (double)x[d], "xyz"[d]);
    }
    (*glist)[c - cStart] = l[0] + hb->E[0] * (l[1] + hb->E[1] * l[2]);
  }
  PetscCall(PetscSortInt(*nelem, *glist));
  PetscCall(DMDestroy(&plex));
  PetscCall(DMDestroy(&forest));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBSetUp(Mat_HB *hb)
{
  const PetscInt N = hb->N, Nq = N + 1, Np = Nq * Nq * Nq;
  const PetscInt L[3] = {hb->E[0] * N + 1, hb->E[1] * N + 1, hb->E[2] * N + 1};
  PetscMPIInt    rank, size;
  PetscInt64     Eg, e0, e1, nkeys64;
  PetscInt      *keys, *order, *glist = NULL, nint = 0, nloc;
  PetscReal     *xyz;
  PetscLogDouble t0, *tlog = hb->logsetup ? &t0 : NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCallMPI(MPI_Comm_rank(hb->comm, &rank));
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  hb->Nq = Nq;
  hb->Np = Np;
  PetscCall(SquallLGLNodesWeights(N, hb->r, hb->w));
  PetscCall(SquallLGLDerivativeMatrix(N, NULL, hb->D));
  PetscCheck((PetscInt64)L[0] * L[1] * L[2] <= PETSC_INT_MAX, hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_elements %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " at -hb_order %" PetscInt_FMT " has more nodes than PetscInt indexes (configure PETSc with 64-bit indices)", hb->E[0], hb->E[1], hb->E[2], N);

  /* contiguous blocks of the lexicographic element order (slabs of the brick), or p8est's partition */
  Eg = (PetscInt64)hb->E[0] * hb->E[1] * hb->E[2];
  if (hb->forest) {
    PetscInt n = 0;

    /* the list's positions 0..n-1 stand for the slab's e0..e1-1 below */
    PetscCall(HBForestElements(hb, &n, &glist));
    e0 = 0;
    e1 = n;
  } else {
    e0 = Eg * rank / size;
    e1 = Eg * (rank + 1) / size;
  }
  nkeys64 = (e1 - e0) * Np;
  PetscCheck(nkeys64 <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "rank %d would hold %" PetscInt64_FMT " element nodes, more than PetscInt indexes: use more ranks or 64-bit indices", rank, nkeys64);
  hb->nelem = (PetscInt)(e1 - e0);
  if (hb->nelem) {
    const PetscInt64 first = glist ? glist[0] : e0, last = glist ? glist[hb->nelem - 1] : e1 - 1;

    PetscCall(PetscInfo(NULL, "-hb_partition %s: %" PetscInt_FMT " elements on this rank, lexicographic indices %" PetscInt64_FMT " to %" PetscInt64_FMT "\n", hb->forest ? "forest" : "slabs", hb->nelem, first, last));
  }
  hb->nelem_global = (PetscInt)Eg;
  nloc             = hb->nelem * Np;

  /* a key per element node: its index in the lattice of all nodes; -1 on a Dirichlet boundary */
  PetscCall(PetscMalloc1(nloc, &keys));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt g = glist ? glist[e] : (PetscInt)(e0 + e), ex = g % hb->E[0], ey = (g / hb->E[0]) % hb->E[1], ez = g / (hb->E[0] * hb->E[1]);

    for (PetscInt k = 0; k < Nq; k++) {
      for (PetscInt j = 0; j < Nq; j++) {
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt  ix = ex * N + i, iy = ey * N + j, iz = ez * N + k;
          const PetscBool bdry = (PetscBool)(ix == 0 || iy == 0 || iz == 0 || ix == L[0] - 1 || iy == L[1] - 1 || iz == L[2] - 1);

          keys[e * Np + i + Nq * (j + Nq * k)] = hb->dirichlet && bdry ? -1 : ix + L[0] * (iy + L[1] * iz);
        }
      }
    }
  }
  if (hb->scramble) PetscCall(HBScrambleKeys((PetscInt64)L[0] * L[1] * L[2], nloc, keys));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "lattice keys"));
  PetscCall(SquallSEMNumberingCreate(hb->comm, nloc, keys, tlog, &hb->num));
  PetscCall(PetscFree(keys));
  hb->nown    = hb->num.nown;
  hb->nshared = hb->num.nshared;
  hb->nghost  = hb->num.nghost;
  hb->nglobal = hb->num.nglobal;

  /* interior elements (no ghost node) first, so that they can be computed while ghosts travel */
  PetscCall(PetscMalloc1(hb->nelem, &order));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscBool halo = PETSC_FALSE;

    for (PetscInt n = 0; n < Np && !halo; n++) halo = (PetscBool)(hb->num.lidx[e * Np + n] >= hb->nown);
    if (!halo) order[nint++] = e;
  }
  hb->nint = nint;
  for (PetscInt e = 0, h = nint; e < hb->nelem; e++) {
    PetscBool halo = PETSC_FALSE;

    for (PetscInt n = 0; n < Np && !halo; n++) halo = (PetscBool)(hb->num.lidx[e * Np + n] >= hb->nown);
    if (halo) order[h++] = e;
  }
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "interior/halo element order"));
  PetscCall(PetscMalloc4(hb->nelem, &hb->elem, nloc, &hb->gidx, (size_t)SQUALL_SEM_NGEO * nloc, &hb->G, nloc, &hb->W));
  PetscCall(PetscMalloc1(3 * Np, &xyz));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt o = order[e];

    hb->elem[e] = glist ? glist[o] : (PetscInt)(e0 + o);
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt l = hb->num.lidx[o * Np + n];

      hb->gidx[e * Np + n] = l;
      hb->W[e * Np + n]    = l < 0 ? 0 : (PetscReal)1 / hb->num.mult[l];
    }
    PetscCall(HBElementGeometry(hb, e, xyz, hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, NULL));
  }
  PetscCall(PetscFree(xyz));
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(glist));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "element indices, weights, geometric factors"));

  /* Z^T as CSR over local nodes; positions ascend within a row */
  {
    const PetscInt nrows = hb->nown + hb->nghost;

    PetscCall(PetscCalloc1(nrows + 1, &hb->rowptr));
    for (PetscInt p = 0; p < nloc; p++)
      if (hb->gidx[p] >= 0) hb->rowptr[hb->gidx[p] + 1]++;
    for (PetscInt l = 0; l < nrows; l++) hb->rowptr[l + 1] += hb->rowptr[l];
    PetscCall(PetscMalloc1(hb->rowptr[nrows], &hb->col));
    {
      PetscInt *fill;

      PetscCall(PetscMalloc1(nrows, &fill));
      PetscCall(PetscArraycpy(fill, hb->rowptr, nrows));
      for (PetscInt p = 0; p < nloc; p++)
        if (hb->gidx[p] >= 0) hb->col[fill[hb->gidx[p]]++] = p;
      PetscCall(PetscFree(fill));
    }
  }
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "Z^T (CSR)"));
  PetscCall(PetscLogEventEnd(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host work arrays, made on first use so that a device-only run does not hold them */
static PetscErrorCode HBHostWork(Mat_HB *hb)
{
  PetscFunctionBegin;
  if (hb->yL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc5(PetscMax(hb->nelem * hb->Np, 1), &hb->yL, PetscMax(hb->nghost, 1), &hb->xghost, PetscMax(hb->nghost, 1), &hb->yghost, PetscMax(hb->nshared, 1), &hb->yshared, 4 * hb->Np, &hb->scratch));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_L = (S_L + lambda W) Z x on elements [e0, e1); x: owned values, xg: ghost values */
static PetscErrorCode HBLocalOpHost(Mat_HB *hb, PetscInt e0, PetscInt e1, const PetscScalar *x, const PetscScalar *xg, PetscScalar *yL)
{
  const PetscInt Nq = hb->Nq, Np = hb->Np, nown = hb->nown;
  PetscScalar   *q  = (PetscScalar *)hb->scratch;
  PetscReal     *gr = hb->scratch + Np, *gs = gr + Np, *gt = gs + Np;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBLocalOp, 0, 0, 0, 0));
  for (PetscInt e = e0; e < e1; e++) {
    const PetscInt *gi = hb->gidx + e * Np;

    for (PetscInt n = 0; n < Np; n++) q[n] = gi[n] < 0 ? 0 : (gi[n] < nown ? x[gi[n]] : xg[gi[n] - nown]);
    SquallSEMElementApply(Nq, hb->D, hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, hb->W + e * Np, hb->lambda, q, gr, gs, gt, yL + e * Np);
  }
  PetscCall(PetscLogFlops((e1 - e0) * SquallSEMOperatorFlops(Nq)));
  PetscCall(PetscLogEventEnd(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscScalar HBRowSum(const Mat_HB *hb, const PetscScalar *yL, PetscInt l)
{
  PetscScalar s = 0;

  for (PetscInt c = hb->rowptr[l]; c < hb->rowptr[l + 1]; c++) s += yL[hb->col[c]];
  return s;
}

/* y = Z^T y_L summed over ranks; with x, also the local part of x.y. The ghost rows go out first,
   the owned rows are summed while they travel; the received sums land in the shared rows. */
static PetscErrorCode HBGatherHost(Mat_HB *hb, const PetscScalar *yL, PetscScalar *y, const PetscScalar *x, PetscReal *dot)
{
  const PetscInt nown = hb->nown, npriv = hb->nown - hb->nshared;
  PetscMPIInt    size;
  PetscReal      d = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(PetscLogEventBegin(SQUALL_HBGather, 0, 0, 0, 0));
  if (size > 1) {
    for (PetscInt g = 0; g < hb->nghost; g++) hb->yghost[g] = HBRowSum(hb, yL, nown + g);
    PetscCall(PetscArrayzero(hb->yshared, hb->nshared));
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->num.sfy, MPIU_SCALAR, PETSC_MEMTYPE_HOST, hb->yghost, PETSC_MEMTYPE_HOST, hb->yshared, MPI_SUM));
  }
  for (PetscInt l = 0; l < nown; l++) y[l] = HBRowSum(hb, yL, l);
  if (size > 1) {
    PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, hb->yghost, hb->yshared, MPI_SUM));
    for (PetscInt s = 0; s < hb->nshared; s++) y[npriv + s] += hb->yshared[s];
  }
  if (x)
    for (PetscInt l = 0; l < nown; l++) d += PetscRealPart(x[l] * y[l]);
  if (dot) *dot = d;
  PetscCall(PetscLogFlops(hb->rowptr[nown + hb->nghost] + (x ? 2.0 * nown : 0)));
  PetscCall(PetscLogEventEnd(SQUALL_HBGather, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBMultHost(Mat_HB *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(HBHostWork(hb));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (size > 1) PetscCall(PetscSFBcastWithMemTypeBegin(hb->num.sfx, MPIU_SCALAR, PETSC_MEMTYPE_HOST, xa, PETSC_MEMTYPE_HOST, hb->xghost, MPI_REPLACE));
  if (size > 1 && !hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, xa, hb->xghost, MPI_REPLACE));
  PetscCall(HBLocalOpHost(hb, 0, hb->nint, xa, NULL, hb->yL));
  if (size > 1 && hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, xa, hb->xghost, MPI_REPLACE));
  PetscCall(HBLocalOpHost(hb, hb->nint, hb->nelem, xa, hb->xghost, hb->yL));
  PetscCall(HBGatherHost(hb, hb->yL, ya, wantdot ? xa : NULL, dot));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and, with dot, the global x.y from the same pass (the CG's p.Ap) */
static PetscErrorCode HBMult(Mat A, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  Mat_HB   *hb;
  PetscBool dev;
  PetscReal ldot = 0;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(PetscLogEventBegin(SQUALL_HBMult, A, x, y, 0));
  PetscCall(SquallHBIsDeviceVec(x, &dev));
  if (dev)
    PetscCall(SquallHBMultCUDA(hb, x, y, wantdot, &ldot));
  else
    PetscCall(HBMultHost(hb, x, y, wantdot, &ldot));
  PetscCall(PetscLogEventEnd(SQUALL_HBMult, A, x, y, 0));
  if (wantdot) PetscCallMPI(MPIU_Allreduce(&ldot, dot, 1, MPIU_REAL, MPIU_SUM, hb->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatMult_HB(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(HBMult(A, x, y, PETSC_FALSE, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SquallHBMultDot_HB(Mat A, Vec x, Vec y, PetscReal *dot)
{
  PetscFunctionBegin;
  PetscCall(HBMult(A, x, y, PETSC_TRUE, dot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBMultDot - y = A x and x.y in one pass over the vectors, for an operator of SquallHBCreateOperator()
  (any other Mat: MatMult() and VecDot()). Collective.
@*/
PetscErrorCode SquallHBMultDot(Mat A, Vec x, Vec y, PetscReal *dot)
{
  PetscErrorCode (*f)(Mat, Vec, Vec, PetscReal *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(dot, 4);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, HBComposedName, &f));
  if (f)
    PetscCall((*f)(A, x, y, dot));
  else {
    PetscScalar d;

    PetscCall(MatMult(A, x, y));
    PetscCall(VecDot(y, x, &d));
    *dot = PetscRealPart(d);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal is formed once on the host, element by element, and gathered like A x */
static PetscErrorCode MatGetDiagonal_HB(Mat A, Vec d)
{
  Mat_HB      *hb;
  PetscScalar *da;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(HBHostWork(hb));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    for (PetscInt k = 0; k < hb->Nq; k++)
      for (PetscInt j = 0; j < hb->Nq; j++)
        for (PetscInt i = 0; i < hb->Nq; i++) hb->yL[e * hb->Np + i + hb->Nq * (j + hb->Nq * k)] = SquallSEMNodeDiagonal(hb->Nq, hb->D, hb->G + (size_t)SQUALL_SEM_NGEO * e * hb->Np, hb->W + e * hb->Np, hb->lambda, i, j, k);
  }
  PetscCall(VecGetArrayWrite(d, &da));
  PetscCall(HBGatherHost(hb, hb->yL, da, NULL, NULL));
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_HB(Mat A, PetscViewer viewer)
{
  Mat_HB   *hb;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "hipBone operator Z^T (S_L + lambda W) Z: order %" PetscInt_FMT ", %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " elements, %" PetscInt_FMT " unknowns, lambda %g%s\n", hb->N, hb->E[0], hb->E[1],
                                     hb->E[2], hb->nglobal, (double)hb->lambda, hb->dirichlet ? ", Dirichlet boundary" : ""));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA kernel: %s (%s thread blocks, -hb_kernel_switch %" PetscInt_FMT ", -hb_kernel_variant %s, -hb_v3_layers %" PetscInt_FMT ", -hb_2d_elements %" PetscInt_FMT "), vectors %s\n", SquallHBKernelName(hb),
                                     SquallHBUse3D(hb) ? (hb->kvariant == SQUALL_HB_KERNEL_V6 ? "multi-element layer-sweep" : "3D") : "2D layer-by-layer", SquallHBSwitch(hb), SquallHBKernelVariants[hb->kvariant], SquallHBV3Layers(hb),
                                     SquallHBElems2D(hb), hb->vectype));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  elements partitioned %s\n", hb->forest ? "as a p8est DMForest of the brick (-hb_partition forest)" : "in slabs of the lexicographic order (-hb_partition slabs)"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_HB(void *ctx)
{
  Mat_HB *hb = (Mat_HB *)SQUALL_CTX(ctx);

  PetscFunctionBegin;
  if (hb->cuda) PetscCall(SquallHBDestroyCUDA(hb));
  PetscCall(SquallSEMNumberingDestroy(&hb->num));
  PetscCall(PetscFree4(hb->elem, hb->gidx, hb->G, hb->W));
  PetscCall(PetscFree(hb->rowptr));
  PetscCall(PetscFree(hb->col));
  if (hb->yL) PetscCall(PetscFree5(hb->yL, hb->xghost, hb->yghost, hb->yshared, hb->scratch));
  PetscCall(PetscFree(hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBCreateOperator - the hipBone-style operator A = Z^T (S_L + lambda W) Z as a `MATSHELL`

  Collective

  Input Parameters:
+ comm     - the communicator; the brick's elements are split into contiguous blocks over its ranks
. order    - polynomial order N (PETSC_DECIDE: 3)
- elements - elements Ex,Ey,Ez of the brick, or NULL (4,4,4)

  Output Parameter:
. A - the operator: `MatMult()` (on the device for VECCUDA vectors), `MatGetDiagonal()` (Jacobi),
      `MatCreateVecs()` giving vectors of type -hb_vec_type

  Options Database Keys (they override the arguments):
+ -hb_order <N>                     - order 1..15
. -hb_elements <Ex,Ey,Ez>           - the brick
. -hb_bounds <x0,x1,y0,y1,z0,z1>    - its extent (default the unit cube)
. -hb_lambda <l>                    - screening coefficient (default 1)
. -hb_dirichlet                     - homogeneous Dirichlet conditions on the boundary (lambda may then be 0)
. -hb_shear <s>                     - map the brick by x' = x + s (y + z), y' = y + s z (all six geometric factors nonzero)
. -hb_kernel_switch <K>             - CUDA: 3D thread blocks (v6: its multi-element sweep) for N < K, layer-by-layer 2D blocks for N >= K (default 0: 3, or 10 for v6)
. -hb_kernel_variant <v1,v2,v3,v4,v5,v6,v7> - CUDA: generation of the element kernels (default by order and precision, SquallHBDefaultVariant(): v6 at N <= 2 (single: 1-3, 5), v5 at N = 9, 11 and 13-15 (single: 9, 14, 15), v4 otherwise, the fastest on the H200; v6: below the switch a layer sweep with several elements per block (a thread per element column, the t-direction in registers) instead of the 3D kernel, v4's 2D kernel from the switch on; v5: v3's 2D sweep with two nodes per thread, each column-shaped shared load serving both; v4: v3 with the 2D block shape and shared-memory row pitches chosen per order against bank conflicts; v3: 2D two layers per step; v3-v5 run v2's 3D kernel below the switch; v1, v2 for comparison; v7, double precision at N = 9-15 only: one element per block, the contractions on the FP64 tensor cores, slower than v4/v5 on the H200)
. -hb_v3_layers <0,2,3,4>           - CUDA, v3-v6 2D kernel: layers per step and thread (default 0: the fastest measured for the order and variant; 3, 4: fewer shared-memory loads per node, more registers and shared memory); also read by `MatSetFromOptions()`
. -hb_2d_elements <0,1,2,3,4,6>      - CUDA, v3/v4 2D kernel: elements per thread block (default 0: 4 at N = 5, else 1; 2-6 only at N = 5)
. -hb_kernel_cap_registers          - CUDA, v1 2D kernel, N >= 13: 128 registers per thread, two blocks per SM
. -hb_overlap <bool>               - overlap the halo exchanges with the interior work (default true; false to measure what it hides)
. -hb_scramble_keys                 - number the nodes from a scrambled bijection of the lattice keys (a check that nothing relies on the brick's order)
. -hb_partition slabs|forest        - the elements of each rank: contiguous slabs of the brick, or as a p8est DMForest of the same brick partitions them
. -hb_log_setup                     - print the time of each setup phase to stderr (rank 0)
- -hb_vec_type <standard,cuda>      - type of the vectors of MatCreateVecs() (default: -vec_type if that is one of these, else standard)

  Notes:
  W holds the inverse multiplicity of each element node, so Z^T W Z = I and A = Z^T S_L Z + lambda I
  (see src/physics/sem.h). The global numbering is built from lattice keys of the element nodes as
  for an unstructured mesh; a node shared by several ranks is owned by one of them, chosen by rendezvous hashing
  of its key (an even split of each interface).
@*/
PetscErrorCode SquallHBCreateOperator(MPI_Comm comm, PetscInt order, const PetscInt elements[], Mat *A)
{
  Mat_HB *hb;

  PetscFunctionBegin;
  PetscAssertPointer(A, 4);
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&hb));
  hb->comm = comm;
  hb->N    = order == PETSC_DECIDE || order == PETSC_DEFAULT ? 3 : order;
  for (PetscInt d = 0; d < 3; d++) {
    hb->E[d]              = elements ? elements[d] : 4;
    hb->bounds[2 * d]     = 0;
    hb->bounds[2 * d + 1] = 1;
  }
  hb->lambda   = 1;
  hb->kswitch  = 0;                             /* by variant (SquallHBSwitch) */
  hb->kvariant = SquallHBDefaultVariant(hb->N); /* by order, also where -hb_kernel_variant is not given to MatSetFromOptions() */
  hb->v3layers = 0;                             /* by order (SquallHBV3Layers) */
  hb->elems2d  = 0;                             /* by order (SquallHBElems2D) */
  hb->overlap  = PETSC_TRUE;
  PetscCall(PetscStrncpy(hb->vectype, "standard", sizeof(hb->vectype)));
  PetscCall(HBSetFromOptions(hb));
  PetscCall(HBSetUp(hb));

  PetscCall(MatCreateShell(comm, hb->nown, hb->nown, hb->nglobal, hb->nglobal, hb, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_HB));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (void (*)(void))MatMult_HB));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_HB));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (void (*)(void))MatView_HB));
  PetscCall(MatShellSetOperation(*A, MATOP_SET_FROM_OPTIONS, (void (*)(void))MatSetFromOptions_HB));
  PetscCall(MatShellSetContextDestroy(*A, MatDestroy_HB));
  PetscCall(MatShellSetVecType(*A, hb->vectype));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscObjectComposeFunction((PetscObject)*A, HBComposedName, SquallHBMultDot_HB));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetInfo - sizes and parameters of an operator of SquallHBCreateOperator(). Not collective.
@*/
PetscErrorCode SquallHBGetInfo(Mat A, SquallHBInfo *info)
{
  Mat_HB *hb;

  PetscFunctionBegin;
  PetscAssertPointer(info, 2);
  PetscCall(SquallHBGetContext(A, &hb));
  info->order = hb->N;
  info->Nq    = hb->Nq;
  info->Np    = hb->Np;
  for (PetscInt d = 0; d < 3; d++) info->elements[d] = hb->E[d];
  info->nelem_global  = hb->nelem_global;
  info->nelem_local   = hb->nelem;
  info->ndof_global   = hb->nglobal;
  info->ndof_local    = hb->nown;
  info->nlocal_global = hb->nelem_global * hb->Np;
  info->lambda        = hb->lambda;
  info->dirichlet     = hb->dirichlet;
  info->kernel        = SquallHBKernelName(hb);
  info->layers        = hb->kvariant >= SQUALL_HB_KERNEL_V3 && !SquallHBUse3D(hb) ? SquallHBV3Layers(hb) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f at every owned node, or (rhs) Z^T of the node masses times f */
static PetscErrorCode HBNodalLoop(Mat A, SquallHBFunction f, void *ctx, PetscBool rhs, Vec v)
{
  Mat_HB      *hb;
  PetscReal   *xyz, *wJ;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(HBHostWork(hb));
  PetscCall(PetscMalloc2(3 * hb->Np, &xyz, hb->Np, &wJ));
  PetscCall(VecGetArrayWrite(v, &va));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(HBElementGeometry(hb, e, xyz, NULL, rhs ? wJ : NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];
      PetscScalar    fv;

      if (rhs) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        hb->yL[e * hb->Np + n] = l < 0 ? 0 : wJ[n] * fv;
      } else if (l >= 0 && l < hb->nown) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        va[l] = fv;
      }
    }
  }
  if (rhs) PetscCall(HBGatherHost(hb, hb->yL, va, NULL, NULL));
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscCall(PetscFree2(xyz, wJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBComputeRHS - b = Z^T M_L f: f at the element nodes weighted by the GLL node masses w |J|,
  summed into the global nodes. Collective.
@*/
PetscErrorCode SquallHBComputeRHS(Mat A, SquallHBFunction f, void *ctx, Vec b)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_TRUE, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBInterpolate - u = f at the global nodes. Not collective.
@*/
PetscErrorCode SquallHBInterpolate(Mat A, SquallHBFunction f, void *ctx, Vec u)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_FALSE, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetCoordinates - a new host Vec (block size 3, local size 3 x owned unknowns) with the
  coordinates of the owned global nodes, in the operator's numbering. Collective.
@*/
PetscErrorCode SquallHBGetCoordinates(Mat A, Vec *X)
{
  Mat_HB      *hb;
  PetscReal   *xyz;
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(VecCreate(hb->comm, X));
  PetscCall(VecSetSizes(*X, 3 * hb->nown, PETSC_DECIDE));
  PetscCall(VecSetBlockSize(*X, 3));
  PetscCall(VecSetType(*X, VECSTANDARD));
  PetscCall(PetscMalloc1(3 * hb->Np, &xyz));
  PetscCall(VecGetArrayWrite(*X, &xa));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(HBElementGeometry(hb, e, xyz, NULL, NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];

      if (l >= 0 && l < hb->nown)
        for (PetscInt a = 0; a < 3; a++) xa[3 * l + a] = xyz[3 * n + a];
    }
  }
  PetscCall(VecRestoreArrayWrite(*X, &xa));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBAssemble - the operator as an assembled matrix of the given type (e.g. MATAIJ,
  MATAIJCUSPARSE), from the same geometric factors: element matrices S_e + lambda W_e by COO
  assembly, zero entries dropped. Memory grows like E Np (3 Nq)^2: meant for modest sizes. Collective.
@*/
PetscErrorCode SquallHBAssemble(Mat A, MatType type, Mat *B)
{
  Mat_HB      *hb;
  PetscInt     Nq, Np;
  PetscReal   *Ke;
  PetscInt    *ci = NULL, *cj = NULL;
  PetscScalar *cv   = NULL;
  PetscCount   ncoo = 0, cap = 0;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  Nq = hb->Nq;
  Np = hb->Np;
  PetscCall(PetscMalloc1((size_t)Np * Np, &Ke));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscReal *Ge = hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, *D = hb->D;
    const PetscInt  *gi = hb->gidx + e * Np;

    /* S_pq = sum_m sum_ab D_a(m,p) G_ab(m) D_b(m,q): p, q on the lines through m */
    PetscCall(PetscArrayzero(Ke, (size_t)Np * Np));
    for (PetscInt mk = 0; mk < Nq; mk++) {
      for (PetscInt mj = 0; mj < Nq; mj++) {
        for (PetscInt mi = 0; mi < Nq; mi++) {
          const PetscInt   m = mi + Nq * (mj + Nq * mk), mm[3] = {mi, mj, mk};
          const PetscReal *G         = Ge + SQUALL_SEM_NGEO * m;
          const PetscReal  Gab[3][3] = {{G[0], G[1], G[2]}, {G[1], G[3], G[4]}, {G[2], G[4], G[5]}};

          for (PetscInt a = 0; a < 3; a++) {
            for (PetscInt u = 0; u < Nq; u++) {
              PetscInt pp[3] = {mi, mj, mk}, p;

              pp[a] = u;
              p     = pp[0] + Nq * (pp[1] + Nq * pp[2]);
              for (PetscInt b = 0; b < 3; b++) {
                const PetscReal c = D[mm[a] * Nq + u] * Gab[a][b];

                if (c == 0) continue;
                for (PetscInt v = 0; v < Nq; v++) {
                  PetscInt qq[3] = {mi, mj, mk};

                  qq[b] = v;
                  Ke[(size_t)p * Np + qq[0] + Nq * (qq[1] + Nq * qq[2])] += c * D[mm[b] * Nq + v];
                }
              }
            }
          }
        }
      }
    }
    for (PetscInt p = 0; p < Np; p++) Ke[(size_t)p * Np + p] += hb->lambda * hb->W[e * Np + p];
    for (PetscInt p = 0; p < Np; p++) {
      if (gi[p] < 0) continue;
      for (PetscInt q = 0; q < Np; q++) {
        if (gi[q] < 0 || (Ke[(size_t)p * Np + q] == 0 && p != q)) continue;
        if (ncoo == cap) {
          cap = PetscMax(2 * cap, 1024);
          PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &ci));
          PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &cj));
          PetscCall(PetscRealloc(sizeof(PetscScalar) * cap, &cv));
        }
        ci[ncoo] = gi[p] < hb->nown ? hb->num.rstart + gi[p] : hb->num.ghost_global[gi[p] - hb->nown];
        cj[ncoo] = gi[q] < hb->nown ? hb->num.rstart + gi[q] : hb->num.ghost_global[gi[q] - hb->nown];
        cv[ncoo] = Ke[(size_t)p * Np + q];
        ncoo++;
      }
    }
  }
  PetscCall(PetscFree(Ke));
  PetscCall(MatCreate(hb->comm, B));
  PetscCall(MatSetSizes(*B, hb->nown, hb->nown, hb->nglobal, hb->nglobal));
  PetscCall(MatSetType(*B, type));
  PetscCall(MatSetPreallocationCOO(*B, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(*B, cv, INSERT_VALUES));
  PetscCall(MatSetOption(*B, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*B, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(cj));
  PetscCall(PetscFree(cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host timing: the element loop, the gather, MatMult and an 8-read:1-write sweep */
static PetscErrorCode HBBenchmarkHost(Mat A, Mat_HB *hb, Vec x, Vec y, PetscInt reps, SquallHBBenchResult *res)
{
  const PetscScalar *xa;
  PetscScalar       *ya, *s[9];
  PetscLogDouble     t0, t1;
  const PetscInt     ns = PetscMax(PetscMin(hb->nelem * hb->Np, 1 << 24), 1 << 20);

  PetscFunctionBegin;
  /* one product first: it fills the ghost values the element loop reads */
  PetscCall(MatMult(A, x, y));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBLocalOpHost(hb, 0, hb->nelem, xa, hb->xghost, hb->yL));
  PetscCall(PetscTime(&t1));
  res->t_kernel = (PetscReal)((t1 - t0) / reps);
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBGatherHost(hb, hb->yL, ya, NULL, NULL));
  PetscCall(PetscTime(&t1));
  res->t_gather = (PetscReal)((t1 - t0) / reps);
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y));
  PetscCall(PetscTime(&t1));
  res->t_mult = (PetscReal)((t1 - t0) / reps);

  PetscCall(PetscLogEventBegin(SQUALL_HBStream, 0, 0, 0, 0));
  for (PetscInt a = 0; a < 9; a++) {
    PetscCall(PetscMalloc1(ns, &s[a]));
    for (PetscInt i = 0; i < ns; i++) s[a][i] = 1;
  }
  PetscCall(PetscTime(&t0));
  for (PetscInt r = 0; r < reps; r++)
    for (PetscInt i = 0; i < ns; i++) s[8][i] = s[0][i] + s[1][i] + s[2][i] + s[3][i] + s[4][i] + s[5][i] + s[6][i] + s[7][i];
  PetscCall(PetscTime(&t1));
  for (PetscInt a = 0; a < 9; a++) PetscCall(PetscFree(s[a]));
  PetscCall(PetscLogFlops(7.0 * ns * reps));
  PetscCall(PetscLogEventEnd(SQUALL_HBStream, 0, 0, 0, 0));
  res->t_stream     = (PetscReal)((t1 - t0) / reps);
  res->bytes_stream = 9.0 * ns * sizeof(PetscScalar);
  res->device       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBBenchmarkOperator - times reps back-to-back applications of the fused element kernel, of
  the Z^T gather and of MatMult(), and an 8-read:1-write streaming kernel (the empirical roofline),
  on vectors of the operator's -hb_vec_type: with CUDA events on the device, else with PetscTime.
  Collective (MatMult); the times are this rank's.
@*/
PetscErrorCode SquallHBBenchmarkOperator(Mat A, PetscInt reps, SquallHBBenchResult *res)
{
  Mat_HB     *hb;
  Vec         x, y;
  PetscBool   dev;
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscAssertPointer(res, 3);
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCheck(reps >= 1, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "reps %" PetscInt_FMT " must be at least 1", reps);
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(PetscRandomCreate(hb->comm, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  /* minimum traffic of the element kernel: per element node its index, 6 factors, W and the result;
     each local node's x once */
  res->flops_kernel = hb->nelem * SquallSEMOperatorFlops(hb->Nq);
  res->bytes_kernel = (PetscLogDouble)hb->nelem * hb->Np * (sizeof(PetscInt) + (SQUALL_SEM_NGEO + 1) * sizeof(PetscReal) + sizeof(PetscScalar)) + (PetscLogDouble)(hb->nown + hb->nghost) * sizeof(PetscScalar);
  PetscCall(SquallHBIsDeviceVec(x, &dev));
  if (dev)
    PetscCall(SquallHBBenchmarkCUDA(hb, x, y, reps, res));
  else
    PetscCall(HBBenchmarkHost(A, hb, x, y, reps, res));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBElementsForDofs - a brick of about target / N^3 elements (N^3 assembled unknowns per element),
  as cubic as possible: what hipBone's and NekBone's drivers size their runs by.
@*/
PetscErrorCode SquallHBElementsForDofs(PetscInt N, PetscReal target, PetscInt E[3])
{
  const PetscReal ne = PetscMax(target / ((PetscReal)N * N * N), 1);
  const PetscInt  e  = (PetscInt)PetscFloorReal(PetscCbrtReal(ne));

  PetscFunctionBegin;
  E[0] = E[1] = PetscMax(e, 1);
  E[2]        = PetscMax((PetscInt)PetscFloorReal(ne / (E[0] * E[1]) + 0.5), 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}
