/* SquallESDG: the entropy-stable DG semi-discretisation object, its options and its TS wiring. */
#include "ts/esdgimpl.h"

const char *const SquallSurfaceFluxTypes[] = {"ec", "es", "rusanov", "SquallSurfaceFluxType", "SQUALL_FLUX_", NULL};
const char *const SquallCoriolisTypes[]    = {"none", "fplane", "betaplane", "sphere", "SquallCoriolisType", "SQUALL_CORIOLIS_", NULL};
const char *const SquallGravityModels[]    = {"shallow", "deep", "SquallGravityModel", "SQUALL_GRAVITY_", NULL};

/* The prefetch distance was measured at N = 4 (rising bubble, 262,144 elements: 0.120 s per step
   against 0.123 without); the other orders take the same until measured otherwise. */
const SquallESDGGPUDefaults SquallESDGGPUDefaultsByOrder[8] = {{0.5}, {0.5}, {0.5}, {0.5}, {0.5}, {0.5}, {0.5}, {0.5}};

PetscErrorCode SquallESDGCreate(MPI_Comm comm, SquallESDG *esdg)
{
  SquallESDG s;

  PetscFunctionBegin;
  PetscAssertPointer(esdg, 2);
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&s));
  s->comm      = comm;
  s->gas.gamma = 1.4;
  s->gas.R     = 287.0; /* dry air */
  s->gas.g     = 9.81;
  SquallGasSetUp(&s->gas);
  s->surface          = SQUALL_FLUX_ES;
  s->coriolis         = SQUALL_CORIOLIS_NONE;
  s->gpuPrefetchWaves = -1; /* from SquallESDGGPUDefaultsByOrder once the order is known */
  s->pertPressure     = PETSC_TRUE;
  s->rhsParts         = SQUALL_ESDG_ALL_TERMS;
  s->sponge.z0        = PETSC_MAX_REAL; /* no top layer */
  s->omega            = 7.29212e-5;     /* Earth's, as in DCMIP (Ullrich et al. 2014) */
  s->gravityModel     = SQUALL_GRAVITY_DEEP;
  s->memCheck         = PETSC_TRUE;
  PetscCall(SquallDGMeshCreate(comm, &s->mesh));
  PetscCall(SquallESDGSetOptionsPrefix(s, "esdg_"));
  *esdg = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGSetOptionsPrefix - the prefix of the solver's options and of its mesh's (default "esdg_":
  -esdg_order, -esdg_gamma, ...), so that two solvers in one program read their own. Call before
  SquallESDGSetFromOptions().
