/* Pointwise code of the P1 tetrahedral CG operators, shared by the C reference (src/mat/p1*.c) and
   the CUDA kernels (src/cuda/p1*.cu): affine tetrahedron geometry, the 11-point quadrature rule,
   element matrices, the small dense solvers (6x6 Gaussian elimination, 3x3 symmetric
   eigendecomposition), the element metric tensor and the scatter of an element matrix into CSR.

   Conventions. A tetrahedron is stored right-handed: det[x1-x0, x2-x0, x3-x0] > 0 (PETSc's DMPlex
   orders the closure of a valid tetrahedron the other way, see src/mat/p1.c). The shape functions
   are the barycentric coordinates lambda_a; their physical gradients are constant on the element:
   grad lambda_a = row a-1 of J^{-1} (a = 1,2,3) and grad lambda_0 = -(sum of the others), where
   x = x0 + J xi. Everything is PetscReal so that the header compiles in single precision too. */
#pragma once

#include "physics/hostdevice.h"

/* full unrolling of the small fixed loops on the device keeps the element arrays in registers (the
   device compilation pass only: the host compiler does not know the pragma) */
#if defined(__CUDA_ARCH__)
#  define SQUALL_P1_UNROLL _Pragma("unroll")
#  define SQUALL_P1_NOUNROLL _Pragma("unroll 1")
#else
#  define SQUALL_P1_UNROLL
#  define SQUALL_P1_NOUNROLL
#endif

/* the operator terms, in the order of the coefficient array coef[SQUALL_P1_NUM_TERMS] */
#define SQUALL_P1_TERM_MASS 0      /* int c phi_a phi_b                (c nodal, or 1) */
#define SQUALL_P1_TERM_ADVECTION 1 /* int phi_a (u . grad phi_b)       (u nodal) */
#define SQUALL_P1_TERM_DIFFUSION 2 /* int grad phi_a . K grad phi_b    (K nodal or per element, or I) */
#define SQUALL_P1_TERM_GRADDIV 3   /* int (div v)(div w), 3-component operators only */
#define SQUALL_P1_NTERMS 4

/* 10 geometric factors per element: the 9 entries of J^{-1} (row-major) and the volume */
#define SQUALL_P1_NGEOM 10

/* The 11-point rule (4 vertices, 6 edge midpoints, centroid), weights as fractions of the volume |K|.
   By symmetry the three weights w_v, w_e, w_c are fixed by the three orbits of degree-3 barycentric
   monomials, with int_K l1^i l2^j l3^k l4^l = |K| 3! i! j! k! l! / (i+j+k+l+3)!:
     l1 l2 l3 :          w_c / 64           = 1/120  ->  w_c = 8/15
     l1^2 l2  : w_e/8  + w_c / 64           = 1/60   ->  w_e = 1/15
     l1^3     : w_v + 3 w_e/8 + w_c / 64    = 1/20   ->  w_v = 1/60
   Every polynomial of degree <= 3 is a combination of degree-3 barycentric monomials (multiply by
   powers of l1+l2+l3+l4 = 1), and the rule is invariant under vertex permutations, so it is exact
   for degree 3; the weights are positive and sum to 4/60 + 6/15 + 8/15 = 1. tests/test_p1_element.c
   checks all 20 monomials x^i y^j z^k, i+j+k <= 3, on the reference tetrahedron. */
#define SQUALL_P1_NQUAD 11
#define SQUALL_P1_WV ((PetscReal)1 / (PetscReal)60)
#define SQUALL_P1_WE ((PetscReal)1 / (PetscReal)15)
#define SQUALL_P1_WC ((PetscReal)8 / (PetscReal)15)

/* barycentric coordinates l[4] and weight (fraction of |K|) of quadrature point q: vertices 0-3,
   edge midpoints 4-9 (edges 01 02 03 12 13 23), centroid 10. Arithmetic rather than tables, so that
   a loop over q need not be unrolled on the device (which would cost registers). */
SQUALL_HOST_DEVICE static inline void SquallP1QuadPoint(int q, PetscReal l[4], PetscReal *w)
{
  const int k = q - 4, ea = k < 3 ? 0 : (k < 5 ? 1 : 2), eb = k < 3 ? k + 1 : (k < 5 ? k - 1 : 3);

  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) l[a] = q < 4 ? (PetscReal)(a == q) : (q < 10 ? (PetscReal)0.5 * ((a == ea) + (a == eb)) : (PetscReal)0.25);
  *w = q < 4 ? SQUALL_P1_WV : (q < 10 ? SQUALL_P1_WE : SQUALL_P1_WC);
}

SQUALL_HOST_DEVICE static inline PetscReal SquallP1Det3(const PetscReal J[9])
{
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}

/* Jacobian J (row-major, columns x1-x0, x2-x0, x3-x0), its determinant, inverse and the volume, once
   per affine tetrahedron. Returns the signed determinant (6 x signed volume); the inverse is only
   meaningful when it is not zero. */
