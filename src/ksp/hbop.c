/* The hipBone-style operator A = Z^T (S_L + lambda W) Z as a MATSHELL: its options, creation,
   destruction and info. A brick of hex spectral elements split over the ranks, numbered as if
   unstructured (src/ksp/semnumbering.c, set up in src/ksp/hbgeometry.c), applied by the CPU reference
   of src/ksp/hbmult.c or the CUDA kernels of src/cuda/hbop.cu, depending on where the vectors live. */
#include "ksp/hbimpl.h"

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
  PetscCall(PetscObjectQueryFunction((PetscObject)A, SquallHBComposedName, &f));
  PetscCheck(f, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "Mat is not an operator made by SquallHBCreateOperator()");
  PetscCall(MatShellGetContext(A, hb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernel and geometry options may change after creation (src/ksp/hbkernel.c, src/ksp/hbgeometry.c) */
static PetscErrorCode MatSetFromOptions_HB(Mat A, SquallOptionItems PetscOptionsObject)
{
  Mat_HB *hb;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscOptionsHeadBegin(PetscOptionsObject, "hipBone-style spectral-element operator (kernel choices that may change after creation)");
  PetscCall(SquallHBKernelFromOptions(PetscOptionsObject, hb));
  PetscCall(SquallHBGeometryFromOptions(PetscOptionsObject, hb));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBSetFromOptions(Mat_HB *hb)
{
  PetscInt  nE = 3, nb = 6;
  PetscBool flg;

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
  PetscCall(PetscOptionsEList("-hb_mesh", "Mesh: brick (the -hb_bounds box, sheared by -hb_shear), kershaw (the CEED BP Kershaw map of the box, curved elements), perturbed (the brick's vertices moved at random: straight-sided trilinear elements)",
                              "SquallHBCreateOperator", SquallHBMeshes, 3, SquallHBMeshes[hb->mesh], &hb->mesh, NULL));
  PetscCall(PetscOptionsReal("-hb_kershaw_eps", "-hb_mesh kershaw: the Kershaw parameter eps in (0, 1] (1: the uniform brick)", "SquallHBCreateOperator", hb->kershaw_eps, &hb->kershaw_eps, NULL));
  PetscCheck(hb->kershaw_eps > 0 && hb->kershaw_eps <= 1, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kershaw_eps %g is out of range: valid values are in (0, 1]", (double)hb->kershaw_eps);
  PetscCheck(hb->mesh != HB_MESH_KERSHAW || (hb->E[0] % 6 == 0 && hb->E[1] % 2 == 0 && hb->E[2] % 2 == 0), hb->comm, PETSC_ERR_ARG_INCOMP,
             "-hb_mesh kershaw needs -hb_elements Ex,Ey,Ez with Ex a multiple of 6 and Ey, Ez even (the map's layers and kinks on element faces), not %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]);
  PetscCall(PetscOptionsReal("-hb_perturb_eps", "-hb_mesh perturbed: each interior vertex moves by up to eps element widths per direction (boundary vertices along the boundary), 0 <= eps < 0.5", "SquallHBCreateOperator", hb->perturb_eps,
                             &hb->perturb_eps, NULL));
  PetscCheck(hb->perturb_eps >= 0 && hb->perturb_eps < 0.5, hb->comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_perturb_eps %g is out of range: valid values are 0 <= eps < 0.5", (double)hb->perturb_eps);
  PetscCall(PetscOptionsInt("-hb_perturb_seed", "-hb_mesh perturbed: seed of the vertex displacements (a hash of each vertex's index: the same mesh on any rank count)", "SquallHBCreateOperator", hb->perturb_seed, &hb->perturb_seed, NULL));
  PetscCall(SquallHBGeometryFromOptions(PetscOptionsObject, hb));
  PetscCall(SquallHBKernelFromOptions(PetscOptionsObject, hb));
  PetscCall(PetscOptionsBool("-hb_overlap", "Overlap the halo exchanges with the interior elements and owned rows (off: complete each exchange first, to measure what the overlap hides)", "SquallHBCreateOperator", hb->overlap, &hb->overlap, NULL));
  PetscCall(PetscOptionsEList("-hb_scatter",
                              "How a device product sums the element results into y (Z^T): auto (on one rank atomic with mma, else by order, the table of src/ksp/hbkernel.c; on several ranks gather), "
                              "gather (CSR row sums, reproducible bit for bit) or atomic (atomic adds from the element kernels, with p.Ap summed there: no element-local array, not reproducible bit for bit)",
                              "SquallHBCreateOperator", SquallHBScatters, 3, SquallHBScatters[hb->scatter], &hb->scatter, NULL));
  PetscCall(PetscOptionsBool("-hb_single_rows", "The element kernels write the rows of nodes of one element copy (inside an element, or on a boundary face) themselves, so that Z^T sums only the others (device products: under gather only)",
                             "SquallHBCreateOperator", hb->single, &hb->single, NULL));
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

static PetscErrorCode MatDestroy_HB(void *ctx)
{
  Mat_HB *hb = (Mat_HB *)SQUALL_CTX(ctx);

  PetscFunctionBegin;
  PetscCall(SquallHBDestroyCUDA(&hb->dev));
  PetscCall(SquallSEMNumberingDestroy(&hb->num));
  PetscCall(PetscFree2(hb->elem, hb->gidx));
  PetscCall(PetscFree(hb->G));
  PetscCall(PetscFree(hb->V));
  PetscCall(PetscFree(hb->F));
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
. -hb_mesh brick|kershaw|perturbed  - the brick (default); the CEED BP Kershaw map of it (curved elements; Ex a multiple of 6, Ey, Ez even); its vertices moved at random (straight-sided elements)
. -hb_kershaw_eps <eps>             - kershaw: the Kershaw parameter in (0, 1] (default 0.3)
. -hb_perturb_eps <eps>             - perturbed: largest vertex displacement per direction in element widths, [0, 0.5) (default 0.2)
. -hb_perturb_seed <n>              - perturbed: seed of the displacements (default 1; the same mesh on any rank count)
. -hb_geometry stored|trilinear|affine|auto - where the element kernels get the geometric factors: 6 per node; computed from each element's 8 vertices; one 3x3 matrix per element; auto (default): affine if every element is a parallelepiped, trilinear if straight-sided, else stored. Also read by `MatSetFromOptions()`
. -hb_kernel <auto,sweep,layers,layers_tiled,mma> - CUDA element kernel (default auto: by order, precision and GPU, `SquallHBGetDefaultKernel()`: mma at order 15 in double precision on a GPU that runs it, else the table's); sweep: several elements per block, a thread per element column (orders 1-9); layers: a thread per node of a layer, several layers per step; layers_tiled: the layer kernel with two nodes per thread; mma: the contractions on the FP64 tensor cores (double precision, orders 7 and 15, compute capability 8.0 or later; `SquallHBKernelAvailable()`)
. -hb_kernel_layers <0,2,3,4>       - CUDA, layers and layers_tiled: layers per step and thread (default 0: by order); also read by `MatSetFromOptions()`, like the other kernel options
. -hb_kernel_elements <0,1,2,3,4,6> - CUDA, layers: elements per thread block (default 0: by order; 2-6 only at order 5)
. -hb_overlap <bool>               - overlap the halo exchanges with the interior work (default true; false to measure what it hides)
. -hb_scatter <auto,gather,atomic> - device products: Z^T as CSR row sums (reproducible bit for bit) or by atomic adds from the element kernels; auto (default): atomic on one rank with the mma kernel and, with the others, at the orders where it measured faster (double precision: all but 13 and 15), else gather
. -hb_single_rows <bool>            - the element kernels write the rows of one element copy themselves and Z^T sums only the others (default true; device products: under -hb_scatter gather only)
. -hb_scramble_keys                 - number the nodes from a scrambled bijection of the lattice keys (a check that nothing relies on the brick's order)
. -hb_partition slabs|forest        - the elements of each rank: contiguous slabs of the brick, or as a p8est DMForest of the same brick partitions them
. -hb_log_setup                     - print the time of each setup phase to stderr (rank 0)
- -hb_vec_type <standard,cuda>      - type of the vectors of MatCreateVecs() (default: -vec_type if that is one of these, else standard)

  Notes:
  W holds the inverse multiplicity of each element node, so Z^T W Z = I and A = Z^T S_L Z + lambda I: the
  products apply the element stiffness S_L and add lambda x to the assembled rows, so W is never stored or
  read. The global numbering is built from lattice keys of the element nodes as for an unstructured mesh; a
  node shared by several ranks is owned by one of them, chosen by rendezvous hashing of its key (an even split
  of each interface).
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
  hb->lambda       = 1;
  hb->kernel       = SQUALL_HB_KERNEL_AUTO; /* by order (SquallHBGetDefaultKernel) */
  hb->layers       = 0;
  hb->elements     = 0;
  hb->overlap      = PETSC_TRUE;
  hb->single       = PETSC_TRUE;
  hb->mesh         = HB_MESH_BRICK;
  hb->kershaw_eps  = 0.3;
  hb->perturb_eps  = 0.2;
  hb->perturb_seed = 1;
  hb->geometry     = SQUALL_HB_GEOMETRY_AUTO;
  PetscCall(PetscStrncpy(hb->vectype, "standard", sizeof(hb->vectype)));
  PetscCall(HBSetFromOptions(hb));
  PetscCall(SquallHBSetUp(hb));

  PetscCall(MatCreateShell(comm, hb->nown, hb->nown, hb->nglobal, hb->nglobal, hb, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))SquallHBMatMult));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (void (*)(void))SquallHBMatMult));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))SquallHBMatGetDiagonal));
  PetscCall(MatShellSetOperation(*A, MATOP_VIEW, (void (*)(void))SquallHBMatView));
  PetscCall(MatShellSetOperation(*A, MATOP_SET_FROM_OPTIONS, (void (*)(void))MatSetFromOptions_HB));
  PetscCall(MatShellSetContextDestroy(*A, MatDestroy_HB));
  PetscCall(MatShellSetVecType(*A, hb->vectype));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscObjectComposeFunction((PetscObject)*A, SquallHBComposedName, SquallHBMatMultDot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetInfo - sizes and parameters of an operator of SquallHBCreateOperator(). Not collective.
@*/
PetscErrorCode SquallHBGetInfo(Mat A, SquallHBInfo *info)
{
  Mat_HB        *hb;
  SquallHBKernel k;

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
  PetscCall(SquallHBResolveKernel(hb, &k, &info->layers, &info->block_elements));
  info->kernel = SquallHBKernels[k];
  {
    SquallHBGeometry g;

    PetscCall(SquallHBResolveGeometry(hb, &g));
    info->mesh                    = SquallHBMeshes[hb->mesh];
    info->geometry                = SquallHBGeometries[g];
    info->geometry_bytes_per_node = SquallHBGeometryBytesPerNode(g, hb->Np);
  }
  {
    PetscBool atomic;

    PetscCall(SquallHBResolveScatter(hb, k, &atomic));
    info->scatter = atomic ? "atomic" : "gather";
    info->nsingle = SquallHBSingleRows(hb, atomic);
  }
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
