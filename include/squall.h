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
PETSC_EXTERN PetscErrorCode SquallDGMeshWriteVTK(SquallDGMesh, Vec, const char *const fieldnames[], const char filename[]);

/* ---- ESDG: entropy-stable DG for the compressible Euler equations with gravity and Coriolis */
typedef struct _n_SquallESDG *SquallESDG;
typedef struct {
  double    mass, energy, entropy; /* integrals over the domain (LGL quadrature), summed in double with
                                      compensation whatever PetscReal is, so that drifts below the
                                      working precision show */
  PetscReal maxw, minrho, minp;    /* max |w|, min density, min pressure over the nodes */
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
PETSC_EXTERN PetscErrorCode SquallESDGSetPerturbation(SquallESDG, PetscBool);
PETSC_EXTERN PetscErrorCode SquallESDGGetFullState(SquallESDG, Vec, Vec *);
PETSC_EXTERN PetscErrorCode SquallESDGRestoreFullState(SquallESDG, Vec, Vec *);
PETSC_EXTERN PetscErrorCode SquallESDGRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeStats(SquallESDG, Vec, SquallESDGStats *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeEntropyRate(SquallESDG, Vec Q, Vec F, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeTimeStep(SquallESDG, Vec, PetscReal cfl, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGSetUpTS(SquallESDG, TS);
PETSC_EXTERN PetscErrorCode SquallESDGCheckState(SquallESDG, Vec, PetscBool *ok);

PETSC_EXTERN PetscErrorCode SquallESDGWriteCheckpoint(SquallESDG, Vec, PetscReal time, PetscInt step, PetscReal dt, const char[]);
PETSC_EXTERN PetscErrorCode SquallESDGReadCheckpoint(SquallESDG, const char[], Vec, PetscReal *time, PetscInt *step, PetscReal *dt);
PETSC_EXTERN PetscErrorCode SquallESDGWriteSlice(SquallESDG, Vec, PetscInt axis, PetscReal value, const char[]);

/* test cases: "bubble", "baroclinic", "isothermal", "densitywave", "random" (read their options, e.g. -bubble_profile) */
PETSC_EXTERN PetscErrorCode SquallESDGSetInitialCondition(SquallESDG, const char *name, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGSetCaseReference(SquallESDG, const char *name, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGComputeExactError(SquallESDG, const char *name, PetscReal t, Vec, PetscReal *l2);

/* ---- hipBone-style matrix-free CG: screened Poisson A = Z^T (S_L + lambda W) Z on a brick of hex
   spectral elements (GLL nodes, order 1..15), as a MATSHELL, and the KSP type "hbcg" (any Mat; fused
   vector kernels, on the device for VECCUDA). Options -hb_order, -hb_elements, -hb_bounds,
   -hb_lambda, -hb_dirichlet, -hb_shear, -hb_kernel_switch, -hb_kernel_variant, -hb_vec_type (SquallHBCreateOperator). */
#define SQUALL_KSPHBCG "hbcg"
typedef struct {
  PetscInt  order, Nq, Np;
  PetscInt  elements[3]; /* the brick */
  PetscInt  nelem_global, nelem_local;
  PetscInt  ndof_global, ndof_local; /* N_G: assembled unknowns (owned by this rank: local) */
  PetscInt  nlocal_global;           /* N_L = E Np over all ranks */
  PetscReal lambda;
  PetscBool dirichlet;
  /* CUDA operator kernel for this order (the default by order and precision): "3d_v2", "2d_v2", "3d", "2d", "2d_capped" (v1), "2d_v3", "2d_v4", "2d_v5" (v3-v5 from -hb_kernel_switch on; "_L3", "_L4" with 3, 4 layers per step), "3d_v6" (v6 below it) */
  const char *kernel;
  PetscInt    layers; /* layers per step of that kernel: 2-4 for the v3-v5 2D kernels, else 0 */
} SquallHBInfo;
typedef struct {
  PetscReal      t_kernel, t_gather, t_mult; /* seconds per application: fused element kernel (all local elements), Z^T gather, whole MatMult */
  PetscLogDouble flops_kernel, bytes_kernel; /* per application on this rank: 12 Nq^4 + 18 Np flops per element; minimum traffic */
  PetscReal      t_stream;                   /* 8-read:1-write streaming kernel, seconds per sweep */
  PetscLogDouble bytes_stream;               /* bytes per sweep */
  PetscBool      device;                     /* timed with CUDA events (else PetscTime on the host) */
} SquallHBBenchResult;
typedef PetscErrorCode (*SquallHBFunction)(const PetscReal x[3], PetscScalar *f, void *ctx);
PETSC_EXTERN PetscErrorCode SquallHBCreateOperator(MPI_Comm, PetscInt order, const PetscInt elements[], Mat *);
PETSC_EXTERN PetscErrorCode SquallHBElementsForDofs(PetscInt order, PetscReal target, PetscInt elements[3]);
PETSC_EXTERN PetscErrorCode SquallHBGetInfo(Mat, SquallHBInfo *);
PETSC_EXTERN PetscErrorCode SquallHBGetCoordinates(Mat, Vec *);
PETSC_EXTERN PetscErrorCode SquallHBComputeRHS(Mat, SquallHBFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallHBInterpolate(Mat, SquallHBFunction, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallHBMultDot(Mat, Vec, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallHBAssemble(Mat, MatType, Mat *);
PETSC_EXTERN PetscErrorCode SquallHBBenchmarkOperator(Mat, PetscInt reps, SquallHBBenchResult *);

/* ---- P1 tetrahedral CG: element matrices assembled on the GPU (atomicAdd into the device values of
   MATAIJCUSPARSE) or on the CPU, on DMPlex tetrahedral meshes distributed with one layer of overlap */
typedef struct _n_SquallP1 *SquallP1;

typedef enum { SQUALL_P1_HOST, SQUALL_P1_CUDA } SquallP1Backend;
PETSC_EXTERN const char *const SquallP1Backends[];
/* atomic: squall's direct assembly into the AIJ value arrays (atomicAdd on the GPU, a plain loop on
   the CPU); coo: MatSetPreallocationCOO + MatSetValuesCOO; setvalues: MatSetValues element by element */
typedef enum { SQUALL_P1_ASSEMBLY_ATOMIC, SQUALL_P1_ASSEMBLY_COO, SQUALL_P1_ASSEMBLY_SETVALUES } SquallP1AssemblyType;
PETSC_EXTERN const char *const SquallP1AssemblyTypes[];
/* how the direct assembly finds an element entry's place in the AIJ values (-p1_assembly_mode): a binary
   search of its column in the row, or a slot map (positions of all element entries, built once), both
   adding atomically; or gather, atomic-free and deterministic: element values to a scratch array, then
   each stored value sums its contributions in a fixed order (the transposed slot map, built once); or
   reduce: each thread block of elements sums its contributions to a matrix entry in shared memory in a
   fixed order and adds the sum with one atomicAdd (the per-block map of unique entries, built once) */
typedef enum { SQUALL_P1_ATOMIC_SEARCH, SQUALL_P1_ATOMIC_SLOTS, SQUALL_P1_ATOMIC_GATHER, SQUALL_P1_ATOMIC_REDUCE } SquallP1AtomicMode;
PETSC_EXTERN const char *const SquallP1AtomicModes[];
/* the GPU kernel of the reduce mode (-p1_reduce_variant; same sums, same order, bit for bit): plain reads
   its map from global memory in the summing phase; staged copies the block's map into shared memory
   (cp.async) while the elements are computed; balanced also gives each thread a contiguous run of ~16
   contributions instead of every 256th entry; _b3: registers capped for 3 blocks of 256 threads per SM; affine:
   staged with closed-form element matrices (equal up to rounding, not bit for bit); affine_xyz: affine with J^-1 and
   the volume rebuilt from the vertex coordinates instead of read from the precomputed geometry; affine_shared
   (the default): affine_xyz with the fields of the block's vertices copied once into shared memory, where its elements
   read them */
typedef enum {
  SQUALL_P1_REDUCE_PLAIN,
  SQUALL_P1_REDUCE_PLAIN_B3,
  SQUALL_P1_REDUCE_STAGED,
  SQUALL_P1_REDUCE_STAGED_B3,
  SQUALL_P1_REDUCE_BALANCED,
  SQUALL_P1_REDUCE_BALANCED_B3,
  SQUALL_P1_REDUCE_AFFINE,
  SQUALL_P1_REDUCE_AFFINE_XYZ,
  SQUALL_P1_REDUCE_AFFINE_SHARED,
  SQUALL_P1_REDUCE_NUM_VARIANTS
} SquallP1ReduceVariant;
PETSC_EXTERN const char *const SquallP1ReduceVariants[];
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
PETSC_EXTERN PetscErrorCode SquallP1SetAtomicMode(SquallP1, SquallP1AtomicMode);
PETSC_EXTERN PetscErrorCode SquallP1GetAtomicMode(SquallP1, SquallP1AtomicMode *);
PETSC_EXTERN PetscErrorCode SquallP1SetReduceVariant(SquallP1, SquallP1ReduceVariant);
PETSC_EXTERN PetscErrorCode SquallP1SetElementOrder(SquallP1, SquallP1ElementOrder);
PETSC_EXTERN PetscErrorCode SquallP1SetFromOptions(SquallP1);
PETSC_EXTERN PetscErrorCode SquallP1SetUp(SquallP1);
PETSC_EXTERN PetscErrorCode SquallP1View(SquallP1, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallP1Destroy(SquallP1 *);
PETSC_EXTERN PetscErrorCode SquallP1GetDM(SquallP1, DM *);
PETSC_EXTERN PetscErrorCode SquallP1GetSizes(SquallP1, PetscInt *nowned, PetscInt *nglobal, PetscInt *nelem, PetscInt *nelemglobal);
PETSC_EXTERN PetscErrorCode SquallP1GetNonzeros(SquallP1, PetscInt *nnzlocal, PetscInt64 *nnzglobal);
PETSC_EXTERN PetscErrorCode SquallP1ComputeGeometry(SquallP1);

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