SQUALL_HOST_DEVICE static inline PetscReal SquallP1Geometry(const PetscReal x[4][3], PetscReal invJ[9], PetscReal *vol)
{
  PetscReal J[9], det, idet;

  for (int d = 0; d < 3; d++)
    for (int c = 0; c < 3; c++) J[3 * d + c] = x[c + 1][d] - x[0][d];
  det     = SquallP1Det3(J);
  idet    = det != 0 ? 1 / det : 0;
  invJ[0] = (J[4] * J[8] - J[5] * J[7]) * idet;
  invJ[1] = (J[2] * J[7] - J[1] * J[8]) * idet;
  invJ[2] = (J[1] * J[5] - J[2] * J[4]) * idet;
  invJ[3] = (J[5] * J[6] - J[3] * J[8]) * idet;
  invJ[4] = (J[0] * J[8] - J[2] * J[6]) * idet;
  invJ[5] = (J[2] * J[3] - J[0] * J[5]) * idet;
  invJ[6] = (J[3] * J[7] - J[4] * J[6]) * idet;
  invJ[7] = (J[1] * J[6] - J[0] * J[7]) * idet;
  invJ[8] = (J[0] * J[4] - J[1] * J[3]) * idet;
  *vol    = det / 6;
  return det;
}

/* physical gradients of the four shape functions from J^{-1} */
SQUALL_HOST_DEVICE static inline void SquallP1Gradients(const PetscReal invJ[9], PetscReal g[4][3])
{
  for (int d = 0; d < 3; d++) {
    g[1][d] = invJ[0 + d];
    g[2][d] = invJ[3 + d];
    g[3][d] = invJ[6 + d];
    g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  }
}

/* The scalar element operator
     S_ab = coef[MASS] int c phi_a phi_b + coef[ADVECTION] int phi_a (u . grad phi_b) + coef[DIFFUSION] int grad phi_a . K grad phi_b
   with c (4 nodal values), u (4 x 3 nodal values) and K (the mean of the element's diffusivity tensor,
   row-major) used where hasc, hasu, hasK are set (else c = 1, u = 0, K = I). The mass and advection
   integrands have degree 3 and 2 and are integrated exactly by the 11-point rule; the gradients are
   constant, so the diffusion term needs only the mean of K, which is exact for a nodal (linear) K.
   Flags rather than NULL pointers: on the device the arrays then stay in registers. */
SQUALL_HOST_DEVICE static inline void SquallP1ElementOperatorFields(const PetscReal g[4][3], PetscReal vol, int hasc, const PetscReal c[4], int hasu, const PetscReal u[4][3], int hasK, const PetscReal K[9], const PetscReal coef[SQUALL_P1_NTERMS],
                                                                    PetscReal S[4][4])
{
  const PetscReal cm = coef[SQUALL_P1_TERM_MASS], ca = hasu ? coef[SQUALL_P1_TERM_ADVECTION] : 0, cd = coef[SQUALL_P1_TERM_DIFFUSION];

  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
  for (int b = 0; b < 4; b++) S[a][b] = 0;
  if (cm != 0 || ca != 0) {
    SQUALL_P1_NOUNROLL
    for (int q = 0; q < SQUALL_P1_NQUAD; q++) {
      PetscReal l[4], w, cq = 1, uq[3] = {0, 0, 0}, ug[4];

      SquallP1QuadPoint(q, l, &w);
      w *= vol;
      if (hasc) cq = l[0] * c[0] + l[1] * c[1] + l[2] * c[2] + l[3] * c[3];
      if (ca != 0)
        for (int d = 0; d < 3; d++) uq[d] = l[0] * u[0][d] + l[1] * u[1][d] + l[2] * u[2][d] + l[3] * u[3][d];
      SQUALL_P1_UNROLL
      for (int b = 0; b < 4; b++) ug[b] = uq[0] * g[b][0] + uq[1] * g[b][1] + uq[2] * g[b][2];
      SQUALL_P1_UNROLL
      for (int a = 0; a < 4; a++) {
        const PetscReal wa = w * l[a];
        SQUALL_P1_UNROLL
        for (int b = 0; b < 4; b++) S[a][b] += wa * (cm * cq * l[b] + ca * ug[b]);
      }
    }
  }
  if (cd != 0) {
    SQUALL_P1_UNROLL
    for (int b = 0; b < 4; b++) {
      PetscReal Kg[3];

      for (int d = 0; d < 3; d++) Kg[d] = hasK ? K[3 * d] * g[b][0] + K[3 * d + 1] * g[b][1] + K[3 * d + 2] * g[b][2] : g[b][d];
      SQUALL_P1_UNROLL
      for (int a = 0; a < 4; a++) S[a][b] += cd * vol * (g[a][0] * Kg[0] + g[a][1] * Kg[1] + g[a][2] * Kg[2]);
    }
  }
}

