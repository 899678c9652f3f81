/* Set-up of the hipBone operator: the elements of each rank (slabs or a p8est partition), the lattice
   keys and the global numbering, the interior/halo element order, the geometric factors and Z^T; and
   the nodal functions of the public interface (right-hand side, interpolation, coordinates). */
#include "ksp/hbimpl.h"
#include "physics/sem.h"
#include <petscdmforest.h>
#include <petscdmplex.h>

const char *const SquallHBMeshes[]     = {"brick", "kershaw", "perturbed", "SquallHBMesh", "HB_MESH_", NULL};
const char *const SquallHBGeometries[] = {"stored", "trilinear", "affine", "auto", "SquallHBGeometry", "SQUALL_HB_GEOMETRY_", NULL};

/* the shear x' = x + s (y + z), y' = y + s z (linear: applied alike to positions and to differences) */
static inline void HBShear(PetscReal s, PetscReal x[3])
{
  x[0] = x[0] + s * (x[1] + x[2]);
  x[1] = x[1] + s * x[2];
}

/* -hb_mesh perturbed: a displacement of lattice vertex (ix, iy, iz) of the brick, uniform in
   [-eps h, eps h] per direction from a hash of the vertex's global index and the seed (the same on any
   rank count), none across the boundary of the brick (which stays a box) */
static inline PetscReal HBHashUniform(PetscInt64 seed, PetscInt64 key)
{
  uint64_t z = (uint64_t)key * 0x9E3779B97F4A7C15ULL + (uint64_t)seed * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL;

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL; /* splitmix64's finaliser */
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return (PetscReal)(2.0 * (double)(z >> 11) / 9007199254740992.0 - 1.0);
}

static void HBVertexPerturbation(const Mat_HB *hb, const PetscInt iv[3], PetscReal d[3])
{
  const PetscInt64 key = iv[0] + (PetscInt64)(hb->E[0] + 1) * (iv[1] + (PetscInt64)(hb->E[1] + 1) * iv[2]);

  for (PetscInt a = 0; a < 3; a++) {
    const PetscReal h = (hb->bounds[2 * a + 1] - hb->bounds[2 * a]) / hb->E[a];

    d[a] = hb->mesh != HB_MESH_PERTURBED || iv[a] == 0 || iv[a] == hb->E[a] ? 0 : hb->perturb_eps * h * HBHashUniform(hb->perturb_seed, 3 * key + a);
  }
}

/* The Kershaw map of the unit cube (D. Kershaw, J. Comput. Phys. 39:375-395, 1981), in the generalized 3D
   form of the CEED bake-off problems (MFEM's KershawTransformation, the mesh of the nekRS and libCEED BP5
   runs), with epsy = epsz = eps and the quintic smooth step: x is split into 6 layers whose yz faces go
   left-to-left, left-to-right, right-to-left (2 layers), left-to-right, right-to-right. It is applied at
   every GLL node, so that elements in the transition layers are curved. */
static inline PetscReal HBKershawRight(PetscReal eps, PetscReal x)
{
  return x <= (PetscReal)0.5 ? (2 - eps) * x : 1 + eps * (x - 1);
}
static inline PetscReal HBKershawLeft(PetscReal eps, PetscReal x)
{
  return 1 - HBKershawRight(eps, 1 - x);
}
static inline PetscReal HBKershawStep(PetscReal a, PetscReal b, PetscReal x)
{
  if (x <= 0) return a;
  if (x >= 1) return b;
  return a + (b - a) * (x * x * x * (x * (6 * x - 15) + 10));
}
static void HBKershaw(PetscReal eps, const PetscReal xi[3], PetscReal X[3])
{
  const PetscInt  layer = PetscMin((PetscInt)(6 * xi[0]), 5);
  const PetscReal lam   = (xi[0] - layer / (PetscReal)6) * 6;

  X[0] = xi[0];
  for (PetscInt a = 1; a < 3; a++) {
    const PetscReal l = HBKershawLeft(eps, xi[a]), r = HBKershawRight(eps, xi[a]);

    switch (layer) {
      case 0: X[a] = l; break;
      case 1:
      case 4: X[a] = HBKershawStep(l, r, lam); break;
      case 2: X[a] = HBKershawStep(r, l, lam / 2); break;
      case 3: X[a] = HBKershawStep(r, l, (1 + lam) / 2); break;
      default: X[a] = r; break;
    }
  }
}

