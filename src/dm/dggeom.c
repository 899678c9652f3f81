/* Geometry of the DG mesh at the LGL nodes: positions, Jacobian and metric terms.
   The metric terms J grad(xi^d) are computed in Kopriva's conservative curl form
   (D. A. Kopriva, "Metric identities and the discontinuous spectral element method on curvilinear
   meshes", J. Sci. Comput. 26 (2006) 301-327), so the discrete metric identities hold exactly and
   constant states are preserved on curved elements. */
#include "dm/dgmeshimpl.h"
#include "cuda/dgcheck.h"

/* sin(2 pi s) with exact zeros at s = 0 and s = 1, so warped positions on periodic faces agree bitwise */
static PetscReal Sin2Pi(PetscReal s)
{
  if (s == 0 || s == 1) return 0;
  return PetscSinReal(2 * PETSC_PI * s);
}

/* out = d/dxi_axis of in, on one element's Nq^3 nodes */
static void ApplyD(PetscInt Nq, const PetscReal *D, PetscInt axis, const PetscReal *in, PetscReal *out)
{
  const PetscInt stride = axis == 0 ? 1 : (axis == 1 ? Nq : Nq * Nq);
  for (PetscInt k = 0; k < Nq; k++)
    for (PetscInt j = 0; j < Nq; j++)
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt n   = i + Nq * (j + Nq * k);
        const PetscInt idx = axis == 0 ? i : (axis == 1 ? j : k);
        const PetscInt n0  = n - idx * stride;
        PetscReal      s   = 0;
        for (PetscInt m = 0; m < Nq; m++) s += D[idx * Nq + m] * in[n0 + m * stride];
        out[n] = s;
      }
}