/* the same with optional fields given as NULL pointers (host code and tests) */
SQUALL_HOST_DEVICE static inline void SquallP1ElementOperator(const PetscReal g[4][3], PetscReal vol, const PetscReal *c, const PetscReal (*u)[3], const PetscReal *K, const PetscReal coef[SQUALL_P1_NTERMS], PetscReal S[4][4])
{
  const PetscReal one[4] = {1, 1, 1, 1}, zero[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

  SquallP1ElementOperatorFields(g, vol, c != NULL, c ? c : one, u != NULL, u ? u : zero, K != NULL, K ? K : eye, coef, S);
}

/* Entry (a, comp. i; b, comp. j) of the 3-component element operator: the scalar operator on each
   component plus the grad-div term int (div v)(div w) = vol * d_i phi_a * d_j phi_b */
SQUALL_HOST_DEVICE static inline PetscReal SquallP1BlockEntry(const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol, int a, int i, int b, int j)
{
  return (i == j ? S[a][b] : 0) + cgvol * g[a][i] * g[b][j];
}

/* Everything an element operator reads, as raw arrays (host or device). Connectivity and geometry
   have strides so that the host (element-major) and device (structure-of-arrays, coalesced) layouts
   share the code. */
typedef struct {
  PetscInt           ne;
  const PetscInt    *tet; /* vertex a of element e: tet[a*ts + e*es] */
  PetscInt           ts, es;
  const PetscReal   *geom;             /* J^{-1} and volume: geom[k*ne + e], k < SQUALL_P1_NGEOM */
  const PetscReal   *x;                /* vertex coordinates x[3*v + d], what geom was computed from (SquallP1ElementLoadAffineXYZ()) */
  const PetscScalar *rho, *u, *K, *Ke; /* nodal (1, 3, 9 per vertex) or per element (Ke, 9); NULL: absent */
} SquallP1Elements;

typedef struct {
  PetscReal c[SQUALL_P1_NTERMS];
} SquallP1Coef;

/* the coefficient fields of element e with vertices v as the element operators read them: c = 1, u = 0, K = I where
   the field is absent or its term's coefficient is 0 (the mean of the nodal K) */
SQUALL_HOST_DEVICE static inline void SquallP1ElementNodalFields(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, const PetscInt v[4], PetscReal c[4], PetscReal u[4][3], PetscReal K[9])
{
  for (int a = 0; a < 4; a++) {
    c[a] = 1;
    for (int d = 0; d < 3; d++) u[a][d] = 0;
  }
  for (int k = 0; k < 9; k++) K[k] = (PetscReal)(k % 4 == 0);
  if (E->rho)
    for (int a = 0; a < 4; a++) c[a] = PetscRealPart(E->rho[v[a]]);
  if (E->u && coef->c[SQUALL_P1_TERM_ADVECTION] != 0)
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) u[a][d] = PetscRealPart(E->u[3 * v[a] + d]);
  if (coef->c[SQUALL_P1_TERM_DIFFUSION] != 0) {
    if (E->K)
      for (int k = 0; k < 9; k++) K[k] = (PetscReal)0.25 * PetscRealPart(E->K[9 * v[0] + k] + E->K[9 * v[1] + k] + E->K[9 * v[2] + k] + E->K[9 * v[3] + k]);
    else if (E->Ke)
      for (int k = 0; k < 9; k++) K[k] = PetscRealPart(E->Ke[9 * e + k]);
  }
}

/* The nodal fields SquallP1ElementNodalFields() reads, from which are given: rho; u where advected; the nodal K
   where diffusing. The GPU's affine_shared kernel copies exactly these (and the coordinates) into shared memory, and
   its host side sizes that copy by them. */
#define SQUALL_P1_READS_RHO 1
#define SQUALL_P1_READS_U 2
#define SQUALL_P1_READS_K 4
SQUALL_HOST_DEVICE static inline int SquallP1NodalFieldsRead(PetscBool rho, PetscBool u, PetscBool K, const PetscReal coef[SQUALL_P1_NTERMS])
{
  return (rho ? SQUALL_P1_READS_RHO : 0) | (u && coef[SQUALL_P1_TERM_ADVECTION] != 0 ? SQUALL_P1_READS_U : 0) | (K && coef[SQUALL_P1_TERM_DIFFUSION] != 0 ? SQUALL_P1_READS_K : 0);
}

/* PetscReals per vertex of that copy: 3 coordinates and the fields read */
SQUALL_HOST_DEVICE static inline int SquallP1NodalWordsRead(int reads)
{
  return 3 + (reads & SQUALL_P1_READS_RHO ? 1 : 0) + (reads & SQUALL_P1_READS_U ? 3 : 0) + (reads & SQUALL_P1_READS_K ? 9 : 0);
}

