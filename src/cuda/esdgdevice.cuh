/* The ESDG GPU kernels' device data (struct _n_SquallESDGKernels), the kernels' argument block ESDGArgs
   and the per-node device functions every kernel shares: state loads (perturbation form too), per-node
   values, pair fluxes, the node's finish (faces, 1/J, Coriolis, reference residual) and its store or
   fused stage. Part of the translation unit of src/cuda/esdgcuda.cu, which includes it (the host code
   instantiates the kernels for every order); not a header of its own. */
#pragma once
#include <petscdevice_cuda.h>
#include "cuda/esdgkernels.h"
#include "cuda/cudautil.h"
#include "physics/lsrkstage.h"

#define SQ_BOUNDARY SQUALL_ESDG_BOUNDARY

/* device copies of SquallESDGKernelsSetup's arrays (same meaning) */
struct _n_SquallESDGKernels {
  MPI_Comm   comm;
  PetscInt   N, nOwned, Np, Nq;
  PetscInt   nInterior, nHalo, nFacesEarly, nFacesGhost;
  PetscInt  *gslot, *vmapP, *elist, *faces, *plus;
  PetscReal *PhiP, *Phi, *J, *Ja, *fcor, *D, *FG, *FGF;
  PetscReal *tau; /* Rayleigh sponge coefficient, or NULL */
  PetscReal *FB;  /* [5][nOwned*6*Nfp] -(s_f/w_b) F* at every element face node, written by the face kernel */
  int       *bad; /* [2]: [0] set when a kernel meets density or pressure <= 0 in its input; [1] when a fused LSRK stage writes such a state */
  PetscReal *red; /* small reduction buffer */
  PetscReal  wb, prefetchWaves;
  PetscBool  box;
};

typedef struct {
  const PetscInt    *gslot, *vmapP, *elist, *faces, *plus;
  const PetscReal   *PhiP, *Phi, *J, *Ja, *fcor, *D, *FG, *FGF;
  PetscReal         *FB;
  const PetscScalar *Fref; /* subtracted by the volume kernel, or NULL */
  const PetscReal   *tau;  /* with Qsponge: the sponge -tau (q - Qsponge) is added by the volume kernel; else NULL */
  const PetscScalar *Qsponge;
  const PetscScalar *Qref, *QrefLoc; /* perturbation form: added to the state as it is loaded, or NULL */
  PetscScalar       *K, *Qw;         /* a fused LSRK stage: K = la K + ldt F, Q += lb K instead of writing F; else NULL */
  PetscReal          la, ldt, lb;
  PetscScalar       *C; /* with it, the fields of cmask get Q += lb K compensated (SquallLSRKStageCompensated) */
  int                cmask;
  PetscBool          refCont; /* a face node's partner has the node's reference values */
  int               *bad;
  PetscInt           nOwned, nList;
  size_t             nSlots;
  PetscReal          wb;
  int                parts;    /* the terms formed (SquallESDGKernelArgs.parts), never 0 */
  int                pfBlocks; /* > 0: the half sweep prefetches into L2 the inputs of the block this many blocks ahead (PrefetchElement); set by its launcher */
} ESDGArgs;

static ESDGArgs ESDGGetArgs(const struct _n_SquallESDGKernels *c, const SquallESDGKernelArgs *in)
{
  ESDGArgs a;
  a.gslot    = c->gslot;
  a.vmapP    = c->vmapP;
  a.elist    = c->elist;
  a.faces    = c->faces;
  a.plus     = c->plus;
  a.FB       = c->FB;
  a.FG       = c->FG;
  a.FGF      = c->FGF;
  a.Fref     = in->Fref;
  a.Qsponge  = in->Qsponge;
  a.tau      = in->Qsponge ? c->tau : NULL;
  a.Qref     = in->Qref;
  a.QrefLoc  = in->QrefLoc;
  a.K        = in->K;
  a.Qw       = in->Qw;
  a.la       = in->la;
  a.ldt      = in->ldt;
  a.lb       = in->lb;
  a.C        = in->C;
  a.cmask    = in->cmask;
  a.refCont  = in->refCont;
  a.nSlots   = (size_t)c->nOwned * 6 * c->Nq * c->Nq;
  a.PhiP     = c->PhiP;
  a.Phi      = c->Phi;
  a.J        = c->J;
  a.Ja       = c->Ja;
  a.parts    = in->parts ? in->parts : SQUALL_ESDG_ALL_TERMS;
  a.fcor     = (a.parts & SQUALL_ESDG_SOURCES) ? c->fcor : NULL; /* without the sources no Coriolis term is loaded or added */
  a.D        = c->D;
  a.bad      = c->bad;
  a.nOwned   = c->nOwned;
  a.nList    = c->nOwned;
  a.wb       = c->wb;
  a.pfBlocks = 0;
  return a;
}

