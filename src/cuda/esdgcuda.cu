/* The ESDG right-hand side on the GPU. Same semi-discretisation and the same pointwise functions
   (src/physics/euler.h) as the C reference in src/ts/esdgrhs.c; only the data movement differs.
   - face fluxes: one thread per face node of every face this rank computes, each shared face once
     (SquallEulerSurfaceFluxPair gives both sides), written already scaled by s_f/w_b into a per
     element-face-node buffer; faces without a ghost partner before the ghost exchange completes;
   - volume: one thread per node, several elements per block for small N, the element's per-node
     values (primitives, logs, 1/b) in shared memory, the three directions fused. Two variants:
     "full" (every node evaluates all its pairs) and "half" (each unordered pair once, with the
     load-balanced cyclic assignment of Waterhouse et al., arXiv:2605.16684 (2026), sec. 4.1:
     thread i takes partners i+1..i+floor(Nq/2) mod Nq, the antipodal pair of an even Nq weighted
     1/2 from both sides, and hands the partner's share over through shared memory). The volume
     kernel finishes the node: adds its faces' fluxes, divides by J, adds the Coriolis force, so
     the RHS is written once;
   - the first version's per-element surface kernel (-esdg_gpu_surface element: every face node of
     every element, shared faces twice, then a second pass over F) is kept for comparison.
   Ablation variants of the volume kernel (no precomputed logs, no load balancing, one direction per
   launch) exist for N = 4 only, for bench/. */
#include <petscdevice_cuda.h>
#include <climits>
#include "ts/esdgimpl.h"
#include "cuda/squallcuda.h"
#include "cuda/cudautil.h"
#include "physics/lsrkstage.h"

#define SQ_BOUNDARY INT_MIN

typedef struct {
  PetscInt           nOwned, Np, Nq;
  PetscInt           nInterior, nHalo;
  PetscInt          *gslot; /* [nOwned] */
  PetscInt          *vmapP; /* [nOwned*6*Nfp]: >= 0 index gslot*Np+n into Q, < 0 -(slot*Np+n)-1 into Qloc, SQ_BOUNDARY */
  PetscReal         *PhiP;  /* [nOwned*6*Nfp] partner's Phi */
  PetscReal         *Phi;   /* [nOwned*Np] */
  PetscReal         *J;     /* [nOwned*Np] */
  PetscReal         *Ja;    /* [nOwned*9*Np] */
  PetscReal         *fcor;  /* [nOwned*Np] Coriolis parameter, or NULL */
  PetscReal         *D;     /* [Nq*Nq] */
  PetscInt          *elist; /* interior elements, then halo elements */
  int               *bad;   /* [2]: [0] set when a kernel meets density or pressure <= 0 in its input; [1] when a fused LSRK stage writes such a state */
  PetscReal         *red;   /* small reduction buffer */
  PetscInt          *faces; /* [nFacesEarly + nFacesGhost] e*6+f of the faces computed here, ghost-free ones first */
  PetscInt          *plus;  /* [nOwned*6*Nfp] for a computed face node with an owned partner: the partner's slot, else -1 */
  PetscReal         *FB;    /* [5][nOwned*6*Nfp] -(s_f/w_b) F* at every element face node */
  PetscReal         *FG;    /* [4][nOwned*6*Nfp] the element's outward unit normal and s_f at every face node */
  PetscReal         *FGF;   /* [4][nOwned*6] the same per element face, where every face's nodes have the same values (boxes), else NULL */
  PetscInt           nFacesEarly, nFacesGhost;
  PetscBool          half, faceMode;
  int                prefetch;       /* -esdg_gpu_prefetch */
  PetscReal          prefetchDist;   /* -esdg_gpu_prefetch_distance */
  const PetscScalar *Fref;           /* during an RHS in face mode: the reference residual (device), or NULL */
  const PetscScalar *Qref, *QrefLoc; /* during an RHS or reduction in perturbation form: the reference state and its ghost values, else NULL */
  PetscScalar       *K, *Qw;         /* during a fused LSRK stage: the stage register and the state (the RHS's Q), else NULL */
  PetscReal          la, ldt, lb;    /* and its coefficients */
  PetscBool          refCont;        /* the reference is equal bit for bit on both sides of every face (SquallESDGSetReferenceState) */
  /* the admissibility of the state the last fused stage wrote (bad[1], all ranks), valid while that
     vector is unchanged (its object state): the next stage's check (SquallESDGCheckState) then needs no
     pass over the state of its own */
  Vec              nextVec;
  PetscObjectState nextState;
  PetscBool        nextBad;
} ESDGCuda;

typedef struct {
  const PetscInt    *gslot, *vmapP, *elist, *faces, *plus;
  const PetscReal   *PhiP, *Phi, *J, *Ja, *fcor, *D, *FG, *FGF;
  PetscReal         *FB;
  const PetscScalar *Fref;           /* subtracted by the finishing (LIFT) volume kernels, or NULL */
  const PetscScalar *Qref, *QrefLoc; /* perturbation form: added to the state as it is loaded, or NULL */
  PetscScalar       *K, *Qw;         /* a fused LSRK stage (finishing kernels): K = la K + ldt F, Q += lb K instead of writing F; else NULL */
  PetscReal          la, ldt, lb;
  PetscBool          refCont; /* a face node's partner has the node's reference values */
  int               *bad;
  PetscInt           nOwned, nList;
  size_t             nSlots;
  PetscReal          wb;
  int                pfBlocks; /* > 0: the half sweep prefetches into L2 the inputs of the block this many blocks ahead (ESDGPrefetchElement) */
  PetscReal          pfDist;   /* the distance in waves of resident blocks (the launcher turns it into pfBlocks) */
  int                pfRanges; /* how many of PrefetchElement's ranges: 10 those loaded at the start, 12 also the fused stage's */
} ESDGArgs;

static ESDGArgs ESDGGetArgs(const ESDGCuda *c, PetscReal wb)
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
  a.Fref     = c->Fref;
  a.Qref     = c->Qref;
  a.QrefLoc  = c->QrefLoc;
  a.K        = c->K;
  a.Qw       = c->Qw;
  a.la       = c->la;
  a.ldt      = c->ldt;
  a.lb       = c->lb;
  a.refCont  = c->refCont;
  a.nSlots   = (size_t)c->nOwned * 6 * c->Nq * c->Nq;
  a.PhiP     = c->PhiP;
  a.Phi      = c->Phi;
  a.J        = c->J;
  a.Ja       = c->Ja;
  a.fcor     = c->fcor;
  a.D        = c->D;
  a.bad      = c->bad;
  a.nOwned   = c->nOwned;
  a.nList    = c->nOwned;
  a.wb       = wb;
  a.pfBlocks = c->prefetch && c->prefetchDist > 0 ? 1 : 0; /* the launcher sets the distance */
  a.pfRanges = c->prefetch == 2 ? 12 : 10;
  a.pfDist   = c->prefetchDist;
  return a;
}

/* elements per block: enough threads to keep a block busy for small N */
template <int NQ> static constexpr int ESDGElementsPerBlock()
{
  return NQ * NQ * NQ >= 96 ? 1 : (96 + NQ * NQ * NQ - 1) / (NQ * NQ * NQ);
}

/* the surface kernel gives each element max(Np, 6 Nfp) threads: one per face node for the fluxes,
   one per node for the finalisation */
template <int NQ> static constexpr int ESDGSurfaceThreads()
{
  return NQ * NQ * NQ > 6 * NQ * NQ ? NQ * NQ * NQ : 6 * NQ * NQ;
}