/* vertices, gradients (from the precomputed geometry E->geom), volume and the coefficient fields of element e */
SQUALL_HOST_DEVICE static inline void SquallP1ElementFields(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, PetscInt v[4], PetscReal g[4][3], PetscReal *vol, PetscReal c[4], PetscReal u[4][3], PetscReal K[9])
{
  PetscReal invJ[9];

  for (int a = 0; a < 4; a++) v[a] = E->tet[a * E->ts + e * E->es];
  for (int k = 0; k < 9; k++) invJ[k] = E->geom[k * E->ne + e];
  *vol = E->geom[9 * E->ne + e];
  SquallP1Gradients(invJ, g);
  SquallP1ElementNodalFields(E, e, coef, v, c, u, K);
}

/* vertices, gradients, volume and scalar operator S of element e */
SQUALL_HOST_DEVICE static inline void SquallP1ElementLoad(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, PetscInt v[4], PetscReal g[4][3], PetscReal *vol, PetscReal S[4][4])
{
  PetscReal c[4], u[4][3], K[9];

  SquallP1ElementFields(E, e, coef, v, g, vol, c, u, K);
  SquallP1ElementOperatorFields((const PetscReal(*)[3])g, *vol, E->rho != NULL, c, E->u != NULL, (const PetscReal(*)[3])u, E->K || E->Ke, K, coef->c, S);
}

/* The scalar element operator of SquallP1ElementOperatorFields() in closed form.
   The tetrahedron is affine and the fields are linear, so the integrals are those of products of barycentric
   coordinates, int l_a l_b l_k = |K| 3! alpha! / 6! (alpha the multiplicities):
     mass       int c phi_a phi_b            = |K| (1 + delta_ab) (C + c_a + c_b) / 120,  C = sum_k c_k
     advection  int phi_a (u . grad phi_b)   = |K| / 20 (U + u_a) . g_b,                  U = sum_k u_k
     diffusion  int grad phi_a . K grad phi_b = |K| (K^T g_a) . g_b
   so S_ab = m_ab (C + c_a + c_b) + z_a . g_b with z_a = ca |K|/20 (U + u_a) + cd |K| K^T g_a: 4 vectors z_a,
   then 16 three-term dot products. ~210 floating-point operations instead of ~900 for the 11-point loop (the
   quadrature stays in SquallP1ElementOperatorFields(), the reference); the same values up to rounding (a few
   ulps of the row's largest entry, tests/test_p1_element.c). All fields given (c = 1, u = 0, K = I where absent,
   as SquallP1ElementFields() sets them): no flags, no branches. */
SQUALL_HOST_DEVICE static inline void SquallP1ElementOperatorAffine(const PetscReal g[4][3], PetscReal vol, const PetscReal c[4], const PetscReal u[4][3], const PetscReal K[9], const PetscReal coef[SQUALL_P1_NTERMS], PetscReal S[4][4])
{
  const PetscReal m = coef[SQUALL_P1_TERM_MASS] * vol * ((PetscReal)1 / (PetscReal)120), al = coef[SQUALL_P1_TERM_ADVECTION] * vol * ((PetscReal)1 / (PetscReal)20), de = coef[SQUALL_P1_TERM_DIFFUSION] * vol;
  const PetscReal C = c[0] + c[1] + c[2] + c[3];
  PetscReal       U[3], dK[9], z[4][3];

  SQUALL_P1_UNROLL
  for (int d = 0; d < 3; d++) U[d] = u[0][d] + u[1][d] + u[2][d] + u[3][d];
  SQUALL_P1_UNROLL
  for (int k = 0; k < 9; k++) dK[k] = de * K[k];
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
  for (int i = 0; i < 3; i++) z[a][i] = al * (U[i] + u[a][i]) + dK[i] * g[a][0] + dK[3 + i] * g[a][1] + dK[6 + i] * g[a][2];
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) {
    const PetscReal ta = C + c[a];

    SQUALL_P1_UNROLL
    for (int b = 0; b < 4; b++) S[a][b] = (a == b ? 2 * m : m) * (ta + c[b]) + z[a][0] * g[b][0] + z[a][1] * g[b][1] + z[a][2] * g[b][2];
  }
}

/* SquallP1ElementLoad() with the closed-form operator */
SQUALL_HOST_DEVICE static inline void SquallP1ElementLoadAffine(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, PetscInt v[4], PetscReal g[4][3], PetscReal *vol, PetscReal S[4][4])
{
  PetscReal c[4], u[4][3], K[9];

  SquallP1ElementFields(E, e, coef, v, g, vol, c, u, K);
  SquallP1ElementOperatorAffine((const PetscReal(*)[3])g, *vol, c, (const PetscReal(*)[3])u, K, coef->c, S);
}

/* The closed-form operator, gradients and volume of element e whose vertices v index E's nodal arrays (x, rho, u,
   K): the global ones, or the copies of a block's vertices in shared memory (the GPU's reduce assembly, v
   block-local). J^-1 and the volume come from the vertex coordinates by SquallP1Geometry(), the function that
   computed E->geom at set-up (so the same values, up to the compiler's contraction of the operations into fused
   multiply-adds): E->geom is not read. No validity test: SquallP1SetUp() rejected inverted and degenerate
   elements once. */
