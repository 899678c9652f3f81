/* SquallP1: P1 (linear) continuous Galerkin operators on a DMPlex of tetrahedra. This file holds the
   object: options, the mesh extraction (vertices, elements, orientation and degeneracy checks), the
   sparsity graph of the owned rows, the element geometry (CPU reference), vectors and coefficient
   fields, and integrals. Assembly is in p1assemble.c, meshes in p1mesh.c, CUDA in src/cuda/p1assembly.cu. */
#include "mat/p1impl.h"
#include "cuda/p1cuda.h"
#include "cuda/squallcuda.h"
#include <petscdmplex.h>
#include <petscsf.h>

const char *const SquallP1Backends[]      = {"host", "cuda", "SquallP1Backend", "SQUALL_P1_", NULL};
const char *const SquallP1AssemblyTypes[] = {"atomic", "coo", "setvalues", "SquallP1AssemblyType", "SQUALL_P1_ASSEMBLY_", NULL};
const char *const SquallP1Locations[]     = {"node", "element", "SquallP1Location", "SQUALL_P1_", NULL};
/* the atomic probe's patterns (SquallP1CUDAAtomicProbe()): lane u of the launch adds into value u (a warp's 32 updates in 8
   consecutive 32-byte sectors, as the reduce kernel's sorted entries), into value 4 u (one sector per lane), or into a hashed
   value (the slot map's scattered updates) */
const char *const SquallP1AtomicProbePatterns[] = {"consecutive", "sectors", "scattered", "SquallP1AtomicProbePattern", "SQUALL_P1_PROBE_", NULL};
const char *const SquallP1AtomicModes[]         = {"search", "slots", "gather", "reduce", "SquallP1AtomicMode", "SQUALL_P1_ATOMIC_", NULL};
const char *const SquallP1ReduceVariants[]      = {"plain", "plain_b3", "staged", "staged_b3", "balanced", "balanced_b3", "affine", "affine_xyz", "affine_shared", "SquallP1ReduceVariant", "SQUALL_P1_REDUCE_", NULL};
const char *const SquallP1ElementOrders[]       = {"natural", "colored", "sorted", "morton", "SquallP1ElementOrder", "SQUALL_P1_ORDER_", NULL};

/* the public term enum and the pointwise header's indices must agree */
typedef char P1TermsAgree[((int)SQUALL_P1_MASS == SQUALL_P1_TERM_MASS && (int)SQUALL_P1_ADVECTION == SQUALL_P1_TERM_ADVECTION && (int)SQUALL_P1_DIFFUSION == SQUALL_P1_TERM_DIFFUSION && (int)SQUALL_P1_GRADDIV == SQUALL_P1_TERM_GRADDIV &&
                           (int)SQUALL_P1_NUM_TERMS == SQUALL_P1_NTERMS)
                            ? 1
                            : -1];

static PetscInt P1NextId = 0;

/* On the GPU the reduce mode with its affine_xyz kernel (now affine_shared, below) is the fastest of the four for both block sizes at
   every size measured (H200: 0.088 against 0.116 ms for slots at 0.56 M tets,
   2.23 against 3.55 ms at 21.1 M, 3x3 blocks 0.305 against 0.646 ms). On the CPU the slot map stays: it costs
   64 (bs 1) or 80 (bs 3) bytes per element of memory, once, and saves every assembly its 16 binary searches
   per element, with no map to walk per block. */