template <int NQ> static constexpr int ESDGSurfaceElementsPerBlock()
{
  return ESDGSurfaceThreads<NQ>() >= 96 ? 1 : (96 + ESDGSurfaceThreads<NQ>() - 1) / ESDGSurfaceThreads<NQ>();
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

template <int NQ> __device__ static inline void LoadAux(const SquallGas &gas, const ESDGArgs &a, PetscInt e, int n, const PetscScalar *__restrict__ Q, PetscReal *own, PetscReal *saux)
{
  constexpr int NP = NQ * NQ * NQ;
  NodeAux<NQ>(gas, a, e, n, Q, own);
#pragma unroll
  for (int k = 0; k < SQUALL_NPAIR; k++) saux[k * NP + n] = own[k];
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
template <bool AXIS> __device__ static inline void PairFluxes(const SquallGas &gas, const PetscReal own[], const PetscReal other[], int d, const PetscReal nv[3], PetscReal F1[5], PetscReal F2[5])
{
  if (AXIS) {
    SquallEulerECMeans M;
    SquallEulerECMeansPair(&gas, own, other, &M);
    SquallEulerECContractAxis(&M, d, nv[d], F1);
#pragma unroll
    for (int k = 0; k < 5; k++) F2[k] = F1[k];
    F1[1 + d] += M.g1 * nv[d];
    F2[1 + d] += M.g2 * nv[d];
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

/* The end of a node's RHS in face mode, the same operations as the reference: (acc + faces)/J, then the
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

/* A finished node's RHS acc: into F, or in a fused LSRK stage folded into the stage register and the
   state in place of F (SquallLSRKStage, the update kernel's arithmetic). In place is safe: in face mode
   the faces have read their states before, and a volume kernel reads only its own element's state,
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
  if (SquallEulerAux(&gas, qm, a.Phi[(size_t)e * NP + n], am)) atomicOr(a.bad, 1);
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
  if (SquallEulerAux(&gas, qp, Phip, ap)) atomicOr(a.bad, 1);
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

template <int NQ, bool CART, bool LIFT> __global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>()) ESDGVolumeFull(const SquallGas gasp, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  SquallGas gas                  = gasp;
  gas.departures                 = 0; /* not in this variant (the launcher refuses them): no partner departures are loaded */
  constexpr int               NP = NQ * NQ * NQ;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sD     = sm;
  PetscReal                  *saux   = sm + NQ * NQ + threadIdx.y * SQUALL_NPAIR * NP;
  const int                   n      = threadIdx.x;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};

  for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < NQ * NQ; i += blockDim.x * blockDim.y) sD[i] = a.D[i];
  if (active) LoadAux<NQ>(gas, a, e, n, Q, own, saux);
  __syncthreads();
  if (!active) return;
  const int idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    const int stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    PetscReal nown[3];
#pragma unroll
    for (int c = 0; c < 3; c++) nown[c] = a.Ja[((size_t)e * 9 + d * 3 + c) * NP + n];
#pragma unroll
    for (int m = 0; m < NQ; m++) {
      if (m == i) continue;
      const int p = base + m * stride;
      PetscReal other[SQUALL_NPAIR], nv[3], F1[5], F2[5];
#pragma unroll
      for (int k = 0; k < SQUALL_NPAIR; k++) other[k] = saux[k * NP + p];
      PairNormal<NQ, CART>(a, e, d, n, p, nown, nv);
      PairFluxes<CART>(gas, own, other, d, nv, F1, F2);
      const PetscReal s = 2 * sD[i * NQ + m];
#pragma unroll
      for (int k = 0; k < 5; k++) acc[k] -= s * F1[k];
    }
  }
  if (LIFT) {
    PetscReal fin[ESDG_NFIN];
    FinishValues<NQ>(a, e, n, Q, fin);
    FinishApply(a, fin, acc);
    SubtractReference<NQ>(a, e, n, acc);
    StoreRHS<NQ>(gas, a, e, n, F, acc);
  } else {
    PetscScalar *fe = F + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
    for (int f = 0; f < 5; f++) fe[f * NP + n] = acc[f];
  }
}

/* Variants of the half sweep for the ablation study (bench/): ESDG_ABL_NOLOG recomputes the logs'
   differences in every pair (ln(x2/x1): two logarithms and three divisions per pair, as a code
   without the per-node values would), ESDG_ABL_DIR0 + d computes direction d only and adds it to F
   (three launches replace the fused kernel, each reloading the element). */
enum { ESDG_ABL_NONE = 0, ESDG_ABL_NOLOG = 1, ESDG_ABL_DIR0 = 2 };

/* The half-sweep kernel keeps its shared values in pairs of reals (double2/float2), so that one
   128-bit (64-bit in single) shared load or store moves two of them: the partner's ten per-node values
   in five loads, the share handed to a partner in three stores, the node's parked finish values in
   four. Bank use is unchanged (consecutive threads, consecutive pairs); what drops is the number of
   shared-memory instructions, which limited the kernel (ncu: short-scoreboard stalls on LDS). */
#if defined(PETSC_USE_REAL_DOUBLE)
typedef double2 ESDGReal2;
#else
typedef float2 ESDGReal2;
#endif
__device__ static inline ESDGReal2 make_ESDGReal2(PetscReal x, PetscReal y)
{
  ESDGReal2 v;
  v.x = x;
  v.y = y;
  return v;
}
#define ESDG_NAUX2 (SQUALL_NPAIR / 2)
#define ESDG_NFIN2 (ESDG_NFIN / 2)

/* shared memory of the half-sweep kernel, in pairs: a block-wide head (the D factors of each thread's
   pairs), then per element the per-node values, the shares handed to partners (four components in two
   pairs, the fifth alone: five reals, as in the unpaired layout, so that N = 8 still fits in the 227 KB
   a block may use; DB: two buffers, so that one barrier per direction suffices), the parked finish
   values (LIFT, where they fit: ESDGHalfPark), the box metric (CART). DEP: the departures of rho and b
   (perturbation form) as one more pair of per-node values. */
template <int NQ> __host__ __device__ static constexpr int ESDGHalfHead()
{
  return NQ * (NQ / 2);
}
template <int NQ> __host__ __device__ static constexpr int ESDGHalfShareSize()
{
  return 2 * (NQ / 2) * NQ * NQ * NQ + ((NQ / 2) * NQ * NQ * NQ + 1) / 2;
}
template <bool DEP> __host__ __device__ static constexpr int ESDGHalfNAux2()
{
  return ESDG_NAUX2 + (DEP ? 1 : 0);
}
template <int NQ, bool CART, bool PARK, bool DB, bool DEP> __host__ __device__ static constexpr size_t ESDGHalfSharedRaw()
{
  return ESDGHalfNAux2<DEP>() * NQ * NQ * NQ + (DB ? 2 : 1) * ESDGHalfShareSize<NQ>() + (PARK ? ESDG_NFIN2 * NQ * NQ * NQ : 0) + (CART ? 5 : 0);
}
/* the finish values are parked in shared memory if the block still fits in the 227 KB it may use (all
   but N = 8 with departures in double, which loads them at the end) */
template <int NQ, bool CART, bool LIFT, bool DB, bool DEP> __host__ __device__ static constexpr bool ESDGHalfPark()
{
  return LIFT && sizeof(ESDGReal2) * (ESDGHalfHead<NQ>() + (size_t)ESDGElementsPerBlock<NQ>() * ESDGHalfSharedRaw<NQ, CART, true, DB, DEP>()) <= 227 * 1024;
}
template <int NQ, bool CART, bool LIFT, bool DB, bool DEP = false> __host__ __device__ static constexpr int ESDGHalfShared()
{
  return (int)ESDGHalfSharedRaw<NQ, CART, ESDGHalfPark<NQ, CART, LIFT, DB, DEP>(), DB, DEP>();
}
template <int NQ, bool CART, bool LIFT, bool DB, bool DEP = false> static constexpr size_t ESDGHalfBytes()
{
  return sizeof(ESDGReal2) * (ESDGHalfHead<NQ>() + (size_t)ESDGElementsPerBlock<NQ>() * ESDGHalfShared<NQ, CART, LIFT, DB, DEP>());
}

/* blocks per multiprocessor the compiler must fit: on boxes up to N = 5, as many as keep 80 registers
   per thread, which measured best at N = 4 on the H200 (109 registers: 4 blocks, 0.396 ms; 80: 6
   blocks, 0.323 ms; 64: 8 blocks with spills, 0.491 ms); curved elements (the partner's metric per
   pair) and higher orders spill at 80 and are left to the compiler */
template <int NQ, bool CART> static constexpr int ESDGVolumeMinBlocks()
{
  return (CART && NQ <= 6 && 65536 / (80 * ((NQ * NQ * NQ * ESDGElementsPerBlock<NQ>() + 31) / 32 * 32)) > 1) ? 65536 / (80 * ((NQ * NQ * NQ * ESDGElementsPerBlock<NQ>() + 31) / 32 * 32)) : 1;
}

/* L2 prefetch of [p, p + bytes): one bulk prefetch (sm_90), else one per 128-byte line. The bulk form
   wants 16-byte bounds: the start is rounded down (at most 8 bytes, within the array: device arrays start
   256-byte aligned) and the end too, so that nothing past the array is touched */
__device__ static inline void PrefetchRangeL2(const void *p, size_t bytes)
{
  const uintptr_t b = (uintptr_t)p & ~(uintptr_t)15, e = ((uintptr_t)p + bytes) & ~(uintptr_t)15;

  if (e <= b) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" : : "l"(b), "r"((unsigned)(e - b)));
#else
  for (uintptr_t q = b & ~(uintptr_t)127; q < e; q += 128) asm volatile("prefetch.global.L2 [%0];" : : "l"(q));
#endif
}

/* Everything a volume kernel will load for element e (state offset qe), into L2 ahead of its block: the
   half sweep's blocks wait for these loads at their start, and with few blocks per multiprocessor that
   wait is not hidden (ncu, N = 4, face mode: 39% of the stall cycles on L1TEX). Block b prefetches for
   block b + W, W the blocks resident at once, so the data is in L2 (not DRAM) when that block starts;
   range k (0..11) is one contiguous array section, issued by the element's thread k (k mod Np). */
template <int NQ, bool LIFT> __device__ static inline void PrefetchElement(const ESDGArgs &a, PetscInt e, size_t qe, int k, const PetscScalar *Q)
{
  constexpr int NP = NQ * NQ * NQ, NFP = NQ * NQ;
  const size_t  st = 5 * NP * sizeof(PetscScalar), nd = NP * sizeof(PetscReal);

  if (k == 0)
    PrefetchRangeL2(Q + qe, st);
  else if (k == 1 && a.Qref)
    PrefetchRangeL2(a.Qref + qe, st);
  else if (k == 2)
    PrefetchRangeL2(a.Phi + (size_t)e * NP, nd);
  if (!LIFT) return;
  if (k == 3)
    PrefetchRangeL2(a.J + (size_t)e * NP, nd);
  else if (k == 4 && a.fcor)
    PrefetchRangeL2(a.fcor + (size_t)e * NP, nd);
  else if (k >= 5 && k < 10)
    PrefetchRangeL2(a.FB + (k - 5) * a.nSlots + (size_t)e * 6 * NFP, 6 * NFP * sizeof(PetscReal));
  else if (k == 10 && a.K)
    PrefetchRangeL2(a.K + qe, st);
  else if (k == 11 && a.Fref)
    PrefetchRangeL2(a.Fref + qe, st);
}

