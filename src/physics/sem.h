/* Pointwise spectral-element code of the hipBone-style CG, written once for the C reference and
   the CUDA kernels.

   Element e of order N has Nq = N+1 Gauss-Lobatto-Legendre (GLL) nodes per direction and Np = Nq^3
   nodes, numbered n = i + Nq (j + Nq k) with i along r. D[i*Nq + m] = l_m'(r_i) is the 1D GLL
   differentiation matrix. The element stiffness is S_e = D^T G D with, per node, the symmetric
   geometric factors

     G = w_i w_j w_k |J| J^{-1} J^{-T},   packed as (rr, rs, rt, ss, st, tt)   (J = dx/dr),

   so that (S_e q)_n = sum_a D_a^T (G_a. D q). The local operator of squall's hipBone CG is

     y_L = (S_L + lambda W) Z x_G

   with W the inverse multiplicity of each node (1 / number of element copies of its global node),
   as the issue specifies. Because Z^T W Z = I, the assembled operator is A = Z^T S_L Z + lambda I:
   a screened Poisson operator with a lumped "identity mass" (hipBone itself uses the GLL mass, with
   which A would be a consistent Helmholtz discretisation; the two cost the same per node).

   NekBone's flop count per element and CG iteration, used for the figure of merit, is
   15 Np (geometric factors) + 19 Np (the rest of the operator and the CG vector work) + 12 Nq^4
   (the six 1D derivative contractions). The operator kernel alone performs 12 Nq^4 + 18 Np flops:
   the contractions, 15 for G, 3 for lambda W q. */
#pragma once

#include "physics/hostdevice.h"

#define SQUALL_SEM_NGEO 6

/* the six packed factors of a node applied to its reference gradient (9 mul + 6 add = 15 flops) */
SQUALL_HOST_DEVICE static inline void SquallSEMGeoApply(const PetscReal G[SQUALL_SEM_NGEO], PetscReal qr, PetscReal qs, PetscReal qt, PetscReal *gr, PetscReal *gs, PetscReal *gt)
{
  *gr = G[0] * qr + G[1] * qs + G[2] * qt;
  *gs = G[1] * qr + G[3] * qs + G[4] * qt;
  *gt = G[2] * qr + G[4] * qs + G[5] * qt;
}

/* packed factors of one node from its Jacobian J[a*3+b] = dx_a/dr_b and quadrature weight w;
   returns w |J|, the node's (lumped) mass. The inverse is formed by cofactors so that the factors
   of an affine element come out exactly symmetric. */
SQUALL_HOST_DEVICE static inline PetscReal SquallSEMGeometricFactors(const PetscReal J[9], PetscReal w, PetscReal G[SQUALL_SEM_NGEO])
{
  /* C[b][a] = cofactor of J[a][b], so J^{-1}[b][a] = dr_b/dx_a = C[b][a] / det */
  const PetscReal C[9] = {J[4] * J[8] - J[5] * J[7], J[5] * J[6] - J[3] * J[8], J[3] * J[7] - J[4] * J[6], J[2] * J[7] - J[1] * J[8], J[0] * J[8] - J[2] * J[6],
                          J[1] * J[6] - J[0] * J[7], J[1] * J[5] - J[2] * J[4], J[2] * J[3] - J[0] * J[5], J[0] * J[4] - J[1] * J[3]};
  const PetscReal det  = J[0] * C[0] + J[1] * C[1] + J[2] * C[2];
  /* (J^{-1})_{b a} = C[a*3+b] / det; G_bc = w det sum_a J^{-1}_{b a} J^{-1}_{c a} = w/det sum_a C[a][b] C[a][c] */
  const PetscReal s = w / det;
  G[0]              = s * (C[0] * C[0] + C[3] * C[3] + C[6] * C[6]);
  G[1]              = s * (C[0] * C[1] + C[3] * C[4] + C[6] * C[7]);
  G[2]              = s * (C[0] * C[2] + C[3] * C[5] + C[6] * C[8]);
  G[3]              = s * (C[1] * C[1] + C[4] * C[4] + C[7] * C[7]);
  G[4]              = s * (C[1] * C[2] + C[4] * C[5] + C[7] * C[8]);
  G[5]              = s * (C[2] * C[2] + C[5] * C[5] + C[8] * C[8]);
  return w * det;
}

/* Geometry recomputed from the element's vertices. A straight-sided (trilinear) hexahedron is given by
   its 8 vertices V[3 v + a], v = a + 2 b + 4 c at the reference corner (2a-1, 2b-1, 2c-1), taken
   relative to vertex 0 (V[0..2] = 0), so that the metric does not depend on where the element lies:
   x(r,s,t) - x_0 = sum_v N_v(r,s,t) V_v, N_v = (1 +- r)(1 +- s)(1 +- t) / 8. */