PetscErrorCode SquallDGMeshComputeGeometry(SquallDGMesh m)
{
  const PetscInt Nq = m->Nq, Np = m->Np, nloc = m->nOwned + m->nGhost;
  PetscReal     *dX, *v, *cv;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3((size_t)nloc * 3 * Np, &m->x, (size_t)nloc * Np, &m->J, (size_t)nloc * 9 * Np, &m->Ja));
  PetscCall(PetscMalloc3(9 * Np, &dX, 3 * Np, &v, Np, &cv));
  m->cartesian = m->warp == 0 ? PETSC_TRUE : PETSC_FALSE;
  for (PetscInt e = 0; e < nloc; e++) {
    PetscReal *X = SQUALL_DG_X(m, e), *J = SQUALL_DG_J(m, e), *Ja = SQUALL_DG_JA(m, e);
    for (PetscInt k = 0; k < Nq; k++)
      for (PetscInt j = 0; j < Nq; j++)
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt n      = i + Nq * (j + Nq * k);
          const PetscInt loc[3] = {i, j, k};
          PetscReal      s[3], xb[3], disp = m->warp;
          for (PetscInt d = 0; d < 3; d++) {
            /* lattice index + fraction is exact at element faces, so shared face nodes agree bitwise */
            PetscReal t = (PetscReal)m->ijk[3 * e + d] + (1 + m->r[loc[d]]) / 2;
            xb[d]       = m->lo[d] + t * m->h[d];
            s[d]        = t / m->ncell[d];
            disp *= Sin2Pi(s[d]);
          }
          for (PetscInt d = 0; d < 3; d++) X[d * Np + n] = xb[d] + disp * (m->hi[d] - m->lo[d]);
        }
    /* dX[c*3 + a] = d X_c / d xi_a */
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt a = 0; a < 3; a++) ApplyD(Nq, m->D, a, &X[c * Np], &dX[(c * 3 + a) * Np]);
    for (PetscInt n = 0; n < Np; n++) {
#define DX(c, a) dX[((c)*3 + (a)) * Np + n]
      J[n] = DX(0, 0) * (DX(1, 1) * DX(2, 2) - DX(1, 2) * DX(2, 1)) - DX(0, 1) * (DX(1, 0) * DX(2, 2) - DX(1, 2) * DX(2, 0)) + DX(0, 2) * (DX(1, 0) * DX(2, 1) - DX(1, 1) * DX(2, 0));
#undef DX
      PetscCheck(J[n] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Element %" PetscInt_FMT " has a non-positive Jacobian %g at node %" PetscInt_FMT " (reduce -esdg_mesh_warp)", e, (double)J[n], n);
    }
    /* component c of Ja^d = -[curl_xi (X_l grad_xi X_mm)]_d with (c, mm, l) cyclic */
    for (PetscInt c = 0; c < 3; c++) {
      const PetscInt mm = (c + 1) % 3, l = (c + 2) % 3;
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt n = 0; n < Np; n++) v[a * Np + n] = X[l * Np + n] * dX[(mm * 3 + a) * Np + n];
      for (PetscInt d = 0; d < 3; d++) {
        const PetscInt a1 = (d + 1) % 3, a2 = (d + 2) % 3;
        PetscReal     *out = &Ja[(d * 3 + c) * Np];
        ApplyD(Nq, m->D, a1, &v[a2 * Np], out);
        ApplyD(Nq, m->D, a2, &v[a1 * Np], cv);
        for (PetscInt n = 0; n < Np; n++) out[n] = -(out[n] - cv[n]);
      }
    }
    if (m->cartesian) {
      /* on boxes the curl form is exact up to round-off; store the exact values so the Cartesian
         fast path and the general path see identical metrics */
      for (PetscInt n = 0; n < Np; n++) {
        J[n] = m->h[0] * m->h[1] * m->h[2] / 8;
        for (PetscInt d = 0; d < 3; d++)
          for (PetscInt c = 0; c < 3; c++) Ja[(d * 3 + c) * Np + n] = d == c ? J[n] * 2 / m->h[d] : 0;
      }
    }
  }
  PetscCall(PetscFree3(dX, v, cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallDGMeshIntegrate - integral over the domain of one field of a global vector, by LGL quadrature.
@*/
PetscErrorCode SquallDGMeshIntegrate(SquallDGMesh m, Vec X, PetscInt field, PetscReal *integral)
{
  const PetscScalar *xa;
  PetscReal          local = 0;
  const PetscInt     Nq = m->Nq, Np = m->Np;

  PetscFunctionBegin;
  PetscCheck(field >= -1 && field < m->nf, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "Field %" PetscInt_FMT " out of range [-1, %" PetscInt_FMT ")", field, m->nf);
  if (X) PetscCall(VecGetArrayRead(X, &xa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *J = SQUALL_DG_J(m, e);
    for (PetscInt k = 0; k < Nq; k++)
      for (PetscInt j = 0; j < Nq; j++)
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt n = i + Nq * (j + Nq * k);
          PetscReal      f = (X && field >= 0) ? PetscRealPart(xa[(m->gslot[e] * m->nf + field) * Np + n]) : 1;
          local += m->w[i] * m->w[j] * m->w[k] * J[n] * f;
        }
  }
  if (X) PetscCall(VecRestoreArrayRead(X, &xa));
  PetscCallMPI(MPIU_Allreduce(&local, integral, 1, MPIU_REAL, MPIU_SUM, m->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallDGMeshComputeVolume - the volume of the domain, by LGL quadrature of the Jacobian.
@*/
PetscErrorCode SquallDGMeshComputeVolume(SquallDGMesh m, PetscReal *vol)
{
  PetscFunctionBegin;
  PetscCall(SquallDGMeshIntegrate(m, NULL, -1, vol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the owned elements' node coordinates in the VECCUDA x against the host geometry, compared on the device */
PetscErrorCode SquallDGMeshCheckCoordinatesCUDA(SquallDGMesh m, Vec x, PetscReal *maxerr)
{
  PetscFunctionBegin;
  PetscAssertPointer(maxerr, 3);
  PetscCheck(m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallDGMeshSetUp() first");
  PetscCall(PetscLogEventBegin(SQUALL_GPUCheck, x, 0, 0, 0));
  PetscCall(SquallCUDAMaxAbsDiff(x, m->x, 3 * m->Np * m->nOwned, maxerr));
  PetscCall(PetscLogEventEnd(SQUALL_GPUCheck, x, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