/* RADD: the partner's share is scaled by its sender and added by the partner (the variant before
   session 4, kept as tune_recv_add); else the sender stores its flux F2 unscaled and the partner
   multiplies it in with an FMA, looking its factor 2 w D[m][i] up in the same table: 5 multiplies
   fewer per pair, one more (8-byte) shared load */
/* DEP: departures (perturbation form); the kernel's gas has them as a compile-time constant */
template <int NQ, bool CART, bool LIFT, int ABL, int MINB, bool DB = false, bool RADD = false, bool DEP = false>
__global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>(), MINB) ESDGVolumeHalf(const SquallGas gasp, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ, NH = NQ / 2, NA2 = ESDGHalfNAux2<DEP>();
  constexpr bool              PARK = ESDGHalfPark<NQ, CART, LIFT, DB, DEP>();
  extern __shared__ ESDGReal2 sm2[];
  ESDGReal2                  *sDD    = sm2;                                                                                /* [NQ][NH]: 2w D[i][m], 2w D[m][i] of the pair (i, m = i + o) */
  ESDGReal2                  *saux   = sm2 + ESDGHalfHead<NQ>() + threadIdx.y * ESDGHalfShared<NQ, CART, LIFT, DB, DEP>(); /* [NA2][NP] */
  ESDGReal2                  *sbuf0  = saux + NA2 * NP;                                                                    /* [NH][2][NP] pairs, [NH][NP] reals (x 2 with DB) */
  ESDGReal2                  *sfin   = sbuf0 + (DB ? 2 : 1) * ESDGHalfShareSize<NQ>();                                     /* [NFIN2][NP] (PARK) */
  PetscReal                  *sJa    = (PetscReal *)(sfin + (PARK ? ESDG_NFIN2 * NP : 0));                                 /* [9] (CART) */
  const int                   n      = threadIdx.x;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};
  SquallGas                   gas = gasp;
  const PetscInt              lf  = l + (PetscInt)a.pfBlocks * blockDim.y; /* the element of the block a.pfBlocks ahead, prefetched */
  const PetscInt              ef  = a.pfBlocks && lf < a.nList ? a.elist[lf] : -1;

  gas.departures = DEP; /* a compile-time constant: the volume's pairs need the pressure's departures only (no entropy jumps) */

  /* 2 w is 1 or 2, so the products are exact: the same values the pair loop formed before */
  for (int t = threadIdx.x + threadIdx.y * blockDim.x; t < NQ * NH; t += blockDim.x * blockDim.y) {
    const int       i = t / NH, o = t % NH + 1, m = (i + o) % NQ;
    const PetscReal w2 = (NQ % 2 == 0 && o == NH) ? (PetscReal)1 : (PetscReal)2;
    sDD[t]             = make_ESDGReal2(w2 * a.D[i * NQ + m], w2 * a.D[m * NQ + i]);
  }
  if (active) {
    /* a box element's metric is constant: nine values for the whole element */
    if (CART)
      for (int k = n; k < 9; k += NP) sJa[k] = a.Ja[((size_t)e * 9 + k) * NP];
    if (PARK) {
      PetscReal fin[ESDG_NFIN];
      FinishValues<NQ>(a, e, n, Q, fin);
#pragma unroll
      for (int k = 0; k < ESDG_NFIN2; k++) sfin[k * NP + n] = make_ESDGReal2(fin[2 * k], fin[2 * k + 1]);
    }
    NodeAux<NQ>(gas, a, e, n, Q, own);
#pragma unroll
    for (int k = 0; k < ESDG_NAUX2; k++) saux[k * NP + n] = make_ESDGReal2(own[2 * k], own[2 * k + 1]);
    if (DEP) saux[ESDG_NAUX2 * NP + n] = make_ESDGReal2(own[SQ_DRHO], own[SQ_DB]);
  }
  __syncthreads();
  const size_t qf     = ef >= 0 && n < 12 ? (size_t)a.gslot[ef] * 5 * NP : 0; /* its latency is hidden by the first direction */
  const int    idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    if (ABL >= ESDG_ABL_DIR0 && d != ABL - ESDG_ABL_DIR0) continue;
    if (d == 1 && ef >= 0)
      for (int k = n; k < a.pfRanges; k += NP) PrefetchElement<NQ, LIFT>(a, ef, qf, k, Q);
    const int  stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    ESDGReal2 *sbuf  = sbuf0 + (DB && d == 1 ? ESDGHalfShareSize<NQ>() : 0);
    PetscReal *sbuf1 = (PetscReal *)(sbuf + 2 * NH * NP);
    if (active) {
      PetscReal nown[3];
#pragma unroll
      for (int c = 0; c < 3; c++) nown[c] = CART ? sJa[d * 3 + c] : a.Ja[((size_t)e * 9 + d * 3 + c) * NP + n];
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int m = (i + o) % NQ, p = base + m * stride;
        PetscReal other[SQUALL_NAUX], nv[3], F1[5], F2[5];
#pragma unroll
        for (int k = 0; k < ESDG_NAUX2; k++) {
          const ESDGReal2 v = saux[k * NP + p];
          other[2 * k]      = v.x;
          other[2 * k + 1]  = v.y;
        }
        if (DEP) {
          const ESDGReal2 v = saux[ESDG_NAUX2 * NP + p];
          other[SQ_DRHO]    = v.x;
          other[SQ_DB]      = v.y;
        }
        if (ABL == ESDG_ABL_NOLOG) {
          other[SQ_LOGRHO] = own[SQ_LOGRHO] + PetscLogReal(other[SQ_RHO] / own[SQ_RHO]);
          other[SQ_LOGB]   = own[SQ_LOGB] + PetscLogReal(other[SQ_B] / own[SQ_B]);
          other[SQ_INVB]   = 1 / other[SQ_B];
        }
        PairNormal<NQ, CART>(a, e, d, n, p, nown, nv);
        PairFluxes<CART>(gas, own, other, d, nv, F1, F2);
        const ESDGReal2 s12 = sDD[i * NH + o - 1];
        const PetscReal s1 = s12.x, s2 = s12.y;
#pragma unroll
        for (int k = 0; k < 5; k++) acc[k] -= s1 * F1[k];
        ESDGReal2 *b = sbuf + (o - 1) * 2 * NP + n;
        if (RADD) {
          b[0]                    = make_ESDGReal2(-s2 * F2[0], -s2 * F2[1]);
          b[NP]                   = make_ESDGReal2(-s2 * F2[2], -s2 * F2[3]);
          sbuf1[(o - 1) * NP + n] = -s2 * F2[4];
        } else {
          b[0]                    = make_ESDGReal2(F2[0], F2[1]);
          b[NP]                   = make_ESDGReal2(F2[2], F2[3]);
          sbuf1[(o - 1) * NP + n] = F2[4];
        }
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int        isrc = (i - o + NQ) % NQ, src = base + isrc * stride;
        const ESDGReal2 *b  = sbuf + (o - 1) * 2 * NP + src;
        const ESDGReal2  b0 = b[0], b1 = b[NP];
        const PetscReal  b4 = sbuf1[(o - 1) * NP + src];
        if (RADD) {
          acc[0] += b0.x;
          acc[1] += b0.y;
          acc[2] += b1.x;
          acc[3] += b1.y;
          acc[4] += b4;
        } else {
          const PetscReal s2 = sDD[isrc * NH + o - 1].y; /* the sender's s2 */
          acc[0] -= s2 * b0.x;
          acc[1] -= s2 * b0.y;
          acc[2] -= s2 * b1.x;
          acc[3] -= s2 * b1.y;
          acc[4] -= s2 * b4;
        }
      }
    }
    /* with two buffers, the next direction writes the other one, and the one after it this one only
       after every thread has passed the next barrier, i.e. finished reading here */
    if (!DB) __syncthreads();
  }
  if (!active) return;
  if (LIFT) { /* F is NULL in a fused stage: no pointer into it is formed here */
    PetscReal fin[ESDG_NFIN];
    if (PARK) {
#pragma unroll
      for (int k = 0; k < ESDG_NFIN2; k++) {
        const ESDGReal2 v = sfin[k * NP + n];
        fin[2 * k]        = v.x;
        fin[2 * k + 1]    = v.y;
      }
    } else
      FinishValues<NQ>(a, e, n, Q, fin);
    FinishApply(a, fin, acc);
    SubtractReference<NQ>(a, e, n, acc);
    StoreRHS<NQ>(gas, a, e, n, F, acc);
  } else {
    PetscScalar *fe = F + (size_t)a.gslot[e] * 5 * NP;
    if (ABL > ESDG_ABL_DIR0) {
#pragma unroll
      for (int f = 0; f < 5; f++) fe[f * NP + n] += acc[f];
    } else {
#pragma unroll
      for (int f = 0; f < 5; f++) fe[f * NP + n] = acc[f];
    }
  }
}

