/* Tetrahedral meshes for the P1 operators: hexahedral lattices split into 6 tetrahedra each (a box,
   and the terrain-following mountain mesh), Gmsh files, and the distribution with one layer of
   overlap that lets every rank compute all contributions to its own rows. */
#include "mat/p1impl.h"
#include "physics/terrain.h"
#include <petscdmplex.h>

/*@C
  SquallP1DistributeMesh - distributes a DMPlex over its communicator with one layer of cell overlap
  (vertex adjacency), or adds the overlap to a distributed one; nothing on one rank. *dm is replaced.
@*/
PetscErrorCode SquallP1DistributeMesh(DM *dm)
{
  PetscMPIInt size;
  PetscBool   dist;
  PetscInt    ov;
  DM          ndm = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)*dm), &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  /* FEM adjacency: the overlap then holds every cell that shares a vertex with an owned cell */
  PetscCall(DMSetBasicAdjacency(*dm, PETSC_FALSE, PETSC_TRUE));
  PetscCall(DMPlexIsDistributed(*dm, &dist));
  if (!dist)
    PetscCall(DMPlexDistribute(*dm, 1, NULL, &ndm));
  else {
    PetscCall(DMPlexGetOverlap(*dm, &ov));
    if (ov < 1) PetscCall(DMPlexDistributeOverlap(*dm, 1, NULL, &ndm));
  }
  if (ndm) {
    PetscCall(DMDestroy(dm));
    *dm = ndm;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*P1LatticeMap)(PetscInt i, PetscInt j, PetscInt k, PetscReal x[3], void *ctx);

/* A lattice of n[0] x n[1] x n[2] hexahedra, each split into 6 tetrahedra around its diagonal from
   the (0,0,0) corner to the (1,1,1) corner (Kuhn/Freudenthal): tetrahedron pi, for a permutation pi
   of the axes, walks from (0,0,0) to (1,1,1) along e_pi0, e_pi1, e_pi2. Every face of every hex is
   cut by its diagonal through its lowest and highest corners, so neighbouring hexes' faces match.
   Built on rank 0 (uninterpolated: P1 needs only cells and vertices), then distributed. */
