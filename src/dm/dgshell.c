/* The cubed-sphere shell of the DG mesh: p8est's "shell" connectivity (24 trees, each cube face a 2 x 2
   block of trees) through PETSc's DMForest, with squall's own node map.

   Each element is identified by its cube face, its column (i, j) on the face and its level k, from its
   place in the forest (ShellCellLattice). The LGL nodes are then placed by the equiangular gnomonic
   projection (C. Ronchi, R. Iacono, P. S. Paolucci, "The cubed sphere: a new method for the solution of
   partial differential equations in spherical geometry", J. Comput. Phys. 124 (1996) 93-114; R. D.
   Nair, S. J. Thomas, R. D. Loft, Mon. Wea. Rev. 133 (2005) 814-828): on the face with outward axis
   +-e_ax the point of the cube (P_ax = +-1, P_t = tan(pi/4 u_t)) is scaled to the radius
   r = a + H zeta. The element's first two reference directions run along the face's tangential axes
   (in the order that makes the frame right-handed), the third is radial, outward.

   Every coordinate of a node is computed from its lattice position along a global Cartesian axis
   (never along an element's own orientation), so coincident nodes of neighbouring elements, on the
   same or on different cube faces, get bitwise equal positions and heights. Neighbours come from the
   plex's face connectivity, face-node partners from matching the mapped positions. */
#include "dm/dgmeshimpl.h"
#include <petscdmforest.h>
#include <petscdmplex.h>

/* the cube face of face id fid = 2 ax + (sign > 0) and the Cartesian axes of the element's first two
   reference directions */
static void ShellFrame(PetscInt fid, PetscInt *ax, PetscReal *sign, PetscInt *ia, PetscInt *ja)
{
  *ax   = fid / 2;
  *sign = (fid % 2) ? 1 : -1;
  *ia   = (fid % 2) ? (*ax + 1) % 3 : (*ax + 2) % 3;
  *ja   = (fid % 2) ? (*ax + 2) % 3 : (*ax + 1) % 3;
}

static PetscReal ShellTan(PetscReal u)
{
  if (u == 1 || u == -1) return u;
  return PetscTanReal((PetscReal)(PETSC_PI / 4) * u);
}

/* the position and height of the point of element e at reference coordinates rs[3] in [-1, 1] */
static void ShellPoint(SquallDGMesh m, PetscInt e, const PetscReal rs[3], PetscReal X[3], PetscReal *zh)
{
  const PetscInt *ijk = &m->ijk[3 * e], nh = m->shellNh, nz = m->shellNz, fid = ijk[2] / nz, k = ijk[2] % nz;
  PetscInt        ax, ia, ja;
  PetscReal       sign, P[3], nrm, zeta, r;

  ShellFrame(fid, &ax, &sign, &ia, &ja);
  /* u along +e_ia and +e_ja from the lattice: the same operations for every element holding the point */
  P[ax] = sign;
  P[ia] = ShellTan(((PetscReal)(2 * ijk[0] + 1 - nh) + rs[0]) / (PetscReal)nh);
  P[ja] = ShellTan(((PetscReal)(2 * ijk[1] + 1 - nh) + rs[1]) / (PetscReal)nh);
  nrm   = PetscSqrtReal(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]);
  zeta  = ((PetscReal)(2 * k + 1) + rs[2]) / (PetscReal)(2 * nz);
  *zh   = m->shellH * zeta;
  r     = m->shellA + *zh;
  for (PetscInt d = 0; d < 3; d++) X[d] = r * (P[d] / nrm);
}