/* Ablation: the half sweep without load balancing. Thread i of a line takes the partners i+1..Nq-1,
   so the first thread of a line does Nq-1 pairs and the last none, and the shares handed over need
   Nq slots per node. Boxes only, no faces. */
template <int NQ> __global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>()) ESDGVolumeHalfUnbalanced(const SquallGas gasp, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  SquallGas gas                  = gasp;
  gas.departures                 = 0; /* ablation variant: no departures (the launcher refuses them) */
  constexpr int               NP = NQ * NQ * NQ;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sD     = sm;
  PetscReal                  *saux   = sm + NQ * NQ + threadIdx.y * (SQUALL_NPAIR + 5 * NQ) * NP;
  PetscReal                  *sbuf   = saux + SQUALL_NPAIR * NP; /* [NQ][5][NP]: the share of node p from line position j */
  const int                   n      = threadIdx.x;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};

  for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < NQ * NQ; i += blockDim.x * blockDim.y) sD[i] = a.D[i];
  if (active) LoadAux<NQ>(gas, a, e, n, Q, own, saux);
  __syncthreads();
  const int idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    const int stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    if (active) {
      const PetscReal nv[3] = {a.Ja[((size_t)e * 9 + d * 3) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 1) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 2) * NP + n]};
      for (int m = i + 1; m < NQ; m++) {
        const int p = base + m * stride;
        PetscReal other[SQUALL_NPAIR], F1[5], F2[5];
#pragma unroll
        for (int k = 0; k < SQUALL_NPAIR; k++) other[k] = saux[k * NP + p];
        PairFluxes<true>(gas, own, other, d, nv, F1, F2);
        const PetscReal s1 = 2 * sD[i * NQ + m], s2 = 2 * sD[m * NQ + i];
        PetscReal      *b = sbuf + i * 5 * NP + p;
#pragma unroll
        for (int k = 0; k < 5; k++) {
          acc[k] -= s1 * F1[k];
          b[k * NP] = -s2 * F2[k];
        }
      }
    }
    __syncthreads();
    if (active) {
      for (int j = 0; j < i; j++)
#pragma unroll
        for (int f = 0; f < 5; f++) acc[f] += sbuf[(j * 5 + f) * NP + n];
    }
    __syncthreads();
  }
  if (!active) return;
  PetscScalar *fe = F + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
  for (int f = 0; f < 5; f++) fe[f * NP + n] = acc[f];
}

/* Face fluxes: one thread per face node of the faces a.faces[0..nList), each computed once for both
   sides, stored as -(s_f/w_b) F* at the element face node (and at the partner's, when it is owned). */
/* No register cap (MINB 1: 132 registers in double): since the per-face-node work shrank in session 4
   it is 2% faster at N = 4 than the cap at 5 blocks per multiprocessor (96 registers, some spilled),
   which had been 5% faster before; in single the two are equal (runM2: tune_faces_minb5) */
/* FC: the normal and s_f per element face (a.FGF, boxes): the 25-odd nodes of a face read one value
   each instead of their own from an array as large as the state's face values */
template <int NQ, int MINB = 1, bool DEP = false, bool FC = false>
__global__ static void __launch_bounds__(128, MINB) ESDGFaceFlux(const SquallGas gasp, const SquallSurfaceFluxType type, const ESDGArgs a, const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc)
{
  constexpr int NFP = NQ * NQ;
  SquallGas     gas = gasp;
  gas.departures    = DEP ? gasp.departures : 0; /* without, a compile-time 0; with, 1 or 2 (the entropy jumps from departures too) */
  const PetscInt t  = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.nList * NFP) return;
  const PetscInt ef = a.faces[t / NFP];
  const PetscInt e  = ef / 6;
  const int      f = (int)(ef % 6), q = (int)(t % NFP), n = FaceNode<NQ>(f, q);
  const size_t   k  = (size_t)ef * NFP + q;
  const PetscInt kp = a.plus[k];
  PetscReal      sf, sfp, nhat[3], nhatp[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fm[5], Fp[5];
  /* each side's own unit normal and s_f, precomputed per face node (read coalesced; no metric of the
     partner element to gather): the partner side sees its own metric, as in the reference */
  const size_t     nef = a.nSlots / NFP, kf = FC ? (size_t)ef : k, kpf = FC ? (size_t)(kp / NFP) : (size_t)kp;
  const PetscReal *fg = FC ? a.FGF : a.FG;
  const size_t     ng = FC ? nef : a.nSlots;
#pragma unroll
  for (int c = 0; c < 3; c++) nhat[c] = fg[c * ng + kf];
  sf = fg[3 * ng + kf];
  if (kp >= 0) {
#pragma unroll
    for (int c = 0; c < 3; c++) nhatp[c] = fg[c * ng + kpf];
    sfp = fg[3 * ng + kpf];
  } else {
#pragma unroll
    for (int c = 0; c < 3; c++) nhatp[c] = -nhat[c];
    sfp = sf;
  }
  FaceStates<NQ>(gas, a, e, n, k, nhat, Q, Qloc, qm, am, qp, ap);
  SquallEulerSurfaceFluxPair(&gas, type, qm, am, qp, ap, nhat, nhatp, Fm, Fp);
  const PetscReal scale = sf / a.wb, scalep = sfp / a.wb;
#pragma unroll
  for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + k] = -scale * Fm[c];
  if (kp >= 0) {
#pragma unroll
    for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + kp] = -scalep * Fp[c];
  }
}

template <int NQ>
__global__ static void __launch_bounds__(ESDGSurfaceThreads<NQ>() * ESDGSurfaceElementsPerBlock<NQ>())
  ESDGSurface(const SquallGas gas, const SquallSurfaceFluxType type, const ESDGArgs a, const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ, NFP = NQ * NQ;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sflux  = sm + threadIdx.y * 6 * NFP * 5;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  const PetscReal            *Ja     = a.Ja + (size_t)e * 9 * NP;

  if (active) {
    for (int k = threadIdx.x; k < 6 * NFP; k += blockDim.x) { /* one pass: blockDim.x >= 6 Nfp */
      const int       f = k / NFP, q = k % NFP, d = f / 2, n = FaceNode<NQ>(f, q);
      const PetscReal sign = (f % 2) ? 1 : -1;
      PetscReal       nout[3], sf, nhat[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fl[5];
#pragma unroll
      for (int c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * NP + n];
      sf = sqrt(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
#pragma unroll
      for (int c = 0; c < 3; c++) nhat[c] = nout[c] / sf;
      FaceStates<NQ>(gas, a, e, n, ((size_t)e * 6 + f) * NFP + q, nhat, Q, Qloc, qm, am, qp, ap);
      SquallEulerSurfaceFlux(&gas, type, qm, am, qp, ap, nhat, Fl);
      const PetscReal scale = sf / a.wb;
#pragma unroll
      for (int c = 0; c < 5; c++) sflux[k * 5 + c] = -scale * Fl[c];
    }
  }
  __syncthreads();
  if (!active || threadIdx.x >= NP) return;
  const int n = threadIdx.x, idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
  PetscReal s[5] = {0, 0, 0, 0, 0};
#pragma unroll
  for (int f = 0; f < 6; f++) {
    const int d = f / 2, ext = (f % 2) ? NQ - 1 : 0;
    if (idx[d] != ext) continue;
    const int t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2, q = idx[t0] + NQ * idx[t1];
#pragma unroll
    for (int c = 0; c < 5; c++) s[c] += sflux[(f * NFP + q) * 5 + c];
  }
  PetscScalar    *fe = F + (size_t)a.gslot[e] * 5 * NP;
  const PetscReal J  = a.J[(size_t)e * NP + n];
#pragma unroll
  for (int c = 0; c < 5; c++) fe[c * NP + n] = (fe[c * NP + n] + s[c]) / J;
  if (a.fcor) {
    /* -f k x (rho u), as in the reference */
    const size_t    qe = (size_t)a.gslot[e] * 5 * NP;
    const PetscReal fc = a.fcor[(size_t)e * NP + n];
    fe[NP + n] += fc * StateValue(Q, a.Qref, qe + 2 * NP + n);
    fe[2 * NP + n] -= fc * StateValue(Q, a.Qref, qe + NP + n);
  }
}

/* per-node reductions for the time step and the admissibility check: the max over nodes of
   sum_d (|u.Ja^d| + c|Ja^d|)/J (WAVE), and the count of nodes with density or pressure <= 0. Without
   WAVE (the check before every stage) a node costs its state and Phi (6 reals) instead of 16, and no
   logarithms: 0.37 instead of ~1 ms per call at N = 4, 262,144 elements, in double */
template <int NQ, bool WAVE> __global__ static void ESDGNodeReduce(const SquallGas gas, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscReal *lmax, int *nbad)
{
  constexpr int NP  = NQ * NQ * NQ;
  PetscReal     lm  = 0;
  int           bad = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < a.nOwned * NP; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt e = i / NP, n = i % NP;
    const size_t   qe = (size_t)a.gslot[e] * 5 * NP;
    PetscReal      q[5], au[SQUALL_NAUX], lam = 0;
    for (int c = 0; c < 5; c++) q[c] = StateValue(Q, a.Qref, qe + c * NP + n);
    if (!WAVE) {
      bad += SquallEulerCheck(&gas, q, a.Phi[i]);
      continue;
    }
    if (SquallEulerAux(&gas, q, a.Phi[i], au)) {
      bad++;
      continue;
    }
    for (int d = 0; d < 3; d++) {
      const PetscReal nv[3] = {a.Ja[((size_t)e * 9 + d * 3) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 1) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 2) * NP + n]};
      lam += SquallEulerMaxWaveSpeed(&gas, au, nv);
    }
    lm = fmax(lm, lam / a.J[i]);
  }
  /* block reduction through shared memory, then one atomic per block */
  __shared__ PetscReal sl[256];
  __shared__ int       sb[256];
  sl[threadIdx.x] = lm;
  sb[threadIdx.x] = bad;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) {
      sl[threadIdx.x] = fmax(sl[threadIdx.x], sl[threadIdx.x + h]);
      sb[threadIdx.x] += sb[threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    /* wave rates are non-negative, so their bit patterns order like integers */
    if (sizeof(PetscReal) == 8)
      atomicMax((unsigned long long *)lmax, (unsigned long long)__double_as_longlong((double)sl[0]));
    else
      atomicMax((unsigned int *)lmax, (unsigned int)__float_as_int((float)sl[0]));
    atomicAdd(nbad, sb[0]);
  }
}