static SquallP1AtomicMode P1DefaultAtomicMode(SquallP1Backend backend)
{
  return backend == SQUALL_P1_CUDA ? SQUALL_P1_ATOMIC_REDUCE : SQUALL_P1_ATOMIC_SLOTS;
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
  p->assembly = SQUALL_P1_ASSEMBLY_ATOMIC;
  /* affine (staged with closed-form element matrices): 0.088 against 0.115 ms (staged) for the scalar matrix of 0.56 M tets,
     0.307 against 0.315 for 3x3 blocks; staged was the fastest of the first six. affine_xyz: affine without
     the streamed geometry, 123 instead of 199 bytes per element from memory for +7% instructions (src/cuda/p1assembly.cu):
     0.088 against 0.091 ms (affine) at 0.56 M tets, 2.23 against 2.56 ms at 21.1 M (H200).
     affine_shared: affine_xyz with the block's vertex fields read from shared memory, 0.0745 against 0.0827 ms at 0.56 M
     tets, 2.20 against 2.24 at 21.1 M, 0.301 against 0.304 for 3x3 blocks */
  p->rvariant   = SQUALL_P1_REDUCE_AFFINE_SHARED;
  p->atomicmode = P1DefaultAtomicMode(p->backend);
  p->degtol     = 1e-10;
  p->Kloc       = SQUALL_P1_NODE;
  *p1           = p;
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
  if (!p1->atomicmodeset) p1->atomicmode = P1DefaultAtomicMode(backend);
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
  vectors: SQUALL_P1_ASSEMBLY_ATOMIC (squall's direct assembly into the AIJ values, the default),
  _COO (MatSetPreallocationCOO/MatSetValuesCOO, prepared on first use of each Mat or Vec) or
  _SETVALUES (host MatSetValues element by element). It may change between calls.
@*/
PetscErrorCode SquallP1SetAssemblyType(SquallP1 p1, SquallP1AssemblyType type)
{
  PetscFunctionBegin;
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
  SquallP1SetAtomicMode - how the atomic assembly (SQUALL_P1_ASSEMBLY_ATOMIC, CPU and GPU) finds where
  an element entry goes in the AIJ values: SQUALL_P1_ATOMIC_SEARCH, a binary search of its column in its
  row in every assembly, or SQUALL_P1_ATOMIC_SLOTS (default), the positions of all element entries
  found once per block size (the sparsity is fixed at set-up) and read as a slot map. Both give the same
  matrix bit for bit on the CPU. SQUALL_P1_ATOMIC_GATHER needs no atomics and is deterministic on the GPU
  too: the element values go to a scratch array, then every stored value sums its contributions in a
  fixed order through the transpose of the slot map (built once per sparsity); it equals the other
  modes to round-off (another summation order). SQUALL_P1_ATOMIC_REDUCE sums, per block of 256 consecutive
  elements (a GPU thread block), the contributions to each entry the block touches in shared memory in a
  fixed order and adds each sum with one atomicAdd (a plain store where no other block touches the entry),
  through a per-block map built once per sparsity; best with SQUALL_P1_ORDER_SORTED (compact blocks); the
  default with the CUDA backend. It may change between calls; once set, it no longer follows the backend.
@*/
PetscErrorCode SquallP1SetAtomicMode(SquallP1 p1, SquallP1AtomicMode mode)
{
  PetscFunctionBegin;
  PetscCheck(mode == SQUALL_P1_ATOMIC_SEARCH || mode == SQUALL_P1_ATOMIC_SLOTS || mode == SQUALL_P1_ATOMIC_GATHER || mode == SQUALL_P1_ATOMIC_REDUCE, p1->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown atomic assembly mode %d: valid modes are search, slots, gather and reduce", (int)mode);
  p1->atomicmode    = mode;
  p1->atomicmodeset = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetReduceVariant - the GPU kernel of SQUALL_P1_ATOMIC_REDUCE (-p1_reduce_variant). All but AFFINE and
  AFFINE_XYZ give the same matrix bit for bit (the same sums in the same order); they differ in how the summing phase reaches its map and
  how many registers the kernel may use: SQUALL_P1_REDUCE_PLAIN reads the map from global memory, a chain
  of dependent loads per entry; STAGED copies the block's map into shared memory asynchronously while the
  elements are computed, so the summing phase waits on shared memory only; BALANCED is STAGED with each thread
  summing the entries that start in a contiguous run of the block's contributions (equal work per thread,
  instead of every 256th entry, whose contribution counts vary from 1 to ~20); the _B3 forms cap the registers
  so that 3 blocks of 256 threads fit on an SM (more warps to hide latency, some spills). AFFINE is STAGED with the
  element phase in closed form (SquallP1ElementOperatorAffine(): the gradients of an affine tetrahedron are
  constant, so every term is a few dot products of them; ~4x fewer instructions than the 11-point quadrature,
  and 3 blocks per SM for scalar operators without spilling): the same matrix up to rounding (a few ulps of each
  row's largest entry), not bit for bit. AFFINE_XYZ is AFFINE with J^{-1} and the volume rebuilt from
  the 4 vertices' coordinates by the set-up's own SquallP1Geometry() (SquallP1ElementLoadAffineXYZ()) instead of read
  from the precomputed geometry: 80 bytes per element less from memory (double) for ~60 floating-point operations;
  AFFINE's matrix up to rounding. AFFINE_SHARED (the default) is AFFINE_XYZ with the fields of the block's vertices (coordinates, rho,
  u, nodal K: ~100-200 vertices for 256 compact elements) copied once per block into shared memory and read there by its
  elements through a block-local connectivity (uint16), instead of each element gathering its 4 vertices' 16 values
  from global memory through L1; the same arithmetic on the same values. Its blocks' vertices must fit in shared memory (in double any 256 elements' up to 1024 vertices do, for scalar
  operators); where they do not, AFFINE_XYZ runs instead, with a -info line. No effect on the CPU.
@*/
PetscErrorCode SquallP1SetReduceVariant(SquallP1 p1, SquallP1ReduceVariant v)
{
  PetscFunctionBegin;
  PetscCheck(v >= SQUALL_P1_REDUCE_PLAIN && v < SQUALL_P1_REDUCE_NUM_VARIANTS, p1->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown reduce variant %d: valid variants are 0 to %d (plain, plain_b3, staged, staged_b3, balanced, balanced_b3, affine, affine_xyz, affine_shared)", (int)v, (int)SQUALL_P1_REDUCE_NUM_VARIANTS - 1);
  p1->rvariant = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1GetAtomicMode(SquallP1 p1, SquallP1AtomicMode *mode)
{
  PetscFunctionBegin;
  *mode = p1->atomicmode;
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
  char                 mode[16], rvar[32];
  PetscBool            setmode, setrvar;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(mode, SquallP1AtomicModes[p1->atomicmode], sizeof(mode)));
  PetscCall(PetscStrncpy(rvar, SquallP1ReduceVariants[p1->rvariant], sizeof(rvar)));
  PetscOptionsBegin(p1->comm, NULL, "squall P1 tetrahedral CG operators", "SquallP1");
  PetscCall(PetscOptionsEnum("-p1_backend", "Where elements are computed and assembled (host, cuda)", "SquallP1SetBackend", SquallP1Backends, (PetscEnum)backend, (PetscEnum *)&backend, NULL));
  PetscCall(PetscOptionsEnum("-p1_assembly", "Assembly path: squall's direct/atomic kernel, PETSc's COO interface, or host MatSetValues", "SquallP1SetAssemblyType", SquallP1AssemblyTypes, (PetscEnum)assembly, (PetscEnum *)&assembly, NULL));
  /* a string, not PetscOptionsEnum, so that a bad value's error lists the valid ones */
  PetscCall(PetscOptionsString("-p1_assembly_mode",
                               "How the atomic assembly finds an entry's place in the AIJ values: search (binary search per entry), slots (positions found once: the sparsity is fixed), gather (atomic-free, deterministic: each value sums its "
                               "contributions) or reduce (a thread block sums its contributions per entry in shared memory, one atomicAdd each); default reduce on the GPU, slots on the CPU",
                               "SquallP1SetAtomicMode", mode, mode, sizeof(mode), &setmode));
  PetscCall(PetscOptionsString("-p1_reduce_variant",
                               "GPU kernel of the reduce mode: affine_shared (default: affine_xyz reading the block's vertex fields from shared memory), affine_xyz (affine with the geometry rebuilt from the vertex coordinates), affine "
                               "(closed-form element matrices, the quadrature's up to rounding), plain, plain_b3, staged, staged_b3, balanced, balanced_b3 (the quadrature's bit for bit)",
                               "SquallP1SetReduceVariant", rvar, rvar, sizeof(rvar), &setrvar));
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

    for (PetscInt k = 0; k <= SQUALL_P1_ATOMIC_REDUCE && !found; k++) {
      PetscCall(PetscStrcasecmp(mode, SquallP1AtomicModes[k], &found));
      if (found) PetscCall(SquallP1SetAtomicMode(p1, (SquallP1AtomicMode)k));
    }
    PetscCheck(found, p1->comm, PETSC_ERR_ARG_WRONG, "-p1_assembly_mode %s is not valid: use search (binary search per entry), slots (positions found once), gather (atomic-free sums per value) or reduce (in-block sums, one atomic per entry)", mode);
  }
  if (setrvar) {
    PetscBool found = PETSC_FALSE;

    for (PetscInt k = 0; k < SQUALL_P1_REDUCE_NUM_VARIANTS && !found; k++) {
      PetscCall(PetscStrcasecmp(rvar, SquallP1ReduceVariants[k], &found));
      if (found) PetscCall(SquallP1SetReduceVariant(p1, (SquallP1ReduceVariant)k));
    }
    PetscCheck(found, p1->comm, PETSC_ERR_ARG_WRONG, "-p1_reduce_variant %s is not valid: use plain, plain_b3, staged, staged_b3, balanced, balanced_b3, affine, affine_xyz or affine_shared", rvar);
  }
  if (order != p1->order) PetscCall(SquallP1SetElementOrder(p1, order));
  p1->degtol = tol;
  p1->view   = view;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- set-up */

static PetscErrorCode P1CheckDM(SquallP1 p1)
{
  PetscInt  dim, cdim;
  PetscBool isplex;
  Vec       cc;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)p1->dm, DMPLEX, &isplex));
  PetscCheck(isplex, p1->comm, PETSC_ERR_ARG_WRONG, "SquallP1 needs a DMPLEX, not a %s", ((PetscObject)p1->dm)->type_name);
  PetscCall(DMGetDimension(p1->dm, &dim));
  PetscCall(DMGetCoordinateDim(p1->dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, p1->comm, PETSC_ERR_ARG_WRONG, "SquallP1 needs a 3D mesh of tetrahedra; this DMPlex has dimension %" PetscInt_FMT " and coordinate dimension %" PetscInt_FMT, dim, cdim);
  PetscCall(DMGetCellCoordinatesLocal(p1->dm, &cc));
  PetscCheck(!cc, p1->comm, PETSC_ERR_SUP, "SquallP1 does not support periodic meshes (cellwise coordinates)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1GetVertexDM(SquallP1, PetscInt, DM *);

/* global scalar numbering of the vertices from a section with one dof per vertex */
static PetscErrorCode P1NumberVertices(SquallP1 p1)
{
  DM                 vdm;
  PetscSection       gs;
  PetscInt           vStart, vEnd, cnt = 0;
  PetscInt64         n64;
  Vec                cl;
  PetscSection       cs;
  const PetscScalar *ca;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(p1->dm, 0, &vStart, &vEnd));
  p1->nv = vEnd - vStart;
  PetscCall(P1GetVertexDM(p1, 1, &vdm));
  PetscCall(DMGetGlobalSection(vdm, &gs));
  PetscCall(PetscMalloc4(p1->nv, &p1->gidx, p1->nv, &p1->row, p1->nv, &p1->cd, p1->nv, &p1->co));
  PetscCall(PetscMalloc1(3 * p1->nv, &p1->x));
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt off;

    PetscCall(PetscSectionGetOffset(gs, v + vStart, &off));
    p1->gidx[v] = off >= 0 ? off : -(off + 1);
    p1->row[v]  = off >= 0 ? cnt++ : -1;
  }
  p1->nowned = cnt;
  PetscCallMPI(MPI_Scan(&cnt, &p1->rstart, 1, MPIU_INT, MPI_SUM, p1->comm));
  p1->rstart -= cnt;
  n64 = cnt;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &n64, 1, MPIU_INT64, MPI_SUM, p1->comm));
  PetscCall(PetscIntCast(n64, &p1->N));
  for (PetscInt v = 0; v < p1->nv; v++) {
    const PetscInt g = p1->gidx[v];

    /* the global section numbers owned points in order, so row and global index agree */
    PetscCheck(p1->row[v] < 0 || g == p1->rstart + p1->row[v], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vertex numbering is not contiguous: vertex %" PetscInt_FMT " has global index %" PetscInt_FMT ", expected %" PetscInt_FMT, v, g,
               p1->rstart + p1->row[v]);
    p1->cd[v] = (g >= p1->rstart && g < p1->rstart + p1->nowned) ? g - p1->rstart : -1;
    p1->co[v] = -1; /* set with the graph */
  }

  PetscCall(DMGetCoordinatesLocal(p1->dm, &cl));
  PetscCall(DMGetCoordinateSection(p1->dm, &cs));
  PetscCall(VecGetArrayRead(cl, &ca));
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt off;

    PetscCall(PetscSectionGetOffset(cs, v + vStart, &off));
    for (PetscInt d = 0; d < 3; d++) p1->x[3 * v + d] = PetscRealPart(ca[off + d]);
  }
  PetscCall(VecRestoreArrayRead(cl, &ca));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the four vertices of cell c in the plex's closure order */
static PetscErrorCode P1CellVertices(DM dm, PetscInt depth, PetscInt vStart, PetscInt vEnd, PetscInt c, PetscInt v[4])
{
  PetscInt n = 0;

  PetscFunctionBegin;
  if (depth == 1) {
    const PetscInt *cone;
    PetscInt        csize;

    PetscCall(DMPlexGetConeSize(dm, c, &csize));
    PetscCall(DMPlexGetCone(dm, c, &cone));
    for (PetscInt i = 0; i < csize; i++)
      if (cone[i] >= vStart && cone[i] < vEnd) {
        if (n < 4) v[n] = cone[i] - vStart;
        n++;
      }
  } else {
    PetscInt *cl = NULL, ncl;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++)
      if (cl[2 * i] >= vStart && cl[2 * i] < vEnd) {
        if (n < 4) v[n] = cl[2 * i] - vStart;
        n++;
      }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  }
  PetscCheck(n == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMPlex cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices: squall's P1 operators need tetrahedra", c, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a bad element found on some rank, reported identically by all of them */
typedef struct {
  PetscReal kind, tet, cell, rank, vol, x[3];
} P1BadElement;

static PetscErrorCode P1ReportBadElement(SquallP1 p1, PetscBool bad, const P1BadElement *mine)
{
  PetscMPIInt  rank, size, first;
  P1BadElement b = *mine;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(p1->comm, &rank));
  PetscCallMPI(MPI_Comm_size(p1->comm, &size));
  first = bad ? rank : size;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, p1->comm));
  if (first == size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Bcast(&b, sizeof(b) / sizeof(PetscReal), MPIU_REAL, first, p1->comm));
  SETERRQ(p1->comm, PETSC_ERR_ARG_WRONG, "Tetrahedron %" PetscInt_FMT " (DMPlex cell %" PetscInt_FMT " on rank %d, centroid (%g, %g, %g)) is %s: 6 x signed volume = %g%s", (PetscInt)b.tet, (PetscInt)b.cell, (int)b.rank, (double)b.x[0],
          (double)b.x[1], (double)b.x[2], b.kind == 1 ? "inverted" : "degenerate", (double)b.vol,
          b.kind == 1 ? " < 0 (its vertices are ordered against PETSc's convention, or the mesh is folded)" : ", too small for its edge lengths (see -p1_degenerate_tol)");
}

