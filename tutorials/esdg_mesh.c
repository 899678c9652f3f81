static char help[] = "Builds squall's DG mesh on a p8est brick forest and writes it for ParaView.\n"
                     "  -esdg_mesh_vtk <base>   write <base>.pvtu (LGL nodes as points, sub-cells as hexahedra)\n"
                     "Mesh options are PETSc's DMForest options plus -esdg_order and -esdg_mesh_warp.\n\n";

#include <squall.h>

int main(int argc, char **argv)
{
  SquallDGMesh mesh;
  PetscReal    vol;
  PetscInt     nglobal;
  char         vtk[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg;
  DM           dm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SquallDGMeshCreate(PETSC_COMM_WORLD, &mesh));
  PetscCall(SquallDGMeshSetOptionsPrefix(mesh, "esdg_")); /* -esdg_order, -esdg_mesh_warp */
  PetscCall(SquallDGMeshSetFromOptions(mesh));
  PetscCall(SquallDGMeshSetUp(mesh));
  PetscCall(SquallDGMeshGetForest(mesh, &dm));
  PetscCall(DMViewFromOptions(dm, NULL, "-dm_view"));
  PetscCall(SquallDGMeshView(mesh, NULL));
  PetscCall(SquallDGMeshGetNumElements(mesh, NULL, NULL, &nglobal));
  PetscCall(SquallDGMeshComputeVolume(mesh, &vol));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "elements %" PetscInt_FMT " volume %.12e\n", nglobal, (double)vol));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_mesh_vtk", vtk, sizeof(vtk), &flg));
  if (flg) {
    PetscCall(SquallDGMeshWriteVTK(mesh, NULL, NULL, vtk));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote the mesh for ParaView\n"));
  }
  PetscCall(SquallDGMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return 0;
}
