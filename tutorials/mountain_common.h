/* Shared set-up of the mountain tutorials (P1 CG on the terrain-following tetrahedral mesh): the
   mesh and operators, and the terrain-following wind. */
#pragma once

#include <squall.h>

typedef struct {
  SquallP1Mountain m;
  PetscReal        U0; /* wind speed far from the hill (m/s) */
} MountainWind;

/* A divergence-free wind along the terrain-following surfaces zeta = H (z - h)/(H - h) = const: the
   stream function psi = U0 zeta in the x-z plane gives u = d psi/dz = U0 H/(H - h) and
   w = -d psi/dx = U0 H h_x (H - z)/(H - h)^2, so u . n = 0 on the ground and w = 0 at the top. */
static PetscErrorCode MountainWindFn(const PetscReal x[3], PetscScalar u[], void *ctx)
{
  const MountainWind *w = (const MountainWind *)ctx;
  PetscReal           h, hx, d;

  PetscCall(SquallP1MountainTerrain(&w->m, x[0], x[1], &h, &hx, NULL));
  d    = w->m.H - h;
  u[0] = w->U0 * w->m.H / d;
  u[1] = 0;
  u[2] = w->U0 * w->m.H * hx * (w->m.H - x[2]) / (d * d);
  return PETSC_SUCCESS;
}

/* the mesh of -p1_mesh (default the mountain, -mountain_* options; also a box, a Gmsh file or PETSc's -dm_plex_*
   options: SquallP1CreateMeshFromOptions()) and the P1 operators on it (-p1_* options). The wind's terrain is the
   -mountain_* hill whatever the mesh. */
static PetscErrorCode MountainSetUp(MountainWind *wind, DM *dm, SquallP1 *p1)
{
  char      mesh[16] = "mountain";
  PetscBool file, mountain;

  PetscFunctionBegin;
  PetscCall(SquallP1MountainSetFromOptions(PETSC_COMM_WORLD, &wind->m));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-p1_mesh", mesh, sizeof(mesh), NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-p1_mesh_file", &file));
  PetscCall(PetscStrcmp(mesh, "mountain", &mountain));
  mountain = mountain && !file ? PETSC_TRUE : PETSC_FALSE; /* -p1_mesh_file alone means a file */
  if (mountain)
    PetscCall(SquallP1MountainCreateMesh(PETSC_COMM_WORLD, &wind->m, dm));
  else
    PetscCall(SquallP1CreateMeshFromOptions(PETSC_COMM_WORLD, dm));
  PetscCall(DMViewFromOptions(*dm, NULL, "-dm_view"));
  PetscCall(SquallP1Create(*dm, p1));
  PetscCall(SquallP1SetFromOptions(*p1));
  PetscCall(SquallP1SetUp(*p1));
  /* sizes only, so that the output does not depend on the ranks or the backend (-p1_view for those) */
  {
    PetscInt   N, NE;
    PetscInt64 nnz;

    PetscCall(SquallP1GetSizes(*p1, NULL, &N, NULL, &NE));
    PetscCall(SquallP1GetNonzeros(*p1, NULL, &nnz));
    if (mountain)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mountain mesh: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " hexahedra, %" PetscInt_FMT " nodes, %" PetscInt_FMT " tetrahedra, %" PetscInt64_FMT " nonzeros per scalar operator\n",
                            wind->m.cells[0], wind->m.cells[1], wind->m.cells[2], N, NE, nnz));
    else
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s mesh: %" PetscInt_FMT " nodes, %" PetscInt_FMT " tetrahedra, %" PetscInt64_FMT " nonzeros per scalar operator\n", file ? "file" : mesh, N, NE, nnz));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the terrain-following wind as the P1 operators' velocity; returned for further use */
PETSC_UNUSED static PetscErrorCode MountainSetWind(SquallP1 p1, MountainWind *wind, Vec *u)
{
  PetscFunctionBegin;
  PetscCall(SquallP1CreateVector(p1, 3, u));
  PetscCall(PetscObjectSetName((PetscObject)*u, "wind"));
  PetscCall(SquallP1Interpolate(p1, 3, MountainWindFn, wind, *u));
  PetscCall(SquallP1SetVelocity(p1, *u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_UNUSED static PetscErrorCode MountainWriteVTK(Vec v, const char base[])
{
  PetscViewer viewer;
  char        name[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s.vtu", base));
  PetscCall(PetscViewerVTKOpen(PetscObjectComm((PetscObject)v), name, FILE_MODE_WRITE, &viewer));
  PetscCall(VecView(v, viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}