static PetscErrorCode P1ExtractElements(SquallP1 p1)
{
  DM              dm = p1->dm;
  PetscInt        depth, cStart, cEnd, vStart, vEnd, pStart, pEnd, nleaves, ne = 0, *tet, *cell;
  const PetscInt *leaves;
  PetscBT         leaf;
  PetscBool      *own, bad = PETSC_FALSE;
  PetscSF         sf;
  P1BadElement    first = {0, 0, 0, 0, 0, {0, 0, 0}};
  PetscMPIInt     rank;
  PetscInt64      ne64;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(p1->comm, &rank));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  PetscCall(PetscBTCreate(pEnd - pStart, &leaf));
  for (PetscInt i = 0; i < PetscMax(nleaves, 0); i++) PetscCall(PetscBTSet(leaf, (leaves ? leaves[i] : i) - pStart));

  PetscCall(PetscMalloc3(4 * (cEnd - cStart), &tet, cEnd - cStart, &cell, cEnd - cStart, &own));
  p1->neowned = 0;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt  v[4], sv[4];
    PetscBool owned = PetscBTLookup(leaf, c - pStart) ? PETSC_FALSE : PETSC_TRUE, touches = PETSC_FALSE;
    PetscReal x[4][3], invJ[9], vol, det, l2 = 0;

    PetscCall(P1CellVertices(dm, depth, vStart, vEnd, c, v));
    for (PetscInt a = 0; a < 4; a++) touches = (PetscBool)(touches || p1->row[v[a]] >= 0);
    if (!owned && !touches) continue;
    /* PETSc orders a valid tetrahedron's closure left-handed (its reference cell has inward
       normals); squall stores it right-handed */
    sv[0] = v[0];
    sv[1] = v[2];
    sv[2] = v[1];
    sv[3] = v[3];
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * sv[a] + d];
    det = SquallP1Geometry(x, invJ, &vol);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt b = a + 1; b < 4; b++) l2 = PetscMax(l2, PetscSqr(x[a][0] - x[b][0]) + PetscSqr(x[a][1] - x[b][1]) + PetscSqr(x[a][2] - x[b][2]));
    if (!bad && (PetscAbsReal(det) <= p1->degtol * l2 * PetscSqrtReal(l2) || det < 0 || PetscIsInfOrNanReal(det))) {
      bad        = PETSC_TRUE;
      first.kind = (det < 0 && PetscAbsReal(det) > p1->degtol * l2 * PetscSqrtReal(l2)) ? 1 : 2;
      first.tet  = (PetscReal)(c - cStart);
      first.cell = (PetscReal)c;
      first.rank = (PetscReal)rank;
      first.vol  = det;
      for (PetscInt d = 0; d < 3; d++) first.x[d] = (PetscReal)0.25 * (x[0][d] + x[1][d] + x[2][d] + x[3][d]);
    }
    for (PetscInt a = 0; a < 4; a++) tet[4 * ne + a] = sv[a];
    cell[ne] = c;
    own[ne]  = owned;
    if (owned) p1->neowned++;
    ne++;
  }
  PetscCall(PetscBTDestroy(&leaf));
  p1->ne     = ne;
  p1->tet    = tet;
  p1->cell   = cell;
  p1->eowned = own;
  ne64       = p1->neowned;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ne64, 1, MPIU_INT64, MPI_SUM, p1->comm));
  PetscCall(PetscIntCast(ne64, &p1->NE));
  PetscCall(P1ReportBadElement(p1, bad, &first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element k of the new order is element perm[k] of the old one */
static PetscErrorCode P1PermuteElements(SquallP1 p1, const PetscInt perm[])
{
  const PetscInt ne = p1->ne;
  PetscInt      *tet, *cell;
  PetscBool     *own;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(4 * ne, &tet, ne, &cell, ne, &own));
  for (PetscInt k = 0; k < ne; k++) {
    for (PetscInt a = 0; a < 4; a++) tet[4 * k + a] = p1->tet[4 * perm[k] + a];
    cell[k] = p1->cell[perm[k]];
    own[k]  = p1->eowned[perm[k]];
  }
  PetscCall(PetscFree3(p1->tet, p1->cell, p1->eowned));
  p1->tet    = tet;
  p1->cell   = cell;
  p1->eowned = own;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Elements by their smallest local vertex, a stable counting sort. Why this key: the rows an element
   adds into are its vertices' rows, so elements with nearby smallest vertices write nearby parts of the
   CSR values (and read nearby nodal data); the key costs one pass and keeps the mesh's order among the
   ~6-24 elements of one vertex. It assumes the vertex numbering itself is local (DMPlex numbers a
   generated or distributed mesh's vertices so; a file's elements may come in any order). */
static PetscErrorCode P1SortElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne, nv = p1->nv;
  PetscInt      *key, *cnt, *perm;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ne, &key, ne, &perm));
  PetscCall(PetscCalloc1(nv + 1, &cnt));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v = &p1->tet[4 * e];

    key[e] = PetscMin(PetscMin(v[0], v[1]), PetscMin(v[2], v[3]));
    cnt[key[e] + 1]++;
  }
  for (PetscInt v = 0; v < nv; v++) cnt[v + 1] += cnt[v];
  for (PetscInt e = 0; e < ne; e++) perm[cnt[key[e]]++] = e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree2(key, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 21 low bits of x spread to every third bit (bits 0, 3, 6, ...) */
static uint64_t P1Spread3(uint64_t x)
{
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

typedef struct {
  uint64_t key;
  PetscInt e;
} P1MortonKey;

static int P1MortonCompare(const void *a, const void *b)
{
  const P1MortonKey *x = (const P1MortonKey *)a, *y = (const P1MortonKey *)b;

  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->e < y->e ? -1 : (x->e > y->e ? 1 : 0);
}

/* Elements along the Morton (Z-order) curve of their centroids, each axis of the vertices' bounding box scaled to
   [0, 1] and cut into 2^21 cells (ties, if any, in the mesh's order). Why: 256 consecutive elements, one reduce
   block, then fill a compact region whatever order the mesh came in (on the mountain mesh, whose hex cells are split
   row by row, the mesh's order gives a row of ~43 cells), so a block touches fewer vertices and fewer matrix entries:
   fewer atomics and a smaller copy of its vertex fields. Scaling each axis by its own extent keeps the blocks about
   as many cells deep as wide on a mesh with about as many cells per axis, however flat its box. */
static PetscErrorCode P1MortonElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne, nv = p1->nv;
  PetscReal      lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, sc[3];
  P1MortonKey   *k;
  PetscInt      *perm;

  PetscFunctionBegin;
  for (PetscInt v = 0; v < nv; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], p1->x[3 * v + d]);
      hi[d] = PetscMax(hi[d], p1->x[3 * v + d]);
    }
  for (int d = 0; d < 3; d++) sc[d] = hi[d] > lo[d] ? (PetscReal)2097151 / (hi[d] - lo[d]) : 0;
  PetscCall(PetscMalloc2(ne, &k, ne, &perm));
  for (PetscInt e = 0; e < ne; e++) {
    uint64_t c = 0;

    for (int d = 0; d < 3; d++) {
      const PetscReal x = (p1->x[3 * p1->tet[4 * e] + d] + p1->x[3 * p1->tet[4 * e + 1] + d] + p1->x[3 * p1->tet[4 * e + 2] + d] + p1->x[3 * p1->tet[4 * e + 3] + d]) / 4;
      const PetscReal q = PetscMin(PetscMax((x - lo[d]) * sc[d], 0), (PetscReal)2097151);

      c |= P1Spread3((uint64_t)q) << d;
    }
    k[e].key = c;
    k[e].e   = e;
  }
  qsort(k, (size_t)ne, sizeof(*k), P1MortonCompare);
  for (PetscInt e = 0; e < ne; e++) perm[e] = k[e].e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree2(k, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: each element takes the lowest colour not yet used by an element sharing one of its
   vertices (a 64-bit mask per vertex; the rare element finding all 64 taken goes to a last, unconstrained
   colour), then a stable counting sort by colour. Meshes with ~24 elements per vertex need ~30 colours. */
static PetscErrorCode P1ColorElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne;
  uint64_t      *mask;
  PetscInt      *color, cnt[66] = {0}, *perm;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(p1->nv, &mask));
  PetscCall(PetscMalloc2(ne, &color, ne, &perm));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v    = &p1->tet[4 * e];
    const uint64_t  used = mask[v[0]] | mask[v[1]] | mask[v[2]] | mask[v[3]];
    PetscInt        c    = 0;

    while (c < 64 && (used >> c) & 1) c++;
    color[e] = c;
    if (c < 64)
      for (PetscInt a = 0; a < 4; a++) mask[v[a]] |= (uint64_t)1 << c;
    cnt[c + 1]++;
  }
  p1->ncolors = 0;
  for (PetscInt c = 0; c < 65; c++) {
    if (cnt[c + 1]) p1->ncolors = c + 1;
    cnt[c + 1] += cnt[c];
  }
  for (PetscInt e = 0; e < ne; e++) perm[cnt[color[e]]++] = e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree2(color, perm));
  PetscCall(PetscFree(mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sparsity of the owned rows from node adjacency (vertices sharing an element), split into the
   diagonal and off-diagonal blocks like MPIAIJ. Built once. */
static PetscErrorCode P1BuildGraph(SquallP1 p1)
{
  const PetscInt n = p1->nowned, rend = p1->rstart + p1->nowned;
  PetscInt      *inc, *incoff, *buf, maxdeg = 0, dcap, ocap, dn = 0, on = 0, *dJ, *oJ, *dI, *oI, *ocols, nocols = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, &incoff));
  for (PetscInt e = 0; e < p1->ne; e++)
    for (PetscInt a = 0; a < 4; a++) {
      const PetscInt r = p1->row[p1->tet[4 * e + a]];
      if (r >= 0) incoff[r + 1]++;
    }
  for (PetscInt r = 0; r < n; r++) {
    maxdeg = PetscMax(maxdeg, incoff[r + 1]);
    incoff[r + 1] += incoff[r];
  }
  PetscCall(PetscMalloc2(incoff[n], &inc, 4 * maxdeg + 1, &buf));
  {
    PetscInt *pos;

    PetscCall(PetscMalloc1(n, &pos));
    PetscCall(PetscArraycpy(pos, incoff, n));
    for (PetscInt e = 0; e < p1->ne; e++)
      for (PetscInt a = 0; a < 4; a++) {
        const PetscInt r = p1->row[p1->tet[4 * e + a]];
        if (r >= 0) inc[pos[r]++] = e;
      }
    PetscCall(PetscFree(pos));
  }
  /* a first guess of the sizes (about 15 neighbours per vertex), grown by doubling */
  dcap = ocap = PetscMax(16, 16 * n);
  PetscCall(PetscMalloc2(n + 1, &dI, n + 1, &oI));
  PetscCall(PetscMalloc1(dcap, &dJ));
  PetscCall(PetscMalloc1(ocap, &oJ));
  dI[0] = oI[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt m = 0;

    for (PetscInt k = incoff[r]; k < incoff[r + 1]; k++)
      for (PetscInt a = 0; a < 4; a++) buf[m++] = p1->gidx[p1->tet[4 * inc[k] + a]];
    PetscCall(PetscSortRemoveDupsInt(&m, buf));
    if (dn + m > dcap) {
      dcap = PetscMax(2 * dcap, dn + m);
      PetscCall(PetscRealloc(dcap * sizeof(PetscInt), &dJ));
    }
    if (on + m > ocap) {
      ocap = PetscMax(2 * ocap, on + m);
      PetscCall(PetscRealloc(ocap * sizeof(PetscInt), &oJ));
    }
    for (PetscInt k = 0; k < m; k++) {
      if (buf[k] >= p1->rstart && buf[k] < rend)
        dJ[dn++] = buf[k] - p1->rstart;
      else
        oJ[on++] = buf[k]; /* global for now, compressed below */
    }
    dI[r + 1] = dn;
    oI[r + 1] = on;
  }
  PetscCall(PetscFree2(inc, buf));
  PetscCall(PetscFree(incoff));

  /* garray: the sorted off-process columns; compress oJ to positions in it (order is kept) */
  PetscCall(PetscMalloc1(on + 1, &ocols));
  PetscCall(PetscArraycpy(ocols, oJ, on));
  nocols = on;
  PetscCall(PetscSortRemoveDupsInt(&nocols, ocols));
  for (PetscInt k = 0; k < on; k++) {
    PetscInt loc;

    PetscCall(PetscFindInt(oJ[k], nocols, ocols, &loc));
    oJ[k] = loc;
  }
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt loc = -1;

    if (p1->cd[v] < 0) PetscCall(PetscFindInt(p1->gidx[v], nocols, ocols, &loc));
    p1->co[v] = loc >= 0 ? loc : -1;
  }
  p1->dI      = dI;
  p1->dJ      = dJ;
  p1->oI      = oI;
  p1->oJ      = oJ;
  p1->garray  = ocols;
  p1->ngarray = nocols;
  p1->nnz     = dn + on;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element kernel's CPU reference: J^{-1} and volume of every element */
