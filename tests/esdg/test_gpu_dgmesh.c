static char help[] = "First GPU test: the DG node coordinates go to the device in a VECCUDA, are compared there with\n"
                     "a separate upload of the host reference, and come back doubled by a kernel.\n"
                     "Exits with 200 (skipped) when squall has no CUDA or no device is visible.\n";

#include <squall.h>
#include "dm/dgmeshimpl.h"
#include "cuda/dgcheck.h"
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

int main(int argc, char **argv)
{
  SquallDGMesh       m;
  PetscInt           n;
  PetscReal          maxerr;
  Vec                x, y;
  PetscScalar       *xa;
  const PetscScalar *ya;
  PetscMPIInt        rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  SQUALL_TEST_SKIP_WITHOUT_GPU();
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));

  PetscCall(SquallDGMeshCreate(PETSC_COMM_WORLD, &m));
  PetscCall(SquallDGMeshSetOptionsPrefix(m, "esdg_")); /* -esdg_order, -esdg_mesh_warp */
  PetscCall(SquallDGMeshSetFromOptions(m));
  PetscCall(SquallDGMeshSetUp(m));
  n = 3 * m->Np * m->nOwned;

  /* a VECCUDA holding the owned elements' coordinates, filled on the host (the owned elements come
     first in m->x, so its first n values are exactly theirs) */
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, n, PETSC_DECIDE));
  PetscCall(VecSetType(x, VECCUDA));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = 0; i < n; i++) xa[i] = m->x[i];
  PetscCall(VecRestoreArrayWrite(x, &xa));

  /* host -> device: the copy in the Vec matches the separately uploaded reference exactly */
  PetscCall(SquallDGMeshCheckCoordinatesCUDA(m, x, &maxerr));
  CHECK(maxerr == 0, "device coordinates differ from the reference by %g", (double)maxerr);

  /* the reduction really looks at the data: a perturbation of one value on rank 0 is found */
  if (rank == 0 && n > 0) {
    PetscCall(VecGetArray(x, &xa));
    xa[n / 2] += 1;
    PetscCall(VecRestoreArray(x, &xa));
  }
  PetscCall(SquallDGMeshCheckCoordinatesCUDA(m, x, &maxerr));
  CHECK(PetscAbsReal(maxerr - 1) < 1e-10, "a perturbation of 1 was measured as %g", (double)maxerr);
  if (rank == 0 && n > 0) {
    PetscCall(VecGetArray(x, &xa));
    xa[n / 2] = m->x[n / 2];
    PetscCall(VecRestoreArray(x, &xa));
  }
  PetscCall(SquallDGMeshCheckCoordinatesCUDA(m, x, &maxerr));
  CHECK(maxerr == 0, "restored coordinates differ from the reference by %g", (double)maxerr);

  /* device -> host: a kernel writes y = 2x, read back on the host (doubling is exact) */
  PetscCall(SquallCUDAScaleCopy(x, 2.0, y));
  PetscCall(VecGetArrayRead(y, &ya));
  for (PetscInt i = 0; i < n; i++) CHECK(PetscRealPart(ya[i]) == 2 * m->x[i], "y[%" PetscInt_FMT "] = %g, expected %g", i, (double)PetscRealPart(ya[i]), (double)(2 * m->x[i]));
  PetscCall(VecRestoreArrayRead(y, &ya));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU DG coordinates: %" PetscInt_FMT " values checked on the device and doubled back\n", 3 * m->Np * m->nGlobal));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&x));
  PetscCall(SquallDGMeshDestroy(&m));
  PetscCall(PetscFinalize());
  return 0;
}