SQUALL_HOST_DEVICE static inline void SquallSEMTrilinearPoint(const PetscReal V[24], PetscReal r, PetscReal s, PetscReal t, PetscReal x[3])
{
  for (int a = 0; a < 3; a++) {
    PetscReal v = 0;

    for (int c = 0; c < 8; c++) v += (1 + ((c & 1) ? r : -r)) * (1 + ((c & 2) ? s : -s)) * (1 + ((c & 4) ? t : -t)) * V[3 * c + a];
    x[a] = v / 8;
  }
}

/* the Jacobian along the column (r, s) of reference nodes is linear in t: dx/dr = P_r + t Q_r,
   dx/ds = P_s + t Q_s, dx/dt independent of t. C = (P_r, Q_r, P_s, Q_s, dx/dt), 3 reals each, from
   the edge vectors of the element; the kernels form it once per thread column. */
SQUALL_HOST_DEVICE static inline void SquallSEMTrilinearColumn(const PetscReal V[24], PetscReal r, PetscReal s, PetscReal C[15])
{
  for (int a = 0; a < 3; a++) {
    /* edges along r at (b, c), along s at (a', c), along t at (a', b) */
    const PetscReal er00 = V[3 * 1 + a] - V[3 * 0 + a], er10 = V[3 * 3 + a] - V[3 * 2 + a], er01 = V[3 * 5 + a] - V[3 * 4 + a], er11 = V[3 * 7 + a] - V[3 * 6 + a];
    const PetscReal es00 = V[3 * 2 + a] - V[3 * 0 + a], es10 = V[3 * 3 + a] - V[3 * 1 + a], es01 = V[3 * 6 + a] - V[3 * 4 + a], es11 = V[3 * 7 + a] - V[3 * 5 + a];
    const PetscReal et00 = V[3 * 4 + a] - V[3 * 0 + a], et10 = V[3 * 5 + a] - V[3 * 1 + a], et01 = V[3 * 6 + a] - V[3 * 2 + a], et11 = V[3 * 7 + a] - V[3 * 3 + a];
    const PetscReal R0 = (1 - s) * er00 + (1 + s) * er10, R1 = (1 - s) * er01 + (1 + s) * er11; /* t = -1, +1 */
    const PetscReal S0 = (1 - r) * es00 + (1 + r) * es10, S1 = (1 - r) * es01 + (1 + r) * es11;

    C[0 + a]  = (R0 + R1) / 8;
    C[3 + a]  = (R1 - R0) / 8;
    C[6 + a]  = (S0 + S1) / 8;
    C[9 + a]  = (S1 - S0) / 8;
    C[12 + a] = ((1 - r) * (1 - s) * et00 + (1 + r) * (1 - s) * et10 + (1 - r) * (1 + s) * et01 + (1 + r) * (1 + s) * et11) / 8;
  }
}

/* the packed factors at the node t of a column (see SquallSEMTrilinearColumn), quadrature weight w;
   returns w |J| */
SQUALL_HOST_DEVICE static inline PetscReal SquallSEMTrilinearFactors(const PetscReal C[15], PetscReal t, PetscReal w, PetscReal G[SQUALL_SEM_NGEO])
{
  const PetscReal J[9] = {C[0] + t * C[3], C[6] + t * C[9], C[12], C[1] + t * C[4], C[7] + t * C[10], C[13], C[2] + t * C[5], C[8] + t * C[11], C[14]};

  return SquallSEMGeometricFactors(J, w, G);
}

/* a parallelepiped: one symmetric 3x3 matrix F = |J| J^{-1} J^{-T} (packed as G) per element, scaled by
   the node's weight */
SQUALL_HOST_DEVICE static inline void SquallSEMAffineFactors(const PetscReal F[SQUALL_SEM_NGEO], PetscReal w, PetscReal G[SQUALL_SEM_NGEO])
{
  for (int c = 0; c < SQUALL_SEM_NGEO; c++) G[c] = w * F[c];
}

/* the three reference derivatives of q at node (i,j,k); D[i * ldd + m] (ldd >= Nq: the CUDA kernels
   pad the rows of D in shared memory so that threads reading different rows use different banks) */