/* ---------------------------------------------------------------------------------------------
   host side */

/* volume kernel over the elements elist[first .. first+count); with lift, the faces' fluxes (face
   mode) are added and the node finished; abl/minb select the ablation and tuning variants (N = 4) */
template <int NQ, bool CART, bool LIFT, int ABL, int MINB, bool DB = false, bool RADD = false, bool DEP = false>
static PetscErrorCode ESDGLaunchHalf(const SquallGas &gas, const ESDGArgs &a, int grid, dim3 block, size_t shm, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  static int W  = 0; /* blocks resident at once on the device (the prefetch distance) */
  ESDGArgs   ap = a;

  PetscFunctionBegin;
  PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalf<NQ, CART, LIFT, ABL, MINB, DB, RADD, DEP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  if (a.pfBlocks && !W) {
    int nb, dev, sms;
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, ESDGVolumeHalf<NQ, CART, LIFT, ABL, MINB, DB, RADD, DEP>, (int)(block.x * block.y), shm));
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    W = PetscMax(1, nb * sms);
  }
  ap.pfBlocks = a.pfBlocks ? PetscMax(1, (int)(W * a.pfDist)) : 0;
  ESDGVolumeHalf<NQ, CART, LIFT, ABL, MINB, DB, RADD, DEP><<<grid, block, shm, stream>>>(gas, ap, Q, F);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the production half sweep: box or curved metric, finishing (face mode) or not, departures or not */
template <int NQ, bool DEP> static PetscErrorCode ESDGLaunchHalfProduction(const SquallGas &gas, const ESDGArgs &a, bool cart, bool lift, int grid, dim3 block, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  constexpr int MB = ESDGVolumeMinBlocks<NQ, true>(), MC = ESDGVolumeMinBlocks<NQ, false>();

  PetscFunctionBegin;
#define ESDG_SHM(C, L) ESDGHalfBytes<NQ, C, L, false, DEP>()
  if (cart && lift)
    PetscCall((ESDGLaunchHalf<NQ, true, true, ESDG_ABL_NONE, MB, false, false, DEP>(gas, a, grid, block, ESDG_SHM(true, true), Q, F, stream)));
  else if (cart)
    PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, MB, false, false, DEP>(gas, a, grid, block, ESDG_SHM(true, false), Q, F, stream)));
  else if (lift)
    PetscCall((ESDGLaunchHalf<NQ, false, true, ESDG_ABL_NONE, MC, false, false, DEP>(gas, a, grid, block, ESDG_SHM(false, true), Q, F, stream)));
  else
    PetscCall((ESDGLaunchHalf<NQ, false, false, ESDG_ABL_NONE, MC, false, false, DEP>(gas, a, grid, block, ESDG_SHM(false, false), Q, F, stream)));