static PetscErrorCode P1CreateLatticeMesh(MPI_Comm comm, const PetscInt n[3], P1LatticeMap map, void *ctx, DM *dm)
{
  static const PetscInt perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}; /* even permutations first */
  PetscMPIInt           rank;
  PetscInt              nv = 0, nc = 0, *cells = NULL;
  PetscReal            *coords = NULL;
  PetscInt64            nv64, nc64;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  nv64 = (PetscInt64)(n[0] + 1) * (n[1] + 1) * (n[2] + 1);
  nc64 = (PetscInt64)6 * n[0] * n[1] * n[2];
  PetscCheck(4 * nc64 < PETSC_INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "A lattice of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " hexahedra has %" PetscInt64_FMT " tetrahedra: too many for 32-bit PetscInt (configure PETSc with --with-64-bit-indices)", n[0], n[1], n[2], nc64);
  if (rank == 0) {
    nv = (PetscInt)nv64;
    nc = (PetscInt)nc64;
    PetscCall(PetscMalloc2(3 * nv, &coords, 4 * nc, &cells));
    for (PetscInt k = 0, v = 0; k <= n[2]; k++)
      for (PetscInt j = 0; j <= n[1]; j++)
        for (PetscInt i = 0; i <= n[0]; i++, v++) PetscCall(map(i, j, k, &coords[3 * v], ctx));
    for (PetscInt k = 0, c = 0; k < n[2]; k++)
      for (PetscInt j = 0; j < n[1]; j++)
        for (PetscInt i = 0; i < n[0]; i++)
          for (PetscInt t = 0; t < 6; t++, c++) {
            PetscInt p[3] = {i, j, k}, w[4];

            for (PetscInt s = 0; s < 4; s++) {
              w[s] = p[0] + (n[0] + 1) * (p[1] + (n[1] + 1) * p[2]);
              if (s < 3) p[perm[t][s]]++;
            }
            /* the walk is right-handed for even permutations; PETSc wants the left-handed order */
            if (t < 3) {
              const PetscInt tmp = w[1];
              w[1]               = w[2];
              w[2]               = tmp;
            }
            for (PetscInt s = 0; s < 4; s++) cells[4 * c + s] = w[s];
          }
  }
  PetscCall(DMPlexCreateFromCellListPetsc(comm, 3, nc, nv, 4, PETSC_FALSE, cells, 3, coords, dm));
  PetscCall(PetscFree2(coords, cells));
  PetscCall(SquallP1DistributeMesh(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscReal lo[3], h[3];
} P1Box;

static PetscErrorCode P1BoxMap(PetscInt i, PetscInt j, PetscInt k, PetscReal x[3], void *ctx)
{
  P1Box *b = (P1Box *)ctx;

  PetscFunctionBegin;
  x[0] = b->lo[0] + i * b->h[0];
  x[1] = b->lo[1] + j * b->h[1];
  x[2] = b->lo[2] + k * b->h[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateBoxMesh - the box [lower, upper] with faces[d] hexahedra per direction, each split into
  6 tetrahedra (conforming); lower/upper may be NULL for the unit cube
@*/
PetscErrorCode SquallP1CreateBoxMesh(MPI_Comm comm, const PetscInt faces[3], const PetscReal lower[3], const PetscReal upper[3], DM *dm)
{
  P1Box b;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) {
    const PetscReal lo = lower ? lower[d] : 0, hi = upper ? upper[d] : 1;

    PetscCheck(faces[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-p1_box_faces: %c has %" PetscInt_FMT " cells; each entry must be >= 1", "xyz"[d], faces[d]);
    PetscCheck(hi > lo, comm, PETSC_ERR_ARG_OUTOFRANGE, "-p1_box_lower/-p1_box_upper: the %c extent [%g, %g] must be positive", "xyz"[d], (double)lo, (double)hi);
    b.lo[d] = lo;
    b.h[d]  = (hi - lo) / faces[d];
  }
  PetscCall(P1CreateLatticeMesh(comm, faces, P1BoxMap, &b, dm));
  PetscCall(PetscObjectSetName((PetscObject)*dm, "box"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- terrain-following mountain mesh */

/*@C
  SquallP1MountainSetFromOptions - the mountain mesh's defaults, then its options:
  -mountain_cells nx,ny,nz (default 46,46,44: 99,405 nodes and 558,624 tetrahedra), -mountain_stretch s
  (default 1), -mountain_h0 (400 m), -mountain_a (1000 m), -mountain_extent Lx,Ly,H (60000,60000,16000 m)
@*/
PetscErrorCode SquallP1MountainSetFromOptions(MPI_Comm comm, SquallP1Mountain *m)
{
  PetscInt  n = 3;
  PetscReal ext[3];
  PetscBool flg;

  PetscFunctionBegin;
  m->cells[0] = m->cells[1] = 46;
  m->cells[2]               = 44;
  m->h0                     = 400;
  m->a                      = 1000;
  m->L[0] = m->L[1] = 60000;
  m->H              = 16000;
  m->stretch        = 1;
  ext[0]            = m->L[0];
  ext[1]            = m->L[1];
  ext[2]            = m->H;
  PetscOptionsBegin(comm, NULL, "Terrain-following mountain mesh (hexahedra split into 6 tetrahedra)", "SquallP1Mountain");
  PetscCall(PetscOptionsIntArray("-mountain_cells", "Hexahedra in x, y, z before the split into 6 tetrahedra each", "SquallP1MountainCreateMesh", m->cells, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(comm, PetscOptionsObject->prefix, "-mountain_cells", 3, 0));
  PetscCall(PetscOptionsReal("-mountain_stretch", "Vertical stretching s, zeta = H (exp(s k/nz) - 1)/(exp(s) - 1) (0 uniform, up to 10)", "SquallP1MountainCreateMesh", m->stretch, &m->stretch, NULL));
  PetscCall(PetscOptionsReal("-mountain_h0", "Height of the bell-shaped hill (m)", "SquallP1MountainCreateMesh", m->h0, &m->h0, NULL));
  PetscCall(PetscOptionsReal("-mountain_a", "Half-width of the hill (m)", "SquallP1MountainCreateMesh", m->a, &m->a, NULL));
  n = 3;
  PetscCall(PetscOptionsRealArray("-mountain_extent", "Domain extents Lx,Ly (centred on the hill) and model top H (m)", "SquallP1MountainCreateMesh", ext, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(comm, PetscOptionsObject->prefix, "-mountain_extent", 3, 0));
  PetscOptionsEnd();
  m->L[0] = ext[0];
  m->L[1] = ext[1];
  m->H    = ext[2];
  for (PetscInt d = 0; d < 3; d++) PetscCheck(m->cells[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mountain_cells: %c has %" PetscInt_FMT " cells; each entry must be >= 1", "xyz"[d], m -> cells[d]);
  PetscCheck(m->stretch >= 0 && m->stretch <= 10, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mountain_stretch %g is out of range: valid values are 0 (uniform) to 10", (double)m->stretch);
  PetscCheck(m->L[0] > 0 && m->L[1] > 0 && m->H > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mountain_extent %g,%g,%g: the extents must be positive", (double)m->L[0], (double)m->L[1], (double)m->H);
  PetscCheck(m->h0 >= 0 && m->h0 < m->H, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mountain_h0 %g is out of range: valid heights are 0 to below the model top %g", (double)m->h0, (double)m->H);
  PetscCheck(m->a > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mountain_a %g is out of range: the half-width must be positive", (double)m->a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the hill as the pointwise terrain of src/physics/terrain.h: the bell the DG mesh's -esdg_terrain bell also
   takes, centred at the origin, over a Gal-Chen-Somerville column */
static SquallTerrain P1MountainBell(const SquallP1Mountain *m)
{
  SquallTerrain t;

  t.type   = SQUALL_TERRAIN_BELL;
  t.h0     = m->h0;
  t.a      = m->a;
  t.lambda = 0;
  t.xc = t.yc = 0;
  t.vcoord    = SQUALL_VCOORD_GAL_CHEN;
  t.s1 = t.s2 = 0;
  return t;
}

/*@C
  SquallP1MountainTerrain - the terrain height h(x, y) = h0 / (1 + (x^2 + y^2)/a^2)^(3/2) and its
  gradient (hx, hy may be NULL)
@*/
PetscErrorCode SquallP1MountainTerrain(const SquallP1Mountain *m, PetscReal x, PetscReal y, PetscReal *h, PetscReal *hx, PetscReal *hy)
{
  const SquallTerrain t = P1MountainBell(m);
  PetscReal           hh, h2, dh;

  PetscFunctionBegin;
  SquallTerrainHeight(&t, x, y, &hh, &h2);
  dh = -3 * hh / ((1 + (x * x + y * y) / (m->a * m->a)) * m->a * m->a); /* dh/d(x^2+y^2) * 2 */
  if (h) *h = hh + h2;
  if (hx) *hx = dh * x;
  if (hy) *hy = dh * y;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1MountainMap(PetscInt i, PetscInt j, PetscInt k, PetscReal X[3], void *ctx)
{
  const SquallP1Mountain *m = (const SquallP1Mountain *)ctx;
  const SquallTerrain     t = P1MountainBell(m);
  const PetscReal         s = (PetscReal)k / m->cells[2];
  PetscReal               zeta, h1, h2;

  PetscFunctionBegin;
  X[0] = -m->L[0] / 2 + i * m->L[0] / m->cells[0];
  X[1] = -m->L[1] / 2 + j * m->L[1] / m->cells[1];
  /* stretching refines near the ground, where the terrain and the boundary layer are */
  zeta = m->stretch > 0 ? m->H * (PetscExpReal(m->stretch * s) - 1) / (PetscExpReal(m->stretch) - 1) : m->H * s;
  if (k == m->cells[2]) zeta = m->H; /* a flat top, exactly */
  SquallTerrainHeight(&t, X[0], X[1], &h1, &h2);
  X[2] = SquallTerrainFollowingHeight(&t, zeta, m->H, h1, h2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1MountainCreateMesh - the terrain-following mesh over the bell-shaped hill: a lattice of
  hexahedra with z = h(x,y) + zeta (H - h(x,y))/H, each split into 6 tetrahedra
@*/
PetscErrorCode SquallP1MountainCreateMesh(MPI_Comm comm, const SquallP1Mountain *m, DM *dm)
{
  PetscFunctionBegin;
  PetscCall(P1CreateLatticeMesh(comm, m->cells, P1MountainMap, (void *)m, dm));
  PetscCall(PetscObjectSetName((PetscObject)*dm, "mountain"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CreateMountainMesh(MPI_Comm comm, DM *dm)
{
  SquallP1Mountain m;

  PetscFunctionBegin;
  PetscCall(SquallP1MountainSetFromOptions(comm, &m));
  PetscCall(SquallP1MountainCreateMesh(comm, &m, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- Gmsh files */

/*@C
  SquallP1CreateMeshFromFile - reads a mesh of tetrahedra with DMPlexCreateFromFile (Gmsh .msh, or any
  format PETSc reads) and distributes it. A missing, unreadable or malformed file is an error naming
  the file; so is a file whose cells are not tetrahedra.
@*/
PetscErrorCode SquallP1CreateMeshFromFile(MPI_Comm comm, const char filename[], DM *dm)
{
  PetscMPIInt    rank;
  int            status   = 0; /* 0 ok, 1 cannot open, 2 not a Gmsh file */
  char           head[64] = "";
  PetscBool      gmsh;
  PetscErrorCode ierr;
  PetscInt       dim, cStart, cEnd, depth;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscStrendswith(filename, ".msh", &gmsh));
  /* rank 0 reads the file for PETSc; look at it first so that every rank fails together */
  if (rank == 0) {
    FILE *fp = fopen(filename, "r");

    if (!fp)
      status = 1;
    else {
      if (gmsh) {
        if (!fgets(head, sizeof(head), fp)) head[0] = 0;
        head[strcspn(head, "\r\n")] = 0;
        if (strncmp(head, "$MeshFormat", 11)) status = 2;
      }
      (void)fclose(fp);
    }
  }
  PetscCallMPI(MPI_Bcast(&status, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(head, sizeof(head), MPI_CHAR, 0, comm));
  PetscCheck(status != 1, comm, PETSC_ERR_FILE_OPEN, "Cannot open the mesh file %s (-p1_mesh_file): it does not exist or is not readable", filename);
  PetscCheck(status != 2, comm, PETSC_ERR_FILE_UNEXPECTED, "The mesh file %s is not a Gmsh file: its first line should be $MeshFormat, not \"%s\"", filename, head);
  if (gmsh) {
    char msg[256] = "";
    if (rank == 0) PetscCall(SquallP1GmshCheck(filename, msg, sizeof(msg)));
    PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
    PetscCheck(!msg[0], comm, PETSC_ERR_FILE_UNEXPECTED, "Malformed mesh file %s: %s", filename, msg);
  }

  /* PETSc's reader reports a malformed file deep inside; catch it and name the file */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = DMPlexCreateFromFile(comm, filename, "p1", PETSC_FALSE, dm);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    const char     *text     = NULL;
    SquallErrorText specific = NULL;

    (void)PetscErrorMessage(ierr, &text, &specific);
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "Malformed mesh file %s: PETSc's reader failed with \"%s\" (%s)", filename, specific && specific[0] ? specific : "no message", text ? text : "unknown error");
  }
  PetscCall(DMGetDimension(*dm, &dim));
  PetscCheck(dim == 3, comm, PETSC_ERR_ARG_WRONG, "The mesh file %s holds a %" PetscInt_FMT "D mesh: squall's P1 operators need a 3D mesh of tetrahedra", filename, dim);
  PetscCall(DMPlexGetDepth(*dm, &depth));
  PetscCall(DMPlexGetHeightStratum(*dm, 0, &cStart, &cEnd));
  for (PetscInt c = cStart; c < cEnd; c++) {
    DMPolytopeType ct;

    PetscCall(DMPlexGetCellType(*dm, c, &ct));
    PetscCheck(ct == DM_POLYTOPE_TETRAHEDRON, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The mesh file %s has a cell (%" PetscInt_FMT ") of type %s: squall's P1 operators need tetrahedra", filename, c, DMPolytopeTypes[ct]);
  }
  PetscCall(PetscObjectSetName((PetscObject)*dm, "file"));
  PetscCall(SquallP1DistributeMesh(dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateMeshFromOptions - -p1_mesh mountain (default; -mountain_* options), box (-p1_box_faces,
  -p1_box_lower, -p1_box_upper), file (-p1_mesh_file name.msh) or plex (PETSc's own -dm_plex_*
  options through DMSetFromOptions, e.g. a simplex box when PETSc has a 3D mesh generator)
@*/
PetscErrorCode SquallP1CreateMeshFromOptions(MPI_Comm comm, DM *dm)
{
  const char *types[] = {"mountain", "box", "file", "plex"};
  PetscInt    type = 0, faces[3] = {4, 4, 4}, n;
  PetscReal   lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  char        file[PETSC_MAX_PATH_LEN] = "";
  PetscBool   flg;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "P1 tetrahedral mesh", "SquallP1");
  PetscCall(PetscOptionsEList("-p1_mesh", "Mesh: terrain-following mountain, box, Gmsh file, or PETSc's -dm_plex_* options", "SquallP1CreateMeshFromOptions", types, 4, types[type], &type, NULL));
  PetscCall(PetscOptionsString("-p1_mesh_file", "Mesh file for -p1_mesh file (Gmsh .msh)", "SquallP1CreateMeshFromFile", file, file, sizeof(file), &flg));
  if (flg && type == 0) type = 2;
  n = 3;
  PetscCall(PetscOptionsIntArray("-p1_box_faces", "Hexahedra per direction of -p1_mesh box (each split into 6 tetrahedra)", "SquallP1CreateBoxMesh", faces, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(comm, PetscOptionsObject->prefix, "-p1_box_faces", 3, 0));
  n = 3;
  PetscCall(PetscOptionsRealArray("-p1_box_lower", "Lower corner of -p1_mesh box", "SquallP1CreateBoxMesh", lo, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(comm, PetscOptionsObject->prefix, "-p1_box_lower", 3, 0));
  n = 3;
  PetscCall(PetscOptionsRealArray("-p1_box_upper", "Upper corner of -p1_mesh box", "SquallP1CreateBoxMesh", hi, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(comm, PetscOptionsObject->prefix, "-p1_box_upper", 3, 0));
  PetscOptionsEnd();
  switch (type) {
    case 0: PetscCall(SquallP1CreateMountainMesh(comm, dm)); break;
    case 1: PetscCall(SquallP1CreateBoxMesh(comm, faces, lo, hi, dm)); break;
    case 2:
      PetscCheck(file[0], comm, PETSC_ERR_ARG_WRONG, "-p1_mesh file needs -p1_mesh_file <name.msh>");
      PetscCall(SquallP1CreateMeshFromFile(comm, file, dm));
      break;
    default:
      PetscCall(DMCreate(comm, dm));
      PetscCall(DMSetType(*dm, DMPLEX));
      PetscCall(DMSetFromOptions(*dm));
      PetscCall(SquallP1DistributeMesh(dm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
