/* The ghost exchange of the ESDG right-hand side: only the face nodes that owned elements' faces read
   from ghost elements travel (Nfp of the Np values per ghost face: 1/5 at N = 4), through a PetscSF
   embedded in the DM's section SF, so the values land where DMGlobalToLocal would put them in the
   local vector and the face code is unchanged. Owned partners are read from the global vector itself,
   so no local copy of the owned state is made either. The same SF serves the host and the device
   (PetscSF packs on the GPU; PETSc stages through the host when MPI is not CUDA-aware). */
#include "ts/esdgimpl.h"

PetscErrorCode SquallESDGCreateGhostSF(SquallESDG s)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np, Nfp = m->Nfp, nf = 5;
  PetscSF            ssf;
  PetscInt           nroots, nleaves, nloc, nsel = 0, *leafof, *sel;
  const PetscInt    *ilocal;
  const PetscSFNode *iremote;

  PetscFunctionBegin;
  PetscCall(DMGetSectionSF(m->sdm, &ssf));
  PetscCall(PetscSFGetGraph(ssf, &nroots, &nleaves, &ilocal, &iremote));
  PetscCall(VecGetLocalSize(s->Qloc, &nloc));
  /* leaf index of every local-vector entry (the selection below is by leaf index) */
  PetscCall(PetscMalloc1(PetscMax(nloc, 1), &leafof));
  for (PetscInt i = 0; i < nloc; i++) leafof[i] = -1;
  for (PetscInt l = 0; l < nleaves; l++) leafof[ilocal ? ilocal[l] : l] = l;
  PetscCall(PetscMalloc1(PetscMax((size_t)6 * m->nOwned * Nfp * nf, (size_t)1), &sel));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 0; f < 6; f++) {
      if (m->nbr[6 * e + f] < m->nOwned) continue; /* wall or owned partner */
      for (PetscInt q = 0; q < Nfp; q++) {
        const PetscInt p = m->vmapP[((size_t)e * 6 + f) * Nfp + q], slot = p / Np, node = p % Np;
        for (PetscInt c = 0; c < nf; c++) {
          const PetscInt i = (slot * nf + c) * Np + node;
          PetscCheck(i < nloc && leafof[i] >= 0, s->comm, PETSC_ERR_PLIB, "Ghost face value %" PetscInt_FMT " of element %" PetscInt_FMT " is not in the section SF", i, e);
          sel[nsel++] = leafof[i];
        }
      }
    }
  /* a ghost node on an edge or corner is read through up to three owned faces: select it once */
  PetscCall(PetscSortRemoveDupsInt(&nsel, sel));
  PetscCall(PetscSFCreateEmbeddedLeafSF(ssf, nsel, sel, &s->ghostSF));
  PetscCall(PetscSFSetUp(s->ghostSF));
  PetscCall(PetscFree(leafof));
  PetscCall(PetscFree(sel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGGhostBegin(SquallESDG s, PetscMemType mtype, const PetscScalar *q, PetscScalar *qloc)
{
  PetscFunctionBegin;
  PetscCall(PetscSFBcastWithMemTypeBegin(s->ghostSF, MPIU_SCALAR, mtype, q, mtype, qloc, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGGhostEnd(SquallESDG s, const PetscScalar *q, PetscScalar *qloc)
{
  PetscFunctionBegin;
  PetscCall(PetscSFBcastEnd(s->ghostSF, MPIU_SCALAR, q, qloc, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