#undef ESDG_SHM
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NQ, bool CART, bool LIFT> static PetscErrorCode ESDGLaunchFull(const SquallGas &gas, const ESDGArgs &a, int grid, dim3 block, size_t shm, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeFull<NQ, CART, LIFT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  ESDGVolumeFull<NQ, CART, LIFT><<<grid, block, shm, stream>>>(gas, a, Q, F);
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NQ> static PetscErrorCode ESDGLaunchVolume(SquallESDG s, const ESDGCuda *c, PetscInt first, PetscInt count, PetscBool half, PetscBool lift, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  constexpr int NP = NQ * NQ * NQ, EPB = ESDGElementsPerBlock<NQ>();
  ESDGArgs      a = ESDGGetArgs(c, s->mesh->w[0]);
  const dim3    block(NP, EPB);
  const int     grid = (int)((count + EPB - 1) / EPB);
  const bool    cart = s->mesh->cartesian;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  a.elist = c->elist + first;
  a.nList = count;
  if (half) {
    if (s->gas.departures)
      PetscCall((ESDGLaunchHalfProduction<NQ, true>(s->gas, a, cart, lift, grid, block, Q, F, stream)));
    else
      PetscCall((ESDGLaunchHalfProduction<NQ, false>(s->gas, a, cart, lift, grid, block, Q, F, stream)));
  } else {
    PetscCheck(!s->gas.departures, s->comm, PETSC_ERR_SUP, "The full-sweep GPU volume kernel (-esdg_gpu_half_sweep 0) has no departures: use the half sweep, or -esdg_perturbation_pressure 0");
    const size_t shm = sizeof(PetscReal) * (NQ * NQ + (size_t)EPB * SQUALL_NPAIR * NP);
    if (cart && lift)
      PetscCall((ESDGLaunchFull<NQ, true, true>(s->gas, a, grid, block, shm, Q, F, stream)));
    else if (cart)
      PetscCall((ESDGLaunchFull<NQ, true, false>(s->gas, a, grid, block, shm, Q, F, stream)));
    else if (lift)
      PetscCall((ESDGLaunchFull<NQ, false, true>(s->gas, a, grid, block, shm, Q, F, stream)));
    else
      PetscCall((ESDGLaunchFull<NQ, false, false>(s->gas, a, grid, block, shm, Q, F, stream)));
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the variants of the ablation study and the register-cap tuning, N = 4 on boxes, all elements:
   0 unbalanced half sweep, 1 no precomputed logs, 2 one launch per direction, 3/4/5 the half sweep
   with at least 1/6/8 blocks per multiprocessor (1: no register cap; the production kernel uses 6),
   6 the face kernel capped at 5 blocks per multiprocessor (the default before session 5), 7 the half sweep at 7 blocks (72 registers), 8/9 two share
   buffers and one barrier per direction at 5/6 blocks, 10 the sender-scaled shares of before (RADD),
   11/12 the half sweep at 10/12 blocks (48/40 registers: for single precision, which needs 55 uncapped) */
static PetscErrorCode ESDGLaunchVariantN4(SquallESDG s, const ESDGCuda *c, int variant, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  constexpr int  NQ = 5, NP = NQ * NQ * NQ, EPB = ESDGElementsPerBlock<NQ>();
  const ESDGArgs a = ESDGGetArgs(c, s->mesh->w[0]);
  const dim3     block(NP, EPB);
  const int      grid = (int)((c->nOwned + EPB - 1) / EPB);
  const size_t   shm  = ESDGHalfBytes<NQ, true, false, false>();

  PetscFunctionBegin;
  PetscCheck(s->mesh->N == 4 && s->mesh->cartesian, s->comm, PETSC_ERR_SUP, "The ablation variants exist for -esdg_order 4 on boxes only");
  PetscCheck(!s->gas.departures, s->comm, PETSC_ERR_SUP, "The ablation variants have no departures: -esdg_perturbation_pressure 0");
  switch (variant) {
    case 0: {
      const size_t shmu = sizeof(PetscReal) * (NQ * NQ + (size_t)EPB * (SQUALL_NPAIR + 5 * NQ) * NP);
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalfUnbalanced<NQ>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmu));
      ESDGVolumeHalfUnbalanced<NQ><<<grid, block, shmu, stream>>>(s->gas, a, Q, F);
    } break;
    case 1: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NOLOG, 1>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 2:
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0 + 1, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0 + 2, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      break;
    case 3: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 1>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 4: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 5: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 8>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 7: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 7>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 8: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 5, true>(s->gas, a, grid, block, ESDGHalfBytes<NQ, true, false, true>(), Q, F, stream))); break;
    case 9: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6, true>(s->gas, a, grid, block, ESDGHalfBytes<NQ, true, false, true>(), Q, F, stream))); break;
    case 10: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6, false, true>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 11: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 10>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 12: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 12>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 6: {
      ESDGArgs af = a;
      af.nList    = c->nFacesEarly + c->nFacesGhost;
      ESDGFaceFlux<NQ, 5><<<(int)(((size_t)af.nList * NQ * NQ + 127) / 128), 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
    } break;
    default: SETERRQ(s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown ESDG kernel variant %d", variant);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the per-element surface kernel of the first version (-esdg_gpu_surface element) */
template <int NQ> static PetscErrorCode ESDGLaunchSurface(SquallESDG s, const ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  constexpr int NFP = NQ * NQ, EPB = ESDGSurfaceElementsPerBlock<NQ>(), T = ESDGSurfaceThreads<NQ>();
  ESDGArgs      a   = ESDGGetArgs(c, s->mesh->w[0]);
  const size_t  shm = sizeof(PetscReal) * (size_t)EPB * 6 * NFP * 5;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  a.elist = c->elist + first;
  a.nList = count;
  PetscCallCUDA(cudaFuncSetAttribute(ESDGSurface<NQ>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  ESDGSurface<NQ><<<(int)((count + EPB - 1) / EPB), dim3(T, EPB), shm, stream>>>(s->gas, s->surface, a, Q, Qloc, F);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the face kernel over faces[first .. first+count) */
template <int NQ> static PetscErrorCode ESDGLaunchFaces(SquallESDG s, const ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, cudaStream_t stream)
{
  constexpr int NFP = NQ * NQ;
  ESDGArgs      a   = ESDGGetArgs(c, s->mesh->w[0]);
  const size_t  nt  = (size_t)count * NFP;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  a.faces        = c->faces + first;
  a.nList        = count;
  const int grid = (int)((nt + 127) / 128);
  if (s->gas.departures && c->FGF)
    ESDGFaceFlux<NQ, 1, true, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else if (s->gas.departures)
    ESDGFaceFlux<NQ, 1, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else if (c->FGF)
    ESDGFaceFlux<NQ, 1, false, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else
    ESDGFaceFlux<NQ><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NQ> static PetscErrorCode ESDGLaunchReduce(SquallESDG s, const ESDGCuda *c, PetscBool wave, const PetscScalar *Q, cudaStream_t stream)
{
  const ESDGArgs a      = ESDGGetArgs(c, s->mesh->w[0]);
  const PetscInt nnodes = c->nOwned * NQ * NQ * NQ;
  const int      grid   = (int)PetscMax(1, PetscMin((nnodes + 255) / 256, 1024));

  PetscFunctionBegin;
  if (wave)
    ESDGNodeReduce<NQ, true><<<grid, 256, 0, stream>>>(s->gas, a, Q, c->red, (int *)(c->red + 1));
  else
    ESDGNodeReduce<NQ, false><<<grid, 256, 0, stream>>>(s->gas, a, Q, c->red, (int *)(c->red + 1));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernels are templated on Nq = N + 1 so every loop bound is a compile-time constant */
#define ESDG_DISPATCH(N, fn, args)                                                                             \
  do {                                                                                                         \
    switch (N) {                                                                                               \
      case 1: PetscCall(fn<2> args); break;                                                                    \
      case 2: PetscCall(fn<3> args); break;                                                                    \
      case 3: PetscCall(fn<4> args); break;                                                                    \
      case 4: PetscCall(fn<5> args); break;                                                                    \
      case 5: PetscCall(fn<6> args); break;                                                                    \
      case 6: PetscCall(fn<7> args); break;                                                                    \
      case 7: PetscCall(fn<8> args); break;                                                                    \
      case 8: PetscCall(fn<9> args); break;                                                                    \
      default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-esdg_order %d has no GPU kernel (1 to 8)", (int)(N)); \
    }                                                                                                          \
  } while (0)

template <typename T> static PetscErrorCode Upload(T **d, const T *h, size_t n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, (size_t)1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tangential index of element node n on face f, the inverse of FaceNode */
static PetscInt FaceIndex(PetscInt Nq, PetscInt f, PetscInt n)
{
  const PetscInt d = f / 2, idx[3] = {n % Nq, (n / Nq) % Nq, n / (Nq * Nq)}, t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2;
  return idx[t0] + Nq * idx[t1];
}

/* The faces this rank computes and, for each computed face node with an owned partner, the partner's
   slot. A face shared by two owned elements is computed by the side with the smaller e*6+f; one with a
   ghost partner by the owned side (the ghost's owner computes its own side); a wall by its element. */
static PetscErrorCode ESDGBuildFaces(SquallESDG s, PetscInt *faces, PetscInt *nEarly, PetscInt *nGhost, PetscInt *plus)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Np = m->Np, Nfp = m->Nfp, Nq = m->Nq, E = m->nOwned;
  PetscInt       ne = 0, ng = 0;

  PetscFunctionBegin;
  for (PetscInt f = 0; f < 6; f++)
    for (PetscInt q = 0; q < Nfp; q++) PetscCheck(FaceIndex(Nq, f, m->fmask[f * Nfp + q]) == q, s->comm, PETSC_ERR_PLIB, "Face node numbering of the mesh and of the GPU kernels differ");
  for (size_t k = 0; k < (size_t)E * 6 * Nfp; k++) plus[k] = -1;
  /* ghost-free faces first, then those with a ghost partner */
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt f = 0; f < 6; f++) {
        const PetscInt nb = m->nbr[6 * e + f], fp = f ^ 1;
        if ((nb >= E) != (pass == 1)) continue;
        if (nb >= 0 && nb < E) {
          if (e * 6 + f > nb * 6 + fp) continue; /* the partner computes it */
          PetscCheck(m->nbr[6 * nb + fp] == e, s->comm, PETSC_ERR_PLIB, "Element %" PetscInt_FMT " face %" PetscInt_FMT ": the neighbour's opposite face does not point back", e, f);
          for (PetscInt q = 0; q < Nfp; q++) {
            const PetscInt p = m->vmapP[(e * 6 + f) * Nfp + q], qp = FaceIndex(Nq, fp, p % Np);
            PetscCheck(m->vmapP[(nb * 6 + fp) * Nfp + qp] == m->slot[e] * Np + m->fmask[f * Nfp + q], s->comm, PETSC_ERR_PLIB, "Face node maps of elements %" PetscInt_FMT " and %" PetscInt_FMT " are not each other's inverse", e, nb);
            plus[(e * 6 + f) * Nfp + q] = (nb * 6 + fp) * Nfp + qp;
          }
        }
        faces[ne + ng] = e * 6 + f;
        if (pass == 0)
          ne++;
        else
          ng++;
      }
  }
  *nEarly = ne;
  *nGhost = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetUpCUDA(SquallESDG s)
{
  SquallDGMesh   m = s->mesh;
  ESDGCuda      *c;
  const PetscInt Np = m->Np, Nfp = m->Nfp, E = m->nOwned;
  PetscInt      *vmap, *elist, *faces, *plus, ni = 0, nh = 0;
  PetscReal     *phip, *fcor = NULL;

  PetscFunctionBegin;
  PetscCheck(m->N >= 1 && m->N <= 8, s->comm, PETSC_ERR_SUP, "-esdg_order %" PetscInt_FMT " has no GPU kernel (1 to 8)", m->N);
  PetscCall(PetscNew(&c));
  c->nOwned       = E;
  c->Np           = Np;
  c->Nq           = m->Nq;
  c->half         = s->gpuHalf;
  c->prefetch     = (int)s->gpuPrefetch;
  c->prefetchDist = s->gpuPrefetchDist;
  c->faceMode     = s->gpuSurface == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscMalloc5((size_t)E * 6 * Nfp, &vmap, (size_t)E * 6 * Nfp, &phip, PetscMax(E, 1), &elist, PetscMax(6 * E, 1), &faces, (size_t)E * 6 * Nfp, &plus));
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb >= m->nOwned) halo = PETSC_TRUE;
      for (PetscInt q = 0; q < Nfp; q++) {
        const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
        const PetscInt p = m->vmapP[k];
        if (nb < 0) {
          vmap[k] = SQ_BOUNDARY;
          phip[k] = s->Phi[e * Np + m->fmask[f * Nfp + q]];
        } else {
          vmap[k] = nb < m->nOwned ? m->gslot[nb] * Np + p % Np : -(p + 1);
          phip[k] = s->Phi[nb * Np + p % Np];
        }
      }
    }
    if (!halo) elist[ni++] = e;
  }
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++)
      if (m->nbr[6 * e + f] >= m->nOwned) halo = PETSC_TRUE;
    if (halo) elist[ni + nh++] = e;
  }
  c->nInterior = ni;
  c->nHalo     = nh;
  PetscCall(ESDGBuildFaces(s, faces, &c->nFacesEarly, &c->nFacesGhost, plus));
  PetscCall(Upload(&c->gslot, m->gslot, (size_t)E));
  PetscCall(Upload(&c->vmapP, vmap, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->PhiP, phip, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->Phi, s->Phi, (size_t)E * Np));
  PetscCall(Upload(&c->J, m->J, (size_t)E * Np));
  PetscCall(Upload(&c->Ja, m->Ja, (size_t)E * 9 * Np));
  if (m->cartesian) /* the box kernels contract along the axis (PairFluxes<true>) */
    for (size_t k = 0; k < (size_t)E * 9 * Np; k++) {
      const PetscInt dc = (PetscInt)((k / Np) % 9);
      PetscCheck(dc / 3 == dc % 3 || m->Ja[k] == 0, s->comm, PETSC_ERR_PLIB, "Cartesian element %" PetscInt_FMT " has an off-axis metric component: the box kernels assume Ja^d = |Ja^d| e_d", (PetscInt)(k / (9 * (size_t)Np)));
    }
  PetscCall(Upload(&c->D, m->D, (size_t)m->Nq * m->Nq));
  PetscCall(Upload(&c->elist, elist, (size_t)E));
  PetscCall(Upload(&c->faces, faces, (size_t)(c->nFacesEarly + c->nFacesGhost)));
  PetscCall(Upload(&c->plus, plus, (size_t)E * 6 * Nfp));
  PetscCallCUDA(cudaMalloc((void **)&c->FB, PetscMax((size_t)5 * E * 6 * Nfp, (size_t)1) * sizeof(PetscReal)));
  {
    /* outward unit normal and s_f of every element face node, with the reference's operations */
    const size_t S = (size_t)E * 6 * Nfp;
    PetscReal   *fg;
    PetscCall(PetscMalloc1(PetscMax(4 * S, (size_t)1), &fg));
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt f = 0; f < 6; f++) {
        const PetscReal *Ja = SQUALL_DG_JA(m, e), sign = (f % 2) ? 1 : -1;
        const PetscInt   d = f / 2;
        for (PetscInt q = 0; q < Nfp; q++) {
          const PetscInt n = m->fmask[f * Nfp + q];
          const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
          PetscReal      nout[3], sf;
          for (PetscInt c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * Np + n];
          sf = PetscSqrtReal(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
          for (PetscInt c = 0; c < 3; c++) fg[c * S + k] = nout[c] / sf;
          fg[3 * S + k] = sf;
        }
      }
    PetscCall(Upload(&c->FG, fg, 4 * S));
    {
      /* per element face where every face's nodes have the same values bit for bit (a box element's
         metric is constant): the face kernel then reads one set per face */
      const size_t EF   = (size_t)E * 6;
      PetscBool    same = PETSC_TRUE;
      for (size_t ef = 0; ef < EF && same; ef++)
        for (PetscInt q = 1; q < Nfp && same; q++)
          for (PetscInt c4 = 0; c4 < 4; c4++) same = (PetscBool)(same && fg[c4 * S + ef * Nfp + q] == fg[c4 * S + ef * Nfp]);
      if (same && EF) {
        PetscReal *fgf;
        PetscCall(PetscMalloc1(4 * EF, &fgf));
        for (size_t ef = 0; ef < EF; ef++)
          for (PetscInt c4 = 0; c4 < 4; c4++) fgf[c4 * EF + ef] = fg[c4 * S + ef * Nfp];
        PetscCall(Upload(&c->FGF, fgf, 4 * EF));
        PetscCall(PetscFree(fgf));
      }
    }
    PetscCall(PetscFree(fg));
  }
  if (s->coriolis != SQUALL_CORIOLIS_NONE) {
    PetscCall(PetscMalloc1((size_t)E * Np, &fcor));
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt n = 0; n < Np; n++) fcor[e * Np + n] = s->f0 + s->beta0 * (SQUALL_DG_X(m, e)[Np + n] - s->y0);
    PetscCall(Upload(&c->fcor, fcor, (size_t)E * Np));
    PetscCall(PetscFree(fcor));
  }
  PetscCallCUDA(cudaMalloc((void **)&c->bad, 2 * sizeof(int)));
  PetscCallCUDA(cudaMemset(c->bad, 0, 2 * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&c->red, 2 * sizeof(PetscReal)));
  PetscCall(PetscFree5(vmap, phip, elist, faces, plus));
  s->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyCUDA(SquallESDG s)
{
  ESDGCuda *c = (ESDGCuda *)s->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gslot));
  PetscCallCUDA(cudaFree(c->vmapP));
  PetscCallCUDA(cudaFree(c->PhiP));
  PetscCallCUDA(cudaFree(c->Phi));
  PetscCallCUDA(cudaFree(c->J));
  PetscCallCUDA(cudaFree(c->Ja));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->elist));
  PetscCallCUDA(cudaFree(c->faces));
  PetscCallCUDA(cudaFree(c->plus));
  PetscCallCUDA(cudaFree(c->FB));
  PetscCallCUDA(cudaFree(c->FG));
  if (c->FGF) PetscCallCUDA(cudaFree(c->FGF));
  if (c->fcor) PetscCallCUDA(cudaFree(c->fcor));
  PetscCallCUDA(cudaFree(c->bad));
  PetscCallCUDA(cudaFree(c->red));
  PetscCall(PetscFree(c));
  s->cuda = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops per face node of a computed face, counted by hand from euler.h (two per-node value sets, the
   unit normal, the EC pair flux, and the entropy jump + matrix dissipation (ES) or the wave speeds (Rusanov)) */
