static char help[] = "Bad input to the P1 operators must fail with a clear message (checked by ctest's PASS_REGULAR_EXPRESSION):\n"
                     "  -case ok|inverted|degenerate|missing|malformed|notgmsh|options\n"
                     "ok: two valid tetrahedra; inverted / degenerate: the second one is inverted / flat (the message names\n"
                     "tetrahedron 1); missing / malformed / notgmsh: Gmsh files (-file name); options: a mesh and operator\n"
                     "from the options database (for bad -mountain_* / -p1_* values).\n";

#include <squall.h>
#include "squalltest.h"
#include <petscdmplex.h>

int main(int argc, char **argv)
{
  const char *cases[]                  = {"ok", "inverted", "degenerate", "missing", "malformed", "notgmsh", "options"};
  PetscInt    c                        = 0;
  char        file[PETSC_MAX_PATH_LEN] = "p1_missing.msh";
  DM          dm                       = NULL;
  SquallP1    p1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "P1 bad input", NULL);
  PetscCall(PetscOptionsEList("-case", "Which bad input", NULL, cases, 7, cases[c], &c, NULL));
  PetscCall(PetscOptionsString("-file", "Mesh file for the file cases", NULL, file, file, sizeof(file), NULL));
  PetscOptionsEnd();
  if (c <= 2) {
    /* PETSc's convention: the closure of a valid tetrahedron is left-handed, e.g. 0,2,1,3 below */
    PetscReal coords[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    PetscInt  cells[]  = {0, 2, 1, 3, 1, 3, 2, 4};
    if (c == 1) {
      cells[5] = 2; /* 1,2,3,4: right-handed, i.e. inverted for PETSc */
      cells[6] = 3;
    }
    if (c == 2) coords[12] = coords[13] = coords[14] = 1.0 / 3; /* vertex 4 on the face 1,2,3 */
    PetscCall(DMPlexCreateFromCellListPetsc(PETSC_COMM_WORLD, 3, 2, 5, 4, PETSC_TRUE, cells, 3, coords, &dm));
  } else if (c <= 5) {
    if (c == 5) {
      FILE *fp;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "w", &fp));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "this is not a mesh\n"));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
    }
    PetscCall(SquallP1CreateMeshFromFile(PETSC_COMM_WORLD, file, &dm));
  } else
    PetscCall(SquallP1CreateMeshFromOptions(PETSC_COMM_WORLD, &dm));
  {
    /* the library's default -p1_degenerate_tol 1e-10 is below single-precision round-off: the flat tetrahedron
       (vertex 1/3, 1/3, 1/3, not exactly representable) then has 6|volume| of a few eps times its edges^3 */
    PetscBool set;
    char      val[32];

    PetscCall(PetscOptionsHasName(NULL, NULL, "-p1_degenerate_tol", &set));
    PetscCall(PetscSNPrintf(val, sizeof(val), "%g", (double)SQUALL_TOL(1e-10, 100)));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-p1_degenerate_tol", val));
  }
  PetscCall(SquallP1Create(dm, &p1));
  PetscCall(SquallP1SetFromOptions(p1));
  PetscCall(SquallP1SetUp(p1));
  PetscCall(SquallP1View(p1, NULL));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
