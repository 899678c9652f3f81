/* squall: GPU building blocks for atmospheric and geophysical PETSc programs.
   One public header; the three capabilities (ESDG dynamical core, P1 tetrahedral CG operators,
   hipBone-style matrix-free CG) are declared here. */
#pragma once

#include <petscdm.h>
#include <petscts.h>
#include <petscksp.h>

#define SQUALL_VERSION_MAJOR 0
#define SQUALL_VERSION_MINOR 1

/* ---- package */
PETSC_EXTERN PetscErrorCode SquallInitializePackage(void);
PETSC_EXTERN PetscErrorCode SquallFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_squall(void);
PETSC_EXTERN PetscBool      SquallHaveCUDA(void);
PETSC_EXTERN PetscErrorCode SquallCUDAAvailable(MPI_Comm, PetscBool *);
PETSC_EXTERN PetscErrorCode SquallSynchronize(Vec);
/* output files: path checks before a run, atomic replacement (src/sys/output.c) */
PETSC_EXTERN PetscErrorCode SquallCheckOutputPath(MPI_Comm, const char option[], const char path[]);
PETSC_EXTERN PetscErrorCode SquallOutputTemporaryName(const char path[], char tmp[], size_t len);
PETSC_EXTERN PetscErrorCode SquallOutputCommit(MPI_Comm, const char path[]);
PETSC_EXTERN PetscErrorCode SquallOutputNumberedName(const char path[], PetscInt step, char name[], size_t len);
PETSC_EXTERN PetscErrorCode SquallOutputRemove(MPI_Comm, const char path[]);