SQUALL_HOST_DEVICE static inline void SquallP1ElementOperatorXYZ(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, const PetscInt v[4], PetscReal g[4][3], PetscReal *vol, PetscReal S[4][4])
{
  PetscReal X[4][3], invJ[9], c[4], u[4][3], K[9];

  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
  for (int d = 0; d < 3; d++) X[a][d] = E->x[3 * v[a] + d];
  (void)SquallP1Geometry((const PetscReal(*)[3])X, invJ, vol);
  SquallP1Gradients(invJ, g);
  SquallP1ElementNodalFields(E, e, coef, v, c, u, K);
  SquallP1ElementOperatorAffine((const PetscReal(*)[3])g, *vol, c, (const PetscReal(*)[3])u, K, coef->c, S);
}

/* SquallP1ElementLoadAffine() with the geometry rebuilt from the vertex coordinates (the GPU's reduce assembly):
   12 coordinates gathered through the connectivity (a vertex is shared by ~24 elements, so they mostly hit in
   cache: ~4 bytes per element from memory) and ~60 floating-point operations, instead of the 10 streamed values of
   E->geom (80 bytes per element in double) */
SQUALL_HOST_DEVICE static inline void SquallP1ElementLoadAffineXYZ(const SquallP1Elements *E, PetscInt e, const SquallP1Coef *coef, PetscInt v[4], PetscReal g[4][3], PetscReal *vol, PetscReal S[4][4])
{
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) v[a] = E->tet[a * E->ts + e * E->es];
  SquallP1ElementOperatorXYZ(E, e, coef, v, g, vol, S);
}

/* ---- small dense solvers */

/* Solves A x = b for a 6x6 A (row-major, overwritten) by Gaussian elimination with partial pivoting;
   b is overwritten by x. Returns 0, or k+1 if the k-th pivot is zero or below tol times the
   largest entry of A (A is then numerically singular and b is left partly reduced). */
SQUALL_HOST_DEVICE static inline int SquallP1Solve6(PetscReal A[36], PetscReal b[6], PetscReal tol)
{
  PetscReal amax = 0;

  for (int k = 0; k < 36; k++) amax = PetscMax(amax, PetscAbsReal(A[k]));
  for (int k = 0; k < 6; k++) {
    int       p = k;
    PetscReal m = PetscAbsReal(A[6 * k + k]);

    for (int i = k + 1; i < 6; i++)
      if (PetscAbsReal(A[6 * i + k]) > m) {
        m = PetscAbsReal(A[6 * i + k]);
        p = i;
      }
    if (!(m > tol * amax)) return k + 1; /* also catches NaN */
    if (p != k) {
      for (int j = k; j < 6; j++) {
        const PetscReal t = A[6 * k + j];
        A[6 * k + j]      = A[6 * p + j];
        A[6 * p + j]      = t;
      }
      const PetscReal t = b[k];
      b[k]              = b[p];
      b[p]              = t;
    }
    for (int i = k + 1; i < 6; i++) {
      const PetscReal f = A[6 * i + k] / A[6 * k + k];
      for (int j = k + 1; j < 6; j++) A[6 * i + j] -= f * A[6 * k + j];
      b[i] -= f * b[k];
    }
  }
  for (int k = 5; k >= 0; k--) {
    PetscReal s = b[k];
    for (int j = k + 1; j < 6; j++) s -= A[6 * k + j] * b[j];
    b[k] = s / A[6 * k + k];
  }
  return 0;
}

/* Eigendecomposition of a symmetric 3x3 A (row-major; only the upper triangle is read) by cyclic
   Jacobi rotations: ascending eigenvalues lam[3], eigenvectors as the columns of V (row-major,
   V[3*i + k] = component i of eigenvector k), orthonormal and right-handed. Jacobi rather than a
   closed-form cubic: it keeps full relative accuracy for clustered eigenvalues and branches little.
   Returns the number of sweeps used (at most 16). */