/* node coordinates of local element e relative to its vertex 0 (rel[3n+a]) and that vertex (x0): every
   difference is formed from lattice indices and reference coordinates, never from absolute positions, so
   that the metric is the same wherever the brick lies (-hb_bounds) */
static void HBElementNodes(const Mat_HB *hb, PetscInt e, PetscReal *rel, PetscReal x0[3])
{
  const PetscInt Nq = hb->Nq, g = hb->elem[e];
  const PetscInt ei[3] = {g % hb->E[0], (g / hb->E[0]) % hb->E[1], g / (hb->E[0] * hb->E[1])};
  PetscReal      ext[3];

  for (PetscInt d = 0; d < 3; d++) ext[d] = hb->bounds[2 * d + 1] - hb->bounds[2 * d];
  if (hb->mesh == HB_MESH_KERSHAW) {
    PetscReal xi0[3], K0[3];

    for (PetscInt d = 0; d < 3; d++) xi0[d] = (PetscReal)ei[d] / hb->E[d];
    HBKershaw(hb->kershaw_eps, xi0, K0);
    for (PetscInt k = 0; k < Nq; k++) {
      for (PetscInt j = 0; j < Nq; j++) {
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt n     = i + Nq * (j + Nq * k);
          const PetscInt ii[3] = {i, j, k};
          PetscReal      xi[3], K[3];

          for (PetscInt d = 0; d < 3; d++) xi[d] = (ei[d] + (1 + hb->r[ii[d]]) / 2) / hb->E[d];
          HBKershaw(hb->kershaw_eps, xi, K);
          for (PetscInt d = 0; d < 3; d++) rel[3 * n + d] = ext[d] * (K[d] - K0[d]);
          HBShear(hb->shear, rel + 3 * n);
        }
      }
    }
    for (PetscInt d = 0; d < 3; d++) x0[d] = hb->bounds[2 * d] + ext[d] * K0[d];
  } else {
    PetscReal V[SQUALL_HB_NVERT_REALS], d0[3];

    HBVertexPerturbation(hb, ei, d0);
    for (PetscInt v = 0; v < 8; v++) {
      const PetscInt b[3]  = {v & 1, (v >> 1) & 1, (v >> 2) & 1};
      const PetscInt iv[3] = {ei[0] + b[0], ei[1] + b[1], ei[2] + b[2]};
      PetscReal      dv[3];

      HBVertexPerturbation(hb, iv, dv);
      for (PetscInt d = 0; d < 3; d++) V[3 * v + d] = ext[d] * b[d] / hb->E[d] + (dv[d] - d0[d]);
      HBShear(hb->shear, V + 3 * v);
    }
    for (PetscInt k = 0; k < Nq; k++)
      for (PetscInt j = 0; j < Nq; j++)
        for (PetscInt i = 0; i < Nq; i++) SquallSEMTrilinearPoint(V, hb->r[i], hb->r[j], hb->r[k], rel + 3 * (i + Nq * (j + Nq * k)));
    for (PetscInt d = 0; d < 3; d++) x0[d] = hb->bounds[2 * d] + ext[d] * ei[d] / hb->E[d] + d0[d];
  }
  HBShear(hb->shear, x0);
}

/* the 8 vertices of an element relative to vertex 0: its corner nodes */
static void HBCornerVertices(const Mat_HB *hb, const PetscReal *rel, PetscReal V[SQUALL_HB_NVERT_REALS])
{
  const PetscInt N = hb->N, Nq = hb->Nq;

  for (PetscInt v = 0; v < 8; v++) {
    const PetscInt n = (v & 1) * N + Nq * (((v >> 1) & 1) * N + Nq * ((v >> 2) & 1) * N);

    for (PetscInt d = 0; d < 3; d++) V[3 * v + d] = rel[3 * n + d];
  }
}

/* the Jacobian of a parallelepiped from its edges at vertex 0 (r, s, t span [-1, 1]: half the edges) */
static void HBAffineJacobian(const PetscReal V[SQUALL_HB_NVERT_REALS], PetscReal J[9])
{
  for (PetscInt a = 0; a < 3; a++) {
    J[3 * a + 0] = V[3 * 1 + a] / 2;
    J[3 * a + 1] = V[3 * 2 + a] / 2;
    J[3 * a + 2] = V[3 * 4 + a] / 2;
  }
}

