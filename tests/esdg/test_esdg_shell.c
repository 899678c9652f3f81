static char help[] = "ESDG on the cubed-sphere shell (-esdg_mesh shell):\n"
                     "  -test mesh        volume against 4/3 pi ((a+H)^3 - a^3), coincident face nodes equal bit for bit, face permutations\n"
                     "  -test freestream  a uniform flow without gravity: RHS at round-off\n"
                     "  -test balance     the isothermal atmosphere at rest: the RHS without the reference residual (reported), with it exactly 0\n"
                     "  -test entropy     dS/dt = sum w J v.F: zero (EC) or <= 0 (ES); mass and energy rates zero\n"
                     "  -test ranks       -rhs_out file writes the RHS in the lattice order; -rhs_ref file compares with such a file (-tol)\n"
                     "  -test steps       -steps n (20), -dt_scale c (1: CFL 1) LSRK steps of the isothermal atmosphere at rest: it stays at rest, mass and energy conserved\n"
                     "  -test hevi        F_H + F_V = F (HEVI's split: the radial direction is the vertical one)\n"
                     "  -test output      the surface level (SquallESDGWriteShellLevel) and the VTK with latitude, longitude, height\n"
                     "-case name (default random), -tol r (relative, default 1e3 eps); -dm_vec_type cuda: through the GPU right-hand side (skipped without a GPU).\n";

#include <squall.h>
#include "ts/esdgimpl.h"
#include "squalltest.h"
#include "esdgtest.h"

