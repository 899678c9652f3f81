static char help[] = "What an ESDG checkpoint records and how a restart checks it: the same settings read the state back\n"
                     "bit for bit; other settings of the mesh or the physics are refused with one error that names the file and\n"
                     "lists each mismatched item with the file's and this run's value; another squall or PETSc version only\n"
                     "warns; a file that is missing, not HDF5, truncated or not a checkpoint is refused naming it and -esdg_restart.\n"
                     "Run it with a bubble's options (options/rising_bubble.opts, -dm_forest_initial_refinement 0, -esdg_order 2).\n";

#include <petscviewerhdf5.h>
#include <squall.h>

#define FILE_A "ckpt_meta.h5"

static PetscInt nfail = 0;

#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!(cond)) {                                                      \
      nfail++;                                                          \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: " __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));                   \
    }                                                                   \
  } while (0)

/* a bubble ESDG with the options as they are now, its initial state in *Q */
static PetscErrorCode Create(SquallESDG *s, Vec *Q)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, s));
  PetscCall(SquallESDGSetFromOptions(*s));
  PetscCall(SquallESDGGetDM(*s, &dm));
  PetscCall(DMCreateGlobalVector(dm, Q));
  PetscCall(SquallESDGSetInitialCondition(*s, "bubble", *Q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SquallESDGReadCheckpoint() with errors returned, not printed: the error code and the message */
static PetscErrorCode TryRead(SquallESDG s, const char file[], Vec Q, PetscErrorCode *ierr, char msg[], size_t len)
{
  const char *text = NULL;

  PetscFunctionBegin;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = SquallESDGReadCheckpoint(s, file, Q, NULL, NULL, NULL);
  PetscCall(PetscPopErrorHandler());
  msg[0] = 0;
  if (*ierr) {
    /* (void *): the message argument is char ** before PETSc 3.23, const char ** from it */
    PetscCall(PetscErrorMessage(*ierr, NULL, (void *)&text));
    PetscCall(PetscStrncpy(msg, text, len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a read with other options must fail with PETSC_ERR_FILE_UNEXPECTED and a message holding each of want[] */
static PetscErrorCode ExpectMismatch(const char *label, const char *const opts[][2], const char *const want[])
{
  SquallESDG     s;
  Vec            Q;
  PetscErrorCode ierr;
  char           msg[1100], old[16][256];
  PetscBool      had[16];

  PetscFunctionBegin;
  /* PETSc keeps the first 1024 characters of the message: each case asks for fewer mismatches than fill it */
  for (PetscInt i = 0; opts[i][0]; i++) {
    PetscCall(PetscOptionsGetString(NULL, NULL, opts[i][0], old[i], sizeof(old[i]), &had[i]));
    PetscCall(PetscOptionsSetValue(NULL, opts[i][0], opts[i][1]));
  }
  PetscCall(Create(&s, &Q));
  PetscCall(TryRead(s, FILE_A, Q, &ierr, msg, sizeof(msg)));
  CHECK(ierr == PETSC_ERR_FILE_UNEXPECTED, "%s: the restart was not refused (error %d)", label, (int)ierr);
  for (PetscInt i = 0; want[i]; i++) {
    char *found;
    PetscCall(PetscStrstr(msg, want[i], &found));
    CHECK(found, "%s: the message lacks \"%s\":\n%s", label, want[i], msg);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: refused with\n%s\n", label, msg));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&s));
  for (PetscInt i = 0; opts[i][0]; i++) {
    if (had[i])
      PetscCall(PetscOptionsSetValue(NULL, opts[i][0], old[i][0] ? old[i] : NULL));
    else
      PetscCall(PetscOptionsClearValue(NULL, opts[i][0]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* replace a string attribute of the file's state (same length) */
static PetscErrorCode EditAttribute(const char file[], const char name[], const char value[])
{
  PetscViewer v;

  PetscFunctionBegin;
  PetscCall(PetscViewerHDF5Open(PETSC_COMM_WORLD, file, FILE_MODE_APPEND, &v));
  PetscCall(PetscViewerHDF5WriteAttribute(v, "esdg_state", name, PETSC_STRING, value));
  PetscCall(PetscViewerDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG     s;
  Vec            Q, R;
  PetscBool      equal;
  PetscErrorCode ierr;
  PetscMPIInt    rank;
  char           msg[1100], *p;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(Create(&s, &Q));
  PetscCall(VecDuplicate(Q, &R));
  PetscCall(SquallESDGWriteCheckpoint(s, Q, 1.5, 7, 0.25, FILE_A));

  { /* the same settings: read back bit for bit, with the time, step and time step */
    PetscReal t, dt;
    PetscInt  step;
    PetscCall(SquallESDGReadCheckpoint(s, FILE_A, R, &t, &step, &dt));
    PetscCall(VecEqual(Q, R, &equal));
    CHECK(equal && t == 1.5 && step == 7 && dt == 0.25, "read back: state %s, t %g, step %" PetscInt_FMT ", dt %g", equal ? "equal" : "DIFFERENT", (double)t, step, (double)dt);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "same settings: the state, t, step and dt read back bit for bit\n"));
  }
  { /* the mesh: order, brick, refinement, bounds, periodicity, warp */
    const char *const opts[][2] = {
      {"-esdg_order", "3"}, {"-dm_p4est_brick_size", "4,2,2"}, {"-dm_forest_initial_refinement", "1"}, {"-dm_p4est_brick_bounds", "0,4000,-1000,1000,0,2000"}, {"-dm_p4est_brick_periodicity", "1,0,0"}, {"-esdg_mesh_warp", "0.01"}, {NULL, NULL}};
    const char *const want[] = {FILE_A " (-esdg_restart) does not match this run in 6 items",
                                "-esdg_order: 2 in the file, 3 in this run",
                                "-dm_p4est_brick_size: 2,2,2 in the file, 4,2,2 in this run",
                                "-dm_forest_initial_refinement: 0 in the file, 1 in this run",
                                "-dm_p4est_brick_bounds: -1000,1000,-1000,1000,0,2000 in the file, 0,4000,-1000,1000,0,2000 in this run",
                                "-dm_p4est_brick_periodicity: 1,1,0 in the file, 1,0,0 in this run",
                                "-esdg_mesh_warp: 0 in the file, 0.01 in this run",
                                NULL};
    PetscCall(ExpectMismatch("mesh", opts, want));
  }
  { /* the physics: gas, gravity, Coriolis, the form, the case's parameters */
    const char *const opts[][2] = {{"-esdg_gamma", "1.3"},     {"-esdg_gas_constant", "287"}, {"-esdg_gravity", "9.8"}, {"-esdg_coriolis", "betaplane"}, {"-esdg_coriolis_f0", "1e-4"}, {"-esdg_coriolis_beta0", "1.6e-11"},
                                   {"-esdg_coriolis_y0", "5"}, {"-esdg_perturbation", "1"},   {"-bubble_theta", "290"}, {"-bubble_center", "1,2,3"},     {"-esdg_surface_flux", "ec"},  {NULL, NULL}};
    const char *const want[]    = {FILE_A " (-esdg_restart) does not match this run in 11 items",
                                   "-esdg_gamma: 1.4 in the file, 1.3 in this run",
                                   "-esdg_gas_constant: 287.6 in the file, 287 in this run",
                                   "-esdg_gravity: 9.81 in the file, 9.8 in this run",
                                   "-esdg_coriolis: none in the file, betaplane in this run",
                                   "-esdg_coriolis_f0: 0 in the file, 0.0001 in this run",
                                   "-esdg_coriolis_beta0: 0 in the file, 1.6e-11 in this run",
                                   "-esdg_coriolis_y0: 0 in the file, 5 in this run",
                                   "-esdg_perturbation: FALSE in the file, TRUE in this run",
                                   "-esdg_reference_residual: FALSE in the file, TRUE in this run",
                                   "-bubble_theta: 300 in the file, 290 in this run",
                                   "-bubble_center: 0,0,260 in the file, 1,2,3 in this run",
                                   "not refused",
                                   "-esdg_surface_flux: es in the file, ec in this run",
                                   NULL};
    PetscCall(ExpectMismatch("physics", opts, want));
  }
  /* another squall and PETSc: a warning, and the state is read */
  PetscCall(EditAttribute(FILE_A, "squall version", "0.0"));
  PetscCall(EditAttribute(FILE_A, "PETSc version", "3.0.0"));
  PetscCall(VecSet(R, 0));
  PetscCall(TryRead(s, FILE_A, R, &ierr, msg, sizeof(msg)));
  PetscCall(VecEqual(Q, R, &equal));
  CHECK(!ierr && equal, "other versions: error %d, state %s", (int)ierr, equal ? "equal" : "DIFFERENT");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "other versions: read with a warning\n"));
  /* another precision is refused (a restart in single from double is not a continuation bit for bit) */
  PetscCall(EditAttribute(FILE_A, "precision", sizeof(PetscReal) == 8 ? "PetscReal 4 bytes, PetscScalar 4 bytes" : "PetscReal 8 bytes, PetscScalar 8 bytes"));
  PetscCall(TryRead(s, FILE_A, R, &ierr, msg, sizeof(msg)));
  PetscCall(PetscStrstr(msg, "precision: PetscReal", &p));
  CHECK(ierr == PETSC_ERR_FILE_UNEXPECTED && p, "other precision: error %d, message %s", (int)ierr, msg);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "other precision: refused\n"));

  { /* files that are not checkpoints: each named with the option, none with HDF5's error stack */
    const char *const names[] = {"ckpt_missing.h5", "ckpt_text.h5", "ckpt_truncated.h5", "ckpt_other.h5"};
    const char *const want[]  = {"ckpt_missing.h5 (-esdg_restart): no such file", "ckpt_text.h5 (-esdg_restart): not an HDF5 file", "ckpt_truncated.h5 (-esdg_restart): HDF5 cannot open it", "ckpt_other.h5 (-esdg_restart): no dataset esdg_state"};
    if (rank == 0) {
      FILE  *in, *out;
      char   buf[4096];
      size_t n;
      (void)remove(names[0]);
      out = fopen(names[1], "w");
      PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", names[1]);
      fprintf(out, "not an HDF5 file\n");
      fclose(out);
      /* the first 4 kB of a checkpoint, as a write cut short would leave it */
      in  = fopen(FILE_A, "rb");
      out = fopen(names[2], "wb");
      PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot copy %s", FILE_A);
      n = fread(buf, 1, sizeof(buf), in);
      PetscCheck(fwrite(buf, 1, n, out) == n, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", names[2]);
      fclose(in);
      fclose(out);
    }
    {
      PetscViewer v;
      PetscCall(PetscObjectSetName((PetscObject)R, "other"));
      PetscCall(PetscViewerHDF5Open(PETSC_COMM_WORLD, names[3], FILE_MODE_WRITE, &v));
      PetscCall(VecView(R, v));
      PetscCall(PetscViewerDestroy(&v));
    }
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    for (PetscInt i = 0; i < 4; i++) {
      PetscCall(TryRead(s, names[i], R, &ierr, msg, sizeof(msg)));
      PetscCall(PetscStrstr(msg, want[i], &p));
      CHECK(ierr && p, "%s: error %d, message \"%s\"; expected \"%s\"", names[i], (int)ierr, msg, want[i]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "missing, text, truncated and foreign files: refused naming the file and -esdg_restart\n"));
  }
  PetscCall(VecDestroy(&Q));
  PetscCall(VecDestroy(&R));
  PetscCall(SquallESDGDestroy(&s));
  PetscCheck(!nfail, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " checkpoint checks failed", nfail);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checkpoint checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