PetscErrorCode SquallDGMeshShellNodes(SquallDGMesh m, PetscInt e, PetscReal *X, PetscReal *zh)
{
  const PetscInt Nq = m->Nq, Np = m->Np;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < Nq; k++)
    for (PetscInt j = 0; j < Nq; j++)
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt  n     = i + Nq * (j + Nq * k);
        const PetscReal rs[3] = {m->r[i], m->r[j], m->r[k]};
        PetscReal       x[3];
        ShellPoint(m, e, rs, x, &zh[n]);
        for (PetscInt d = 0; d < 3; d++) X[d * Np + n] = x[d];
      }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshShellSetFromOptions(SquallDGMesh m, const char dmprefix[])
{
  PetscInt  ref = 0;
  PetscReal a = m->shellA > 0 ? m->shellA : 6.371229e6, H = m->shellH > 0 ? m->shellH : 30e3;

  PetscFunctionBegin;
  PetscOptionsBegin(m->comm, m->prefix, "squall DG mesh: cubed-sphere shell", "SquallDGMesh");
  PetscCall(PetscOptionsReal("-shell_radius", "Inner radius a of the shell (m, > 0)", "SquallDGMesh", a, &a, NULL));
  PetscCall(PetscOptionsReal("-shell_thickness", "Thickness H of the shell, the model top above the inner sphere (m, > 0, below the radius)", "SquallDGMesh", H, &H, NULL));
  PetscOptionsEnd();
  PetscCheck(a > 0, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sshell_radius %g is out of range: it must be > 0", m->prefix, (double)a);
  PetscCheck(H > 0 && H < a, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sshell_thickness %g is out of range: it must be > 0 and below -%sshell_radius %g", m->prefix, (double)H, m->prefix, (double)a);
  PetscOptionsBegin(m->comm, dmprefix, "DMForest shell (PETSc's options, checked by squall)", "DMFOREST");
  PetscCall(PetscOptionsInt("-dm_forest_initial_refinement", "Uniform refinement levels L of the shell: 2^(L+1) columns along each cube edge, 2^L elements in the vertical (0 to 6)", "DMForestSetInitialRefinement", ref, &ref, NULL));
  PetscOptionsEnd();
  PetscCheck(ref >= 0 && ref <= 6, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_forest_initial_refinement %" PetscInt_FMT " is out of range for the shell: valid levels are 0 to 6", ref);
  PetscCall(DMForestSetTopology(m->dm, "shell"));
  m->shellA   = a;
  m->shellH   = H;
  m->shellNh  = 2 << ref;
  m->shellNz  = 1 << ref;
  m->ncell[0] = m->ncell[1] = m->shellNh;
  m->ncell[2]               = 6 * m->shellNz;
  for (PetscInt d = 0; d < 3; d++) {
    m->periodic[d] = PETSC_FALSE;
    m->lo[d]       = d < 2 ? -(a + H) : 0; /* the horizontal bounding box, and the height range */
    m->hi[d]       = d < 2 ? a + H : H;
    m->h[d]        = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cube face, column and level of the cell with global number gidx. PETSc's plex of the shell forest
   numbers the cells as p8est orders its quadrants (tree by tree, Morton order within a tree, ranks in
   order), and its vertex coordinates of the shell are not usable (PETSc hands p8est's shell geometry
   vertex-space points where it expects tree coordinates), so the cell is placed from p8est's
   connectivity (p8est_connectivity_new_shell: tree t spans [-1 + t%2, t%2] x [-1 + (t%4)/2, (t%4)/2] x
   [1, 2] of the vertex space, axes aligned) and the patch map of p8est_geometry_new_shell (patch t/4;
   equiangular, so the cube-face coordinates u are linear in the vertex space). Any error here shows as
   faces that do not match in SquallDGMeshShellConnect(). */
static PetscErrorCode ShellCellLattice(SquallDGMesh m, PetscInt gidx, PetscInt ijk[3])
{
  const PetscInt n = m->shellNz, n3 = n * n * n, t = gidx / n3, mort = gidx % n3, nh = m->shellNh;
  PetscInt       xq = 0, yq = 0, zq = 0, ax = -1, fid, ia, ja;
  PetscReal      X, Y, Pu[3], sign;

  PetscFunctionBegin;
  PetscCheck(gidx >= 0 && t < 24, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shell cell number %" PetscInt_FMT " is out of range", gidx);
  for (PetscInt b = 0; (PetscInt)1 << (3 * b) < n3; b++) {
    xq |= ((mort >> (3 * b)) & 1) << b;
    yq |= ((mort >> (3 * b + 1)) & 1) << b;
    zq |= ((mort >> (3 * b + 2)) & 1) << b;
  }
  /* the cell's centre in the vertex space (dyadic: exact) */
  X = -1 + (PetscReal)(t % 2) + ((PetscReal)xq + (PetscReal)0.5) / n;
  Y = -1 + (PetscReal)((t % 4) / 2) + ((PetscReal)yq + (PetscReal)0.5) / n;
  switch (t / 4) {
    case 0: /* right */ Pu[0] = 1, Pu[1] = -X, Pu[2] = -Y; break;
    case 1: /* bottom */ Pu[0] = -Y, Pu[1] = -X, Pu[2] = -1; break;
    case 2: /* left */ Pu[0] = -1, Pu[1] = -X, Pu[2] = Y; break;
    case 3: /* top */ Pu[0] = Y, Pu[1] = -X, Pu[2] = 1; break;
    case 4: /* back */ Pu[0] = -X, Pu[1] = 1, Pu[2] = Y; break;
    default: /* front */ Pu[0] = X, Pu[1] = -1, Pu[2] = Y; break;
  }
  for (PetscInt d = 0; d < 3; d++)
    if (PetscAbsReal(Pu[d]) == 1) ax = d;
  fid = 2 * ax + (Pu[ax] > 0 ? 1 : 0);
  ShellFrame(fid, &ax, &sign, &ia, &ja);
  ijk[0] = (PetscInt)PetscFloorReal((Pu[ia] + 1) / 2 * nh);
  ijk[1] = (PetscInt)PetscFloorReal((Pu[ja] + 1) / 2 * nh);
  ijk[2] = fid * m->shellNz + zq;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Dist2(const PetscReal a[3], const PetscReal b[3])
{
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

/* the point of face f of element e at face node q (q < 0: the face's centre) */
static void ShellFacePoint(SquallDGMesh m, PetscInt e, PetscInt f, PetscInt q, PetscReal X[3])
{
  PetscReal rs[3], zh;

  if (q < 0) {
    rs[0] = rs[1] = rs[2] = 0;
    rs[f / 2]             = (f % 2) ? 1 : -1;
  } else {
    const PetscInt n = m->fmask[f * m->Nfp + q], Nq = m->Nq;
    rs[0] = m->r[n % Nq];
    rs[1] = m->r[(n / Nq) % Nq];
    rs[2] = m->r[n / (Nq * Nq)];
  }
  ShellPoint(m, e, rs, X, &zh);
}

PetscErrorCode SquallDGMeshShellConnect(SquallDGMesh m, const PetscInt cellOf[])
{
  const PetscInt nloc = m->nOwned + m->nGhost, Nfp = m->Nfp, Np = m->Np, nz = m->shellNz;
  PetscInt       cStart, cEnd, *elemOf;
  PetscSection   gsec;
  /* a tolerance far below the node spacing (the smallest: LGL nodes of the thin vertical direction) and far above round-off */
  const PetscReal tol = 1e-6 * m->shellH / nz / (m->N * m->N), tol2 = tol * tol;

  PetscFunctionBegin;
  PetscCall(DMPlexGetHeightStratum(m->plex, 0, &cStart, &cEnd));
  PetscCall(PetscMalloc1(cEnd - cStart, &elemOf));
  for (PetscInt c = 0; c < cEnd - cStart; c++) elemOf[c] = -1;
  PetscCall(DMGetGlobalSection(m->sdm, &gsec));
  for (PetscInt e = 0; e < nloc; e++) {
    PetscInt go;
    /* the cell's global number, a ghost's from its owner's offset */
    PetscCall(PetscSectionGetOffset(gsec, cellOf[e], &go));
    PetscCall(ShellCellLattice(m, (go >= 0 ? go : -(go + 1)) / (m->nf * Np), &m->ijk[3 * e]));
    elemOf[cellOf[e] - cStart] = e;
  }
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscInt *cone, level = m->ijk[3 * e + 2] % nz;
    PetscInt        csize, cand[6], ncand = 0;

    /* the elements sharing a plex face with e */
    PetscCall(DMPlexGetConeSize(m->plex, cellOf[e], &csize));
    PetscCall(DMPlexGetCone(m->plex, cellOf[e], &cone));
    for (PetscInt i = 0; i < csize; i++) {
      const PetscInt *supp;
      PetscInt        ssize;
      PetscCall(DMPlexGetSupportSize(m->plex, cone[i], &ssize));
      PetscCall(DMPlexGetSupport(m->plex, cone[i], &supp));
      for (PetscInt j = 0; j < ssize; j++)
        if (supp[j] != cellOf[e] && supp[j] >= cStart && supp[j] < cEnd && elemOf[supp[j] - cStart] >= 0 && ncand < 6) cand[ncand++] = elemOf[supp[j] - cStart];
    }
    for (PetscInt f = 0; f < 6; f++) {
      PetscReal xc[3];
      PetscInt  nb = -1, g = -1;
      ShellFacePoint(m, e, f, -1, xc);
      for (PetscInt i = 0; i < ncand && nb < 0; i++)
        for (PetscInt h = 0; h < 6; h++) {
          PetscReal yc[3];
          ShellFacePoint(m, cand[i], h, -1, yc);
          if (Dist2(xc, yc) < tol2) {
            nb = cand[i];
            g  = h;
            break;
          }
        }
      /* the inner and outer spheres are the only boundaries */
      {
        const PetscBool wall = (PetscBool)((f == 4 && level == 0) || (f == 5 && level == nz - 1));
        PetscCheck(wall == (nb < 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shell element %" PetscInt_FMT " face %" PetscInt_FMT ": %s", e, f, wall ? "a face on the inner or outer sphere has a neighbour" : "no neighbour matches the face");
      }
      m->nbr[6 * e + f]     = nb;
      m->nbrFace[6 * e + f] = g;
      for (PetscInt q = 0; q < Nfp; q++) {
        PetscReal x[3];
        PetscInt  qp                            = -1;
        m->vmapP[((size_t)e * 6 + f) * Nfp + q] = -1;
        if (nb < 0) continue;
        ShellFacePoint(m, e, f, q, x);
        for (PetscInt r = 0; r < Nfp; r++) {
          PetscReal y[3];
          ShellFacePoint(m, nb, g, r, y);
          if (Dist2(x, y) < tol2) {
            PetscCheck(qp < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shell element %" PetscInt_FMT " face %" PetscInt_FMT " node %" PetscInt_FMT ": two partner nodes match", e, f, q);
            qp = r;
          }
        }
        PetscCheck(qp >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Shell element %" PetscInt_FMT " face %" PetscInt_FMT " node %" PetscInt_FMT ": no partner node matches", e, f, q);
        m->vmapP[((size_t)e * 6 + f) * Nfp + q] = m->slot[nb] * Np + m->fmask[g * Nfp + qp];
      }
    }
  }
  PetscCall(PetscFree(elemOf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshSetFacePermutations(SquallDGMesh m)
{
  const PetscInt Nfp = m->Nfp, Np = m->Np, Nq = m->Nq;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f], g = m->nbrFace[6 * e + f];
      PetscInt       perm = -1;
      if (nb >= 0) {
        PetscCheck(g >= 0 && g < 6 && m->vmapP[((size_t)e * 6 + f) * Nfp] / Np == m->slot[nb], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element %" PetscInt_FMT " face %" PetscInt_FMT ": partner face %" PetscInt_FMT " inconsistent with the node map", e, f,
                   g);
        for (PetscInt p = 0; p < 8 && perm < 0; p++) {
          PetscBool ok = PETSC_TRUE;
          for (PetscInt q = 0; q < Nfp && ok; q++) ok = (PetscBool)(m->slot[nb] * Np + m->fmask[g * Nfp + SquallDGPermuteFaceNode(Nq, p, q)] == m->vmapP[((size_t)e * 6 + f) * Nfp + q]);
          if (ok) perm = p;
        }
        PetscCheck(perm >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element %" PetscInt_FMT " face %" PetscInt_FMT ": the face-node map is no rotation or reflection of the partner face", e, f);
        /* an owned partner's map must lead back */
        if (nb < m->nOwned) {
          PetscCheck(m->nbr[6 * nb + g] == e && m->nbrFace[6 * nb + g] == f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element %" PetscInt_FMT " face %" PetscInt_FMT ": the neighbour's face %" PetscInt_FMT " does not point back", e, f, g);
          for (PetscInt q = 0; q < Nfp; q++) {
            const PetscInt qp = SquallDGPermuteFaceNode(Nq, perm, q);
            PetscCheck(m->vmapP[((size_t)nb * 6 + g) * Nfp + qp] == m->slot[e] * Np + m->fmask[f * Nfp + q], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face node maps of elements %" PetscInt_FMT " and %" PetscInt_FMT " are not each other's inverse", e, nb);
          }
        }
      }
      m->nbrPerm[6 * e + f] = perm;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
