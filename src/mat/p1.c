/* SquallP1: P1 (linear) continuous Galerkin operators on a DMPlex of tetrahedra. This file holds the
   object: creation, options, view and destruction. The set-up (mesh extraction, graph, geometry) is in
   p1setup.c, element orders in p1order.c, vectors, fields and integrals in p1fields.c, assembly in
   p1assemble.c (dispatch), p1host.c (host paths), p1coo.c (COO), p1rhs.c, p1device.c (GPU glue), meshes in
   p1mesh.c; the GPU kernels in src/cuda/p1*.cu. */
#include "mat/p1impl.h"
#include "cuda/squallcuda.h"
#include <petscdmplex.h>
#include <petscsf.h>

const char *const SquallP1Backends[]      = {"host", "cuda", "SquallP1Backend", "SQUALL_P1_", NULL};
const char *const SquallP1AssemblyTypes[] = {"direct", "coo", "setvalues", "SquallP1AssemblyType", "SQUALL_P1_ASSEMBLY_", NULL};
const char *const SquallP1Locations[]     = {"node", "element", "SquallP1Location", "SQUALL_P1_", NULL};
const char *const SquallP1AssemblyModes[] = {"slots", "gather", "reduce", "SquallP1AssemblyMode", "SQUALL_P1_MODE_", NULL};
const char *const SquallP1ElementOrders[] = {"natural", "colored", "sorted", "morton", "SquallP1ElementOrder", "SQUALL_P1_ORDER_", NULL};

/* the public term enum and the pointwise header's indices must agree */
typedef char P1TermsAgree[((int)SQUALL_P1_MASS == SQUALL_P1_TERM_MASS && (int)SQUALL_P1_ADVECTION == SQUALL_P1_TERM_ADVECTION && (int)SQUALL_P1_DIFFUSION == SQUALL_P1_TERM_DIFFUSION && (int)SQUALL_P1_GRADDIV == SQUALL_P1_TERM_GRADDIV &&
                           (int)SQUALL_P1_NUM_TERMS == SQUALL_P1_NTERMS)
                            ? 1
                            : -1];

static PetscInt P1NextId = 0;

/* The GPU's default is the reduce mode, the fastest of the three for both block sizes at every size measured
   (docs/performance.md). On the CPU the slot map stays: it costs 64 (bs 1) or 80 (bs 3) bytes per element of
   memory, once, and saves every assembly its 16 binary searches per element, with no map to walk per block. */
SquallP1AssemblyMode SquallP1DefaultAssemblyMode(SquallP1Backend backend)
{
  return backend == SQUALL_P1_CUDA ? SQUALL_P1_MODE_REDUCE : SQUALL_P1_MODE_SLOTS;
}