PetscErrorCode SquallP1ComputeGeometryHost(SquallP1 p1)
{
  const PetscInt ne = p1->ne;

  PetscFunctionBegin;
  if (!p1->geom) PetscCall(PetscMalloc1(SQUALL_P1_NGEOM * PetscMax(ne, 1), &p1->geom));
  PetscCall(PetscLogEventBegin(SQUALL_P1Geometry, 0, 0, 0, 0));
  for (PetscInt e = 0; e < ne; e++) {
    PetscReal x[4][3], invJ[9], vol;

    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * p1->tet[4 * e + a] + d];
    (void)SquallP1Geometry(x, invJ, &vol);
    for (PetscInt k = 0; k < 9; k++) p1->geom[k * ne + e] = invJ[k];
    p1->geom[9 * ne + e] = vol;
  }
  PetscCall(PetscLogFlops(60.0 * ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1Geometry, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetUp - extracts the mesh (vertices, right-handed tetrahedra; inverted or degenerate ones are
  an error naming the element), numbers the owned rows, builds the sparsity graph once from node
  adjacency, computes the element geometry and, with the CUDA backend, uploads all of it.
@*/
PetscErrorCode SquallP1SetUp(SquallP1 p1)
{
  PetscFunctionBegin;
  if (p1->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_P1SetUp, 0, 0, 0, 0));
  PetscCall(SquallP1DistributeMesh(&p1->dm));
  PetscCall(P1CheckDM(p1));
  PetscCall(P1NumberVertices(p1));
  PetscCall(P1ExtractElements(p1));
  if (p1->order == SQUALL_P1_ORDER_COLORED) PetscCall(P1ColorElements(p1));
  if (p1->order == SQUALL_P1_ORDER_SORTED) PetscCall(P1SortElements(p1));
  if (p1->order == SQUALL_P1_ORDER_MORTON) PetscCall(P1MortonElements(p1));
  PetscCall(P1BuildGraph(p1));
  PetscCall(SquallP1ComputeGeometryHost(p1));
  if (p1->backend == SQUALL_P1_CUDA) PetscCall(SquallP1CUDASetUp(p1));
  p1->setup = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(SQUALL_P1SetUp, 0, 0, 0, 0));
  if (p1->view) PetscCall(SquallP1View(p1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeGeometry - runs the element kernel again (J, det J, J^{-1} and volume per element;
  on the device with the CUDA backend). SquallP1SetUp() already did; this is for benchmarks.
@*/
PetscErrorCode SquallP1ComputeGeometry(SquallP1 p1)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (p1->backend == SQUALL_P1_CUDA)
    PetscCall(SquallP1CUDAComputeGeometry(p1));
  else
    PetscCall(SquallP1ComputeGeometryHost(p1));
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
                                   size > 1 ? "s" : "", SquallP1Backends[p1->backend], SquallP1AssemblyTypes[p1->assembly], SquallP1AtomicModes[p1->atomicmode], SquallP1ElementOrders[p1->order]));
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
  if (p->cuda) PetscCall(SquallP1CUDADestroy(p));
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

/* ---- vectors and fields */

static PetscErrorCode P1CheckBlockSize(SquallP1 p1, PetscInt bs)
{
  PetscFunctionBegin;
  PetscCheck(bs == 1 || bs == 3 || bs == 9, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " is not supported: nodal fields have 1 (scalar), 3 (vector) or 9 (tensor) values per node", bs);
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a clone of the plex with bs dofs per vertex: its global vectors are the nodal vectors, so PETSc's
   viewers (VTK, HDF5) and DMGlobalToLocal work on them */
static PetscErrorCode P1GetVertexDM(SquallP1 p1, PetscInt bs, DM *vdm)
{
  PetscFunctionBegin;
  if (!p1->vdm[bs]) {
    PetscSection s;
    PetscInt     pStart, pEnd, vStart, vEnd;

    PetscCall(DMPlexGetChart(p1->dm, &pStart, &pEnd));
    PetscCall(DMPlexGetDepthStratum(p1->dm, 0, &vStart, &vEnd));
    PetscCall(PetscSectionCreate(p1->comm, &s)); /* the global section numbers across this communicator */
    /* one field with bs components, which PETSc's VTK and HDF5 viewers need */
    PetscCall(PetscSectionSetNumFields(s, 1));
    PetscCall(PetscSectionSetFieldComponents(s, 0, bs));
    PetscCall(PetscSectionSetChart(s, pStart, pEnd));
    for (PetscInt v = vStart; v < vEnd; v++) {
      PetscCall(PetscSectionSetDof(s, v, bs));
      PetscCall(PetscSectionSetFieldDof(s, v, 0, bs));
    }
    PetscCall(PetscSectionSetUp(s));
    PetscCall(DMClone(p1->dm, &p1->vdm[bs]));
    PetscCall(DMSetLocalSection(p1->vdm[bs], s));
    PetscCall(PetscSectionDestroy(&s));
  }
  PetscCall(DMSetVecType(p1->vdm[bs], p1->backend == SQUALL_P1_CUDA ? VECCUDA : VECSTANDARD));
  *vdm = p1->vdm[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateVector - a nodal vector with bs = 1, 3 or 9 values per owned node (interleaved), of
  type VECCUDA with the CUDA backend. Global index of node n, component i: bs*n + i.
@*/
PetscErrorCode SquallP1CreateVector(SquallP1 p1, PetscInt bs, Vec *v)
{
  DM vdm = NULL;

  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  PetscCall(P1GetVertexDM(p1, bs, &vdm));
  PetscCall(DMCreateGlobalVector(vdm, v));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateElementVector - a sequential vector with bs values per local element (element-major),
  in the backend's memory; e.g. per-element diffusivity tensors (bs = 9) for SquallP1SetDiffusivity().
@*/
PetscErrorCode SquallP1CreateElementVector(SquallP1 p1, PetscInt bs, Vec *v)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCheck(bs >= 1 && bs <= 9, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Element vectors have 1 to 9 values per element, not %" PetscInt_FMT, bs);
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, bs * p1->ne, bs * p1->ne));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscCall(VecSetType(*v, p1->backend == SQUALL_P1_CUDA ? VECSEQCUDA : VECSEQ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scatter of nodal vectors with bs values per node to the local vertices, and a local work vector */
PetscErrorCode SquallP1GetLocalWork(SquallP1 p1, PetscInt bs, Vec *l)
{
  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  if (!p1->g2l[bs]) {
    IS  is;
    Vec gt;

    PetscCall(SquallP1CreateVector(p1, bs, &gt));
    PetscCall(VecCreate(PETSC_COMM_SELF, &p1->lwork[bs]));
    PetscCall(VecSetSizes(p1->lwork[bs], bs * p1->nv, bs * p1->nv));
    PetscCall(VecSetBlockSize(p1->lwork[bs], bs));
    PetscCall(VecSetType(p1->lwork[bs], p1->backend == SQUALL_P1_CUDA ? VECSEQCUDA : VECSEQ));
    PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, p1->nv, p1->gidx, PETSC_COPY_VALUES, &is));
    PetscCall(VecScatterCreate(gt, is, p1->lwork[bs], NULL, &p1->g2l[bs]));
    PetscCall(ISDestroy(&is));
    PetscCall(VecDestroy(&gt));
  }
  if (l) *l = p1->lwork[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* scatter of a nodal vector to the local vertices (owned and overlap), bs values each; *l is
   created if NULL */
PetscErrorCode SquallP1GlobalToLocal(SquallP1 p1, PetscInt bs, Vec g, Vec *l)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(SquallP1GetLocalWork(p1, bs, NULL));
  PetscCall(VecGetLocalSize(g, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Nodal vector has local size %" PetscInt_FMT ", expected %" PetscInt_FMT " (%" PetscInt_FMT " values for each of %" PetscInt_FMT " owned nodes)", n, bs * p1->nowned, bs,
             p1->nowned);
  if (!*l) PetscCall(VecDuplicate(p1->lwork[bs], l));
  PetscCall(VecScatterBegin(p1->g2l[bs], g, *l, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(p1->g2l[bs], g, *l, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1GetCoordinates - the node coordinates as a nodal vector (bs 3), owned by the SquallP1
@*/
PetscErrorCode SquallP1GetCoordinates(SquallP1 p1, Vec *X)
{
  PetscFunctionBegin;
  if (!p1->coords) {
    PetscScalar *a;

    PetscCall(SquallP1CreateVector(p1, 3, &p1->coords));
    PetscCall(VecGetArrayWrite(p1->coords, &a));
    for (PetscInt v = 0; v < p1->nv; v++)
      if (p1->row[v] >= 0)
        for (PetscInt d = 0; d < 3; d++) a[3 * p1->row[v] + d] = p1->x[3 * v + d];
    PetscCall(VecRestoreArrayWrite(p1->coords, &a));
  }
  *X = p1->coords;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1Interpolate - nodal interpolant of a function f(x, values[bs], ctx) into a nodal vector
@*/
PetscErrorCode SquallP1Interpolate(SquallP1 p1, PetscInt bs, PetscErrorCode (*f)(const PetscReal[3], PetscScalar[], void *), void *ctx, Vec v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Nodal vector has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, n, bs * p1->nowned);
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = 0; k < p1->nv; k++)
    if (p1->row[k] >= 0) PetscCall(f(&p1->x[3 * k], &a[bs * p1->row[k]], ctx));
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1SetMassCoefficient(SquallP1 p1, Vec rho)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (!rho)
    PetscCall(VecDestroy(&p1->rho));
  else
    PetscCall(SquallP1GlobalToLocal(p1, 1, rho, &p1->rho));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetVelocity - the nodal velocity u (bs 3) of the advection term int phi_a (u . grad phi_b)
@*/
PetscErrorCode SquallP1SetVelocity(SquallP1 p1, Vec u)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (!u)
    PetscCall(VecDestroy(&p1->u));
  else
    PetscCall(SquallP1GlobalToLocal(p1, 3, u, &p1->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetDiffusivity - the full 3x3 diffusivity tensor K (row-major, need not be symmetric) of the
  term int grad phi_a . K grad phi_b: nodal (a nodal vector with bs 9) or per element (from
  SquallP1CreateElementVector() with bs 9, e.g. SquallP1ComputeElementMetric()). NULL: K = I.
@*/
PetscErrorCode SquallP1SetDiffusivity(SquallP1 p1, SquallP1Location loc, Vec K)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  p1->hasK = K ? PETSC_TRUE : PETSC_FALSE;
  p1->Kloc = loc;
  if (!K) PetscFunctionReturn(PETSC_SUCCESS);
  if (loc == SQUALL_P1_NODE) {
    PetscCall(SquallP1GlobalToLocal(p1, 9, K, &p1->K));
  } else {
    PetscCall(VecGetLocalSize(K, &n));
    PetscCheck(n == 9 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Element diffusivity has local size %" PetscInt_FMT ", expected 9 x %" PetscInt_FMT " elements (see SquallP1CreateElementVector())", n, p1->ne);
    if (!p1->Ke) PetscCall(SquallP1CreateElementVector(p1, 9, &p1->Ke));
    PetscCall(VecCopy(K, p1->Ke));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeElementMetric - for every element its metric tensor M (all six edges of unit length:
  a 6x6 solve) and from its sorted eigenpairs the length-scale tensor: L = scale * M^{-1} (9 values
  per element) and the principal lengths h (3 per element, longest first; h may be NULL). L is a
  grid-scale diffusivity for SquallP1SetDiffusivity(p1, SQUALL_P1_ELEMENT, L), scale being a rate.
@*/
PetscErrorCode SquallP1ComputeElementMetric(SquallP1 p1, PetscReal scale, Vec L, Vec h)
{
  PetscInt n, nbad = 0;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCall(VecGetLocalSize(L, &n));
  PetscCheck(n == 9 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "L has local size %" PetscInt_FMT ", expected 9 x %" PetscInt_FMT " elements", n, p1->ne);
  if (h) {
    PetscCall(VecGetLocalSize(h, &n));
    PetscCheck(n == 3 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "h has local size %" PetscInt_FMT ", expected 3 x %" PetscInt_FMT " elements", n, p1->ne);
  }
  if (p1->backend == SQUALL_P1_CUDA) {
    PetscCall(SquallP1CUDAComputeElementMetric(p1, scale, L, h, &nbad));
  } else {
    PetscScalar *La, *ha = NULL;

    PetscCall(PetscLogEventBegin(SQUALL_P1Metric, 0, 0, 0, 0));
    PetscCall(VecGetArrayWrite(L, &La));
    if (h) PetscCall(VecGetArrayWrite(h, &ha));
    for (PetscInt e = 0; e < p1->ne; e++) {
      PetscReal x[4][3], M[9], Le[9], he[3];

      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * p1->tet[4 * e + a] + d];
      if (SquallP1ElementMetric(x, M, Le, he)) {
        nbad++;
        for (PetscInt k = 0; k < 9; k++) Le[k] = 0;
        for (PetscInt k = 0; k < 3; k++) he[k] = 0;
      }
      for (PetscInt k = 0; k < 9; k++) La[9 * e + k] = scale * Le[k];
      if (ha)
        for (PetscInt k = 0; k < 3; k++) ha[3 * e + k] = he[k];
    }
    PetscCall(VecRestoreArrayWrite(L, &La));
    if (h) PetscCall(VecRestoreArrayWrite(h, &ha));
    PetscCall(PetscLogFlops(700.0 * p1->ne));
    PetscCall(PetscLogEventEnd(SQUALL_P1Metric, 0, 0, 0, 0));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nbad, 1, MPIU_INT, MPI_SUM, p1->comm));
  PetscCheck(!nbad, p1->comm, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " elements have no metric tensor (degenerate edge system)", nbad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- integrals, each owned element once */

PetscErrorCode SquallP1Integrate(SquallP1 p1, Vec u, PetscReal *val)
{
  Vec                ul = NULL;
  const PetscScalar *a;
  PetscReal          s = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1GlobalToLocal(p1, 1, u, &ul));
  PetscCall(VecGetArrayRead(ul, &a));
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscInt *t = &p1->tet[4 * e];
    if (!p1->eowned[e]) continue;
    s += p1->geom[9 * p1->ne + e] * (PetscReal)0.25 * PetscRealPart(a[t[0]] + a[t[1]] + a[t[2]] + a[t[3]]);
  }
  PetscCall(VecRestoreArrayRead(ul, &a));
  PetscCall(VecDestroy(&ul));
  PetscCallMPI(MPIU_Allreduce(&s, val, 1, MPIU_REAL, MPIU_SUM, p1->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeL2Error - || u_h - u ||_L2 over the domain with the 11-point rule on every element;
  u is given by exact(x, values[bs], ctx), bs the block size of the nodal vector uh (1 to 9)
@*/
PetscErrorCode SquallP1ComputeL2Error(SquallP1 p1, Vec uh, PetscErrorCode (*exact)(const PetscReal[3], PetscScalar[], void *), void *ctx, PetscReal *err)
{
  Vec                ul = NULL;
  const PetscScalar *a;
  PetscInt           bs;
  PetscReal          s = 0;

  PetscFunctionBegin;
  PetscCall(VecGetBlockSize(uh, &bs));
  PetscCall(SquallP1GlobalToLocal(p1, bs, uh, &ul));
  PetscCall(VecGetArrayRead(ul, &a));
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscInt *t = &p1->tet[4 * e];

    if (!p1->eowned[e]) continue;
    for (int q = 0; q < SQUALL_P1_NQUAD; q++) {
      PetscReal   l[4], w, xq[3] = {0, 0, 0};
      PetscScalar ue[9];

      SquallP1QuadPoint(q, l, &w);
      for (PetscInt k = 0; k < 4; k++)
        for (PetscInt d = 0; d < 3; d++) xq[d] += l[k] * p1->x[3 * t[k] + d];
      PetscCall(exact(xq, ue, ctx));
      for (PetscInt i = 0; i < bs; i++) {
        PetscReal uq = 0;
        for (PetscInt k = 0; k < 4; k++) uq += l[k] * PetscRealPart(a[bs * t[k] + i]);
        s += w * p1->geom[9 * p1->ne + e] * PetscSqr(uq - PetscRealPart(ue[i]));
      }
    }
  }
  PetscCall(VecRestoreArrayRead(ul, &a));
  PetscCall(VecDestroy(&ul));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &s, 1, MPIU_REAL, MPIU_SUM, p1->comm));
  *err = PetscSqrtReal(s);
  PetscFunctionReturn(PETSC_SUCCESS);
}
