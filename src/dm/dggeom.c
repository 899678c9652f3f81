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

/* The terrain-following map of the node heights of one element: z = lo + z(zeta; h(x, y)) (src/physics/terrain.h)
   with zeta the height above the bottom of the brick. At the top face zeta is H exactly (from the lattice), so
   the model top stays flat; on the last face of a periodic direction the terrain is evaluated at the first
   face's position, so the two periodic images of a node have the same height bit for bit. */
static PetscErrorCode DGMeshTerrainElement(SquallDGMesh m, PetscInt e, PetscReal *X)
{
  const PetscInt  Nq = m->Nq, Np = m->Np;
  const PetscReal H = m->hi[2] - m->lo[2];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < Nq; k++)
    for (PetscInt j = 0; j < Nq; j++)
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt n = i + Nq * (j + Nq * k), loc[3] = {i, j, k};
        PetscReal      t[3], xh[2], h1, h2, zeta;
        for (PetscInt d = 0; d < 3; d++) t[d] = (PetscReal)m->ijk[3 * e + d] + (1 + m->r[loc[d]]) / 2;
        for (PetscInt d = 0; d < 2; d++) xh[d] = (m->periodic[d] && t[d] == (PetscReal)m->ncell[d]) ? m->lo[d] : X[d * Np + n];
        if (m->terrainFn)
          PetscCall(m->terrainFn(xh[0], xh[1], &h1, &h2, m->terrainCtx));
        else
          SquallTerrainHeight(&m->terrain, xh[0], xh[1], &h1, &h2);
        PetscCheck(h1 + h2 < H, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sterrain: the terrain height %g at (%g, %g) reaches the model top (brick height %g; lower -%sterrain_h0 or raise the top in -dm_p4est_brick_bounds)", m->prefix,
                   (double)(h1 + h2), (double)X[n], (double)X[Np + n], (double)H, m->prefix);
        for (PetscInt d = 0; d < 2; d++) {
          /* the terrain must agree at the two ends of a periodic direction, else the periodic faces would not match */
          if (m->periodic[d] && t[d] == (PetscReal)m->ncell[d]) {
            PetscReal g1, g2, x2[2] = {xh[0], xh[1]};
            x2[d] = X[d * Np + n];
            if (m->terrainFn)
              PetscCall(m->terrainFn(x2[0], x2[1], &g1, &g2, m->terrainCtx));
            else
              SquallTerrainHeight(&m->terrain, x2[0], x2[1], &g1, &g2);
            PetscCheck(PetscAbsReal(g1 + g2 - h1 - h2) <= PetscMax((PetscReal)1e-12, 10 * PETSC_MACHINE_EPSILON) * H, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
                       "-%sterrain: the terrain differs at the two ends of the periodic direction %c (%g at %c = %g, %g at %c = %g): move -%sterrain_center or widen the brick", m->prefix, "xy"[d], (double)(h1 + h2), "xy"[d], (double)m -> lo[d],
                       (double)(g1 + g2), "xy"[d], (double)m -> hi[d], m -> prefix);
          }
        }
        zeta          = t[2] == (PetscReal)m->ncell[2] ? H : X[2 * Np + n] - m->lo[2];
        X[2 * Np + n] = m->lo[2] + SquallTerrainFollowingHeight(&m->terrain, zeta, H, h1, h2);
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshComputeGeometry(SquallDGMesh m)
{
  const PetscBool terrain = (PetscBool)(m->terrain.type != SQUALL_TERRAIN_NONE || m->terrainFn);
  const PetscInt  Nq = m->Nq, Np = m->Np, nloc = m->nOwned + m->nGhost;
  PetscReal      *dX, *v, *cv;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3((size_t)nloc * 3 * Np, &m->x, (size_t)nloc * Np, &m->J, (size_t)nloc * 9 * Np, &m->Ja));
  PetscCall(PetscMalloc3(9 * Np, &dX, 3 * Np, &v, Np, &cv));
  m->cartesian = (m->warp == 0 && !terrain && !m->shell) ? PETSC_TRUE : PETSC_FALSE;
  if (m->shell) PetscCall(PetscMalloc1((size_t)nloc * Np, &m->zh));
  for (PetscInt e = 0; e < nloc; e++) {
    PetscReal *X = SQUALL_DG_X(m, e), *J = SQUALL_DG_J(m, e), *Ja = SQUALL_DG_JA(m, e);
    if (m->shell)
      PetscCall(SquallDGMeshShellNodes(m, e, X, &m->zh[(size_t)e * Np]));
    else
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
    if (terrain) PetscCall(DGMeshTerrainElement(m, e, X));
    /* dX[c*3 + a] = d X_c / d xi_a */
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt a = 0; a < 3; a++) ApplyD(Nq, m->D, a, &X[c * Np], &dX[(c * 3 + a) * Np]);
    for (PetscInt n = 0; n < Np; n++) {
#define DX(c, a) dX[((c)*3 + (a)) * Np + n]
      J[n] = DX(0, 0) * (DX(1, 1) * DX(2, 2) - DX(1, 2) * DX(2, 1)) - DX(0, 1) * (DX(1, 0) * DX(2, 2) - DX(1, 2) * DX(2, 0)) + DX(0, 2) * (DX(1, 0) * DX(2, 1) - DX(1, 1) * DX(2, 0));
#undef DX
      if (terrain)
        PetscCheck(J[n] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%sterrain %s with -%svertical_coordinate %s folds the mesh: non-positive Jacobian %g at (%g, %g, %g) (lower -%sterrain_h0, or raise -%ssleve_scales)", m->prefix,
                   m->terrainFn ? "(a user function)" : (m->terrain.type == SQUALL_TERRAIN_SCHAER ? "schaer" : "bell"), m->prefix, m->terrain.vcoord == SQUALL_VCOORD_SLEVE ? "sleve" : "gal_chen", (double)J[n], (double)X[n], (double)X[Np + n],
                   (double)X[2 * Np + n], m->prefix, m->prefix);
      else if (m->shell)
        PetscCheck(J[n] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shell element %" PetscInt_FMT ": non-positive Jacobian %g at (%g, %g, %g)", e, (double)J[n], (double)X[n], (double)X[Np + n], (double)X[2 * Np + n]);
      else
        PetscCheck(J[n] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-%smesh_warp %g folds element %" PetscInt_FMT ": non-positive Jacobian %g at (%g, %g, %g) (reduce -%smesh_warp)", m->prefix, (double)m->warp, e, (double)J[n], (double)X[n],
                   (double)X[Np + n], (double)X[2 * Np + n], m->prefix);
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