SQUALL_HOST_DEVICE static inline int SquallP1SymEig3(const PetscReal Ain[9], PetscReal lam[3], PetscReal V[9])
{
  PetscReal a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int       sweep;

  for (int i = 0; i < 3; i++)
    for (int j = i; j < 3; j++) a[i][j] = a[j][i] = Ain[3 * i + j];
  for (sweep = 0; sweep < 16; sweep++) {
    const PetscReal off  = PetscAbsReal(a[0][1]) + PetscAbsReal(a[0][2]) + PetscAbsReal(a[1][2]);
    const PetscReal diag = PetscAbsReal(a[0][0]) + PetscAbsReal(a[1][1]) + PetscAbsReal(a[2][2]);

    if (off == 0 || off <= PETSC_MACHINE_EPSILON * PETSC_MACHINE_EPSILON * diag) break;
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        PetscReal theta, t, cs, sn, tau, h;

        if (a[p][q] == 0) continue;
        /* rotation that annihilates a[p][q] (Golub & Van Loan, Alg. 8.4.1), the smaller angle */
        theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        t     = (theta >= 0 ? 1 : -1) / (PetscAbsReal(theta) + PetscSqrtReal(1 + theta * theta));
        cs    = 1 / PetscSqrtReal(1 + t * t);
        sn    = t * cs;
        tau   = sn / (1 + cs);
        h     = t * a[p][q];
        a[p][p] -= h;
        a[q][q] += h;
        a[p][q] = a[q][p] = 0;
        for (int r = 0; r < 3; r++) {
          if (r != p && r != q) {
            const PetscReal arp = a[r][p], arq = a[r][q];
            a[r][p] = a[p][r] = arp - sn * (arq + tau * arp);
            a[r][q] = a[q][r] = arq + sn * (arp - tau * arq);
          }
          const PetscReal vrp = v[r][p], vrq = v[r][q];
          v[r][p] = vrp - sn * (vrq + tau * vrp);
          v[r][q] = vrq + sn * (vrp - tau * vrq);
        }
      }
    }
  }
  /* sort ascending (three elements: a fixed network of compare-exchanges) */
  int idx[3] = {0, 1, 2};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (a[idx[j]][idx[j]] > a[idx[j + 1]][idx[j + 1]]) {
        const int t = idx[j];
        idx[j]      = idx[j + 1];
        idx[j + 1]  = t;
      }
  for (int k = 0; k < 3; k++) {
    lam[k] = a[idx[k]][idx[k]];
    for (int i = 0; i < 3; i++) V[3 * i + k] = v[i][idx[k]];
  }
  /* right-handed: v2 = v0 x v1 (fixes the sign freedom, so results are reproducible) */
  {
    const PetscReal cx = V[3] * V[7] - V[6] * V[4], cy = V[6] * V[1] - V[0] * V[7], cz = V[0] * V[4] - V[3] * V[1];
    if (cx * V[2] + cy * V[5] + cz * V[8] < 0)
      for (int i = 0; i < 3; i++) V[3 * i + 2] = -V[3 * i + 2];
  }
  return sweep;
}

/* ---- element metric tensor

   The metric M of an element is the symmetric 3x3 tensor in which all six edges have unit length,
   e^T M e = 1: six linear equations for the six entries of M, solved by SquallP1Solve6. For a regular
   tetrahedron of edge h, M = I/h^2; in general its eigenpairs (lambda_k, v_k) give the element's
   principal directions and lengths h_k = lambda_k^{-1/2}. The length-scale tensor
   L = M^{-1} = sum_k h_k^2 v_k v_k^T is a grid-scale diffusivity (per unit rate) that respects the
   anisotropy of terrain-following cells. Returns nonzero if the element is degenerate (singular
   system or a non-positive eigenvalue). h[] is sorted descending (h[0] the longest). */
SQUALL_HOST_DEVICE static inline int SquallP1ElementMetric(const PetscReal x[4][3], PetscReal M[9], PetscReal L[9], PetscReal h[3])
{
  const int ea[6] = {0, 0, 0, 1, 1, 2}, eb[6] = {1, 2, 3, 2, 3, 3};
  PetscReal A[36], m[6], lam[3], V[9];

  for (int k = 0; k < 6; k++) {
    PetscReal e[3];
    for (int d = 0; d < 3; d++) e[d] = x[eb[k]][d] - x[ea[k]][d];
    A[6 * k + 0] = e[0] * e[0];
    A[6 * k + 1] = e[1] * e[1];
    A[6 * k + 2] = e[2] * e[2];
    A[6 * k + 3] = 2 * e[0] * e[1];
    A[6 * k + 4] = 2 * e[0] * e[2];
    A[6 * k + 5] = 2 * e[1] * e[2];
    m[k]         = 1;
  }
  if (SquallP1Solve6(A, m, 100 * PETSC_MACHINE_EPSILON)) return 1;
  M[0] = m[0];
  M[4] = m[1];
  M[8] = m[2];
  M[1] = M[3] = m[3];
  M[2] = M[6] = m[4];
  M[5] = M[7] = m[5];
  (void)SquallP1SymEig3(M, lam, V);
  if (!(lam[0] > 0)) return 2;
  for (int k = 0; k < 3; k++) h[k] = 1 / PetscSqrtReal(lam[k]); /* the smallest eigenvalue is the longest direction */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) L[3 * i + j] = V[3 * i + 0] * V[3 * j + 0] / lam[0] + V[3 * i + 1] * V[3 * j + 1] / lam[1] + V[3 * i + 2] * V[3 * j + 2] / lam[2];
  return 0;
}

/* ---- scatter into the CSR arrays of a square AIJ matrix

   The scalar graph of the owned rows is split like PETSc's MPIAIJ: a diagonal block (columns owned by
   this process, local column numbers) and an off-diagonal block (other columns, numbered by their
   position in the sorted list garray). Column lists are sorted. For block size 3 the AIJ matrix has
   rows 3r+i, and its row 3r+i lists, for each neighbour k of the scalar row r in order, the columns
   3k, 3k+1, 3k+2: entry (3r+i, 3k+j) sits at 9*ia[r] + 3*i*(ia[r+1]-ia[r]) + 3*(p-ia[r]) + j, with p the
   position of k in the scalar row. So one binary search serves all 9 entries of a block (the slot map
   below is built by these searches, once). */