SQUALL_HOST_DEVICE static inline void SquallSEMGradient(PetscInt Nq, PetscInt ldd, const PetscReal *D, const PetscScalar *q, PetscInt i, PetscInt j, PetscInt k, PetscReal *qr, PetscReal *qs, PetscReal *qt)
{
  PetscReal r = 0, s = 0, t = 0;

  for (PetscInt m = 0; m < Nq; m++) {
    r += D[i * ldd + m] * q[m + Nq * (j + Nq * k)];
    s += D[j * ldd + m] * q[i + Nq * (m + Nq * k)];
    t += D[k * ldd + m] * q[i + Nq * (j + Nq * m)];
  }
  *qr = r;
  *qs = s;
  *qt = t;
}

/* the transposed contraction sum_m D[m][i] gr(m,j,k) + D[m][j] gs(i,m,k) + D[m][k] gt(i,j,m) */
SQUALL_HOST_DEVICE static inline PetscReal SquallSEMDivergence(PetscInt Nq, PetscInt ldd, const PetscReal *D, const PetscReal *gr, const PetscReal *gs, const PetscReal *gt, PetscInt i, PetscInt j, PetscInt k)
{
  PetscReal a = 0;

  for (PetscInt m = 0; m < Nq; m++) a += D[m * ldd + i] * gr[m + Nq * (j + Nq * k)] + D[m * ldd + j] * gs[i + Nq * (m + Nq * k)] + D[m * ldd + k] * gt[i + Nq * (j + Nq * m)];
  return a;
}

/* one element of the local stiffness: Aq = S_e q. Ge: 6 factors per node (node-major), gr/gs/gt: scratch of
   Np each. The reference for the CUDA kernels. (The operator's lambda term is added in assembled form.) */
SQUALL_HOST_DEVICE static inline void SquallSEMElementApply(PetscInt Nq, const PetscReal *D, const PetscReal *Ge, const PetscScalar *q, PetscReal *gr, PetscReal *gs, PetscReal *gt, PetscScalar *Aq)
{
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt n = i + Nq * (j + Nq * k);
        PetscReal      qr, qs, qt;

        SquallSEMGradient(Nq, Nq, D, q, i, j, k, &qr, &qs, &qt);
        SquallSEMGeoApply(Ge + SQUALL_SEM_NGEO * n, qr, qs, qt, &gr[n], &gs[n], &gt[n]);
      }
    }
  }
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) Aq[i + Nq * (j + Nq * k)] = SquallSEMDivergence(Nq, Nq, D, gr, gs, gt, i, j, k);
    }
  }
}

/* diagonal entry of S_e at node (i,j,k): the D_a(m,n)^2 G_aa terms summed along the three lines through the
   node, plus the cross terms, which only the node itself contributes */
SQUALL_HOST_DEVICE static inline PetscReal SquallSEMNodeDiagonal(PetscInt Nq, const PetscReal *D, const PetscReal *Ge, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscInt   n = i + Nq * (j + Nq * k);
  const PetscReal *G = Ge + SQUALL_SEM_NGEO * n, di = D[i * Nq + i], dj = D[j * Nq + j], dk = D[k * Nq + k];
  PetscReal        d = 2 * (di * dj * G[1] + di * dk * G[2] + dj * dk * G[4]);

  for (PetscInt m = 0; m < Nq; m++) {
    const PetscReal a = D[m * Nq + i], b = D[m * Nq + j], c = D[m * Nq + k];

    d += a * a * Ge[SQUALL_SEM_NGEO * (m + Nq * (j + Nq * k)) + 0] + b * b * Ge[SQUALL_SEM_NGEO * (i + Nq * (m + Nq * k)) + 3] + c * c * Ge[SQUALL_SEM_NGEO * (i + Nq * (j + Nq * m)) + 5];
  }
  return d;
}

/* CG residual update of one entry, shared by the fused CPU loop and the CUDA kernel:
   r <- r - alpha w, z <- dinv r (Jacobi; dinv = 1 without a preconditioner) */
SQUALL_HOST_DEVICE static inline void SquallSEMCGResidualUpdate(PetscReal alpha, PetscScalar w, PetscReal dinv, PetscScalar *r, PetscScalar *z)
{
  *r = *r - alpha * w;
  *z = dinv * *r;
}

/* flops of the element kernel (S_e q) per element, and NekBone's per element and CG iteration */
SQUALL_HOST_DEVICE static inline PetscLogDouble SquallSEMOperatorFlops(PetscInt Nq)
{
  const PetscLogDouble q = (PetscLogDouble)Nq, Np = q * q * q;
  return 12 * Np * q + 15 * Np;
}

SQUALL_HOST_DEVICE static inline PetscLogDouble SquallSEMNekBoneFlops(PetscInt Nq)
{
  const PetscLogDouble q = (PetscLogDouble)Nq, Np = q * q * q;
  return 15 * Np + 19 * Np + 12 * Np * q;
}
