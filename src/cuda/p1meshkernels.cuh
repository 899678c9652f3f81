/* The P1 kernels of the mesh: the element geometry and the element metric.
   Part of the translation unit of src/cuda/p1device.cu, which includes it after its helpers; not a header of
   its own. */
#pragma once

/* the element kernel: Jacobian, determinant and inverse once per affine tetrahedron */
__global__ static void P1GeometryKernel(PetscInt ne, const PetscInt *__restrict__ tet, const PetscReal *__restrict__ x, PetscReal *__restrict__ geom)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscReal      X[4][3], invJ[9], vol;

  if (e >= ne) return;
  for (int a = 0; a < 4; a++) {
    const PetscInt v = tet[a * ne + e];
    for (int d = 0; d < 3; d++) X[a][d] = x[3 * v + d];
  }
  (void)SquallP1Geometry((const PetscReal(*)[3])X, invJ, &vol);
  for (int k = 0; k < 9; k++) geom[k * ne + e] = invJ[k];
  geom[9 * ne + e] = vol;
}

/* the element metric: L = scale * M^{-1} and the sorted lengths h per element; nbad counts the elements whose
   edge system is singular */
__global__ static void P1MetricKernel(PetscInt ne, const PetscInt *__restrict__ tet, const PetscReal *__restrict__ x, PetscReal scale, PetscScalar *__restrict__ L, PetscScalar *__restrict__ h, int *nbad)
{
  const PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  PetscReal      X[4][3], M[9], Le[9], he[3];

  if (e >= ne) return;
  for (int a = 0; a < 4; a++) {
    const PetscInt v = tet[a * ne + e];
    for (int d = 0; d < 3; d++) X[a][d] = x[3 * v + d];
  }
  if (SquallP1ElementMetric((const PetscReal(*)[3])X, M, Le, he)) {
    atomicAdd(nbad, 1);
    for (int k = 0; k < 9; k++) Le[k] = 0;
    for (int k = 0; k < 3; k++) he[k] = 0;
  }
  for (int k = 0; k < 9; k++) L[9 * e + k] = scale * Le[k];
  if (h)
    for (int k = 0; k < 3; k++) h[3 * e + k] = he[k];
}