/* node coordinates (xyz[3n+a]) of local element e, and optionally its geometric factors and node
   masses; the Jacobian comes from differentiating the coordinates relative to vertex 0, as for any
   element map */
PetscErrorCode SquallHBElementGeometry(Mat_HB *hb, PetscInt e, PetscReal *xyz, PetscReal *Ge, PetscReal *wJ)
{
  const PetscInt   Nq = hb->Nq, Np = hb->Np;
  const PetscReal *D = hb->D;
  PetscReal        x0[3];

  PetscFunctionBegin;
  HBElementNodes(hb, e, xyz, x0);
  if (Ge || wJ) {
    for (PetscInt k = 0; k < Nq; k++) {
      for (PetscInt j = 0; j < Nq; j++) {
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt n    = i + Nq * (j + Nq * k);
          PetscReal      J[9] = {0}, Gn[SQUALL_SEM_NGEO], m;

          for (PetscInt a = 0; a < 3; a++) {
            for (PetscInt l = 0; l < Nq; l++) {
              J[3 * a + 0] += D[i * Nq + l] * xyz[3 * (l + Nq * (j + Nq * k)) + a];
              J[3 * a + 1] += D[j * Nq + l] * xyz[3 * (i + Nq * (l + Nq * k)) + a];
              J[3 * a + 2] += D[k * Nq + l] * xyz[3 * (i + Nq * (j + Nq * l)) + a];
            }
          }
          m = SquallSEMGeometricFactors(J, hb->w[i] * hb->w[j] * hb->w[k], Gn);
          PetscCheck(m > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "element %" PetscInt_FMT " is inverted at node %" PetscInt_FMT " (check -hb_shear, -hb_bounds, -hb_perturb_eps, -hb_kershaw_eps)", hb->elem[e], n);
          if (Ge)
            for (PetscInt c = 0; c < SQUALL_SEM_NGEO; c++) Ge[SQUALL_SEM_NGEO * n + c] = Gn[c];
          if (wJ) wJ[n] = m;
        }
      }
    }
  }
  for (PetscInt n = 0; n < Np; n++)
    for (PetscInt a = 0; a < 3; a++) xyz[3 * n + a] += x0[a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether every element is straight-sided (its nodes are the trilinear map of its corners) and a
   parallelepiped (its corners an affine image of the cube's), each to round-off relative to the element's
   size; the same answer on every rank */
static PetscErrorCode HBClassifyElements(Mat_HB *hb)
{
  const PetscInt  Nq = hb->Nq, Np = hb->Np;
  const PetscReal tol = 1000 * PETSC_MACHINE_EPSILON;
  PetscReal      *rel, x0[3];
  PetscBool       flags[2] = {PETSC_TRUE, PETSC_TRUE}, gflags[2];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(3 * Np, &rel));
  for (PetscInt e = 0; e < hb->nelem && (flags[0] || flags[1]); e++) {
    PetscReal V[SQUALL_HB_NVERT_REALS], size = 0;

    HBElementNodes(hb, e, rel, x0);
    HBCornerVertices(hb, rel, V);
    for (PetscInt c = 0; c < SQUALL_HB_NVERT_REALS; c++) size = PetscMax(size, PetscAbsReal(V[c]));
    for (PetscInt k = 0; k < Nq && flags[0]; k++)
      for (PetscInt j = 0; j < Nq && flags[0]; j++)
        for (PetscInt i = 0; i < Nq; i++) {
          PetscReal x[3];

          SquallSEMTrilinearPoint(V, hb->r[i], hb->r[j], hb->r[k], x);
          for (PetscInt a = 0; a < 3; a++)
            if (PetscAbsReal(x[a] - rel[3 * (i + Nq * (j + Nq * k)) + a]) > tol * size) flags[0] = PETSC_FALSE;
        }
    for (PetscInt v = 0; v < 8; v++)
      for (PetscInt a = 0; a < 3; a++) {
        const PetscReal p = (v & 1) * V[3 + a] + ((v >> 1) & 1) * V[6 + a] + ((v >> 2) & 1) * V[12 + a];

        if (PetscAbsReal(p - V[3 * v + a]) > tol * size) flags[1] = PETSC_FALSE;
      }
  }
  PetscCall(PetscFree(rel));
  PetscCallMPI(MPIU_Allreduce(flags, gflags, 2, MPIU_BOOL, MPI_LAND, hb->comm));
  hb->straight       = gflags[0];
  hb->parallelepiped = (PetscBool)(gflags[0] && gflags[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the geometry that runs: the asked-for one (AUTO: the cheapest that every element allows) */
PetscErrorCode SquallHBResolveGeometry(const Mat_HB *hb, SquallHBGeometry *g)
{
  PetscFunctionBegin;
  if (hb->geometry != SQUALL_HB_GEOMETRY_AUTO)
    *g = hb->geometry;
  else
    *g = hb->parallelepiped ? SQUALL_HB_GEOMETRY_AFFINE : (hb->straight ? SQUALL_HB_GEOMETRY_TRILINEAR : SQUALL_HB_GEOMETRY_STORED);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bytes the element kernel reads and writes per element node with geometry g: x (through the index),
   the index, y_L, and the geometry (per node, or per element spread over its Np nodes) */
PetscReal SquallHBGeometryBytesPerNode(SquallHBGeometry g, PetscInt Np)
{
  const PetscReal base = 2 * sizeof(PetscScalar) + sizeof(PetscInt); /* x, its index, y_L */

  switch (g) {
    case SQUALL_HB_GEOMETRY_STORED: return base + SQUALL_SEM_NGEO * sizeof(PetscReal);
    case SQUALL_HB_GEOMETRY_TRILINEAR: return base + (PetscReal)SQUALL_HB_NVERT_REALS * sizeof(PetscReal) / Np;
    case SQUALL_HB_GEOMETRY_AFFINE: return base + (PetscReal)SQUALL_SEM_NGEO * sizeof(PetscReal) / Np;
    default: return 0;
  }
}

/* -hb_geometry: at creation and again in MatSetFromOptions() (the data of a mode are made when a product
   first needs them) */
PetscErrorCode SquallHBGeometryFromOptions(SquallOptionItems PetscOptionsObject, Mat_HB *hb)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsEnum(
    "-hb_geometry",
    "Geometric factors of the element kernels: stored (6 per node, any element), trilinear (from the 8 vertices of each element, straight-sided elements), affine (one 3x3 matrix per element, parallelepipeds), auto (the cheapest the mesh allows)",
    "SquallHBCreateOperator", SquallHBGeometries, (PetscEnum)hb->geometry, (PetscEnum *)&hb->geometry, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the arrays of geometry g (made once), after checking that every element allows it */
PetscErrorCode SquallHBGeometryData(Mat_HB *hb, SquallHBGeometry g)
{
  const PetscInt Np = hb->Np;
  PetscReal     *rel, x0[3];

  PetscFunctionBegin;
  PetscCheck(g != SQUALL_HB_GEOMETRY_TRILINEAR || hb->straight, hb->comm, PETSC_ERR_ARG_INCOMP, "-hb_geometry trilinear: the elements of -hb_mesh %s are not all straight-sided (trilinear): valid modes for this mesh are stored, auto",
             SquallHBMeshes[hb->mesh]);
  PetscCheck(g != SQUALL_HB_GEOMETRY_AFFINE || hb->parallelepiped, hb->comm, PETSC_ERR_ARG_INCOMP, "-hb_geometry affine: the elements of -hb_mesh %s are not all parallelepipeds: valid modes for this mesh are stored, auto%s", SquallHBMeshes[hb->mesh],
             hb->straight ? ", trilinear" : "");
  if (g == SQUALL_HB_GEOMETRY_STORED && !hb->G) {
    PetscCall(PetscMalloc1((size_t)SQUALL_SEM_NGEO * hb->nelem * Np, &hb->G));
    PetscCall(PetscMalloc1(3 * Np, &rel));
    for (PetscInt e = 0; e < hb->nelem; e++) PetscCall(SquallHBElementGeometry(hb, e, rel, hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, NULL));
    PetscCall(PetscFree(rel));
  }
  if ((g == SQUALL_HB_GEOMETRY_TRILINEAR && !hb->V) || (g == SQUALL_HB_GEOMETRY_AFFINE && !hb->F)) {
    PetscReal *dst;

    PetscCall(PetscMalloc1((size_t)(g == SQUALL_HB_GEOMETRY_TRILINEAR ? SQUALL_HB_NVERT_REALS : SQUALL_SEM_NGEO) * PetscMax(hb->nelem, 1), &dst));
    PetscCall(PetscMalloc1(3 * Np, &rel));
    for (PetscInt e = 0; e < hb->nelem; e++) {
      PetscReal V[SQUALL_HB_NVERT_REALS];

      HBElementNodes(hb, e, rel, x0);
      HBCornerVertices(hb, rel, V);
      if (g == SQUALL_HB_GEOMETRY_TRILINEAR)
        PetscCall(PetscArraycpy(dst + (size_t)SQUALL_HB_NVERT_REALS * e, V, SQUALL_HB_NVERT_REALS));
      else {
        PetscReal J[9];

        HBAffineJacobian(V, J);
        PetscCheck(SquallSEMGeometricFactors(J, 1, dst + (size_t)SQUALL_SEM_NGEO * e) > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "element %" PetscInt_FMT " is inverted (check -hb_shear, -hb_bounds)", hb->elem[e]);
      }
    }
    PetscCall(PetscFree(rel));
    if (g == SQUALL_HB_GEOMETRY_TRILINEAR)
      hb->V = dst;
    else
      hb->F = dst;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the packed factors of local element e (6 per node) as geometry g gives them: the CPU reference of
   the element kernels, through the pointwise code they share (src/physics/sem.h) */
PetscErrorCode SquallHBElementFactors(const Mat_HB *hb, SquallHBGeometry g, PetscInt e, PetscReal *Ge)
{
  const PetscInt Nq = hb->Nq, Np = hb->Np;

  PetscFunctionBegin;
  switch (g) {
    case SQUALL_HB_GEOMETRY_STORED: PetscCall(PetscArraycpy(Ge, hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, SQUALL_SEM_NGEO * Np)); break;
    case SQUALL_HB_GEOMETRY_TRILINEAR:
      for (PetscInt j = 0; j < Nq; j++)
        for (PetscInt i = 0; i < Nq; i++) {
          PetscReal C[15];

          SquallSEMTrilinearColumn(hb->V + (size_t)SQUALL_HB_NVERT_REALS * e, hb->r[i], hb->r[j], C);
          for (PetscInt k = 0; k < Nq; k++) (void)SquallSEMTrilinearFactors(C, hb->r[k], hb->w[i] * hb->w[j] * hb->w[k], Ge + SQUALL_SEM_NGEO * (i + Nq * (j + Nq * k)));
        }
      break;
    case SQUALL_HB_GEOMETRY_AFFINE:
      for (PetscInt k = 0; k < Nq; k++)
        for (PetscInt j = 0; j < Nq; j++)
          for (PetscInt i = 0; i < Nq; i++) SquallSEMAffineFactors(hb->F + (size_t)SQUALL_SEM_NGEO * e, hb->w[i] * hb->w[j] * hb->w[k], Ge + SQUALL_SEM_NGEO * (i + Nq * (j + Nq * k)));
      break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The operator's geometry must be resolved (stored, trilinear, affine) before its factors are formed");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_scramble_keys: key -> 16 ((a key) mod p), p the smallest prime >= nlat and 0 < a < p, a bijection of
   the lattice's keys onto every 16th number of [0, 16 p). The numbering may rely on nothing but the keys'
   identity: the operator is the same up to the order of its unknowns (the tests compare it by the nodes'
   coordinates and the CG histories across rank counts), and each rank's keys spread over more than four
   times their number (on several ranks; on one from order 2), where the numbering finds the distinct ones
   by sorting instead of a table of the range. */
static PetscBool HBIsPrime(PetscInt64 p)
{
  for (PetscInt64 d = 2; d * d <= p; d++)
    if (p % d == 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode HBScrambleKeys(PetscInt64 nlat, PetscInt n, PetscInt keys[])
{
  PetscInt64 p = PetscMax(nlat, 2), a;

  PetscFunctionBegin;
  while (!HBIsPrime(p)) p++;
  PetscCheck(16 * p <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_scramble_keys: the lattice of %" PetscInt64_FMT " nodes is too large for scrambled keys in PetscInt", nlat);
  a = (PetscInt64)(0.6180339887 * (double)p) % p; /* the golden ratio's fraction of p: consecutive keys land far apart */
  if (a == 0) a = 1;
  for (PetscInt i = 0; i < n; i++)
    if (keys[i] >= 0) keys[i] = (PetscInt)(16 * ((keys[i] * a) % p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_partition forest: the lexicographic indices of the elements p8est gives this rank on a brick of
   hb->E base cells (no refinement, no overlap), sorted. The brick is made with options of its own (a
   private database: the user's -dm_ options are for other DMs) and bounds [0, E], so that a cell's
   centroid is its lattice index + 1/2. */
static PetscErrorCode HBForestElements(Mat_HB *hb, PetscInt *nelem, PetscInt **glist)
{
  PetscOptions opts;
  DM           forest, plex;
  PetscInt     cStart, cEnd;
  char         size[128], bounds[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(size, sizeof(size), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscSNPrintf(bounds, sizeof(bounds), "0,%" PetscInt_FMT ",0,%" PetscInt_FMT ",0,%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_size", size));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_bounds", bounds));
  PetscCall(PetscOptionsSetValue(opts, "-dm_forest_initial_refinement", "0"));
  PetscCall(DMCreate(hb->comm, &forest));
  PetscCall(PetscObjectSetOptions((PetscObject)forest, opts));
  PetscCall(DMSetType(forest, DMP8EST));
  PetscCall(DMForestSetTopology(forest, "brick"));
  PetscCall(DMSetFromOptions(forest));
  PetscCall(DMSetUp(forest));
  PetscCall(DMConvert(forest, DMPLEX, &plex));
  PetscCall(DMPlexGetHeightStratum(plex, 0, &cStart, &cEnd));
  *nelem = cEnd - cStart;
  PetscCall(PetscMalloc1(PetscMax(*nelem, 1), glist));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscReal vol, x[3];
    PetscInt  l[3];

    PetscCall(DMPlexComputeCellGeometryFVM(plex, c, &vol, x, NULL));
    for (PetscInt d = 0; d < 3; d++) {
      l[d] = (PetscInt)PetscFloorReal(x[d]);
      PetscCheck(l[d] >= 0 && l[d] < hb->E[d] && PetscAbsReal(x[d] - l[d] - (PetscReal)0.5) < (PetscReal)1e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-hb_partition forest: cell %" PetscInt_FMT " is not a unit cell of the brick (centroid %g in %c)", c,
                 (double)x[d], "xyz"[d]);
    }
    (*glist)[c - cStart] = l[0] + hb->E[0] * (l[1] + hb->E[1] * l[2]);
  }
  PetscCall(PetscSortInt(*nelem, *glist));
  PetscCall(DMDestroy(&plex));
  PetscCall(DMDestroy(&forest));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this rank's elements: a contiguous block [*e0, *e1) of the lexicographic element order (slabs of the brick),
   or p8est's partition (*glist: the lexicographic indices, positions 0..n-1 standing for e0..e1-1) */
static PetscErrorCode HBPartition(Mat_HB *hb, PetscInt64 *e0, PetscInt64 *e1, PetscInt **glist)
{
  const PetscInt64 Eg = (PetscInt64)hb->E[0] * hb->E[1] * hb->E[2];
  PetscMPIInt      rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(hb->comm, &rank));
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  *glist = NULL;
  if (hb->forest) {
    PetscInt n = 0;

    PetscCall(HBForestElements(hb, &n, glist));
    *e0 = 0;
    *e1 = n;
  } else {
    *e0 = Eg * rank / size;
    *e1 = Eg * (rank + 1) / size;
  }
  PetscCheck((*e1 - *e0) * hb->Np <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "rank %d would hold %" PetscInt64_FMT " element nodes, more than PetscInt indexes: use more ranks or 64-bit indices", rank, (*e1 - *e0) * hb->Np);
  hb->nelem = (PetscInt)(*e1 - *e0);
  if (hb->nelem) {
    const PetscInt64 first = *glist ? (*glist)[0] : *e0, last = *glist ? (*glist)[hb->nelem - 1] : *e1 - 1;

    PetscCall(PetscInfo(NULL, "-hb_partition %s: %" PetscInt_FMT " elements on this rank, lexicographic indices %" PetscInt64_FMT " to %" PetscInt64_FMT "\n", hb->forest ? "forest" : "slabs", hb->nelem, first, last));
  }
  hb->nelem_global = (PetscInt)Eg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a key per element node: its index in the lattice L of all nodes; -1 on a Dirichlet boundary */
static PetscErrorCode HBLatticeKeys(Mat_HB *hb, const PetscInt L[3], PetscInt64 e0, const PetscInt *glist, PetscInt **keys)
{
  const PetscInt N = hb->N, Nq = hb->Nq, Np = hb->Np;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(hb->nelem * Np, keys));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt g = glist ? glist[e] : (PetscInt)(e0 + e), ex = g % hb->E[0], ey = (g / hb->E[0]) % hb->E[1], ez = g / (hb->E[0] * hb->E[1]);

    for (PetscInt k = 0; k < Nq; k++) {
      for (PetscInt j = 0; j < Nq; j++) {
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt  ix = ex * N + i, iy = ey * N + j, iz = ez * N + k;
          const PetscBool bdry = (PetscBool)(ix == 0 || iy == 0 || iz == 0 || ix == L[0] - 1 || iy == L[1] - 1 || iz == L[2] - 1);

          (*keys)[e * Np + i + Nq * (j + Nq * k)] = hb->dirichlet && bdry ? -1 : ix + L[0] * (iy + L[1] * iz);
        }
      }
    }
  }
  if (hb->scramble) PetscCall(HBScrambleKeys((PetscInt64)L[0] * L[1] * L[2], hb->nelem * Np, *keys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element e (numbering order) touches a ghost node */
static PetscBool HBHasGhostNode(const Mat_HB *hb, PetscInt e)
{
  for (PetscInt n = 0; n < hb->Np; n++)
    if (hb->num.lidx[e * hb->Np + n] >= hb->nown) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* the element order of the kernels, interior elements (no ghost node) first so that they can be computed
   while ghosts travel, with each element's lexicographic index and local node indices */
static PetscErrorCode HBElementOrder(Mat_HB *hb, PetscInt64 e0, const PetscInt *glist)
{
  const PetscInt Np = hb->Np;
  PetscInt      *order, nint = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(hb->nelem, &order));
  for (PetscInt e = 0; e < hb->nelem; e++)
    if (!HBHasGhostNode(hb, e)) order[nint++] = e;
  hb->nint = nint;
  for (PetscInt e = 0, h = nint; e < hb->nelem; e++)
    if (HBHasGhostNode(hb, e)) order[h++] = e;
  PetscCall(PetscMalloc2(hb->nelem, &hb->elem, hb->nelem * Np, &hb->gidx));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt o = order[e];

    hb->elem[e] = glist ? glist[o] : (PetscInt)(e0 + o);
    for (PetscInt n = 0; n < Np; n++) hb->gidx[e * Np + n] = hb->num.lidx[o * Np + n];
  }
  PetscCall(PetscFree(order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z^T as CSR over local nodes: each node's element-node positions, ascending within a row */
static PetscErrorCode HBBuildGather(Mat_HB *hb)
{
  const PetscInt nrows = hb->nown + hb->nghost, nloc = hb->nelem * hb->Np;
  PetscInt      *fill;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nrows + 1, &hb->rowptr));
  for (PetscInt p = 0; p < nloc; p++)
    if (hb->gidx[p] >= 0) hb->rowptr[hb->gidx[p] + 1]++;
  for (PetscInt l = 0; l < nrows; l++) hb->rowptr[l + 1] += hb->rowptr[l];
  /* the device kernels write rows [0, nsingle) as the only copy of their node (-hb_single_rows) */
  for (PetscInt l = 0; l < hb->nown - hb->nshared; l++)
    PetscCheck((hb->rowptr[l + 1] - hb->rowptr[l] == 1) == (l < hb->nsingle), PETSC_COMM_SELF, PETSC_ERR_PLIB, "private row %" PetscInt_FMT " has %" PetscInt_FMT " element copies, but the numbering counts %s", l, hb->rowptr[l + 1] - hb->rowptr[l],
               l < hb->nsingle ? "one" : "more than one");
  PetscCall(PetscMalloc1(hb->rowptr[nrows], &hb->col));
  PetscCall(PetscMalloc1(nrows, &fill));
  PetscCall(PetscArraycpy(fill, hb->rowptr, nrows));
  for (PetscInt p = 0; p < nloc; p++)
    if (hb->gidx[p] >= 0) hb->col[fill[hb->gidx[p]]++] = p;
  PetscCall(PetscFree(fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBSetUp(Mat_HB *hb)
{
  const PetscInt   N = hb->N, Nq = N + 1;
  const PetscInt   L[3] = {hb->E[0] * N + 1, hb->E[1] * N + 1, hb->E[2] * N + 1};
  PetscInt64       e0, e1;
  PetscInt        *keys, *glist;
  PetscLogDouble   t0, *tlog = hb->logsetup ? &t0 : NULL;
  SquallHBGeometry g;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  hb->Nq = Nq;
  hb->Np = Nq * Nq * Nq;
  PetscCall(SquallLGLNodesWeights(N, hb->r, hb->w));
  PetscCall(SquallLGLDerivativeMatrix(N, NULL, hb->D));
  PetscCheck((PetscInt64)L[0] * L[1] * L[2] <= PETSC_INT_MAX, hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_elements %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " at -hb_order %" PetscInt_FMT " has more nodes than PetscInt indexes (configure PETSc with 64-bit indices)", hb->E[0], hb->E[1], hb->E[2], N);
  PetscCall(HBPartition(hb, &e0, &e1, &glist));
  PetscCall(HBLatticeKeys(hb, L, e0, glist, &keys));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "lattice keys"));
  PetscCall(SquallSEMNumberingCreate(hb->comm, hb->nelem * hb->Np, keys, tlog, &hb->num));
  PetscCall(PetscFree(keys));
  hb->nown    = hb->num.nown;
  hb->nshared = hb->num.nshared;
  hb->nsingle = hb->num.nsingle;
  hb->nghost  = hb->num.nghost;
  hb->nglobal = hb->num.nglobal;
  PetscCall(HBElementOrder(hb, e0, glist));
  PetscCall(PetscFree(glist));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "interior/halo element order, indices, weights"));
  PetscCall(HBClassifyElements(hb));
  PetscCall(SquallHBResolveGeometry(hb, &g));
  PetscCall(SquallHBGeometryData(hb, g));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "geometry"));
  PetscCall(HBBuildGather(hb));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "Z^T (CSR)"));
  PetscCall(PetscLogEventEnd(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f at every owned node, or (rhs) Z^T of the node masses times f */
static PetscErrorCode HBNodalLoop(Mat A, SquallHBFunction f, void *ctx, PetscBool rhs, Vec v)
{
  Mat_HB      *hb;
  PetscReal   *xyz, *wJ;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(SquallHBHostWork(hb));
  PetscCall(PetscMalloc2(3 * hb->Np, &xyz, hb->Np, &wJ));
  PetscCall(VecGetArrayWrite(v, &va));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(SquallHBElementGeometry(hb, e, xyz, NULL, rhs ? wJ : NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];
      PetscScalar    fv;

      if (rhs) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        hb->yL[e * hb->Np + n] = l < 0 ? 0 : wJ[n] * fv;
      } else if (l >= 0 && l < hb->nown) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        va[l] = fv;
      }
    }
  }
  if (rhs) PetscCall(SquallHBGatherHost(hb, 0, hb->yL, va, 0, NULL, NULL));
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscCall(PetscFree2(xyz, wJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBComputeRHS - b = Z^T M_L f: f at the element nodes weighted by the GLL node masses w |J|,
  summed into the global nodes. Collective.
@*/
PetscErrorCode SquallHBComputeRHS(Mat A, SquallHBFunction f, void *ctx, Vec b)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_TRUE, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBInterpolate - u = f at the global nodes. Not collective.
@*/
PetscErrorCode SquallHBInterpolate(Mat A, SquallHBFunction f, void *ctx, Vec u)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_FALSE, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetCoordinates - a new host Vec (block size 3, local size 3 x owned unknowns) with the
  coordinates of the owned global nodes, in the operator's numbering. Collective.
@*/
PetscErrorCode SquallHBGetCoordinates(Mat A, Vec *X)
{
  Mat_HB      *hb;
  PetscReal   *xyz;
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(VecCreate(hb->comm, X));
  PetscCall(VecSetSizes(*X, 3 * hb->nown, PETSC_DECIDE));
  PetscCall(VecSetBlockSize(*X, 3));
  PetscCall(VecSetType(*X, VECSTANDARD));
  PetscCall(PetscMalloc1(3 * hb->Np, &xyz));
  PetscCall(VecGetArrayWrite(*X, &xa));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(SquallHBElementGeometry(hb, e, xyz, NULL, NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];

      if (l >= 0 && l < hb->nown)
        for (PetscInt a = 0; a < 3; a++) xa[3 * l + a] = xyz[3 * n + a];
    }
  }
  PetscCall(VecRestoreArrayWrite(*X, &xa));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
