static char help[] = "DG mesh on a DMForest: element count, volume, face maps (every face node has exactly one\n"
                     "partner at the same position modulo the period), boundary tags, metric identities.\n";

#include <squall.h>
#include "dm/dgmeshimpl.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

int main(int argc, char **argv)
{
  SquallDGMesh m;
  PetscInt     nown, nglob, bfaces[6] = {0}, gbfaces[6], pairs = 0;
  PetscReal    vol, exactvol = 1, maxdist = 0, maxmetric = 0, L[3];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SquallDGMeshCreate(PETSC_COMM_WORLD, &m));
  PetscCall(SquallDGMeshSetOptionsPrefix(m, "esdg_")); /* -esdg_order, -esdg_mesh_warp */
  PetscCall(SquallDGMeshSetFromOptions(m));
  PetscCall(SquallDGMeshSetUp(m));
  const PetscInt Np = m->Np, Nfp = m->Nfp, Nq = m->Nq;
  for (PetscInt d = 0; d < 3; d++) {
    L[d] = m->hi[d] - m->lo[d];
    exactvol *= L[d];
  }

  /* element count */
  PetscCallMPI(MPIU_Allreduce(&m->nOwned, &nown, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(SquallDGMeshGetNumElements(m, NULL, NULL, &nglob));
  CHECK(nown == nglob && nglob == m->ncell[0] * m->ncell[1] * m->ncell[2], "element count %" PetscInt_FMT " != %" PetscInt_FMT, nown, nglob);

  /* volume: exact on boxes; on the warped mesh the quadrature of J has a truncation error */
  PetscCall(SquallDGMeshComputeVolume(m, &vol));
  CHECK(PetscAbsReal(vol - exactvol) < (m->cartesian ? 1e4 * PETSC_MACHINE_EPSILON : 1e-3) * exactvol, "volume %.16g != %.16g", (double)vol, (double)exactvol);

  /* face maps */
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb < 0) {
        const PetscInt d = f / 2;
        CHECK(!m->periodic[d], "boundary face in periodic direction");
        CHECK(m->ijk[3 * e + d] == (f % 2 ? m->ncell[d] - 1 : 0), "boundary face %s of element %" PetscInt_FMT " is not on the domain boundary", SquallFaces[f], e);
        bfaces[f]++;
        continue;
      }
      PetscInt seen[(SQUALL_DG_MAX_ORDER + 1) * (SQUALL_DG_MAX_ORDER + 1)];
      for (PetscInt q = 0; q < Nfp; q++) {
        const PetscInt   p = m->vmapP[(e * 6 + f) * Nfp + q], n = m->fmask[f * Nfp + q];
        const PetscReal *XP = SQUALL_DG_X(m, nb);
        CHECK(m->slot[nb] == p / Np, "partner node outside the neighbouring element");
        for (PetscInt d = 0; d < 3; d++) {
          PetscReal dist = XP[d * Np + p % Np] - X[d * Np + n];
          if (m->periodic[d]) dist -= L[d] * PetscFloorReal(dist / L[d] + 0.5);
          maxdist = PetscMax(maxdist, PetscAbsReal(dist) / L[d]);
        }
        seen[q] = p;
        for (PetscInt q2 = 0; q2 < q; q2++) CHECK(seen[q2] != p, "two face nodes share one partner");
        pairs++;
        /* the partner of my partner is me, when the neighbour is owned here */
        if (nb < m->nOwned) CHECK(m->vmapP[(nb * 6 + (f ^ 1)) * Nfp + q] == m->slot[e] * Np + n, "face map is not an involution");
      }
    }
  }
  CHECK(maxdist < 50 * PETSC_MACHINE_EPSILON, "face node partner off by %g (relative)", (double)maxdist);
  PetscCallMPI(MPIU_Allreduce(bfaces, gbfaces, 6, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt f = 0; f < 6; f++) {
    const PetscInt d = f / 2, expect = m->periodic[d] ? 0 : m->ncell[(d + 1) % 3] * m->ncell[(d + 2) % 3];
    CHECK(gbfaces[f] == expect, "side %s has %" PetscInt_FMT " boundary faces, expected %" PetscInt_FMT, SquallFaces[f], gbfaces[f], expect);
  }

  /* discrete metric identities: sum_d d/dxi^d (Ja^d)_c = 0 at every node */
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *Ja = SQUALL_DG_JA(m, e);
    for (PetscInt c = 0; c < 3; c++)
      for (PetscInt k = 0; k < Nq; k++)
        for (PetscInt j = 0; j < Nq; j++)
          for (PetscInt i = 0; i < Nq; i++) {
            PetscReal s = 0, scale = 0;
            for (PetscInt a = 0; a < Nq; a++) {
              s += m->D[i * Nq + a] * Ja[(0 * 3 + c) * Np + a + Nq * (j + Nq * k)];
              s += m->D[j * Nq + a] * Ja[(1 * 3 + c) * Np + i + Nq * (a + Nq * k)];
              s += m->D[k * Nq + a] * Ja[(2 * 3 + c) * Np + i + Nq * (j + Nq * a)];
              scale = PetscMax(scale, PetscAbsReal(Ja[(c * 3 + c) * Np + i + Nq * (j + Nq * k)]));
            }
            maxmetric = PetscMax(maxmetric, PetscAbsReal(s) / scale);
          }
  }
  /* the identity, evaluated here in working precision, carries a few hundred ulps of round-off */
  CHECK(maxmetric < 2e3 * PETSC_MACHINE_EPSILON, "metric identities violated by %g", (double)maxmetric);
  {
    PetscReal gd, gm;
    PetscInt  gp;
    PetscCallMPI(MPIU_Allreduce(&maxdist, &gd, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(&maxmetric, &gm, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(&pairs, &gp, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "elements %" PetscInt_FMT ", face-node pairs %" PetscInt_FMT ", max partner distance %.2e, metric identity %.2e, volume error %.2e\n", nglob, gp, (double)gd, (double)gm, (double)PetscAbsReal(vol / exactvol - 1)));
  }
  PetscCall(SquallDGMeshDestroy(&m));
  PetscCall(PetscFinalize());
  return 0;
}