/* elements per block: enough threads to keep a block busy for small N */
template <int NQ> static constexpr int ESDGElementsPerBlock()
{
  return NQ * NQ * NQ >= 96 ? 1 : (96 + NQ * NQ * NQ - 1) / (NQ * NQ * NQ);
}

/* entry i of the state: of the TS vector Q itself, or in perturbation form R[i] + Q[i] (R the reference
   or its ghost values), rounded once as the host's VecWAXPY(Qfull, 1, Qref, X) rounds it */
__device__ static inline PetscReal StateValue(const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ R, size_t i)
{
  return R ? R[i] + Q[i] : Q[i];
}

/* with gas.departures (perturbation form), the departures of rho and b of entry i, formed from the TS
   state Q itself and the reference R as the C reference forms them, into aux (SquallEulerAux's values
   of R + Q) */
__device__ static inline void StateDepartures(const SquallGas &gas, const PetscScalar *__restrict__ Q, size_t i, const PetscScalar *__restrict__ R, size_t ri, size_t stride, PetscReal Phi, PetscReal aux[])
{
  PetscReal x[5], r[5];
  if (!gas.departures) return;
#pragma unroll
  for (int f = 0; f < 5; f++) {
    x[f] = Q[i + f * stride];
    r[f] = R[ri + f * stride];
  }
  SquallEulerDepartures(&gas, x, r, Phi, aux);
}

/* the per-node values of node n of element e (the state's flagged if unphysical) */
template <int NQ> __device__ static inline void NodeAux(const SquallGas &gas, const ESDGArgs &a, PetscInt e, int n, const PetscScalar *__restrict__ Q, PetscReal own[])
{
  constexpr int   NP = NQ * NQ * NQ;
  PetscReal       q[5];
  const size_t    qe  = (size_t)a.gslot[e] * 5 * NP;
  const PetscReal Phi = a.Phi[(size_t)e * NP + n];
#pragma unroll
  for (int f = 0; f < 5; f++) q[f] = StateValue(Q, a.Qref, qe + f * NP + n);
  if (SquallEulerAux(&gas, q, Phi, own)) atomicOr(a.bad, 1);
  StateDepartures(gas, Q, qe + n, a.Qref, qe + n, NP, Phi, own);
}

/* element node of face node q of face f (faces -x,+x,-y,+y,-z,+z; tangential indices in axis order,
   as the mesh's fmask, which the set-up checks) */
template <int NQ> __host__ __device__ static inline int FaceNode(int f, int q)
{
  const int d = f / 2, a = q % NQ, b = q / NQ, ext = (f % 2) ? NQ - 1 : 0;
  return d == 0 ? ext + NQ * (a + NQ * b) : (d == 1 ? a + NQ * (ext + NQ * b) : a + NQ * (b + NQ * ext));
}

/* metric vector of direction d for the pair (n, p): the average of the two nodes' Ja^d, or Ja^d itself on boxes */
template <int NQ, bool CART> __device__ static inline void PairNormal(const ESDGArgs &a, PetscInt e, int d, int n, int p, const PetscReal nown[3], PetscReal nv[3])
{
  constexpr int NP = NQ * NQ * NQ;
#pragma unroll
  for (int c = 0; c < 3; c++) nv[c] = CART ? nown[c] : (PetscReal)0.5 * (nown[c] + a.Ja[((size_t)e * 9 + d * 3 + c) * NP + p]);
}

/* The two nodes' fluxes of the pair (own, other) in direction d: F1 = Fs + (0, G_12, 0) for the own
   node and F2 = Fs + (0, G_21, 0) for the partner. AXIS: the box metric Ja^d = nv[d] e_d (the set-up
   checks that its other components are 0), contracted without the zero products; else the general
   metric nv. */