#if defined(__CUDA_ARCH__)
#  define SQUALL_P1_ADD(p, v) atomicAdd((p), (v))
#else
#  define SQUALL_P1_ADD(p, v) (*(p) += (v))
#endif

/* position of column c in the sorted J[lo, hi), or -1. Never reads outside J[lo, hi): an empty row,
   a column past the row's last one or c = -1 (a vertex in neither block) give -1, not J[hi] */
SQUALL_HOST_DEVICE static inline PetscInt SquallP1Find(const PetscInt *J, PetscInt lo, PetscInt hi, PetscInt c)
{
  const PetscInt end = hi;

  if (c < 0 || lo < 0) return -1;
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (J[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < end && J[lo] == c) ? lo : -1;
}

/* ---- scatter through the slot map

   The sparsity is fixed at set-up, so the place of every element entry in the AIJ values can be found
   once (src/mat/p1assemble.c, SquallP1BuildSlots()) instead of by a binary search in every assembly.
   Slot k of element e is slots[k*ne + e] (entry-major, element-minor: the 32 threads of a warp read 32
   consecutive ints per slot, one 128-byte line). Slots 4a+b (k < 16) hold the position of entry (a, b),
   for bs = 3 that of component (0, 0) of its 3x3 block:
     s >= 0    position s in the diagonal block's values
     s == -1   no entry here: row a is owned by another process
     s <= -2   position -(s+2) in the off-diagonal block's values (a block the GPU leaves to MatSetValuesCOO)
   For bs = 3, component (i, j) of the block is at s + i*stride + j, the stride being 3 x the length of
   the scalar row (p1tet.h above): slots 16+a hold it for row a in the diagonal block, 20+a in the
   off-diagonal block (read only when that block is written, so the device keeps only 20 slots). */
#define SQUALL_P1_SLOT_NONE (-1)
#define SQUALL_P1_SLOT_OFF(pos) (-(pos)-2)

SQUALL_HOST_DEVICE static inline int SquallP1NumSlots(int bs, int withoff)
{
  return bs == 1 ? 16 : (withoff ? 24 : 20);
}

#if defined(__CUDA_ARCH__)
#  define SQUALL_P1_LDG(p) __ldg(p)
#else
#  define SQUALL_P1_LDG(p) (*(p))
#endif

/* Adds an element operator into da (diagonal block) and oa (off-diagonal block, may be NULL: its
   entries are skipped) through the slots of one element, slot k at s[k*ss] */
SQUALL_HOST_DEVICE static inline void SquallP1ScatterElementSlots(int bs, const int *s, PetscInt ss, PetscScalar *da, PetscScalar *oa, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol)
{
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) {
    const int sd = bs == 1 ? 0 : SQUALL_P1_LDG(&s[(16 + a) * ss]), so = (bs == 1 || !oa) ? 0 : SQUALL_P1_LDG(&s[(20 + a) * ss]);

    SQUALL_P1_UNROLL
    for (int b = 0; b < 4; b++) {
      const int    slot = SQUALL_P1_LDG(&s[(4 * a + b) * ss]);
      PetscScalar *A    = slot >= 0 ? da : (slot <= -2 ? oa : NULL);
      const int    pos = slot >= 0 ? slot : -slot - 2, stride = slot >= 0 ? sd : so;

      if (!A) continue;
      if (bs == 1)
        SQUALL_P1_ADD(&A[pos], (PetscScalar)S[a][b]);
      else {
        SQUALL_P1_UNROLL
        for (int i = 0; i < 3; i++) SQUALL_P1_UNROLL
        for (int j = 0; j < 3; j++) {
          const PetscReal val = SquallP1BlockEntry(S, g, cgvol, a, i, b, j);
          if (val != 0) SQUALL_P1_ADD(&A[pos + i * stride + j], (PetscScalar)val);
        }
      }
    }
  }
}

/* ---- atomic-free assembly: element values to a scratch array, then a gather per stored value

   Element e stores entry (a, b) of its operator, component (i, j) for bs = 3, at
     w[((bs*i + j)*16 + 4a+b) * ws + e]      (ws = ne)
   entry-major and element-minor like the slot map, so the element kernel's stores are coalesced, and
   one component plane of 16*ne values per (i, j): the gather map (SquallP1BuildGather(), t = k*ne + e)
   then serves both block sizes, component (i, j) reading plane bs*i+j. */
SQUALL_HOST_DEVICE static inline void SquallP1ElementStore(int bs, PetscScalar *w, PetscInt ws, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol)
{
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
  for (int b = 0; b < 4; b++) {
    if (bs == 1)
      w[(size_t)(4 * a + b) * ws] = S[a][b];
    else {
      SQUALL_P1_UNROLL
      for (int i = 0; i < 3; i++) SQUALL_P1_UNROLL
      for (int j = 0; j < 3; j++) w[(size_t)((3 * i + j) * 16 + 4 * a + b) * ws] = SquallP1BlockEntry(S, g, cgvol, a, i, b, j);
    }
  }
}