static PetscLogDouble ESDGFaceFlops(SquallESDG s, PetscInt nfaces)
{
  const PetscLogDouble per = s->surface == SQUALL_FLUX_ES ? 360.0 : (s->surface == SQUALL_FLUX_RUSANOV ? 200.0 : 180.0);
  return per * nfaces * s->mesh->Nfp;
}

static PetscErrorCode ESDGFaces(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchFaces, (s, c, first, count, Q, Qloc, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ESDGFaceFlops(s, count)));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGVolume(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, PetscBool lift, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  SquallDGMesh   m = s->mesh;
  PetscLogDouble vflops;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, first, count, c->half, lift, Q, F, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SquallESDGVolumeFlops(s, c->half, &vflops));
  PetscCall(PetscLogGpuFlops(m->nOwned ? vflops * count / m->nOwned : 0));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGSurfaceElements(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchSurface, (s, c, first, count, Q, Qloc, F, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2 * ESDGFaceFlops(s, 3 * count)));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in perturbation form, the reference state's device arrays for the kernels (ESDGArgs.Qref, QrefLoc) */
static PetscErrorCode ESDGGetReference(SquallESDG s, ESDGCuda *c)
{
  PetscFunctionBegin;
  c->refCont = s->refCont;
  if (s->perturb) {
    PetscCheck(s->Qref && s->QrefLoc, s->comm, PETSC_ERR_ARG_WRONGSTATE, "-esdg_perturbation needs a reference state: SquallESDGSetInitialCondition() with a case that has one, or SquallESDGSetReferenceState()");
    PetscCall(VecCUDAGetArrayRead(s->Qref, &c->Qref));
    PetscCall(VecCUDAGetArrayRead(s->QrefLoc, &c->QrefLoc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGRestoreReference(SquallESDG s, ESDGCuda *c)
{
  PetscFunctionBegin;
  if (c->Qref) PetscCall(VecCUDARestoreArrayRead(s->Qref, &c->Qref));
  if (c->QrefLoc) PetscCall(VecCUDARestoreArrayRead(s->QrefLoc, &c->QrefLoc));
  c->Qref = c->QrefLoc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RHS into F, or with K (face mode only) a fused LSRK stage: the finishing volume kernels fold
   each node's RHS into K and Q (K = la K + ldt F, Q += lb K) instead of writing F */
static PetscErrorCode ESDGRHS(SquallESDG s, PetscReal t, Vec Q, Vec F, Vec K, PetscReal la, PetscReal ldt, PetscReal lb)
{
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  PetscScalar       *fd = NULL, *qld, *qw = NULL, *kd = NULL;
  cudaStream_t       stream = NULL;

  PetscFunctionBegin;
  PetscCheck(!K || c->faceMode, s->comm, PETSC_ERR_PLIB, "A fused LSRK stage needs the face-mode RHS");
  PetscCall(SquallCUDAGetStream(&stream));
  if (K) {
    PetscCall(VecCUDAGetArray(Q, &qw));
    qd = qw;
    if (la == 0)
      PetscCall(VecCUDAGetArrayWrite(K, &kd)); /* the first stage does not read K */
    else
      PetscCall(VecCUDAGetArray(K, &kd));
    c->K   = kd;
    c->Qw  = qw;
    c->la  = la;
    c->ldt = ldt;
    c->lb  = lb;
  } else {
    PetscCall(VecCUDAGetArrayRead(Q, &qd));
    PetscCall(VecCUDAGetArrayWrite(F, &fd));
  }
  PetscCall(VecCUDAGetArray(s->Qloc, &qld));
  PetscCall(ESDGGetReference(s, c));
  /* the face nodes of ghost elements only (src/ts/esdgghost.c), device to device */
  PetscCall(SquallESDGGhostBegin(s, PETSC_MEMTYPE_CUDA, qd, qld));
  if (c->faceMode) {
    /* what needs no ghost value hides the exchange: the ghost-free faces, then the elements whose
       faces are all among them, finished; then the faces with a ghost side and their elements. The
       finishing volume kernels also subtract the reference residual. */
    if (s->Fref) PetscCall(VecCUDAGetArrayRead(s->Fref, &c->Fref));
    PetscCall(ESDGFaces(s, c, 0, c->nFacesEarly, qd, NULL, stream));
    PetscCall(ESDGVolume(s, c, 0, c->nInterior, PETSC_TRUE, qd, fd, stream));
    PetscCall(SquallESDGGhostEnd(s, qd, qld));
    PetscCall(ESDGFaces(s, c, c->nFacesEarly, c->nFacesGhost, qd, qld, stream));
    PetscCall(ESDGVolume(s, c, c->nInterior, c->nHalo, PETSC_TRUE, qd, fd, stream));
    if (s->Fref) PetscCall(VecCUDARestoreArrayRead(s->Fref, &c->Fref));
    c->Fref = NULL;
  } else {
    PetscCall(ESDGVolume(s, c, 0, c->nOwned, PETSC_FALSE, qd, fd, stream));
    PetscCall(ESDGSurfaceElements(s, c, 0, c->nInterior, qd, NULL, fd, stream));
    PetscCall(SquallESDGGhostEnd(s, qd, qld));
    PetscCall(ESDGSurfaceElements(s, c, c->nInterior, c->nHalo, qd, qld, fd, stream));
  }
  PetscCall(ESDGRestoreReference(s, c));
  PetscCall(VecCUDARestoreArray(s->Qloc, &qld));
  if (K) {
    PetscInt n;
    PetscCall(VecGetLocalSize(Q, &n));
    PetscCall(PetscLogGpuFlops(5.0 * n)); /* the stage update's */
    if (la == 0)
      PetscCall(VecCUDARestoreArrayWrite(K, &kd));
    else
      PetscCall(VecCUDARestoreArray(K, &kd));
    PetscCall(VecCUDARestoreArray(Q, &qw));
    c->K = c->Qw = NULL;
  } else {
    PetscCall(VecCUDARestoreArrayWrite(F, &fd));
    PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  }
  if (s->Fref && !c->faceMode) PetscCall(VecAXPY(F, -1, s->Fref));
  {
    /* the kernels flag density or pressure <= 0; eight bytes back per RHS so that an unphysical state
       is an error naming where (found on the host), never silent NaNs; and a fused stage's verdict on
       the state it wrote, for the next stage's check */
    int      hbad[2] = {0, 0};
    PetscInt gbad[2], lbad[2];
    PetscCallCUDA(cudaMemcpyAsync(hbad, c->bad, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    lbad[0] = hbad[0];
    lbad[1] = hbad[1];
    PetscCallMPI(MPIU_Allreduce(lbad, gbad, 2, MPIU_INT, MPI_MAX, s->comm));
    if (hbad[1]) PetscCallCUDA(cudaMemsetAsync(c->bad + 1, 0, sizeof(int), stream));
    c->nextVec = NULL;
    if (gbad[0]) {
      PetscBool ok;
      PetscCallCUDA(cudaMemsetAsync(c->bad, 0, sizeof(int), stream));
      PetscCall(SquallESDGCheckState(s, Q, &ok));
      SETERRQ(s->comm, PETSC_ERR_FP, "Unphysical state (density or pressure <= 0) in the GPU right-hand side; see the message above for where");
    }
    if (K) {
      c->nextVec = Q;
      c->nextBad = gbad[1] ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(PetscObjectStateGet((PetscObject)Q, &c->nextState));
    }
  }
  (void)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGComputeRHS_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec F)
{
  PetscFunctionBegin;
  PetscCall(ESDGRHS(s, t, Q, F, NULL, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one LSRK stage with the RHS of Q fused into the update of K and Q; *done false where the RHS is not
   in face mode (the caller then evaluates F and updates) */
PetscErrorCode SquallESDGStage_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec K, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done)
{
  ESDGCuda *c = (ESDGCuda *)s->cuda;

  PetscFunctionBegin;
  *done = c->faceMode;
  if (*done) PetscCall(ESDGRHS(s, t, Q, NULL, K, a, dt, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *known: X is the state the last fused LSRK stage wrote, unchanged since; then *bad is that stage's
   verdict on it (all ranks) */
PetscErrorCode SquallESDGStageVerdictCUDA(SquallESDG s, Vec X, PetscBool *known, PetscBool *bad)
{
  ESDGCuda        *c = (ESDGCuda *)s->cuda;
  PetscObjectState st;

  PetscFunctionBegin;
  *known = PETSC_FALSE;
  *bad   = PETSC_FALSE;
  if (!c || !c->nextVec || c->nextVec != X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)X, &st));
  if (st != c->nextState) PetscFunctionReturn(PETSC_SUCCESS);
  *known = PETSC_TRUE;
  *bad   = c->nextBad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max wave rate (for the CFL step; lmax NULL: the check alone) and the number of inadmissible nodes,
   with one small copy back */
PetscErrorCode SquallESDGNodeReduceCUDA(SquallESDG s, Vec Q, PetscReal *lmax, PetscInt *nbad)
{
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  cudaStream_t       stream = NULL;
  PetscReal          h[2];
  int                hb;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(Q, &qd));
  PetscCallCUDA(cudaMemsetAsync(c->red, 0, 2 * sizeof(PetscReal), stream));
  PetscCall(ESDGGetReference(s, c));
  PetscCall(PetscLogEventBegin(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchReduce, (s, c, lmax ? PETSC_TRUE : PETSC_FALSE, qd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(ESDGRestoreReference(s, c));
  PetscCallCUDA(cudaMemcpyAsync(h, c->red, 2 * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  memcpy(&hb, &h[1], sizeof(int));
  if (lmax) *lmax = h[0];
  *nbad = hb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times one kernel (or the whole RHS) in isolation with CUDA events, for bench/: the median of reps
   launches after one warm-up, in ms; -1 where the variant does not exist for this order. F and the
   face buffer are overwritten; the ghost values are those of the last RHS evaluation.
     volume_full, volume_half      volume kernels over all elements, without faces
     volume_lift                   the face-mode volume kernel (half or full as set), faces added
     faces                         the face kernel over all computed faces
     surface_element               the first version's per-element surface kernel over all elements
     rhs, rhs_element              the whole RHS in face mode / element mode
     abl_unbalanced, abl_nolog, abl_unfused, tune_minb1, tune_minb6, tune_minb8, tune_faces_minb5,
     tune_minb7, tune_db5, tune_db6, tune_recv_add   (N = 4, boxes) */
PetscErrorCode SquallESDGTimeKernelCUDA(SquallESDG s, Vec Q, Vec F, const char *which, PetscInt reps, PetscReal *ms)
{
  SquallDGMesh       m = s->mesh;
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd, *qld;
  PetscScalar       *fd;
  cudaStream_t       stream = NULL;
  cudaEvent_t        t0, t1;
  PetscReal         *samples;
  const char        *abl[]   = {"abl_unbalanced", "abl_nolog", "abl_unfused", "tune_minb1", "tune_minb6", "tune_minb8", "tune_faces_minb5", "tune_minb7", "tune_db5", "tune_db6", "tune_recv_add", "tune_minb10", "tune_minb12"};
  int                variant = -1, kind = -1;
  const PetscBool    half0 = c ? c->half : PETSC_FALSE, face0 = c ? c->faceMode : PETSC_FALSE;
  PetscBool          match;

  PetscFunctionBegin;
  PetscCheck(c, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The ESDG object is not on the GPU (-dm_vec_type cuda)");
  {
    const char *kinds[] = {"volume_full", "volume_half", "volume_lift", "faces", "surface_element", "rhs", "rhs_element"};
    for (int k = 0; k < 7 && kind < 0; k++) {
      PetscCall(PetscStrcmp(which, kinds[k], &match));
      if (match) kind = k;
    }
    for (int k = 0; k < (int)(sizeof(abl) / sizeof(abl[0])) && kind < 0; k++) {
      PetscCall(PetscStrcmp(which, abl[k], &match));
      if (match) {
        kind    = 7;
        variant = k;
      }
    }
  }
  PetscCheck(kind >= 0, s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown ESDG kernel name %s", which);
  if (kind == 7 && !(m->N == 4 && m->cartesian)) {
    *ms = -1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(reps, &samples));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  for (PetscInt r = -1; r < reps; r++) {
    if (kind >= 5 && kind <= 6) {
      c->faceMode = kind == 5 ? PETSC_TRUE : PETSC_FALSE;
      PetscCallCUDA(cudaEventRecord(t0, stream));
      PetscCall(SquallESDGComputeRHS_CUDA(s, 0, Q, F));
      PetscCallCUDA(cudaEventRecord(t1, stream));
    } else {
      PetscCall(VecCUDAGetArrayRead(Q, &qd));
      PetscCall(VecCUDAGetArray(F, &fd));
      PetscCall(VecCUDAGetArrayRead(s->Qloc, &qld));
      PetscCallCUDA(cudaEventRecord(t0, stream));
      switch (kind) {
        case 0:
        case 1: ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, 0, c->nOwned, kind == 1 ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE, qd, fd, stream)); break;
        case 2: ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, 0, c->nOwned, c->half, PETSC_TRUE, qd, fd, stream)); break;
        case 3: ESDG_DISPATCH(m->N, ESDGLaunchFaces, (s, c, 0, c->nFacesEarly + c->nFacesGhost, qd, qld, stream)); break;
        case 4: ESDG_DISPATCH(m->N, ESDGLaunchSurface, (s, c, 0, c->nInterior + c->nHalo, qd, qld, fd, stream)); break;
        default: PetscCall(ESDGLaunchVariantN4(s, c, variant, qd, qld, fd, stream));
      }
      PetscCallCUDA(cudaEventRecord(t1, stream));
      PetscCall(VecCUDARestoreArrayRead(s->Qloc, &qld));
      PetscCall(VecCUDARestoreArray(F, &fd));
      PetscCall(VecCUDARestoreArrayRead(Q, &qd));
    }
    PetscCallCUDA(cudaEventSynchronize(t1));
    if (r >= 0) {
      float t;
      PetscCallCUDA(cudaEventElapsedTime(&t, t0, t1));
      samples[r] = t;
    }
  }
  PetscCall(PetscSortReal(reps, samples));
  *ms         = samples[reps / 2];
  c->half     = half0;
  c->faceMode = face0;
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  PetscCall(PetscFree(samples));
  PetscFunctionReturn(PETSC_SUCCESS);
}
