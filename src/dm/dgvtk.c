/* ParaView output of a DG field: one .vtu piece per rank plus a .pvtu index. Each element's LGL
   nodes become points and its N^3 sub-cells linear hexahedra, so ParaView shows the nodal data
   without any interpolation. */
#include "dm/dgmeshimpl.h"

static PetscErrorCode WritePiece(SquallDGMesh m, const PetscScalar *xa, const char *const names[], const char fname[])
{
  FILE          *fp;
  const PetscInt N = m->N, Nq = m->Nq, Np = m->Np, E = m->nOwned;

  PetscFunctionBegin;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, fname, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", E * Np, E * N * N * N));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n"));
  for (PetscInt e = 0; e < E; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.10g %.10g %.10g\n", (double)X[n], (double)X[Np + n], (double)X[2 * Np + n]));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray></Points>\n<Cells><DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n"));
  for (PetscInt e = 0; e < E; e++)
    for (PetscInt k = 0; k < N; k++)
      for (PetscInt j = 0; j < N; j++)
        for (PetscInt i = 0; i < N; i++) {
          const PetscInt b = e * Np, n0 = i + Nq * (j + Nq * k);
          const PetscInt c[8] = {n0, n0 + 1, n0 + 1 + Nq, n0 + Nq, n0 + Nq * Nq, n0 + 1 + Nq * Nq, n0 + 1 + Nq + Nq * Nq, n0 + Nq + Nq * Nq};
          for (PetscInt v = 0; v < 8; v++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%" PetscInt_FMT " ", b + c[v]));
          PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\n"));
        }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n"));
  for (PetscInt c = 1; c <= E * N * N * N; c++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%" PetscInt_FMT "\n", 8 * c));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n"));
  for (PetscInt c = 0; c < E * N * N * N; c++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "12\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray></Cells>\n<PointData>\n"));
  if (xa) {
    for (PetscInt f = 0; f < m->nf; f++) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<DataArray type=\"Float64\" Name=\"%s\" format=\"ascii\">\n", names ? names[f] : "q"));
      for (PetscInt e = 0; e < E; e++)
        for (PetscInt n = 0; n < Np; n++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.12g\n", (double)PetscRealPart(xa[(m->gslot[e] * m->nf + f) * Np + n])));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray>\n"));
    }
  }
  if (m->shell) {
    /* latitude and longitude (degrees) and the height r - a (m) of every node */
    const char *const gname[3] = {"latitude", "longitude", "height"};
    for (PetscInt c = 0; c < 3; c++) {
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<DataArray type=\"Float64\" Name=\"%s\" format=\"ascii\">\n", gname[c]));
      for (PetscInt e = 0; e < E; e++) {
        const PetscReal *X = SQUALL_DG_X(m, e);
        for (PetscInt n = 0; n < Np; n++) {
          const PetscReal x = X[n], y = X[Np + n], z = X[2 * Np + n], r = PetscSqrtReal(x * x + y * y + z * z);
          const PetscReal v = c == 0 ? PetscAsinReal(z / r) * 180 / PETSC_PI : (c == 1 ? PetscAtan2Real(y, x) * 180 / PETSC_PI : m->zh[(size_t)e * Np + n]);
          PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.10g\n", (double)v));
        }
      }
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray>\n"));
    }
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<DataArray type=\"Float64\" Name=\"J\" format=\"ascii\">\n"));
  for (PetscInt e = 0; e < E; e++)
    for (PetscInt n = 0; n < Np; n++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%.10g\n", (double)SQUALL_DG_J(m, e)[n]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</DataArray>\n</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n"));
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallDGMeshWriteVTK - writes filename.pvtu and one filename_<rank>.vtu per rank; X (a global
  vector of the mesh's DM) may be NULL to write the mesh alone. Points are Cartesian; on the shell the
  point fields latitude, longitude (degrees) and height (r - a, m) come with them.
@*/
PetscErrorCode SquallDGMeshWriteVTK(SquallDGMesh m, Vec X, const char *const names[], const char filename[])
{
  PetscMPIInt        rank, size;
  char               piece[PETSC_MAX_PATH_LEN];
  const PetscScalar *xa = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
  PetscCallMPI(MPI_Comm_size(m->comm, &size));
  PetscCall(PetscSNPrintf(piece, sizeof(piece), "%s_%d.vtu", filename, rank));
  if (X) PetscCall(VecGetArrayRead(X, &xa));
  PetscCall(WritePiece(m, xa, names, piece));
  if (X) PetscCall(VecRestoreArrayRead(X, &xa));
  if (rank == 0) {
    FILE       *fp;
    char        index[PETSC_MAX_PATH_LEN];
    const char *base = strrchr(filename, '/');

    base = base ? base + 1 : filename;
    PetscCall(PetscSNPrintf(index, sizeof(index), "%s.pvtu", filename));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, index, "w", &fp));
    PetscCall(PetscFPrintf(
      PETSC_COMM_SELF, fp,
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PUnstructuredGrid GhostLevel=\"0\">\n<PPoints><PDataArray type=\"Float64\" NumberOfComponents=\"3\"/></PPoints>\n<PPointData>\n"));
    if (X)
      for (PetscInt f = 0; f < m->nf; f++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<PDataArray type=\"Float64\" Name=\"%s\"/>\n", names ? names[f] : "q"));
    if (m->shell) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<PDataArray type=\"Float64\" Name=\"latitude\"/>\n<PDataArray type=\"Float64\" Name=\"longitude\"/>\n<PDataArray type=\"Float64\" Name=\"height\"/>\n"));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<PDataArray type=\"Float64\" Name=\"J\"/>\n</PPointData>\n"));
    for (PetscMPIInt r = 0; r < size; r++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "<Piece Source=\"%s_%d.vtu\"/>\n", base, r));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "</PUnstructuredGrid>\n</VTKFile>\n"));
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