@*/
PetscErrorCode SquallESDGSetOptionsPrefix(SquallESDG s, const char prefix[])
{
  PetscFunctionBegin;
  PetscCheck(!s->setup && !s->mesh->dm, s->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the options prefix before SquallESDGSetFromOptions()");
  /* the one place the prefix goes to the mesh; the solver keeps the mesh's copy for its own options */
  PetscCall(SquallDGMeshSetOptionsPrefix(s->mesh, prefix));
  PetscCall(PetscFree(s->prefix));
  PetscCall(PetscStrallocpy(s->mesh->prefix, &s->prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetGas(SquallESDG s, PetscReal gamma, PetscReal R, PetscReal g)
{
  PetscFunctionBegin;
  PetscCheck(gamma > 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sgamma %g is out of range: it must be > 1", s->prefix, (double)gamma);
  PetscCheck(R > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sgas_constant %g is out of range: it must be > 0", s->prefix, (double)R);
  PetscCheck(g >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sgravity %g is out of range: it must be >= 0", s->prefix, (double)g);
  s->gas.gamma = gamma;
  s->gas.R     = R;
  s->gas.g     = g;
  SquallGasSetUp(&s->gas);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGGetGas(SquallESDG s, PetscReal *gamma, PetscReal *R, PetscReal *g)
{
  PetscFunctionBegin;
  if (gamma) *gamma = s->gas.gamma;
  if (R) *R = s->gas.R;
  if (g) *g = s->gas.g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetSurfaceFlux(SquallESDG s, const char *name)
{
  PetscBool found = PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3 && !found; i++) {
    PetscCall(PetscStrcmp(name, SquallSurfaceFluxTypes[i], &found));
    if (found) s->surface = (SquallSurfaceFluxType)i;
  }
  PetscCheck(found, s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%ssurface_flux %s is unknown: valid are ec, es, rusanov", s->prefix, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetFromOptions(SquallESDG s)
{
  PetscReal gamma = s->gas.gamma, R = s->gas.R, g = s->gas.g, waves;
  PetscInt  flux = s->surface, cor = s->coriolis, imex = s->imex, N, gmodel = s->gravityModel;
  PetscBool gmset;

  PetscFunctionBegin;
  /* the mesh first: the GPU defaults depend on the order */
  PetscCall(SquallDGMeshSetFromOptions(s->mesh));
  PetscCall(SquallDGMeshGetOrder(s->mesh, &N));
  waves = s->gpuPrefetchWaves >= 0 ? s->gpuPrefetchWaves : SquallESDGGPUDefaultsByOrder[N - 1].prefetchWaves;
  PetscOptionsBegin(s->comm, s->prefix, "squall ESDG (entropy-stable DG for Euler with gravity)", "SquallESDG");
  PetscCall(PetscOptionsReal("-gamma", "Ratio of specific heats (> 1)", "SquallESDGSetGas", gamma, &gamma, NULL));
  PetscCall(PetscOptionsReal("-gas_constant", "Specific gas constant R in J/(kg K) (> 0)", "SquallESDGSetGas", R, &R, NULL));
  PetscCall(PetscOptionsReal("-gravity", "Gravitational acceleration g in m/s^2; Phi = g z (>= 0)", "SquallESDGSetGas", g, &g, NULL));
  PetscCall(PetscOptionsEList("-surface_flux", "Surface flux: ec (entropy conservative), es (EC + matrix dissipation), rusanov", "SquallESDGSetSurfaceFlux", SquallSurfaceFluxTypes, 3, SquallSurfaceFluxTypes[flux], &flux, NULL));
  PetscCall(
    PetscOptionsEList("-coriolis", "Coriolis force: none, fplane (f = f0), betaplane (f = f0 + beta0 (y - y0)), sphere (-2 Omega x rho u, Omega along z; -esdg_mesh shell)", "SquallESDG", SquallCoriolisTypes, 4, SquallCoriolisTypes[cor], &cor, NULL));
  PetscCall(PetscOptionsReal("-coriolis_omega", "Rotation rate Omega of -esdg_coriolis sphere in 1/s (>= 0)", "SquallESDG", s->omega, &s->omega, NULL));
  PetscCall(PetscOptionsEList("-gravity_model", "Geopotential on the shell: deep (Phi = -g a^2/r + g a) or shallow (Phi = g (r - a)); the brick has Phi = g z", "SquallESDG", SquallGravityModels, 2, SquallGravityModels[gmodel], &gmodel, &gmset));
  PetscCall(PetscOptionsReal("-coriolis_f0", "Coriolis parameter f0 in 1/s", "SquallESDG", s->f0, &s->f0, NULL));
  PetscCall(PetscOptionsReal("-coriolis_beta0", "beta-plane gradient beta0 in 1/(m s)", "SquallESDG", s->beta0, &s->beta0, NULL));
  PetscCall(PetscOptionsReal("-coriolis_y0", "beta-plane reference latitude position y0 in m", "SquallESDG", s->y0, &s->y0, NULL));
  PetscCall(PetscOptionsReal("-cfl", "If > 0, set the time step after every step to cfl * (LGL spacing / max wave speed)", "SquallESDGSetUpTS", s->cfl, &s->cfl, NULL));
  PetscCall(PetscOptionsInt("-monitor", "Print mass, energy, entropy, max|w|, min rho and p every k steps (0: never)", "SquallESDGSetUpTS", s->monitor_every, &s->monitor_every, NULL));
  PetscCall(PetscOptionsReal("-gpu_prefetch_waves", "GPU volume kernel: prefetch into L2 the inputs of the block this many waves of resident blocks ahead (0: no prefetch; 0 to 4; default per order)", "SquallESDG", waves, &waves, NULL));
  PetscCall(
    PetscOptionsBool("-reference_residual", "Subtract the discrete residual of the test case's unperturbed background from every RHS (well balanced to round-off; for single precision)", "SquallESDGSetReferenceState", s->useRef, &s->useRef, NULL));
  PetscCall(PetscOptionsBool("-memory_check", "Before the mesh is built, refuse a run whose estimated memory exceeds what this node (and GPU) has available (docs/esdg.md)", "SquallESDGSetUp", s->memCheck, &s->memCheck, NULL));
  PetscCall(PetscOptionsBool("-perturbation", "The TS state is the departure Q - Qref from the test case's background (implies -esdg_reference_residual; for single precision)", "SquallESDGSetPerturbation", s->perturb, &s->perturb, NULL));
  PetscCall(PetscOptionsBool("-perturbation_pressure", "In perturbation form, the momentum flux's pressure from the departures, so that the reference's never enters it", "SquallESDGSetPerturbation", s->pertPressure, &s->pertPressure, NULL));
  PetscCall(PetscOptionsEList("-imex", "HEVI: none, or vertical (F_H explicit as the RHSFunction, F_V implicit as the IFunction qdot - F_V, for -ts_type arkimex)", "SquallESDGSetIMEX", SquallESDGIMEXTypes, 2, SquallESDGIMEXTypes[imex], &imex, NULL));
  {
    /* on the shell heights are r - a (the mesh's lo[2], hi[2]: 0 and the thickness) */
    PetscReal top = s->sponge.z0 < PETSC_MAX_REAL ? s->sponge.z0 : s->mesh->hi[2], lat[2] = {s->sponge.width[0], s->sponge.width[1]};
    PetscInt  n = 2;
    PetscBool topset, latset;
    PetscCall(PetscOptionsReal("-sponge_rate", "Rayleigh damping rate of the sponge layers in 1/s, towards the case's background (>= 0; 0: no sponge)", "SquallESDGSetSpongeState", s->sponge.rate, &s->sponge.rate, NULL));
    PetscCall(PetscOptionsReal("-sponge_top", "Bottom z0 of the top sponge layer, which reaches the model top (m; default the top: no layer)", "SquallESDGSetSpongeState", top, &top, &topset));
    PetscCall(PetscOptionsRealArray("-sponge_lateral", "Width of the lateral sponge layers at both x ends (wx), or at the x and y ends (wx,wy) (m, > 0)", "SquallESDGSetSpongeState", lat, &n, &latset));
    PetscCall(SquallOptionsCheckArrayCount(s->comm, PetscOptionsObject->prefix, "-sponge_lateral", 2, 1));
    if (latset && n == 1) lat[1] = 0;
    PetscCheck(s->sponge.rate >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%ssponge_rate %g is out of range: it must be >= 0", s->prefix, (double)s->sponge.rate);
    if (topset) {
      SquallDGMesh m = s->mesh;
      PetscCheck(top >= m->lo[2] && top < m->hi[2], s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%ssponge_top %g is out of range: it must lie in [%g, %g) (%s)", s->prefix, (double)top, (double)m->lo[2], (double)m->hi[2],
                 m->shell ? "the shell's heights above the inner sphere" : "the brick's z extent");
      s->sponge.z0 = top;
    }
    PetscCheck(!latset || !s->mesh->shell, s->comm, PETSC_ERR_ARG_INCOMP, "-%ssponge_lateral on the shell: it has no lateral boundaries (use -%ssponge_top)", s->prefix, s->prefix);
    for (PetscInt d = 0; d < 2 && latset; d++) {
      SquallDGMesh m = s->mesh;
      PetscCheck((d == 1 && n == 1) || (lat[d] > 0 && lat[d] <= (m->hi[d] - m->lo[d]) / 2), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%ssponge_lateral: the %c width %g is out of range: it must be > 0 and at most half the extent, %g", s->prefix, "xy"[d],
                 (double)lat[d], (double)((m->hi[d] - m->lo[d]) / 2));
      s->sponge.width[d] = lat[d];
    }
    PetscCheck(s->sponge.rate == 0 || s->sponge.z0 < PETSC_MAX_REAL || s->sponge.width[0] > 0 || s->sponge.width[1] > 0, s->comm, PETSC_ERR_ARG_INCOMP, "-%ssponge_rate %g without a layer: give -%ssponge_top and/or -%ssponge_lateral", s->prefix,
               (double)s->sponge.rate, s->prefix, s->prefix);
  }
  PetscOptionsEnd();
  PetscCall(SquallESDGSetIMEX(s, (SquallESDGIMEXType)imex));
  if (s->perturb) s->useRef = PETSC_TRUE;
  PetscCall(SquallESDGSetGas(s, gamma, R, g));
  {
    SquallDGMesh m = s->mesh;
    PetscCheck(cor != SQUALL_CORIOLIS_SPHERE || m->shell, s->comm, PETSC_ERR_ARG_INCOMP, "-%scoriolis sphere needs -%smesh shell", s->prefix, s->prefix);
    PetscCheck(!gmset || m->shell, s->comm, PETSC_ERR_ARG_INCOMP, "-%sgravity_model %s needs -%smesh shell (the brick has Phi = g z)", s->prefix, SquallGravityModels[gmodel], s->prefix);
    PetscCheck(s->omega >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%scoriolis_omega %g is out of range: it must be >= 0", s->prefix, (double)s->omega);
    s->gravityModel = (SquallGravityModel)gmodel;
  }
  PetscCheck(s->cfl >= 0 && s->cfl <= 10, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%scfl %g is out of range: valid values are 0 (off) to 10", s->prefix, (double)s->cfl);
  PetscCheck(s->monitor_every >= 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smonitor %" PetscInt_FMT " is out of range: it must be >= 0", s->prefix, s->monitor_every);
  PetscCheck(waves >= 0 && waves <= 4, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sgpu_prefetch_waves %g is out of range: 0 to 4", s->prefix, (double)waves);
  s->gpuPrefetchWaves = waves;
  s->surface          = (SquallSurfaceFluxType)flux;
  s->coriolis         = (SquallCoriolisType)cor;
  if (s->coriolis == SQUALL_CORIOLIS_FPLANE) s->beta0 = 0;
  if (s->coriolis == SQUALL_CORIOLIS_SPHERE) {
    /* -2 Omega x rho u with Omega = omega e_z has no vertical part: the f-plane source with f = 2 omega in Cartesian components */
    s->f0    = 2 * s->omega;
    s->beta0 = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in perturbation form the RHS forms departures (-esdg_perturbation_pressure): switch them on, with
   the ghost vector of the TS state the C reference needs once set up (the GPU RHS exchanges the TS
   state's ghosts anyway) */
static PetscErrorCode ESDGSetDepartures(SquallESDG s)
{
  PetscFunctionBegin;
  s->gas.departures = (s->perturb && s->pertPressure) ? (s->refCont ? 2 : 1) : 0;
  if (s->setup && s->gas.departures && !s->useGPU && !s->Xloc) PetscCall(VecDuplicate(s->Qloc, &s->Xloc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The memory the solver will take on each rank, estimated before the forest is refined, against what the rank may
   still allocate (SquallMemoryGetAvailable()), so that a run too large fails with a message instead of deep inside
   p4est or cudaMalloc. The model (docs/esdg.md compares it with the measured peak): per node, 13 reals of geometry
   (x, J, Ja), 1 of Phi, 5 of the ghosted local state and 5 state-sized vectors of 5 (the program's state, the
   TS's stage vectors, the RHS), 20 more with the reference state, 6 with a sponge; per element 2 KiB (forest, DM,
   maps) and 36 integers per face node (neighbour maps, ghost selection); 40 MB per rank of libraries. On the GPU
   the node arrays and 12 integers per face node. */
static PetscErrorCode ESDGCheckMemory(SquallESDG s)
{
  SquallDGMesh         m  = s->mesh;
  const PetscLogDouble Nq = (PetscLogDouble)m->N + 1, Np = Nq * Nq * Nq, Nfp = Nq * Nq, bR = sizeof(PetscScalar), bI = sizeof(PetscInt);
  const PetscLogDouble nel       = (PetscLogDouble)m->ncell[0] * m->ncell[1] * m->ncell[2];
  PetscLogDouble       nodeReals = 13 + 1 + 5 + 5 * 5, host, dev, avail;
  PetscMPIInt          size;
  PetscBool            gpu;
  VecType              vt;

  PetscFunctionBegin;
  if (!s->memCheck) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  if (s->useRef || s->perturb) nodeReals += 20;
  if (s->sponge.rate > 0) nodeReals += 6;
  host = 40e6 + nel / size * (2048 + 36 * Nfp * bI + nodeReals * Np * bR);
  dev  = nel / size * (nodeReals * Np * bR + 12 * Nfp * bI);
  PetscCall(DMGetVecType(m->dm, &vt));
  PetscCall(PetscStrbeginswith(vt ? vt : "", "cuda", &gpu));
  if (!gpu) PetscCall(PetscStrbeginswith(vt ? vt : "", VECSEQCUDA, &gpu));
  if (!gpu) PetscCall(PetscStrbeginswith(vt ? vt : "", VECMPICUDA, &gpu));
  PetscCall(SquallMemoryGetAvailable(s->comm, PETSC_FALSE, &avail));
  PetscCall(PetscInfo(NULL, "ESDG memory estimate: %g elements of order %" PetscInt_FMT " on %d ranks, %.4g MB per rank on the host (%.4g MB available)%s\n", nel, m->N, (int)size, host / 1e6, avail / 1e6, gpu ? ", on the device below" : ""));
  PetscCheck(avail < 0 || host <= avail, s->comm, PETSC_ERR_MEM,
             "The ESDG solver would need about %.4g GB per rank: %.4g elements (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " from -dm_p4est_brick_size and -dm_forest_initial_refinement) of order %" PetscInt_FMT
             " (-%sorder), 5 fields, on %d ranks; this node has %.4g GB available per rank. Lower -dm_forest_initial_refinement or -%sorder, or use more nodes (-%smemory_check 0 tries anyway)",
             host / 1e9, nel, m->ncell[0], m->ncell[1], m->ncell[2], m->N, s->prefix, (int)size, avail / 1e9, s->prefix, s->prefix);
  if (gpu) {
    PetscCall(SquallMemoryGetAvailable(s->comm, PETSC_TRUE, &avail));
    PetscCall(PetscInfo(NULL, "ESDG memory estimate on the device: %.4g MB per rank (%.4g MB free)\n", dev / 1e6, avail / 1e6));
    PetscCheck(avail < 0 || dev <= avail, s->comm, PETSC_ERR_MEM,
               "The ESDG solver would need about %.4g GB of GPU memory per rank: %.4g elements (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " from -dm_p4est_brick_size and -dm_forest_initial_refinement) of order %" PetscInt_FMT
               " (-%sorder), 5 fields, on %d ranks; the GPU has %.4g GB free per rank (cudaMemGetInfo). Lower -dm_forest_initial_refinement or -%sorder, or use more GPUs (-%smemory_check 0 tries anyway)",
               dev / 1e9, nel, m->ncell[0], m->ncell[1], m->ncell[2], m->N, s->prefix, (int)size, avail / 1e9, s->prefix, s->prefix);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetUp(SquallESDG s)
{
  SquallDGMesh m = s->mesh;

  PetscFunctionBegin;
  if (s->setup) PetscFunctionReturn(PETSC_SUCCESS);
  if (!m->dm) PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallDGMeshSetNumFields(m, 5));
  PetscCall(ESDGCheckMemory(s));
  PetscCall(SquallDGMeshSetUp(m));
  PetscCall(DMCreateLocalVector(m->sdm, &s->Qloc));
  PetscCall(VecZeroEntries(s->Qloc));
  PetscCall(SquallESDGCreateGhostSF(s));
  {
    const PetscInt nloc = m->nOwned + m->nGhost;
    PetscCall(PetscMalloc1((size_t)nloc * m->Np, &s->Phi));
    /* Phi is computed from the node positions, which are bitwise equal on both sides of a face, so the
       gravity fluctuation vanishes identically in the surface fluxes */
    for (PetscInt e = 0; e < nloc; e++)
      for (PetscInt n = 0; n < m->Np; n++) {
        const size_t i = (size_t)e * m->Np + n;
        if (!m->shell) s->Phi[i] = s->gas.g * SQUALL_DG_X(m, e)[2 * m->Np + n];
        /* on the shell from the height of the lattice (equal bit for bit at coincident nodes); the deep
           potential -G M/r shifted by G M/a, so that it is small near the surface like the shallow one */
        else if (s->gravityModel == SQUALL_GRAVITY_SHALLOW)
          s->Phi[i] = s->gas.g * m->zh[i];
        else
          s->Phi[i] = s->gas.g * m->shellA * (m->zh[i] / (m->shellA + m->zh[i]));
      }
    /* Phi = g z: on boxes a function of the node's k alone wherever k runs along z (the GPU's box kernels, and the
       flops they log, leave the gravity terms of the x and y pairs out) */
    s->boxPhiZ = m->cartesian;
    for (PetscInt e = 0; e < m->nOwned && s->boxPhiZ; e++)
      for (PetscInt n = 0; n < m->Np; n++)
        if (s->Phi[e * m->Np + n] != s->Phi[e * m->Np + (n / (m->Nq * m->Nq)) * m->Nq * m->Nq]) s->boxPhiZ = PETSC_FALSE;
    PetscCall(PetscMalloc1((size_t)(SQUALL_NAUX + 5) * m->Np, &s->work));
  }
  PetscCall(SquallESDGSpongeSetUp(s));
  {
    VecType vt;
    PetscCall(DMGetVecType(m->sdm, &vt));
    PetscCall(PetscStrbeginswith(vt, VECCUDA, &s->useGPU));
    if (!s->useGPU) PetscCall(PetscStrbeginswith(vt, VECSEQCUDA, &s->useGPU));
    if (!s->useGPU) PetscCall(PetscStrbeginswith(vt, VECMPICUDA, &s->useGPU));
    PetscCheck(!s->useGPU || SquallHaveCUDA(), s->comm, PETSC_ERR_SUP, "-dm_vec_type %s needs squall built with CUDA", vt);
  }
  if (s->useGPU) PetscCall(SquallESDGSetUpGPU(s));
  s->setup = PETSC_TRUE;
  PetscCall(ESDGSetDepartures(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGView(SquallESDG s, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(s->comm, &viewer));
  PetscCall(
    PetscViewerASCIIPrintf(viewer, "SquallESDG: Euler with gravity, gamma %g, R %g, g %g; surface flux %s; Coriolis %s", (double)s->gas.gamma, (double)s->gas.R, (double)s->gas.g, SquallSurfaceFluxTypes[s->surface], SquallCoriolisTypes[s->coriolis]));
  if (s->coriolis == SQUALL_CORIOLIS_SPHERE)
    PetscCall(PetscViewerASCIIPrintf(viewer, " (Omega %g along z)", (double)s->omega));
  else if (s->coriolis != SQUALL_CORIOLIS_NONE)
    PetscCall(PetscViewerASCIIPrintf(viewer, " (f0 %g, beta0 %g, y0 %g)", (double)s->f0, (double)s->beta0, (double)s->y0));
  if (s->mesh->shell) PetscCall(PetscViewerASCIIPrintf(viewer, "; %s gravity", SquallGravityModels[s->gravityModel]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  if (s->perturb) PetscCall(PetscViewerASCIIPrintf(viewer, "  state: perturbation from the reference (-esdg_perturbation)\n"));
  if (s->imex == SQUALL_ESDG_IMEX_VERTICAL) PetscCall(PetscViewerASCIIPrintf(viewer, "  HEVI: F_H explicit, F_V implicit (-esdg_imex vertical)\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(SquallDGMeshView(s->mesh, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroy(SquallESDG *esdg)
{
  SquallESDG s;

  PetscFunctionBegin;
  if (!esdg || !*esdg) PetscFunctionReturn(PETSC_SUCCESS);
  s = *esdg;
  PetscCall(SquallESDGKernelsDestroy(&s->gpu));
  PetscCall(VecDestroy(&s->Qloc));
  PetscCall(VecDestroy(&s->Fref));
  PetscCall(VecDestroy(&s->Qref));
  PetscCall(VecDestroy(&s->QrefLoc));
  PetscCall(VecDestroy(&s->Qfull));
  PetscCall(VecDestroy(&s->Xloc));
  PetscCall(SquallESDGDestroyIMEX(s));
  PetscCall(PetscSFDestroy(&s->ghostSF));
  PetscCall(PetscFree(s->Phi));
  PetscCall(PetscFree(s->tau));
  PetscCall(VecDestroy(&s->Qsponge));
  PetscCall(PetscFree(s->work));
  PetscCall(PetscFree(s->prefix));
  PetscCall(SquallDGMeshDestroy(&s->mesh));
  PetscCall(PetscFree(s));
  *esdg = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGGetMesh(SquallESDG s, SquallDGMesh *mesh)
{
  PetscFunctionBegin;
  *mesh = s->mesh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGGetDM(SquallESDG s, DM *dm)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  *dm = s->mesh->sdm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGProject - sets Q to the nodal values of a pointwise initial condition.
@*/
PetscErrorCode SquallESDGProject(SquallESDG s, SquallESDGInitialFn fn, void *ctx, Vec Q)
{
  SquallDGMesh   m = s->mesh;
  PetscScalar   *qa;
  const PetscInt Np = m->Np;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWrite(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal x[3] = {X[n], X[Np + n], X[2 * Np + n]}, q[5];
      PetscCall(fn(x, s->Phi[e * Np + n], q, ctx));
      for (PetscInt f = 0; f < 5; f++) qa[(m->gslot[e] * 5 + f) * Np + n] = q[f];
    }
  }
  PetscCall(VecRestoreArrayWrite(Q, &qa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the RHS of the TS state X: F(Qref + X) - F(Qref) in perturbation form (the GPU kernels add the
   reference as they load the state, with the same single rounding as VecWAXPY here) */
PetscErrorCode SquallESDGComputeRHS(SquallESDG s, PetscReal t, Vec X, Vec F)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCheck(!s->perturb || s->Qref, s->comm, PETSC_ERR_ARG_WRONGSTATE, "-%sperturbation needs a reference state: SquallESDGSetInitialCondition() with a case that has one, or SquallESDGSetReferenceState()", s->prefix);
  PetscCall(SquallESDGSpongeCheck(s));
  PetscCall(PetscLogEventBegin(SQUALL_ESDGRHS, X, F, 0, 0));
  if (s->useGPU)
    PetscCall(SquallESDGComputeRHS_GPU(s, X, F));
  else {
    Vec Q;
    PetscCall(SquallESDGGetFullState(s, X, &Q));
    PetscCall(SquallESDGComputeRHS_CPU(s, t, Q, s->gas.departures ? X : NULL, F));
    /* a pointwise source: part of F_H when HEVI splits the RHS */
    if (s->rhsParts & SQUALL_ESDG_SOURCES) PetscCall(SquallESDGAddSponge_CPU(s, Q, F));
    PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  }
  if (s->Fref && !s->useGPU) PetscCall(VecAXPY(F, -1, s->Fref)); /* the GPU RHS subtracts it itself */
  PetscCall(PetscLogEventEnd(SQUALL_ESDGRHS, X, F, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGGetFullState - the full state Q of a TS state X: X itself, or in perturbation form
  (SquallESDGSetPerturbation()) Qref + X in a work vector of the solver, to be given back with
  SquallESDGRestoreFullState() before the next call. For post-processing the conservative variables.
@*/
PetscErrorCode SquallESDGGetFullState(SquallESDG s, Vec X, Vec *Q)
{
  PetscFunctionBegin;
  if (!s->perturb) {
    *Q = X;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(s->Qref, s->comm, PETSC_ERR_ARG_WRONGSTATE, "-%sperturbation needs a reference state: SquallESDGSetInitialCondition() with a case that has one, or SquallESDGSetReferenceState()", s->prefix);
  if (!s->Qfull) PetscCall(VecDuplicate(s->Qref, &s->Qfull));
  PetscCall(VecWAXPY(s->Qfull, 1, s->Qref, X));
  *Q = s->Qfull;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGRestoreFullState(SquallESDG s, Vec X, Vec *Q)
{
  PetscFunctionBegin;
  (void)s;
  (void)X;
  *Q = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the reference is equal bit for bit on both sides of every interior face (a pointwise function of
   the node positions is: they are bitwise equal across faces); then the faces' entropy-variable jumps are
   formed from departures (gas.departures 2) and the GPU face kernel reads a face node's reference once */
static PetscErrorCode ESDGReferenceContinuous(SquallESDG s, PetscBool *cont)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np, Nfp = m->Nfp;
  const PetscScalar *qr, *ql;
  PetscInt           diff = 0, gdiff;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(s->Qref, &qr));
  PetscCall(VecGetArrayRead(s->QrefLoc, &ql));
  for (PetscInt e = 0; e < m->nOwned && !diff; e++)
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb < 0) continue;
      for (PetscInt k = 0; k < Nfp; k++) {
        const PetscInt     n = m->fmask[f * Nfp + k], p = m->vmapP[(e * 6 + f) * Nfp + k];
        const PetscScalar *own = &qr[m->gslot[e] * 5 * Np + n], *oth = nb < m->nOwned ? &qr[m->gslot[nb] * 5 * Np + p % Np] : &ql[(p / Np) * 5 * Np + p % Np];
        for (PetscInt c = 0; c < 5; c++) diff += own[c * Np] != oth[c * Np];
      }
    }
  PetscCall(VecRestoreArrayRead(s->QrefLoc, &ql));
  PetscCall(VecRestoreArrayRead(s->Qref, &qr));
  PetscCallMPI(MPIU_Allreduce(&diff, &gdiff, 1, MPIU_INT, MPI_SUM, s->comm));
  *cont = gdiff ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGSetReferenceState - from now on the RHS is F(Q) - F(Qref): the discrete residual of a
  steady reference state (a hydrostatic background) is subtracted, so that the reference is an exact
  steady state of the computed RHS, and where the solution still equals it bit for bit the RHS is
  exactly zero.

  Why: in single precision the pressure gradient of the background (p ~ 1e5 Pa) and the gravity term
  cancel only to eps p |D| ~ 1e-4 m/s^2, which accelerates air at rest (the bubble's background, N=3,
  after 10 s: max|w| 1.6e-3 m/s in single, 4e-7 m/s in double; with the reference exactly 0). The
  scheme is in discrete balance for isothermal atmospheres only (residual at round-off); for the
  bubble's neutral background and the baroclinic channel's unperturbed jet the residual is their
  discretisation error, which is then removed too (in double the bubble's max|w| changes by 3e-6
  relative at N=3, 1 element level). The subtraction is a constant vector: mass and energy change by
  its integrals (round-off to truncation level).

  Input: Qref, a state on this ESDG's DM, or NULL to stop subtracting.
@*/
PetscErrorCode SquallESDGSetReferenceState(SquallESDG s, Vec Qref)
{
  Vec       F;
  PetscBool perturb = s->perturb;

  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(VecDestroy(&s->Fref));
  PetscCall(VecDestroy(&s->Qref));
  PetscCall(VecDestroy(&s->QrefLoc));
  for (PetscInt p = 0; p < 3; p++) PetscCall(VecDestroy(&s->FrefPart[p]));
  s->refCont = PETSC_FALSE;
  PetscCall(ESDGSetDepartures(s));
  if (!Qref) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicate(Qref, &s->Qref));
  PetscCall(VecCopy(Qref, s->Qref));
  {
    /* the reference's ghost face-node values, for the kernels (and the C reference's departures) that
       add it to the ghosts' departures */
    const PetscScalar *qr;
    PetscScalar       *ql;
    PetscMemType       mq, ml;
    PetscCall(VecDuplicate(s->Qloc, &s->QrefLoc));
    PetscCall(VecZeroEntries(s->QrefLoc));
    PetscCall(VecGetArrayReadAndMemType(s->Qref, &qr, &mq));
    PetscCall(VecGetArrayAndMemType(s->QrefLoc, &ql, &ml));
    PetscCheck(mq == ml, s->comm, PETSC_ERR_PLIB, "Reference state and its ghost vector live in different memory");
    PetscCall(SquallESDGGhostBegin(s, mq, qr, ql));
    PetscCall(SquallESDGGhostEnd(s, qr, ql));
    PetscCall(VecRestoreArrayAndMemType(s->QrefLoc, &ql));
    PetscCall(VecRestoreArrayReadAndMemType(s->Qref, &qr));
  }
  PetscCall(ESDGReferenceContinuous(s, &s->refCont));
  PetscCall(ESDGSetDepartures(s)); /* a continuous reference: the entropy jumps from departures too */
  /* the raw residual of the full state Qref (s->Fref is not set yet, so nothing is subtracted); with
     departures formed as every RHS will form them, i.e. from X = 0 */
  PetscCall(VecDuplicate(Qref, &F));
  s->spongeHold = PETSC_TRUE; /* the sponge's target is another state: its term is not part of the reference residual */
  if (s->gas.departures) {
    Vec Z; /* the TS state of the reference: Qref + 0 is Qref bit for bit */
    PetscCall(VecDuplicate(Qref, &Z));
    PetscCall(VecZeroEntries(Z));
    PetscCall(SquallESDGComputeRHS(s, 0, Z, F));
    PetscCall(VecDestroy(&Z));
  } else {
    s->perturb = PETSC_FALSE;
    PetscCall(SquallESDGComputeRHS(s, 0, Qref, F));
    s->perturb = perturb;
  }
  s->spongeHold = PETSC_FALSE;
  s->Fref       = F;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGSetSpongeState - the state the Rayleigh sponge (-esdg_sponge_rate, -esdg_sponge_top,
  -esdg_sponge_lateral) damps towards: the RHS gets -tau(x) (Q - Qsponge), Q the full state (in
  perturbation form Qref + X). SquallESDGSetInitialCondition() sets the case's background with its mean
  wind (the Schaer case: its initial state); it differs in general from the reference state of
  -esdg_reference_residual (the atmosphere at rest), whose residual is formed without the sponge.

  Input: Qs, a full state on this ESDG's DM, or NULL (then an RHS with a sponge is refused).
@*/
PetscErrorCode SquallESDGSetSpongeState(SquallESDG s, Vec Qs)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(VecDestroy(&s->Qsponge));
  if (!Qs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicate(Qs, &s->Qsponge));
  PetscCall(VecCopy(Qs, s->Qsponge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SquallESDGSetPerturbation - with flg, the TS state is the departure X = Q - Qref from the reference
  state (SquallESDGSetReferenceState(), or the test case's background with -esdg_reference_residual,
  which this implies), and the RHS is F(Qref + X) - F(Qref).

  Why: the stage update X += dt b K keeps the increments to the precision of X, not of Q. In single
  precision an increment below half an ulp of Q (of density ~1, of energy ~2.5e5) is rounded away by
  Q += dt b K, and over the bubble's 14,000 stages those lost increments are its mass and energy
  drift (3e-6); the departure is small where the flow is quiet, so its ulp is too. The RHS still sees
  Q rounded once, Qref + X, so where X is 0 it sees Qref bit for bit and the RHS is exactly 0.

  The public functions that take a state (SquallESDGComputeRHS(), SquallESDGComputeStats(), the time
  step, the checks, the output) take the TS state and add the reference themselves; checkpoints store
  the TS state and record the form. Set before SquallESDGSetInitialCondition().

  With -esdg_perturbation_pressure (default) the RHS (C reference and GPU kernels) also forms the
  momentum flux's pressure from the departures of rho and b (SquallEulerDepartures()): p_hat -
  p_hat_ref, so that the reference's pressure and its round-off never enter the momentum flux (the
  single-precision bubble then follows the double one to 4e-4 instead of 2%).
@*/
PetscErrorCode SquallESDGSetPerturbation(SquallESDG s, PetscBool flg)
{
  PetscFunctionBegin;
  s->perturb = flg;
  if (flg) s->useRef = PETSC_TRUE;
  PetscCall(ESDGSetDepartures(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGRHSFunction(TS ts, PetscReal t, Vec Q, Vec F, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGComputeRHS((SquallESDG)ctx, t, Q, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