template <bool AXIS> __device__ static inline void PairFluxes(const SquallGas &gas, const PetscReal own[], const PetscReal other[], int d, const PetscReal nv[3], PetscReal F1[5], PetscReal F2[5], bool grav = true)
{
  if (AXIS) {
    SquallEulerECMeans M;
    SquallEulerECMeansPair(&gas, own, other, &M);
    SquallEulerECContractAxis(&M, d, nv[d], F1);
#pragma unroll
    for (int k = 0; k < 5; k++) F2[k] = F1[k];
    /* !grav: the caller knows Phi2 == Phi1 (gravity along z, a box's x or y line): the fluctuation is 0 exactly */
    if (grav) {
      F1[1 + d] += M.g1 * nv[d];
      F2[1 + d] += M.g2 * nv[d];
    }
  } else {
    PetscReal Fs[5], G1[3], G2[3];
    SquallEulerECFluxPair(&gas, own, other, nv, Fs, G1, G2);
    F1[0] = F2[0] = Fs[0];
    F1[4] = F2[4] = Fs[4];
#pragma unroll
    for (int c = 0; c < 3; c++) {
      F1[1 + c] = Fs[1 + c] + G1[c];
      F2[1 + c] = Fs[1 + c] + G2[c];
    }
  }
}

/* The end of a node's RHS, the same operations as the reference: (acc + faces)/J, then the
   Coriolis force -f k x (rho u). FinishValues does the global loads (the faces' lifted fluxes, summed
   first as the reference does, J, the two Coriolis terms); the half-sweep kernel issues them at the
   start, with the state's, and parks them in shared memory, so that their latency is not exposed
   again at the end (it runs few warps per multiprocessor). */
#define ESDG_NFIN 8
template <int NQ> __device__ static inline void FinishValues(const ESDGArgs &a, PetscInt e, int n, const PetscScalar *__restrict__ Q, PetscReal fin[ESDG_NFIN])
{
  constexpr int NP = NQ * NQ * NQ, NFP = NQ * NQ;
  const int     idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};

#pragma unroll
  for (int c = 0; c < 5; c++) fin[c] = 0;
#pragma unroll
  for (int f = 0; f < 6; f++) {
    const int d = f / 2, ext = (f % 2) ? NQ - 1 : 0;
    if (idx[d] != ext) continue;
    const int    t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2, q = idx[t0] + NQ * idx[t1];
    const size_t k = ((size_t)e * 6 + f) * NFP + q;
#pragma unroll
    for (int c = 0; c < 5; c++) fin[c] += a.FB[c * a.nSlots + k];
  }
  fin[5] = a.J[(size_t)e * NP + n];
  fin[6] = fin[7] = 0;
  if (a.fcor) {
    const size_t    qe = (size_t)a.gslot[e] * 5 * NP;
    const PetscReal fc = a.fcor[(size_t)e * NP + n];
    fin[6]             = fc * StateValue(Q, a.Qref, qe + 2 * NP + n);
    fin[7]             = -(fc * StateValue(Q, a.Qref, qe + NP + n));
  }
}

__device__ static inline void FinishApply(const ESDGArgs &a, const PetscReal fin[ESDG_NFIN], PetscReal acc[5])
{
#pragma unroll
  for (int c = 0; c < 5; c++) acc[c] = (acc[c] + fin[c]) / fin[5];
  if (a.fcor) {
    acc[1] += fin[6];
    acc[2] += fin[7];
  }
}

/* -esdg_reference_residual: F - Fref as the host's VecAXPY(F, -1, Fref) would form it, without the extra
   pass over three vectors (13% of a single-precision bubble step) */
template <int NQ> __device__ static inline void SubtractReference(const ESDGArgs &a, PetscInt e, int n, PetscReal acc[5])
{
  constexpr int NP = NQ * NQ * NQ;
  if (!a.Fref) return;
  const PetscScalar *fr = a.Fref + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
  for (int f = 0; f < 5; f++) acc[f] -= fr[f * NP + n];
}

/* The Rayleigh sponge -tau (q - Qsponge), q the full state as StateValue() forms it, added last as the host adds
   it after the RHS (before it subtracts Fref: the two orders differ by round-off). Nodes outside the layers
   (tau = 0) load nothing more. */
template <int NQ> __device__ static inline void AddSponge(const ESDGArgs &a, PetscInt e, int n, const PetscScalar *__restrict__ Q, PetscReal acc[5])
{
  constexpr int NP = NQ * NQ * NQ;
  if (!a.tau || (a.parts && !(a.parts & SQUALL_ESDG_SOURCES))) return; /* a source: in F_H of HEVI's split */
  const PetscReal tau = a.tau[(size_t)e * NP + n];
  if (tau == 0) return;
  const size_t qe = (size_t)a.gslot[e] * 5 * NP + n;
#pragma unroll
  for (int f = 0; f < 5; f++) acc[f] -= tau * (StateValue(Q, a.Qref, qe + f * NP) - a.Qsponge[qe + f * NP]);
}