/* stored value p: the sum of its contributions w[idx[m]], off[p] <= m < off[p+1], in that (fixed)
   order, so the result does not depend on thread scheduling; w is the component's plane */
SQUALL_HOST_DEVICE static inline PetscScalar SquallP1GatherValue(const int *off, const int *idx, const PetscScalar *w, PetscInt p)
{
  const int   end = SQUALL_P1_LDG(&off[p + 1]);
  PetscScalar s   = 0;

  for (int m = SQUALL_P1_LDG(&off[p]); m < end; m++) s += SQUALL_P1_LDG(&w[SQUALL_P1_LDG(&idx[m])]);
  return s;
}

/* ---- in-block reduction (-p1_assembly_mode reduce)

   A block of nb consecutive elements (the GPU's thread block) first stores what its element matrices
   are made of, then sums, for each matrix entry the block touches, its contributions in a fixed order
   (the per-block map of SquallP1BuildReduce(), src/mat/p1impl.h) and adds each sum once. Element el of
   the block stores at w[q*ws + el] (ws = nb: consecutive threads, consecutive words, no shared-memory
   bank conflicts): q < 16 entry 4a+b of S; for bs = 3 also q = 16 + 3a+i the gradient g[a][i] and
   q = 28 cgvol, so the 144 block entries are rebuilt in the sum (29 words instead of 144 per element:
   what lets 256 elements' data fit in shared memory). A contribution is c = 16*el + 4a+b. */
#define SQUALL_P1_REDUCE_WORDS(bs) ((bs) == 1 ? 16 : 29)

SQUALL_HOST_DEVICE static inline void SquallP1ReduceStore(int bs, PetscReal *w, int ws, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol)
{
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
  for (int b = 0; b < 4; b++) w[(4 * a + b) * ws] = S[a][b];
  if (bs == 3) {
    SQUALL_P1_UNROLL
    for (int a = 0; a < 4; a++) SQUALL_P1_UNROLL
    for (int i = 0; i < 3; i++) w[(16 + 3 * a + i) * ws] = g[a][i];
    w[28 * ws] = cgvol;
  }
}

/* sum[bs*bs] += contribution q = 16*el + 4a+b of one entry; component (i, j) of a block is SquallP1BlockEntry()
   written out (the same operations in the same order). One function for every caller (the CPU reference and
   each GPU variant, whichever memory q came from), so that all sum bit for bit alike. */
SQUALL_HOST_DEVICE static inline void SquallP1ReduceAdd(int bs, int q, const PetscReal *w, int ws, PetscReal sum[9])
{
  const int       el = q >> 4, a = (q >> 2) & 3, b = q & 3;
  const PetscReal Sab = w[(q & 15) * ws + el];

  if (bs == 1)
    sum[0] += Sab;
  else {
    const PetscReal cg = w[28 * ws + el];
    PetscReal       ga[3], gb[3];

    SQUALL_P1_UNROLL
    for (int i = 0; i < 3; i++) {
      ga[i] = w[(16 + 3 * a + i) * ws + el];
      gb[i] = w[(16 + 3 * b + i) * ws + el];
    }
    SQUALL_P1_UNROLL
    for (int i = 0; i < 3; i++) SQUALL_P1_UNROLL
    for (int j = 0; j < 3; j++) sum[3 * i + j] += (i == j ? Sab : 0) + cg * ga[i] * gb[j];
  }
}

/* sum[bs*bs] = the contributions c[m0..m1) of one entry, in that order (c in global memory) */
SQUALL_HOST_DEVICE static inline void SquallP1ReduceSum(int bs, const uint16_t *c, int m0, int m1, const PetscReal *w, int ws, PetscReal sum[9])
{
  for (int k = 0; k < bs * bs; k++) sum[k] = 0;
  for (int m = m0; m < m1; m++) SquallP1ReduceAdd(bs, SQUALL_P1_LDG(&c[m]), w, ws, sum);
}

/* Element right-hand side: r_a = sum_b Op_ab f_b for one element, bs = 1 or 3 (f[4*bs], r[4*bs],
   component-interleaved per vertex). With coef = {1,0,0,0} this is the load vector int phi_a f. */
SQUALL_HOST_DEVICE static inline void SquallP1ElementApply(int bs, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol, const PetscReal *f, PetscReal *r)
{
  SQUALL_P1_UNROLL
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < bs; i++) {
      PetscReal s = 0;
      SQUALL_P1_UNROLL
      for (int b = 0; b < 4; b++)
        for (int j = 0; j < bs; j++) s += (bs == 1 ? S[a][b] : SquallP1BlockEntry(S, g, cgvol, a, i, b, j)) * f[bs * b + j];
      r[bs * a + i] = s;
    }
}
