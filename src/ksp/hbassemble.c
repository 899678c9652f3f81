/* The hipBone operator as an assembled matrix (a reference for tests, and PETSc's cg on it for the
   benchmark's comparison). */
#include "ksp/hbimpl.h"
#include "physics/sem.h"

/*@C
  SquallHBAssemble - the operator as an assembled matrix of the given type (e.g. MATAIJ,
  MATAIJCUSPARSE), from the geometric factors of the geometry in use (-hb_geometry): element matrices S_e + lambda W_e by COO
  assembly, zero entries dropped. Memory grows like E Np (3 Nq)^2: meant for modest sizes. Collective.
@*/
PetscErrorCode SquallHBAssemble(Mat A, MatType type, Mat *B)
{
  Mat_HB          *hb;
  PetscInt         Nq, Np;
  PetscReal       *Ke, *Ge;
  SquallHBGeometry g;
  PetscInt        *ci = NULL, *cj = NULL;
  PetscScalar     *cv   = NULL;
  PetscCount       ncoo = 0, cap = 0;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  Nq = hb->Nq;
  Np = hb->Np;
  PetscCall(SquallHBResolveGeometry(hb, &g));
  PetscCall(SquallHBGeometryData(hb, g));
  PetscCall(PetscMalloc2((size_t)Np * Np, &Ke, (size_t)SQUALL_SEM_NGEO * Np, &Ge));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscReal *D  = hb->D;
    const PetscInt  *gi = hb->gidx + e * Np;

    PetscCall(SquallHBElementFactors(hb, g, e, Ge));

    /* S_pq = sum_m sum_ab D_a(m,p) G_ab(m) D_b(m,q): p, q on the lines through m */
    PetscCall(PetscArrayzero(Ke, (size_t)Np * Np));
    for (PetscInt mk = 0; mk < Nq; mk++) {
      for (PetscInt mj = 0; mj < Nq; mj++) {
        for (PetscInt mi = 0; mi < Nq; mi++) {
          const PetscInt   m = mi + Nq * (mj + Nq * mk), mm[3] = {mi, mj, mk};
          const PetscReal *G         = Ge + SQUALL_SEM_NGEO * m;
          const PetscReal  Gab[3][3] = {{G[0], G[1], G[2]}, {G[1], G[3], G[4]}, {G[2], G[4], G[5]}};

          for (PetscInt a = 0; a < 3; a++) {
            for (PetscInt u = 0; u < Nq; u++) {
              PetscInt pp[3] = {mi, mj, mk}, p;

              pp[a] = u;
              p     = pp[0] + Nq * (pp[1] + Nq * pp[2]);
              for (PetscInt b = 0; b < 3; b++) {
                const PetscReal c = D[mm[a] * Nq + u] * Gab[a][b];

                if (c == 0) continue;
                for (PetscInt v = 0; v < Nq; v++) {
                  PetscInt qq[3] = {mi, mj, mk};

                  qq[b] = v;
                  Ke[(size_t)p * Np + qq[0] + Nq * (qq[1] + Nq * qq[2])] += c * D[mm[b] * Nq + v];
                }
              }
            }
          }
        }
      }
    }
    for (PetscInt p = 0; p < Np; p++) Ke[(size_t)p * Np + p] += gi[p] < 0 ? 0 : hb->lambda / hb->num.mult[gi[p]];
    for (PetscInt p = 0; p < Np; p++) {
      if (gi[p] < 0) continue;
      for (PetscInt q = 0; q < Np; q++) {
        if (gi[q] < 0 || (Ke[(size_t)p * Np + q] == 0 && p != q)) continue;
        if (ncoo == cap) {
          cap = PetscMax(2 * cap, 1024);
          PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &ci));
          PetscCall(PetscRealloc(sizeof(PetscInt) * cap, &cj));
          PetscCall(PetscRealloc(sizeof(PetscScalar) * cap, &cv));
        }
        ci[ncoo] = gi[p] < hb->nown ? hb->num.rstart + gi[p] : hb->num.ghost_global[gi[p] - hb->nown];
        cj[ncoo] = gi[q] < hb->nown ? hb->num.rstart + gi[q] : hb->num.ghost_global[gi[q] - hb->nown];
        cv[ncoo] = Ke[(size_t)p * Np + q];
        ncoo++;
      }
    }
  }
  PetscCall(PetscFree2(Ke, Ge));
  PetscCall(MatCreate(hb->comm, B));
  PetscCall(MatSetSizes(*B, hb->nown, hb->nown, hb->nglobal, hb->nglobal));
  PetscCall(MatSetType(*B, type));
  PetscCall(MatSetPreallocationCOO(*B, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(*B, cv, INSERT_VALUES));
  PetscCall(MatSetOption(*B, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*B, MAT_SPD, PETSC_TRUE));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(cj));
  PetscCall(PetscFree(cv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host timing: the element loop, the gather, MatMult and an 8-read:1-write sweep */