/* A finished node's RHS acc: into F, or in a fused LSRK stage folded into the stage register and the
   state in place of F (SquallLSRKStage, the update kernel's arithmetic). In place is safe: the faces
   have read their states before, and a volume kernel reads only its own element's state,
   all of it before it writes. */
template <int NQ> __device__ static inline void StoreRHS(const SquallGas &gas, const ESDGArgs &a, PetscInt e, int n, PetscScalar *__restrict__ F, const PetscReal acc[5])
{
  constexpr int NP = NQ * NQ * NQ;
  const size_t  o  = (size_t)a.gslot[e] * 5 * NP + n;

  if (a.K) {
    PetscReal qn[5];
#pragma unroll
    for (int f = 0; f < 5; f++) {
      PetscScalar k = a.la == 0 ? (PetscScalar)0 : a.K[o + f * NP], q = a.Qw[o + f * NP];
      if (a.C && ((a.cmask >> f) & 1)) {
        PetscScalar cf = a.C[o + f * NP];
        SquallLSRKStageCompensated(a.la, a.ldt, a.lb, acc[f], &k, &q, &cf);
        a.C[o + f * NP] = cf;
      } else
        SquallLSRKStage(a.la, a.ldt, a.lb, acc[f], &k, &q);
      a.K[o + f * NP]  = k;
      a.Qw[o + f * NP] = q;
      qn[f]            = a.Qref ? a.Qref[o + f * NP] + q : q; /* the full state as StateValue() rounds it */
    }
    /* the next stage's admissibility check of this node, while its new state is in registers (the
       same verdict as ESDGNodeReduce's: SquallEulerCheck of the same values) */
    if (SquallEulerCheck(&gas, qn, a.Phi[(size_t)e * NP + n])) atomicOr(a.bad + 1, 1);
  } else {
#pragma unroll
    for (int f = 0; f < 5; f++) F[o + f * NP] = acc[f];
  }
}

/* both states of face node k (element e, node n, unit normal nhat out of e) and their per-node values:
   the partner from Q (owned), Qloc (ghost) or the mirror state (wall) */
template <int NQ>
__device__ static inline void FaceStates(const SquallGas &gas, const ESDGArgs &a, PetscInt e, int n, size_t k, const PetscReal nhat[3], const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc, PetscReal qm[5], PetscReal am[],
                                         PetscReal qp[5], PetscReal ap[])
{
  constexpr int  NP   = NQ * NQ * NQ;
  const PetscInt code = a.vmapP[k];
  const size_t   qe   = (size_t)a.gslot[e] * 5 * NP;

  PetscReal Phip;

#pragma unroll
  for (int c = 0; c < 5; c++) qm[c] = StateValue(Q, a.Qref, qe + c * NP + n);
  if (SquallEulerAuxFace(&gas, qm, a.Phi[(size_t)e * NP + n], am)) atomicOr(a.bad, 1);
  StateDepartures(gas, Q, qe + n, a.Qref, qe + n, NP, am[SQ_PHI], am);
  /* the partner's reference: where it is continuous across faces (a.refCont) the node's own, read again
     from the line just loaded instead of the partner element's (the same values bit for bit) */
  const PetscInt     g   = code >= 0 ? code : (code == SQ_BOUNDARY ? 0 : -code - 1);
  const PetscScalar *src = code >= 0 ? Q : Qloc, *ref = a.refCont ? a.Qref : (code >= 0 ? a.Qref : a.QrefLoc);
  const size_t       o = (size_t)(g / NP) * 5 * NP + g % NP, ro = a.refCont ? qe + n : o;
  if (code == SQ_BOUNDARY) {
    SquallEulerMirrorState(qm, nhat, qp);
    Phip = am[SQ_PHI];
  } else {
#pragma unroll
    for (int c = 0; c < 5; c++) qp[c] = ref ? ref[ro + c * NP] + src[o + c * NP] : src[o + c * NP]; /* as StateValue() */
    Phip = a.PhiP[k];
  }
  if (SquallEulerAuxFace(&gas, qp, Phip, ap)) atomicOr(a.bad, 1);
  if (gas.departures) {
    if (code == SQ_BOUNDARY) {
      /* the mirror state's departures are the node's: mirroring keeps rho and p */
      ap[SQ_DRHO] = am[SQ_DRHO];
      ap[SQ_DB]   = am[SQ_DB];
      ap[SQ_DLR]  = am[SQ_DLR];
      ap[SQ_DLB]  = am[SQ_DLB];
    } else
      StateDepartures(gas, src, o, ref, ro, NP, Phip, ap);
  }
}