/*@C
  SquallP1Create - creates the P1 CG operator context on a DMPlex of tetrahedra (3D, affine). The DM
  is referenced; on several ranks SquallP1SetUp() distributes it (or adds the overlap) so that it has
  one layer of cell overlap, see SquallP1GetDM().
@*/
PetscErrorCode SquallP1Create(DM dm, SquallP1 *p1)
{
  SquallP1 p;
  PetscInt ndev = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  PetscAssertPointer(p1, 2);
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&p));
  p->comm = PetscObjectComm((PetscObject)dm);
  p->id   = ++P1NextId;
  p->dm   = dm;
  PetscCall(PetscObjectReference((PetscObject)dm));
  if (SquallHaveCUDA()) PetscCall(SquallCUDADeviceCount(&ndev));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ndev, 1, MPIU_INT, MPI_MIN, p->comm));
  p->backend  = ndev > 0 ? SQUALL_P1_CUDA : SQUALL_P1_HOST;
  p->assembly = SQUALL_P1_ASSEMBLY_DIRECT;
  p->mode     = SquallP1DefaultAssemblyMode(p->backend);
  p->degtol   = 1e-10;
  p->Kloc     = SQUALL_P1_NODE;
  *p1         = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1SetBackend(SquallP1 p1, SquallP1Backend backend)
{
  PetscInt ndev = 0;

  PetscFunctionBegin;
  PetscCheck(!p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the backend before SquallP1SetUp()");
  if (backend == SQUALL_P1_CUDA) {
    if (SquallHaveCUDA()) PetscCall(SquallCUDADeviceCount(&ndev));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ndev, 1, MPIU_INT, MPI_MIN, p1->comm));
    PetscCheck(ndev > 0, p1->comm, PETSC_ERR_SUP_SYS, "-p1_backend cuda needs squall built with CUDA (%s) and a visible CUDA device on every rank", SquallHaveCUDA() ? "it is" : "it is not");
  }
  p1->backend = backend;
  if (!p1->modeset) p1->mode = SquallP1DefaultAssemblyMode(backend);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetBackend(SquallP1 p1, SquallP1Backend *backend)
{
  PetscFunctionBegin;
  *backend = p1->backend;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetAssemblyType - how SquallP1AssembleOperator() and SquallP1AssembleRHS() fill matrices and
  vectors: SQUALL_P1_ASSEMBLY_DIRECT (squall's direct assembly into the AIJ values, the default),
  _COO (MatSetPreallocationCOO/MatSetValuesCOO, prepared on first use of each Mat or Vec) or
  _SETVALUES (host MatSetValues element by element). It may change between calls.
@*/
PetscErrorCode SquallP1SetAssemblyType(SquallP1 p1, SquallP1AssemblyType type)
{
  PetscFunctionBegin;
  PetscCheck(type == SQUALL_P1_ASSEMBLY_DIRECT || type == SQUALL_P1_ASSEMBLY_COO || type == SQUALL_P1_ASSEMBLY_SETVALUES, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown assembly type %d: valid types are direct (%d), coo (%d) and setvalues (%d)",
             (int)type, (int)SQUALL_P1_ASSEMBLY_DIRECT, (int)SQUALL_P1_ASSEMBLY_COO, (int)SQUALL_P1_ASSEMBLY_SETVALUES);
  p1->assembly = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetAssemblyType(SquallP1 p1, SquallP1AssemblyType *type)
{
  PetscFunctionBegin;
  *type = p1->assembly;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetAssemblyMode - how the direct assembly (SQUALL_P1_ASSEMBLY_DIRECT, CPU and GPU) adds an element
  entry into the AIJ values. SQUALL_P1_MODE_SLOTS: through the slot map, the positions of all element entries
  found once per block size (the sparsity is fixed at set-up), one atomicAdd per entry on the GPU.
  SQUALL_P1_MODE_GATHER needs no atomics and is deterministic on the GPU too: the element values go to a
  scratch array, then every stored value sums its contributions in a fixed order through the transpose of the
  slot map (built once per sparsity); it equals the other modes to round-off (another summation order).
  SQUALL_P1_MODE_REDUCE sums, per block of 256 consecutive elements (a GPU thread block), the contributions
  to each entry the block touches in shared memory in a fixed order and adds each sum with one atomicAdd (a
  plain store where no other block touches the entry), through a per-block map built once per sparsity; on
  the GPU its element matrices are in closed form, equal to the quadrature's up to rounding. Default:
  reduce with the CUDA backend, slots on the CPU (SquallP1DefaultAssemblyMode()). It may change between
  calls; once set, it no longer follows the backend.
@*/
PetscErrorCode SquallP1SetAssemblyMode(SquallP1 p1, SquallP1AssemblyMode mode)
{
  PetscFunctionBegin;
  PetscCheck(mode == SQUALL_P1_MODE_SLOTS || mode == SQUALL_P1_MODE_GATHER || mode == SQUALL_P1_MODE_REDUCE, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown assembly mode %d: valid modes are slots (%d), gather (%d) and reduce (%d)", (int)mode,
             (int)SQUALL_P1_MODE_SLOTS, (int)SQUALL_P1_MODE_GATHER, (int)SQUALL_P1_MODE_REDUCE);
  p1->mode    = mode;
  p1->modeset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetAssemblyMode(SquallP1 p1, SquallP1AssemblyMode *mode)
{
  PetscFunctionBegin;
  *mode = p1->mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetElementOrder - the order of the elements, i.e. of the GPU threads: the mesh's
  (SQUALL_P1_ORDER_NATURAL, default) or greedily coloured (SQUALL_P1_ORDER_COLORED): elements sorted by a
  colour such that no two elements of one colour share a vertex, so the threads of a warp never add
  into the same matrix entry at once (fewer serialised atomics, less locality), or sorted by their
  smallest local vertex (SQUALL_P1_ORDER_SORTED): consecutive threads then add into neighbouring rows,
  so a warp's atomics and nodal gathers share cache lines whatever order the mesh file had, or along the
  Morton curve of their centroids (SQUALL_P1_ORDER_MORTON): each 256 consecutive elements, a block of the GPU's
  reduce kernels, then fill a compact region, so a block touches fewer vertices and matrix entries. Element
  vectors (SquallP1CreateElementVector()) follow this order.
@*/
PetscErrorCode SquallP1SetElementOrder(SquallP1 p1, SquallP1ElementOrder order)
{
  PetscFunctionBegin;
  PetscCheck(!p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the element order before SquallP1SetUp()");
  p1->order = order;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1SetFromOptions(SquallP1 p1)
{
  SquallP1Backend      backend  = p1->backend;
  SquallP1AssemblyType assembly = p1->assembly;
  PetscReal            tol      = p1->degtol;
  PetscBool            view     = p1->view;
  SquallP1ElementOrder order    = p1->order;
  char                 mode[16];
  PetscBool            setmode;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(mode, SquallP1AssemblyModes[p1->mode], sizeof(mode)));
  PetscOptionsBegin(p1->comm, NULL, "squall P1 tetrahedral CG operators", "SquallP1");
  PetscCall(PetscOptionsEnum("-p1_backend", "Where elements are computed and assembled (host, cuda)", "SquallP1SetBackend", SquallP1Backends, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsEnum("-p1_assembly", "Assembly path: squall's direct kernel, PETSc's COO interface, or host MatSetValues", "SquallP1SetAssemblyType", SquallP1AssemblyTypes, (PetscEnum)assembly, (PetscEnum *)&assembly, NULL));
  /* a string, not PetscOptionsEnum, so that a bad value's error lists the valid ones */
  PetscCall(PetscOptionsString("-p1_assembly_mode",
                               "How the direct assembly adds an entry into the AIJ values: slots (positions found once: the sparsity is fixed), gather (atomic-free, deterministic: each value sums its contributions) or reduce (a thread "
                               "block sums its contributions per entry in shared memory, one atomicAdd each); default reduce on the GPU, slots on the CPU",
                               "SquallP1SetAssemblyMode", mode, mode, sizeof(mode), &setmode));
  PetscCall(PetscOptionsReal("-p1_degenerate_tol", "A tetrahedron is degenerate when 6|volume| <= tol * (longest edge)^3 (0 to 0.1)", "SquallP1SetUp", tol, &tol, NULL));
  PetscCall(PetscOptionsEnum("-p1_element_order",
                             "Order of the elements (GPU threads): natural (the mesh's), colored (no two in a colour share a vertex), sorted (by smallest vertex) or morton (along the Morton curve of the centroids: compact blocks)",
                             "SquallP1SetElementOrder", SquallP1ElementOrders, (PetscEnum)order, (PetscEnum *)&order, NULL));
  PetscCall(PetscOptionsBool("-p1_view", "View the P1 operators' sizes after set-up", "SquallP1View", view, &view, NULL));
  PetscOptionsEnd();
  PetscCheck(tol >= 0 && tol <= 0.1, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "-p1_degenerate_tol %g is out of range: valid tolerances are 0 to 0.1", (double)tol);
  if (backend != p1->backend) PetscCall(SquallP1SetBackend(p1, backend));
  PetscCall(SquallP1SetAssemblyType(p1, assembly));
  if (setmode) {
    PetscBool found = PETSC_FALSE;

    for (PetscInt k = 0; k <= SQUALL_P1_MODE_REDUCE && !found; k++) {
      PetscCall(PetscStrcasecmp(mode, SquallP1AssemblyModes[k], &found));
      if (found) PetscCall(SquallP1SetAssemblyMode(p1, (SquallP1AssemblyMode)k));
    }
    PetscCheck(found, p1->comm, PETSC_ERR_ARG_WRONG, "-p1_assembly_mode %s is not valid: use slots (positions found once), gather (atomic-free sums per value) or reduce (in-block sums, one atomic per entry)", mode);
  }
  if (order != p1->order) PetscCall(SquallP1SetElementOrder(p1, order));
  p1->degtol = tol;
  p1->view   = view;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1View(SquallP1 p1, PetscViewer viewer)
{
  PetscReal   vmin = PETSC_MAX_REAL, vmax = 0, tot = 0;
  PetscInt64  nnz = p1->nnz;
  PetscMPIInt size;

  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(p1->comm, &viewer));
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscReal vol = p1->geom[9 * p1->ne + e];
    if (!p1->eowned[e]) continue;
    vmin = PetscMin(vmin, vol);
    vmax = PetscMax(vmax, vol);
    tot += vol;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &vmin, 1, MPIU_REAL, MPIU_MIN, p1->comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, p1->comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &tot, 1, MPIU_REAL, MPIU_SUM, p1->comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nnz, 1, MPIU_INT64, MPI_SUM, p1->comm));
  PetscCallMPI(MPI_Comm_size(p1->comm, &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SquallP1: %" PetscInt_FMT " tetrahedra, %" PetscInt_FMT " nodes, %" PetscInt64_FMT " nonzeros (scalar), %d rank%s, backend %s, assembly %s (mode %s), element order %s\n", p1->NE, p1->N, nnz, size,
                                   size > 1 ? "s" : "", SquallP1Backends[p1->backend], SquallP1AssemblyTypes[p1->assembly], SquallP1AssemblyModes[p1->mode], SquallP1ElementOrders[p1->order]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  volume %.10e, element volumes %.4e to %.4e\n", (double)tot, (double)vmin, (double)vmax));
  if (p1->order == SQUALL_P1_ORDER_COLORED) PetscCall(PetscViewerASCIIPrintf(viewer, "  elements in %" PetscInt_FMT " colours (no two elements of a colour share a vertex)\n", p1->ncolors));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1Destroy(SquallP1 *p1)
{
  SquallP1 p;

  PetscFunctionBegin;
  if (!p1 || !*p1) PetscFunctionReturn(PETSC_SUCCESS);
  p = *p1;
  PetscCall(SquallP1CUDADestroy(&p->dev));
  for (PetscInt bs = 0; bs < 10; bs++) {
    PetscCall(DMDestroy(&p->vdm[bs]));
    PetscCall(VecScatterDestroy(&p->g2l[bs]));
    PetscCall(VecDestroy(&p->lwork[bs]));
  }
  for (PetscInt bs = 0; bs < 4; bs++) PetscCall(PetscFree(p->slots[bs]));
  if (p->red) PetscCall(SquallP1ReduceDestroy(p->red));
  PetscCall(PetscFree(p->red));
  for (PetscInt bs = 0; bs < 4; bs++) PetscCall(PetscFree(p->gwork[bs]));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(PetscFree(p->gmoff[k]));
    PetscCall(PetscFree(p->gmidx[k]));
  }
  for (PetscInt bs = 0; bs < 4; bs++)
    if (p->backend == SQUALL_P1_HOST) {
      PetscCall(PetscFree(p->coov[bs]));
      PetscCall(PetscFree(p->coor[bs]));
    }
  PetscCall(VecDestroy(&p->coords));
  PetscCall(VecDestroy(&p->rho));
  PetscCall(VecDestroy(&p->u));
  PetscCall(VecDestroy(&p->K));
  PetscCall(VecDestroy(&p->Ke));
  PetscCall(PetscFree4(p->gidx, p->row, p->cd, p->co));
  PetscCall(PetscFree(p->x));
  PetscCall(PetscFree3(p->tet, p->cell, p->eowned));
  PetscCall(PetscFree(p->geom));
  PetscCall(PetscFree2(p->dI, p->oI));
  PetscCall(PetscFree(p->dJ));
  PetscCall(PetscFree(p->oJ));
  PetscCall(PetscFree(p->garray));
  PetscCall(PetscFree(p->ebnd));
  PetscCall(DMDestroy(&p->dm));
  PetscCall(PetscFree(*p1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetDM(SquallP1 p1, DM *dm)
{
  PetscFunctionBegin;
  *dm = p1->dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1GetSizes - owned and global nodes, local elements (those touching an owned node, plus owned
  cells) and global elements (each counted once). Any output may be NULL.
@*/
PetscErrorCode SquallP1GetSizes(SquallP1 p1, PetscInt *nowned, PetscInt *nglobal, PetscInt *nelem, PetscInt *nelemglobal)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (nowned) *nowned = p1->nowned;
  if (nglobal) *nglobal = p1->N;
  if (nelem) *nelem = p1->ne;
  if (nelemglobal) *nelemglobal = p1->NE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetNonzeros(SquallP1 p1, PetscInt *nnzlocal, PetscInt64 *nnzglobal)
{
  PetscInt64 n = p1->nnz;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (nnzlocal) *nnzlocal = p1->nnz;
  if (nnzglobal) {
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &n, 1, MPIU_INT64, MPI_SUM, p1->comm));
    *nnzglobal = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1GetReduceMapSizes - the sizes of the last reduce-mode map built by either backend: thread blocks,
  unique (block, entry) pairs, contributions, entries touched by one block only, and the entries of the
  blocks' vertex lists (GPU). Benchmarks count their bytes from them. Any output may be NULL.
@*/
PetscErrorCode SquallP1GetReduceMapSizes(SquallP1 p1, PetscInt64 *blocks, PetscInt64 *entries, PetscInt64 *contributions, PetscInt64 *single, PetscInt64 *blockvertices)
{
  PetscFunctionBegin;
  if (blocks) *blocks = p1->rstats[3];
  if (entries) *entries = p1->rstats[0];
  if (contributions) *contributions = p1->rstats[1];
  if (single) *single = p1->rstats[2];
  if (blockvertices) *blockvertices = p1->rstats[4];
  PetscFunctionReturn(PETSC_SUCCESS);
}