/* ---- TS "lsrk": low-storage 2N Runge-Kutta (schemes "14s4", "5s4"; option -ts_lsrk_type) */
#define SQUALL_TSLSRK "lsrk"
PETSC_EXTERN PetscErrorCode SquallTSLSRKSetType(TS, const char[]);
PETSC_EXTERN PetscErrorCode SquallTSLSRKGetType(TS, const char *[]);
PETSC_EXTERN PetscErrorCode SquallTSLSRKSetFieldLayout(TS, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode SquallTSLSRKGetTableau(TS, PetscInt *, PetscInt *, const PetscReal *[], const PetscReal *[], const PetscReal *[]);

/* ---- Legendre-Gauss-Lobatto operators (order N: N+1 nodes on [-1,1]) */
#define SQUALL_LGL_MAX_ORDER 15
PETSC_EXTERN PetscErrorCode SquallLGLNodesWeights(PetscInt N, PetscReal r[], PetscReal w[]);
PETSC_EXTERN PetscErrorCode SquallLGLDerivativeMatrix(PetscInt N, const PetscReal r[], PetscReal D[]);

/* ---- DG mesh on a DMForest (p8est brick): LGL node geometry and face maps */
#define SQUALL_DG_MAX_ORDER 8
typedef struct _n_SquallDGMesh *SquallDGMesh;

/* faces of a hexahedron, in this order: normal -x, +x, -y, +y, -z, +z */
typedef enum { SQUALL_FACE_XM, SQUALL_FACE_XP, SQUALL_FACE_YM, SQUALL_FACE_YP, SQUALL_FACE_ZM, SQUALL_FACE_ZP } SquallFace;
PETSC_EXTERN const char *const SquallFaces[];

PETSC_EXTERN PetscErrorCode SquallDGMeshCreate(MPI_Comm, SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetOptionsPrefix(SquallDGMesh, const char[]);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetOrder(SquallDGMesh, PetscInt);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetNumFields(SquallDGMesh, PetscInt);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetFromOptions(SquallDGMesh);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetUp(SquallDGMesh);
PETSC_EXTERN PetscErrorCode SquallDGMeshView(SquallDGMesh, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallDGMeshDestroy(SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetDM(SquallDGMesh, DM *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetForest(SquallDGMesh, DM *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetOrder(SquallDGMesh, PetscInt *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetNumElements(SquallDGMesh, PetscInt *owned, PetscInt *ghost, PetscInt *global);
PETSC_EXTERN PetscErrorCode SquallDGMeshComputeVolume(SquallDGMesh, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallDGMeshIntegrate(SquallDGMesh, Vec, PetscInt field, PetscReal *);
/* terrain height at (x, y) split into a large-scale part h1 and a small-scale part h2 (h = h1 + h2; the SLEVE
   coordinate decays them with its two scales; Gal-Chen uses the sum) */
typedef PetscErrorCode (*SquallDGTerrainFunction)(PetscReal x, PetscReal y, PetscReal *h1, PetscReal *h2, void *ctx);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetTerrainFunction(SquallDGMesh, SquallDGTerrainFunction, void *);
PETSC_EXTERN PetscErrorCode SquallDGMeshWriteVTK(SquallDGMesh, Vec, const char *const fieldnames[], const char filename[]);

/* ---- ESDG: entropy-stable DG for the compressible Euler equations with gravity and Coriolis */
typedef struct _n_SquallESDG *SquallESDG;
typedef struct {
  double    mass, energy, entropy; /* integrals over the domain (LGL quadrature), summed in double with
                                      compensation whatever PetscReal is, so that drifts below the
                                      working precision show */
  PetscReal maxw, minrho, minp;    /* max |w|, min density, min pressure over the nodes */
  PetscReal minps;                 /* min pressure over the nodes of the lower wall (the ground: the faces
                                      at the start of the third reference direction without a neighbour);
                                      PETSC_MAX_REAL where there is none (periodic in z) */
} SquallESDGStats;
/* initial condition callback: state q[5] at position x[3] and geopotential Phi */
typedef PetscErrorCode (*SquallESDGInitialFn)(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx);

PETSC_EXTERN PetscErrorCode SquallESDGCreate(MPI_Comm, SquallESDG *);
PETSC_EXTERN PetscErrorCode SquallESDGSetOptionsPrefix(SquallESDG, const char[]);
PETSC_EXTERN PetscErrorCode SquallESDGSetFromOptions(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGSetUp(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGView(SquallESDG, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallESDGDestroy(SquallESDG *);
PETSC_EXTERN PetscErrorCode SquallESDGGetMesh(SquallESDG, SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallESDGGetDM(SquallESDG, DM *);
PETSC_EXTERN PetscErrorCode SquallESDGSetGas(SquallESDG, PetscReal gamma, PetscReal R, PetscReal g);
PETSC_EXTERN PetscErrorCode SquallESDGGetGas(SquallESDG, PetscReal *gamma, PetscReal *R, PetscReal *g);
PETSC_EXTERN PetscErrorCode SquallESDGSetSurfaceFlux(SquallESDG, const char *);
PETSC_EXTERN PetscErrorCode SquallESDGProject(SquallESDG, SquallESDGInitialFn, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGComputeRHS(SquallESDG, PetscReal, Vec, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetReferenceState(SquallESDG, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetSpongeState(SquallESDG, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetPerturbation(SquallESDG, PetscBool);
PETSC_EXTERN PetscErrorCode SquallESDGGetFullState(SquallESDG, Vec, Vec *);
PETSC_EXTERN PetscErrorCode SquallESDGRestoreFullState(SquallESDG, Vec, Vec *);
PETSC_EXTERN PetscErrorCode SquallESDGRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeStats(SquallESDG, Vec, SquallESDGStats *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeEntropyRate(SquallESDG, Vec Q, Vec F, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeTimeStep(SquallESDG, Vec, PetscReal cfl, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGSetUpTS(SquallESDG, TS);
PETSC_EXTERN PetscErrorCode SquallESDGCheckState(SquallESDG, Vec, PetscBool *ok);

/* HEVI: F = F_H + F_V; F_V is the flux differencing along the third reference direction, the faces
   normal to it (bottom and top walls included) and the gravity terms carried along it; F_H the rest */
typedef enum { SQUALL_ESDG_PART_ALL, SQUALL_ESDG_PART_HORIZONTAL, SQUALL_ESDG_PART_VERTICAL } SquallESDGPart;
typedef enum { SQUALL_ESDG_IMEX_NONE, SQUALL_ESDG_IMEX_VERTICAL } SquallESDGIMEXType;
PETSC_EXTERN const char *const SquallESDGIMEXTypes[];

PETSC_EXTERN PetscErrorCode SquallESDGComputeRHSPart(SquallESDG, SquallESDGPart, PetscReal, Vec, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetIMEX(SquallESDG, SquallESDGIMEXType);
PETSC_EXTERN PetscErrorCode SquallESDGGetIMEXStats(SquallESDG, PetscInt *jacobians, PetscInt *ifunctions);

PETSC_EXTERN PetscErrorCode SquallESDGWriteCheckpoint(SquallESDG, Vec, PetscReal time, PetscInt step, PetscReal dt, const char[]);
PETSC_EXTERN PetscErrorCode SquallESDGReadCheckpoint(SquallESDG, const char[], Vec, PetscReal *time, PetscInt *step, PetscReal *dt);
PETSC_EXTERN PetscErrorCode SquallESDGSetCheckpointCase(SquallESDG, const char name[]);
PETSC_EXTERN PetscErrorCode SquallESDGAddCheckpointCaseReals(SquallESDG, const char key[], PetscInt n, const PetscReal v[]);
PETSC_EXTERN PetscErrorCode SquallESDGAddCheckpointCaseString(SquallESDG, const char key[], const char value[]);
PETSC_EXTERN PetscErrorCode SquallESDGWriteSlice(SquallESDG, Vec, PetscInt axis, PetscReal value, const char[]);
PETSC_EXTERN PetscErrorCode SquallESDGWriteShellLevel(SquallESDG, Vec, PetscReal height, const char[]);
PETSC_EXTERN PetscErrorCode SquallESDGCheckSlice(SquallESDG, PetscInt axis, PetscReal value, const char option[]);

/* test cases: "bubble", "baroclinic", "isothermal", "densitywave", "random" (read their options, e.g. -bubble_profile) */
PETSC_EXTERN PetscErrorCode SquallESDGSetInitialCondition(SquallESDG, const char *name, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetCaseReference(SquallESDG, const char *name, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGComputeExactError(SquallESDG, const char *name, PetscReal t, Vec, PetscReal *l2);
PETSC_EXTERN PetscErrorCode SquallESDGComputeWindError(SquallESDG, const char *name, PetscReal t, Vec, PetscReal *rms, PetscReal *rel);

/* ---- hipBone-style matrix-free CG: screened Poisson A = Z^T (S_L + lambda W) Z on a brick of hex
   spectral elements (GLL nodes, order 1..15), as a MATSHELL, and the KSP type "hbcg" (any Mat; fused
   vector kernels, on the device for VECCUDA). Options -hb_order, -hb_elements, -hb_bounds,
   -hb_lambda, -hb_dirichlet, -hb_shear, -hb_mesh, -hb_kershaw_eps, -hb_perturb_eps, -hb_geometry,
   -hb_kernel, -hb_kernel_layers, -hb_kernel_elements, -hb_vec_type (SquallHBCreateOperator). */
#define SQUALL_KSPHBCG "hbcg"
/* the HEVI column solve (-pc_type esdgcolumn) on the matrix of SquallESDGSetUpTS() with -esdg_imex vertical */
#define SQUALL_PCESDGCOLUMN "esdgcolumn"
typedef struct {
  PetscInt  order, Nq, Np;
  PetscInt  elements[3]; /* the brick */
  PetscInt  nelem_global, nelem_local;
  PetscInt  ndof_global, ndof_local; /* N_G: assembled unknowns (owned by this rank: local) */
  PetscInt  nlocal_global;           /* N_L = E Np over all ranks */
  PetscReal lambda;
  PetscBool dirichlet;
  /* the CUDA element kernel this operator runs: "sweep", "layers", "layers_tiled" or "mma" (-hb_kernel) */
  const char *kernel;
  PetscInt    layers;         /* its layers per step (layers, layers_tiled: 2-4; sweep: 0) */
  PetscInt    block_elements; /* its elements per thread block (layers: 1-6; else 0) */
  /* the mesh (-hb_mesh: "brick", "kershaw", "perturbed") and the geometry the operator uses
     (-hb_geometry resolved: "stored", "trilinear" or "affine") with its bytes read per element node */
  const char *mesh, *geometry;
  PetscReal   geometry_bytes_per_node;
  const char *scatter; /* a device product's Z^T (-hb_scatter): "gather" or "atomic" */
  PetscInt    nsingle; /* owned rows that device products write whole from the element kernels (-hb_single_rows; 0 when off, too few, or under atomic) */
} SquallHBInfo;
typedef PetscErrorCode (*SquallHBFunction)(const PetscReal x[3], PetscScalar *f, void *ctx);
PETSC_EXTERN PetscErrorCode SquallHBCreateOperator(MPI_Comm, PetscInt order, const PetscInt elements[], Mat *);
PETSC_EXTERN PetscErrorCode SquallHBCreateSolver(MPI_Comm, PetscInt order, const PetscInt elements[], SquallHBFunction, void *, PetscInt iterations, Mat *, KSP *, Vec *x, Vec *b);
PETSC_EXTERN PetscErrorCode SquallHBElementsForDofs(PetscInt order, PetscReal target, PetscInt elements[3]);
PETSC_EXTERN PetscErrorCode SquallHBGetDefaultKernel(PetscInt order, const char **kernel, PetscInt *layers, PetscInt *elements);
PETSC_EXTERN PetscErrorCode SquallHBKernelAvailable(const char kernel[], PetscInt order, PetscBool *available);
PETSC_EXTERN PetscErrorCode SquallHBGetInfo(Mat, SquallHBInfo *);
PETSC_EXTERN PetscErrorCode SquallHBGetCoordinates(Mat, Vec *);
PETSC_EXTERN PetscErrorCode SquallHBComputeRHS(Mat, SquallHBFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallHBInterpolate(Mat, SquallHBFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallHBMultDot(Mat, Vec, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallHBAssemble(Mat, MatType, Mat *);

/* ---- P1 tetrahedral CG: element matrices assembled on the GPU (atomicAdd into the device values of
   MATAIJCUSPARSE) or on the CPU, on DMPlex tetrahedral meshes distributed with one layer of overlap */
typedef struct _n_SquallP1 *SquallP1;

typedef enum { SQUALL_P1_HOST, SQUALL_P1_CUDA } SquallP1Backend;
PETSC_EXTERN const char *const SquallP1Backends[];
/* direct: squall's own assembly into the AIJ value arrays (-p1_assembly_mode says how); coo:
   MatSetPreallocationCOO + MatSetValuesCOO; setvalues: host MatSetValues element by element */
typedef enum { SQUALL_P1_ASSEMBLY_DIRECT, SQUALL_P1_ASSEMBLY_COO, SQUALL_P1_ASSEMBLY_SETVALUES } SquallP1AssemblyType;
PETSC_EXTERN const char *const SquallP1AssemblyTypes[];
/* how the direct assembly adds an element entry into the AIJ values (-p1_assembly_mode): slots, through
   the positions of all element entries (found once), one atomicAdd per entry on the GPU; gather,
   atomic-free and deterministic: element values to a scratch array, then each stored value sums its
   contributions in a fixed order (the transposed slot map, built once); reduce, each thread block of
   elements sums its contributions to a matrix entry in shared memory in a fixed order and adds the sum
   with one atomicAdd (the per-block map of unique entries, built once). Default: reduce with the CUDA
   backend, slots on the CPU */
typedef enum { SQUALL_P1_MODE_SLOTS, SQUALL_P1_MODE_GATHER, SQUALL_P1_MODE_REDUCE } SquallP1AssemblyMode;
PETSC_EXTERN const char *const SquallP1AssemblyModes[];
/* order of the elements (threads): the mesh's, greedily coloured so that no two elements of a colour
   share a vertex and a warp's atomicAdds never hit the same matrix entry, sorted by their smallest
   vertex so that a warp's atomicAdds hit neighbouring rows, or along the Morton curve of their centroids so that
   each block of 256 is spatially compact (-p1_element_order) */
typedef enum { SQUALL_P1_ORDER_NATURAL, SQUALL_P1_ORDER_COLORED, SQUALL_P1_ORDER_SORTED, SQUALL_P1_ORDER_MORTON } SquallP1ElementOrder;
PETSC_EXTERN const char *const SquallP1ElementOrders[];
typedef enum { SQUALL_P1_NODE, SQUALL_P1_ELEMENT } SquallP1Location;
PETSC_EXTERN const char *const SquallP1Locations[];
/* operator terms; an operator is given by coefficients coef[SQUALL_P1_NUM_TERMS]:
   coef[MASS] int c phi_a phi_b + coef[ADVECTION] int phi_a (u . grad phi_b) + coef[DIFFUSION] int grad phi_a . K grad phi_b
   (+ coef[GRADDIV] int (div v)(div w) for 3-component operators), applied to each component */
typedef enum { SQUALL_P1_MASS, SQUALL_P1_ADVECTION, SQUALL_P1_DIFFUSION, SQUALL_P1_GRADDIV, SQUALL_P1_NUM_TERMS } SquallP1Term;

/* meshes: all return a DMPlex of tetrahedra, distributed with one layer of overlap on several ranks */
typedef struct {
  PetscInt  cells[3]; /* hexahedra per direction, each split into 6 tetrahedra (-mountain_cells) */
  PetscReal h0, a;    /* bell-shaped hill h = h0 / (1 + (x^2+y^2)/a^2)^(3/2) (-mountain_h0, -mountain_a) */
  PetscReal L[2], H;  /* extents in x, y (centred on the hill) and model top (-mountain_extent Lx,Ly,H) */
  PetscReal stretch;  /* vertical stretching s: zeta = H (e^{s k/nz} - 1)/(e^s - 1); 0 = uniform (-mountain_stretch) */
} SquallP1Mountain;
PETSC_EXTERN PetscErrorCode SquallP1MountainSetFromOptions(MPI_Comm, SquallP1Mountain *);
PETSC_EXTERN PetscErrorCode SquallP1MountainCreateMesh(MPI_Comm, const SquallP1Mountain *, DM *);
PETSC_EXTERN PetscErrorCode SquallP1MountainTerrain(const SquallP1Mountain *, PetscReal x, PetscReal y, PetscReal *h, PetscReal *hx, PetscReal *hy);
PETSC_EXTERN PetscErrorCode SquallP1CreateMountainMesh(MPI_Comm, DM *);
PETSC_EXTERN PetscErrorCode SquallP1CreateBoxMesh(MPI_Comm, const PetscInt faces[3], const PetscReal lower[3], const PetscReal upper[3], DM *);
PETSC_EXTERN PetscErrorCode SquallP1CreateMeshFromFile(MPI_Comm, const char[], DM *);
PETSC_EXTERN PetscErrorCode SquallP1CreateMeshFromOptions(MPI_Comm, DM *);
PETSC_EXTERN PetscErrorCode SquallP1DistributeMesh(DM *);

PETSC_EXTERN PetscErrorCode SquallP1Create(DM, SquallP1 *);
PETSC_EXTERN PetscErrorCode SquallP1SetBackend(SquallP1, SquallP1Backend);
PETSC_EXTERN PetscErrorCode SquallP1GetBackend(SquallP1, SquallP1Backend *);
PETSC_EXTERN PetscErrorCode SquallP1SetAssemblyType(SquallP1, SquallP1AssemblyType);
PETSC_EXTERN PetscErrorCode SquallP1GetAssemblyType(SquallP1, SquallP1AssemblyType *);
PETSC_EXTERN PetscErrorCode SquallP1SetAssemblyMode(SquallP1, SquallP1AssemblyMode);
PETSC_EXTERN PetscErrorCode SquallP1GetAssemblyMode(SquallP1, SquallP1AssemblyMode *);
PETSC_EXTERN PetscErrorCode SquallP1SetElementOrder(SquallP1, SquallP1ElementOrder);
PETSC_EXTERN PetscErrorCode SquallP1SetFromOptions(SquallP1);
PETSC_EXTERN PetscErrorCode SquallP1SetUp(SquallP1);
PETSC_EXTERN PetscErrorCode SquallP1View(SquallP1, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallP1Destroy(SquallP1 *);
PETSC_EXTERN PetscErrorCode SquallP1GetDM(SquallP1, DM *);
PETSC_EXTERN PetscErrorCode SquallP1GetSizes(SquallP1, PetscInt *nowned, PetscInt *nglobal, PetscInt *nelem, PetscInt *nelemglobal);
PETSC_EXTERN PetscErrorCode SquallP1GetNonzeros(SquallP1, PetscInt *nnzlocal, PetscInt64 *nnzglobal);
PETSC_EXTERN PetscErrorCode SquallP1ComputeGeometry(SquallP1);
/* the sizes of the last reduce-mode map built (-p1_assembly_mode reduce), for byte models: thread blocks, unique
   (block, entry) pairs, contributions, entries touched by a single block, and the blocks' vertices (the GPU
   kernel's vertex lists); all 0 before the first reduce-mode assembly. Any output may be NULL. */
PETSC_EXTERN PetscErrorCode SquallP1GetReduceMapSizes(SquallP1, PetscInt64 *blocks, PetscInt64 *entries, PetscInt64 *contributions, PetscInt64 *single, PetscInt64 *blockvertices);

/* nodal vectors hold bs = 1 (scalar), 3 (vector) or 9 (tensor, row-major) values per vertex */
PETSC_EXTERN PetscErrorCode SquallP1CreateVector(SquallP1, PetscInt bs, Vec *);
PETSC_EXTERN PetscErrorCode SquallP1CreateElementVector(SquallP1, PetscInt bs, Vec *);
PETSC_EXTERN PetscErrorCode SquallP1GetCoordinates(SquallP1, Vec *);
PETSC_EXTERN PetscErrorCode SquallP1Interpolate(SquallP1, PetscInt bs, PetscErrorCode (*)(const PetscReal x[3], PetscScalar f[], void *), void *, Vec);
PETSC_EXTERN PetscErrorCode SquallP1CreateMatrix(SquallP1, PetscInt bs, Mat *);

/* coefficient fields (their values are copied: set them again after a change); NULL resets */
PETSC_EXTERN PetscErrorCode SquallP1SetMassCoefficient(SquallP1, Vec);
PETSC_EXTERN PetscErrorCode SquallP1SetVelocity(SquallP1, Vec);
PETSC_EXTERN PetscErrorCode SquallP1SetDiffusivity(SquallP1, SquallP1Location, Vec);
PETSC_EXTERN PetscErrorCode SquallP1ComputeElementMetric(SquallP1, PetscReal scale, Vec L, Vec h);

PETSC_EXTERN PetscErrorCode SquallP1AssembleOperator(SquallP1, const PetscReal coef[], Mat);
PETSC_EXTERN PetscErrorCode SquallP1AssembleMass(SquallP1, Mat);
PETSC_EXTERN PetscErrorCode SquallP1AssembleAdvection(SquallP1, Mat);
PETSC_EXTERN PetscErrorCode SquallP1AssembleDiffusion(SquallP1, Mat);
PETSC_EXTERN PetscErrorCode SquallP1AssembleRHS(SquallP1, const PetscReal coef[], Vec f, Vec b);
PETSC_EXTERN PetscErrorCode SquallP1Integrate(SquallP1, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallP1ComputeL2Error(SquallP1, Vec, PetscErrorCode (*)(const PetscReal x[3], PetscScalar f[], void *), void *, PetscReal *);
/* max over rows of max_j |A_ij - B_ij| / max_j |A_ij| (row-relative entrywise difference) of two matrices from
   SquallP1CreateMatrix(), with the sparsity patterns required to be equal (else +inf); local blocks of
   (MPI)AIJ(CUSPARSE) matrices, maximum over the ranks. SquallP1VecCompare(): max_i |a_i - b_i| / max_i |a_i|. For
   tests and benchmarks that compare the assembly paths. */
PETSC_EXTERN PetscErrorCode SquallP1MatCompare(Mat, Mat, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallP1VecCompare(Vec, Vec, PetscReal *);