/* max |F_f| per field and the flux-difference scale lambda |q_f| of the state (lambda: largest wave rate) */
static PetscErrorCode RHSMax(SquallESDG s, Vec Q, Vec F, PetscReal fmax[5], PetscReal scale[5])
{
  SquallDGMesh       m = s->mesh;
  const PetscScalar *qa, *fa;
  PetscReal          loc[10] = {0}, glob[10], dt, lambda;

  PetscFunctionBegin;
  PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
  lambda = 1 / dt;
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 0; f < 5; f++)
      for (PetscInt n = 0; n < m->Np; n++) {
        const PetscInt i = (m->gslot[e] * 5 + f) * m->Np + n;
        loc[f]           = PetscMax(loc[f], PetscAbsScalar(fa[i]));
        loc[5 + f]       = PetscMax(loc[5 + f], PetscAbsScalar(qa[i]));
      }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 10, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  for (PetscInt f = 0; f < 5; f++) {
    fmax[f]  = glob[f];
    scale[f] = lambda * (f >= 1 && f <= 3 ? PetscMax(glob[5 + 1], PetscMax(glob[5 + 2], glob[5 + 3])) + glob[5 + 4] / 3 : glob[5 + f]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the RHS as a vector in the lattice order of the elements (independent of the partition) */
static PetscErrorCode LatticeOrder(SquallESDG s, Vec F, Vec *P)
{
  SquallDGMesh       m    = s->mesh;
  const PetscInt     dofs = 5 * m->Np;
  const PetscScalar *fa;

  PetscFunctionBegin;
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, m->nGlobal * dofs, P));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscInt *ijk = &m->ijk[3 * e], key = ijk[0] + m->ncell[0] * (ijk[1] + m->ncell[1] * ijk[2]);
    for (PetscInt i = 0; i < dofs; i++) PetscCall(VecSetValue(*P, key * dofs + i, fa[m->gslot[e] * dofs + i], INSERT_VALUES));
  }
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCall(VecAssemblyBegin(*P));
  PetscCall(VecAssemblyEnd(*P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal speed = 1; /* the uniform state's velocity scale */

static PetscErrorCode UniformState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  SquallESDG      s    = (SquallESDG)ctx;
  const PetscReal u[3] = {12 * speed, -7 * speed, 5 * speed};

  PetscFunctionBegin;
  (void)x;
  SquallEulerConservative(&s->gas, 1.2, u, 1e5, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG   s;
  SquallDGMesh m;
  DM           dm;
  Vec          Q, F;
  char         test[64] = "mesh", casename[64] = "random", out[PETSC_MAX_PATH_LEN] = "", ref[PETSC_MAX_PATH_LEN] = "";
  PetscReal    tol = 1e3 * PETSC_MACHINE_EPSILON;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", casename, sizeof(casename), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs_out", out, sizeof(out), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs_ref", ref, sizeof(ref), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  /* the same checks through the GPU right-hand side (-dm_vec_type cuda) are skipped where there is no device */
  SQUALL_TEST_SKIP_GPU_PATH_WITHOUT_GPU();
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGSetUp(s));
  PetscCall(SquallESDGGetMesh(s, &m));
  PetscCheck(m->shell, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "test_esdg_shell needs -esdg_mesh shell");
  PetscCall(SquallESDGView(s, NULL));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(VecDuplicate(Q, &F));

  if (!strcmp(test, "mesh")) {
    const PetscReal a = m->shellA, H = m->shellH, exact = 4 * PETSC_PI / 3 * ((a + H) * (a + H) * (a + H) - a * a * a);
    PetscReal       vol, dmax = 0, gd;
    PetscInt        perms[8] = {0}, gp[8], mism = 0, gm, edge[2] = {0, 0}, ge[2];
    PetscCall(SquallDGMeshComputeVolume(m, &vol));
    for (PetscInt e = 0; e < m->nOwned; e++)
      for (PetscInt f = 0; f < 6; f++) {
        const PetscInt nb = m->nbr[6 * e + f];
        if (nb < 0) continue;
        perms[m->nbrPerm[6 * e + f]]++;
        edge[m->ijk[3 * nb + 2] / m->shellNz != m->ijk[3 * e + 2] / m->shellNz]++; /* the neighbour on another cube face */
        for (PetscInt q = 0; q < m->Nfp; q++) {
          const PetscInt n = m->fmask[f * m->Nfp + q], p = m->vmapP[(e * 6 + f) * m->Nfp + q] % m->Np;
          for (PetscInt d = 0; d < 3; d++) {
            dmax = PetscMax(dmax, PetscAbsReal(SQUALL_DG_X(m, e)[d * m->Np + n] - SQUALL_DG_X(m, nb)[d * m->Np + p]));
            mism += SQUALL_DG_X(m, e)[d * m->Np + n] != SQUALL_DG_X(m, nb)[d * m->Np + p];
          }
          mism += s->Phi[e * m->Np + n] != s->Phi[nb * m->Np + p];
        }
      }
    PetscCallMPI(MPIU_Allreduce(&dmax, &gd, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(&mism, &gm, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(perms, gp, 8, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(edge, ge, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "shell volume %.10e, exact %.10e, relative error %.2e; coincident face nodes: max distance %g, %" PetscInt_FMT " differing coordinates or Phi\n", (double)vol, (double)exact, (double)((vol - exact) / exact),
                          (double)gd, gm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "interior element faces: %" PetscInt_FMT " within a cube face, %" PetscInt_FMT " across cube edges; node permutations:", ge[0], ge[1]));
    for (PetscInt p = 0; p < 8; p++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %" PetscInt_FMT, gp[p]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCheck(gm == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " coincident face-node coordinates or Phi values differ", gm);
    PetscCheck(PetscAbsReal(vol - exact) < 1e-3 * exact, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "shell volume %g is not the exact %g to 1e-3", (double)vol, (double)exact);
    /* 12 cube edges x nh columns x nz levels x 2 sides */
    PetscCheck(ge[1] == 24 * m->shellNh * m->shellNz, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " element faces cross cube edges, expected %" PetscInt_FMT, ge[1], 24 * m->shellNh * m->shellNz);
  } else if (!strcmp(test, "freestream")) {
    /* a uniform flow crosses the walls at the inner and outer spheres: only there (the wall faces' nodes)
       its RHS is not zero; at rest the state is steady everywhere */
    PetscReal fmax[5], scale[5], worst[2] = {0, 0}, gw[2];
    PetscCheck(s->gas.g == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-test freestream needs -esdg_gravity 0");
    for (PetscInt moving = 0; moving < 2; moving++) {
      const PetscScalar *fa;
      PetscReal          loc = 0;
      speed                  = moving ? 1 : 0;
      PetscCall(SquallESDGProject(s, UniformState, s, Q));
      PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
      PetscCall(RHSMax(s, Q, F, fmax, scale));
      PetscCall(VecGetArrayRead(F, &fa));
      for (PetscInt e = 0; e < m->nOwned; e++)
        for (PetscInt n = 0; n < m->Np; n++) {
          const PetscInt k = n / m->Nfp, lev = m->ijk[3 * e + 2] % m->shellNz;
          if (moving && ((lev == 0 && k == 0) || (lev == m->shellNz - 1 && k == m->N))) continue;
          for (PetscInt f = 0; f < 5; f++) loc = PetscMax(loc, PetscAbsScalar(fa[(m->gslot[e] * 5 + f) * m->Np + n]) / scale[f]);
        }
      PetscCall(VecRestoreArrayRead(F, &fa));
      worst[moving] = loc;
    }
    PetscCallMPI(MPIU_Allreduce(worst, gw, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "free stream: max |F_f| / (lambda |q_f|) = %.3e at rest, %.3e in a uniform flow (off the wall faces)\n", (double)gw[0], (double)gw[1]));
    PetscCheck(gw[0] < tol && gw[1] < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "free stream not preserved: %g at rest, %g moving (tolerance %g)", (double)gw[0], (double)gw[1], (double)tol);
  } else if (!strcmp(test, "balance")) {
    PetscReal fmax[5], scale[5], worst = 0;
    PetscCall(SquallESDGSetInitialCondition(s, "isothermal", Q));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(RHSMax(s, Q, F, fmax, scale));
    if (s->Fref) {
      for (PetscInt f = 0; f < 5; f++) worst = PetscMax(worst, fmax[f] / scale[f]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "isothermal at rest with the reference residual: max |F_f| / (lambda |q_f|) = %.3e\n", (double)worst));
      PetscCheck(worst < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the isothermal atmosphere is not at rest with the reference residual: %g", (double)worst);
    } else {
      PetscReal mom = PetscMax(fmax[1], PetscMax(fmax[2], fmax[3])) / 1.0;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "isothermal at rest without the reference residual: max |F_rho| %.3e kg/(m^3 s), max |F_rho u| %.3e kg/(m^2 s^2) (relative to lambda |q|: %.3e), max |F_E| %.3e\n", (double)fmax[0], (double)mom,
                            (double)(mom / scale[1]), (double)fmax[4]));
    }
  } else if (!strcmp(test, "entropy")) {
    PetscCall(SquallESDGSetInitialCondition(s, casename, Q));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(SquallTestCheckEntropyConservation(s, Q, F, tol, "shell, "));
  } else if (!strcmp(test, "ranks")) {
    Vec P;
    PetscCall(SquallESDGSetInitialCondition(s, casename, Q));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(LatticeOrder(s, F, &P));
    if (out[0]) {
      PetscViewer v;
      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, out, FILE_MODE_WRITE, &v));
      PetscCall(VecView(P, v));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RHS written to %s\n", out));
    }
    if (ref[0]) {
      PetscViewer v;
      Vec         R;
      PetscReal   dmax, rmax;
      PetscCall(VecDuplicate(P, &R));
      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, ref, FILE_MODE_READ, &v));
      PetscCall(VecLoad(R, v));
      PetscCall(PetscViewerDestroy(&v));
      PetscCall(VecNorm(R, NORM_INFINITY, &rmax));
      PetscCall(VecAXPY(R, -1, P));
      PetscCall(VecNorm(R, NORM_INFINITY, &dmax));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RHS against %s: max difference / max |F| = %.3e\n", ref, (double)(dmax / rmax)));
      PetscCheck(dmax <= tol * rmax, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the RHS differs from %s by %g relative (tolerance %g)", ref, (double)(dmax / rmax), (double)tol);
      PetscCall(VecDestroy(&R));
    }
    PetscCall(VecDestroy(&P));
  } else if (!strcmp(test, "steps")) {
    /* the isothermal atmosphere at rest on the rotating sphere, -steps LSRK (or with options HEVI) steps at CFL 1: it stays at rest, mass and energy stay */
    TS                 ts;
    PetscReal          dt, m0, m1, e0, e1, umax = 0, gu;
    PetscInt           steps = 20;
    const PetscScalar *qa;
    PetscReal          dtscale = 1;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt_scale", &dtscale, NULL));
    PetscCall(SquallESDGSetInitialCondition(s, "isothermal", Q));
    PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
    dt *= dtscale; /* HEVI: beyond the explicit limit of the thin vertical direction */
    PetscCall(SquallDGMeshIntegrate(m, Q, 0, &m0));
    PetscCall(SquallDGMeshIntegrate(m, Q, 4, &e0));
    PetscCall(SquallTestCreateTS(s, dt, steps, steps * dt, &ts));
    PetscCall(TSSetFromOptions(ts)); /* -ts_type arkimex with -esdg_imex vertical: HEVI */
    PetscCall(TSSolve(ts, Q));
    PetscCall(TSDestroy(&ts));
    PetscCall(SquallDGMeshIntegrate(m, Q, 0, &m1));
    PetscCall(SquallDGMeshIntegrate(m, Q, 4, &e1));
    PetscCall(VecGetArrayRead(Q, &qa));
    for (PetscInt e = 0; e < m->nOwned; e++)
      for (PetscInt n = 0; n < m->Np; n++)
        for (PetscInt d = 1; d <= 3; d++) umax = PetscMax(umax, PetscAbsScalar(qa[(m->gslot[e] * 5 + d) * m->Np + n] / qa[(m->gslot[e] * 5) * m->Np + n]));
    PetscCall(VecRestoreArrayRead(Q, &qa));
    PetscCallMPI(MPIU_Allreduce(&umax, &gu, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "isothermal at rest, %" PetscInt_FMT " steps of %.3f s: max |u| %.3e m/s, mass drift %.3e, energy drift %.3e (relative)\n", steps, (double)dt, (double)gu, (double)((m1 - m0) / m0), (double)((e1 - e0) / e0)));
    PetscCheck(gu < 1e6 * PETSC_MACHINE_EPSILON && PetscAbsReal(m1 - m0) < tol * m0 && PetscAbsReal(e1 - e0) < tol * e0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the atmosphere at rest did not stay at rest (max |u| %g) or drifted", (double)gu);
  } else if (!strcmp(test, "hevi")) {
    /* HEVI's split on the shell: the radial direction is the vertical part, F_H + F_V = F to round-off */
    Vec       FH, FV;
    PetscReal fmax[5], scale[5], worst = 0;
    PetscCall(VecDuplicate(Q, &FH));
    PetscCall(VecDuplicate(Q, &FV));
    PetscCall(SquallESDGSetInitialCondition(s, casename, Q));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_HORIZONTAL, 0, Q, FH));
    PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, 0, Q, FV));
    PetscCall(VecAXPY(FH, 1, FV));
    PetscCall(VecAXPY(FH, -1, F));
    PetscCall(RHSMax(s, Q, FH, fmax, scale));
    for (PetscInt f = 0; f < 5; f++) worst = PetscMax(worst, fmax[f] / scale[f]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "HEVI split on the shell: max |F_H + F_V - F| / (lambda |q_f|) = %.3e\n", (double)worst));
    PetscCheck(worst < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "F_H + F_V differs from F by %g", (double)worst);
    PetscCall(VecDestroy(&FH));
    PetscCall(VecDestroy(&FV));
  } else if (!strcmp(test, "output")) {
    /* the isothermal atmosphere's surface level: every surface node once, the surface pressure p0 everywhere */
    PetscMPIInt rank;
    PetscCall(SquallESDGSetInitialCondition(s, "isothermal", Q));
    PetscCall(SquallESDGWriteShellLevel(s, Q, 0, "shell_surface.csv"));
    PetscCall(SquallDGMeshWriteVTK(m, Q, NULL, "shell_state"));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) {
      FILE     *fp;
      char      line[512];
      PetscInt  rows = 0, want = 6 * m->shellNh * m->shellNh * m->Nfp;
      PetscReal p0 = -1, dp = 0, latmax = 0;
      PetscCall(PetscFOpen(PETSC_COMM_SELF, "shell_surface.csv", "r", &fp));
      PetscCheck(fgets(line, sizeof(line), fp) && !strncmp(line, "lat,lon,height,p,T,u,v,w", 24), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "shell_surface.csv: unexpected header %s", line);
      while (fgets(line, sizeof(line), fp)) {
        double lat, lon, h, p;
        PetscCheck(sscanf(line, "%lf,%lf,%lf,%lf", &lat, &lon, &h, &p) == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "shell_surface.csv: bad row %s", line);
        if (p0 < 0) p0 = p;
        dp     = PetscMax(dp, PetscAbsReal(p - p0));
        latmax = PetscMax(latmax, PetscAbsReal(lat));
        PetscCheck(h == 0 && PetscAbsReal(lon) <= 180, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "shell_surface.csv: a row off the surface or out of range: %s", line);
        rows++;
      }
      PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "surface level: %" PetscInt_FMT " nodes (want %" PetscInt_FMT "), surface pressure %.6f Pa, spread %.3e Pa, max |latitude| %.4f deg\n", rows, want, (double)p0, (double)dp, (double)latmax));
      PetscCheck(rows == want && dp <= 1e-9 * p0 && latmax > 89 && latmax <= 90, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the surface level is wrong (rows, pressure spread or latitudes)");
    }
  } else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-test %s unknown: valid are mesh, freestream, balance, entropy, ranks, steps, hevi, output", test);
  PetscCall(VecDestroy(&Q));
  PetscCall(VecDestroy(&F));
  PetscCall(SquallESDGDestroy(&s));
  PetscCall(PetscFinalize());
  return 0;
}
