/* Output of an ESDG state: HDF5 checkpoints in a layout that does not depend on the partition (a
   restart may use any number of ranks), recording what a restart must match, and plane slices of
   potential temperature as CSV for scripts/plot_slice.py. */
#include "ts/esdgimpl.h"
#include <petscviewerhdf5.h>
#include <petscdmforest.h>

#define CKPT_DATASET "esdg_state"
/* the value of the dataset's "layout" attribute; a file without it is not read */
#define CKPT_LAYOUT "elements by lattice index i + Kx (j + Ky k), each nf x Np values field-major"

/*@C
  SquallESDGSetCheckpointCase - names the initial condition (test case) that checkpoints record, and
  forgets its parameters; SquallESDGAddCheckpointCaseReals() and SquallESDGAddCheckpointCaseString()
  add them. SquallESDGSetInitialCondition() calls these for squall's test cases; a restart whose case
  or parameters differ from the file's is refused.
@*/
PetscErrorCode SquallESDGSetCheckpointCase(SquallESDG s, const char name[])
{
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(s->caseName, name ? name : "", sizeof(s->caseName)));
  s->ncaseParams = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a real as the shortest decimal that reads back to the same value, so that equal values give equal strings */
static PetscErrorCode FormatReal(PetscReal v, char buf[], size_t len)
{
  PetscFunctionBegin;
  for (int digits = 6; digits <= 17; digits++) {
    PetscCall(PetscSNPrintf(buf, len, "%.*g", digits, (double)v));
    if ((PetscReal)strtod(buf, NULL) == v) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FormatReals(PetscInt n, const PetscReal v[], char buf[], size_t len)
{
  size_t used = 0;

  PetscFunctionBegin;
  buf[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    char one[32];
    PetscCall(FormatReal(v[i], one, sizeof(one)));
    PetscCall(PetscSNPrintf(buf + used, len - used, "%s%s", i ? "," : "", one));
    PetscCall(PetscStrlen(buf, &used));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGAddCheckpointCaseString - adds a parameter (key, usually the option that sets it, and its
  value) of the case named by SquallESDGSetCheckpointCase() to what checkpoints record.
@*/
PetscErrorCode SquallESDGAddCheckpointCaseString(SquallESDG s, const char key[], const char value[])
{
  PetscFunctionBegin;
  PetscCheck(s->ncaseParams < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(s->caseKey), s->comm, PETSC_ERR_ARG_OUTOFRANGE, "At most %d case parameters are recorded in a checkpoint", (int)PETSC_STATIC_ARRAY_LENGTH(s->caseKey));
  PetscCall(PetscStrncpy(s->caseKey[s->ncaseParams], key, sizeof(s->caseKey[0])));
  PetscCall(PetscStrncpy(s->caseValue[s->ncaseParams], value, sizeof(s->caseValue[0])));
  s->ncaseParams++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGAddCheckpointCaseReals - SquallESDGAddCheckpointCaseString() for n reals (written exactly,
  comma-separated).
@*/
PetscErrorCode SquallESDGAddCheckpointCaseReals(SquallESDG s, const char key[], PetscInt n, const PetscReal v[])
{
  char buf[sizeof(s->caseValue[0])];

  PetscFunctionBegin;
  PetscCall(FormatReals(n, v, buf, sizeof(buf)));
  PetscCall(SquallESDGAddCheckpointCaseString(s, key, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a checkpoint records besides the state, as strings: a restart must match each refused item
   exactly (the layout or the physics would change); the others are reported */
typedef struct {
  char      key[48], value[160];
  PetscBool warnOnly, caseParam;
} CkptItem;

#define CKPT_MAX_ITEMS 48

static PetscErrorCode AddItem(CkptItem it[], PetscInt *n, const char key[], PetscBool warnOnly, PetscBool caseParam, const char value[])
{
  PetscFunctionBegin;
  PetscCheck(*n < CKPT_MAX_ITEMS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Too many checkpoint items");
  PetscCall(PetscStrncpy(it[*n].key, key, sizeof(it[*n].key)));
  PetscCall(PetscStrncpy(it[*n].value, value, sizeof(it[*n].value)));
  it[*n].warnOnly  = warnOnly;
  it[*n].caseParam = caseParam;
  (*n)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckpointItems(SquallESDG s, CkptItem it[], PetscInt *n)
{
  SquallDGMesh m = s->mesh;
  PetscInt     ref, size[3];
  PetscReal    bounds[6];
  char         buf[160];

  PetscFunctionBegin;
  PetscCheck(!m->shell, s->comm, PETSC_ERR_SUP, "Checkpoints of -%smesh shell are not supported: they record the brick's layout", s->prefix);
  *n = 0;
  PetscCall(DMForestGetInitialRefinement(m->dm, &ref));
  for (PetscInt d = 0; d < 3; d++) {
    size[d]           = m->ncell[d] >> ref;
    bounds[2 * d]     = m->lo[d];
    bounds[2 * d + 1] = m->hi[d];
  }
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d.%d", SQUALL_VERSION_MAJOR, SQUALL_VERSION_MINOR));
  PetscCall(AddItem(it, n, "squall version", PETSC_TRUE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d.%d.%d", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR));
  PetscCall(AddItem(it, n, "PETSc version", PETSC_TRUE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "PetscReal %d bytes, PetscScalar %d bytes", (int)sizeof(PetscReal), (int)sizeof(PetscScalar)));
  PetscCall(AddItem(it, n, "precision", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, m->N));
  PetscCall(AddItem(it, n, "-esdg_order", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, m->nf));
  PetscCall(AddItem(it, n, "fields", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, size[0], size[1], size[2]));
  PetscCall(AddItem(it, n, "-dm_p4est_brick_size", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, ref));
  PetscCall(AddItem(it, n, "-dm_forest_initial_refinement", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReals(6, bounds, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-dm_p4est_brick_bounds", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%d,%d,%d", (int)m->periodic[0], (int)m->periodic[1], (int)m->periodic[2]));
  PetscCall(AddItem(it, n, "-dm_p4est_brick_periodicity", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReal(m->warp, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_mesh_warp", PETSC_FALSE, PETSC_FALSE, buf));
  /* the terrain map moves the nodes: its type and coordinate, and with a built-in terrain its parameters */
  if (m->terrainFn)
    PetscCall(PetscStrncpy(buf, "user function", sizeof(buf)));
  else if (m->terrain.type == SQUALL_TERRAIN_NONE)
    PetscCall(PetscStrncpy(buf, "none", sizeof(buf)));
  else
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s, %s", m->terrain.type == SQUALL_TERRAIN_SCHAER ? "schaer" : "bell", m->terrain.vcoord == SQUALL_VCOORD_SLEVE ? "sleve" : "gal_chen"));
  PetscCall(AddItem(it, n, "-esdg_terrain", PETSC_FALSE, PETSC_FALSE, buf));
  if (m->terrain.type != SQUALL_TERRAIN_NONE && !m->terrainFn) {
    const PetscReal p1[3] = {m->terrain.h0, m->terrain.a, m->terrain.lambda}, p2[4] = {m->terrain.xc, m->terrain.yc, m->terrain.s1, m->terrain.s2};
    PetscCall(FormatReals(3, p1, buf, sizeof(buf)));
    PetscCall(AddItem(it, n, "-esdg_terrain_h0, _a, _lambda", PETSC_FALSE, PETSC_FALSE, buf));
    PetscCall(FormatReals(4, p2, buf, sizeof(buf)));
    PetscCall(AddItem(it, n, "-esdg_terrain_center, -esdg_sleve_scales", PETSC_FALSE, PETSC_FALSE, buf));
  }
  PetscCall(FormatReal(s->gas.gamma, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_gamma", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReal(s->gas.R, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_gas_constant", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReal(s->gas.g, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_gravity", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(AddItem(it, n, "-esdg_coriolis", PETSC_FALSE, PETSC_FALSE, SquallCoriolisTypes[s->coriolis]));
  PetscCall(FormatReal(s->f0, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_coriolis_f0", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReal(s->beta0, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_coriolis_beta0", PETSC_FALSE, PETSC_FALSE, buf));
  PetscCall(FormatReal(s->y0, buf, sizeof(buf)));
  PetscCall(AddItem(it, n, "-esdg_coriolis_y0", PETSC_FALSE, PETSC_FALSE, buf));
  /* the file holds the TS state: the departure from the case's background in perturbation form */
  PetscCall(AddItem(it, n, "-esdg_perturbation", PETSC_FALSE, PETSC_FALSE, PetscBools[s->perturb]));
  PetscCall(AddItem(it, n, "-esdg_reference_residual", PETSC_FALSE, PETSC_FALSE, PetscBools[s->useRef]));
  /* choices of the discretisation that a continuation may change on purpose */
  PetscCall(AddItem(it, n, "-esdg_surface_flux", PETSC_TRUE, PETSC_FALSE, SquallSurfaceFluxTypes[s->surface]));
  PetscCall(AddItem(it, n, "-esdg_perturbation_pressure", PETSC_TRUE, PETSC_FALSE, PetscBools[s->pertPressure]));
  {
    /* rate, top layer's bottom (none: above the top), lateral widths */
    const PetscReal sp[4] = {s->sponge.rate, s->sponge.z0 < PETSC_MAX_REAL ? s->sponge.z0 : m->hi[2], s->sponge.width[0], s->sponge.width[1]};
    PetscCall(FormatReals(4, sp, buf, sizeof(buf)));
    PetscCall(AddItem(it, n, "-esdg_sponge (rate, top, lateral x, y)", PETSC_TRUE, PETSC_FALSE, buf));
  }
  /* a run that did not name its case (its own initial condition) checks none */
  if (s->caseName[0]) {
    PetscCall(AddItem(it, n, "case", PETSC_FALSE, PETSC_FALSE, s->caseName));
    for (PetscInt i = 0; i < s->ncaseParams; i++) PetscCall(AddItem(it, n, s->caseKey[i], PETSC_FALSE, PETSC_TRUE, s->caseValue[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file's vector (element-major, the elements in lattice order, split evenly over the ranks, so
   that any number of ranks reads it) and the scatter to it from the state's global vector, through
   a host vector H with the state's layout (so that device vectors are written from their host copy) */
static PetscErrorCode CheckpointLayout(SquallESDG s, Vec Q, Vec *P, Vec *H, VecScatter *sct)
{
  SquallDGMesh   m    = s->mesh;
  const PetscInt dofs = m->nf * m->Np;
  PetscInt       nl = PETSC_DECIDE, NG = m->nGlobal, n, N, rstart, *from, *to;
  IS             isf, ist;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(s->comm, &nl, &NG));
  PetscCall(VecCreate(s->comm, P));
  PetscCall(VecSetSizes(*P, nl * dofs, NG * dofs));
  PetscCall(VecSetBlockSize(*P, dofs));
  PetscCall(VecSetType(*P, VECMPI));
  PetscCall(PetscObjectSetName((PetscObject)*P, CKPT_DATASET));
  PetscCall(VecGetLocalSize(Q, &n));
  PetscCall(VecGetSize(Q, &N));
  PetscCheck(n == m->nOwned * dofs, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The state has %" PetscInt_FMT " local values, not the %" PetscInt_FMT " of the ESDG's global vectors", n, m->nOwned * dofs);
  PetscCall(VecCreateMPIWithArray(s->comm, 1, n, N, NULL, H));
  PetscCall(VecGetOwnershipRange(Q, &rstart, NULL));
  PetscCall(PetscMalloc2(m->nOwned, &from, m->nOwned, &to));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscInt *ijk = &m->ijk[3 * e];
    from[e]             = rstart / dofs + m->gslot[e];
    to[e]               = ijk[0] + m->ncell[0] * (ijk[1] + m->ncell[1] * ijk[2]);
  }
  PetscCall(ISCreateBlock(s->comm, dofs, m->nOwned, from, PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateBlock(s->comm, dofs, m->nOwned, to, PETSC_COPY_VALUES, &ist));
  PetscCall(PetscFree2(from, to));
  PetscCall(VecScatterCreate(*H, isf, *P, ist, sct));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGWriteCheckpoint - writes the state Q, the time, step number and time step to an HDF5 file,
  with what a restart must match (SquallESDGReadCheckpoint()). The dataset "esdg_state" holds the
  elements in the brick's lattice order (element (i, j, k) of the refined Kx x Ky x Kz lattice is row
  i + Kx (j + Ky k), each row the element's nf x Np values field-major), so the file does not depend
  on the number of ranks. Q is the TS state as it is (in perturbation form the departure from the
  reference; the file records which). The file is written beside filename and renamed over it when
  complete, so a crash leaves the previous file intact. Collective.
@*/
PetscErrorCode SquallESDGWriteCheckpoint(SquallESDG s, Vec Q, PetscReal time, PetscInt step, PetscReal dt, const char filename[])
{
  PetscViewer        v;
  Vec                P, H;
  VecScatter         sct;
  const PetscScalar *qa;
  PetscMPIInt        size;
  PetscInt           ranks, n;
  CkptItem          *it;
  char               tmp[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(CheckpointLayout(s, Q, &P, &H, &sct));
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecPlaceArray(H, qa));
  PetscCall(VecScatterBegin(sct, H, P, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, H, P, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecResetArray(H));
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  ranks = size;
  PetscCall(PetscMalloc1(CKPT_MAX_ITEMS, &it));
  PetscCall(CheckpointItems(s, it, &n));
  PetscCall(SquallOutputTemporaryName(filename, tmp, sizeof(tmp)));
  PetscCall(PetscViewerHDF5Open(s->comm, tmp, FILE_MODE_WRITE, &v));
  PetscCall(VecView(P, v));
  PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, "layout", PETSC_STRING, CKPT_LAYOUT));
  PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, "time", PETSC_REAL, &time));
  PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, "step", PETSC_INT, &step));
  PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, "dt", PETSC_REAL, &dt));
  PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, "ranks", PETSC_INT, &ranks));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscViewerHDF5WriteAttribute(v, CKPT_DATASET, it[i].key, PETSC_STRING, it[i].value));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscFree(it));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&H));
  PetscCall(VecDestroy(&P));
  PetscCall(SquallOutputCommit(s->comm, filename));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 opens the file with HDF5's error printing off, so that a missing, unreadable, foreign or
   truncated file gives one PETSc error naming it and the option, not HDF5's error stack */
static PetscErrorCode CheckpointCheckFile(MPI_Comm comm, const char filename[])
{
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscBool exists, readable;
    PetscCall(PetscTestFile(filename, '\0', &exists));
    PetscCall(PetscTestFile(filename, 'r', &readable));
    if (!exists)
      err = 1;
    else if (!readable)
      err = 2;
    else {
      H5E_auto2_t func;
      void       *data;
      hid_t       fid;
      (void)H5Eget_auto2(H5E_DEFAULT, &func, &data);
      (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
      if (H5Fis_hdf5(filename) <= 0)
        err = 3;
      else if ((fid = H5Fopen(filename, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        err = 4;
      else {
        if (H5Lexists(fid, CKPT_DATASET, H5P_DEFAULT) <= 0 || H5Aexists_by_name(fid, CKPT_DATASET, "layout", H5P_DEFAULT) <= 0) err = 5;
        (void)H5Fclose(fid);
      }
      (void)H5Eset_auto2(H5E_DEFAULT, func, data);
    }
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(err != 1, comm, PETSC_ERR_FILE_OPEN, "Cannot read the checkpoint %s (-esdg_restart): no such file", filename);
  PetscCheck(err != 2, comm, PETSC_ERR_FILE_OPEN, "Cannot read the checkpoint %s (-esdg_restart): the file is not readable", filename);
  PetscCheck(err != 3, comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot read the checkpoint %s (-esdg_restart): not an HDF5 file", filename);
  PetscCheck(err != 4, comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot read the checkpoint %s (-esdg_restart): HDF5 cannot open it (truncated or damaged)", filename);
  PetscCheck(err != 5, comm, PETSC_ERR_FILE_UNEXPECTED, "Cannot read the checkpoint %s (-esdg_restart): no dataset " CKPT_DATASET " with a layout attribute; not a checkpoint of this squall (it writes the elements in lattice order)", filename);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* every item of this run against the file: msg (empty if none) lists each refused mismatch, a warning the others */
static PetscErrorCode CheckpointCheckItems(SquallESDG s, PetscViewer v, const char filename[], char msg[], size_t msglen)
{
  CkptItem *it;
  PetscInt  n, nbad = 0, nwarn = 0;
  PetscBool caseDiffers = PETSC_FALSE;
  char     *bad, *warn;
  size_t    lbad = 0, lwarn = 0;
  /* PETSc's error messages hold up to 2048 characters */
  const size_t cap = 1700;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(CKPT_MAX_ITEMS, &it));
  PetscCall(PetscCalloc2(cap + 80, &bad, cap + 80, &warn));
  PetscCall(CheckpointItems(s, it, &n));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool has, same = PETSC_FALSE;
    char     *old = NULL, line[400];
    /* the parameters of another case are not comparable */
    if (it[i].caseParam && caseDiffers) continue;
    PetscCall(PetscViewerHDF5HasAttribute(v, CKPT_DATASET, it[i].key, &has));
    if (has) {
      PetscCall(PetscViewerHDF5ReadAttribute(v, CKPT_DATASET, it[i].key, PETSC_STRING, NULL, &old));
      PetscCall(PetscStrcmp(old, it[i].value, &same));
    }
    if (!same) {
      size_t len;
      if (!it[i].warnOnly) PetscCall(PetscStrcmp(it[i].key, "case", &caseDiffers));
      PetscCall(PetscSNPrintf(line, sizeof(line), "\n  %s: %s in the file, %s in this run", it[i].key, has ? old : "(not recorded)", it[i].value));
      PetscCall(PetscStrlen(line, &len));
      if (it[i].warnOnly) {
        if (lwarn + len < cap) PetscCall(PetscStrlcat(warn, line, cap + 80));
        PetscCall(PetscStrlen(warn, &lwarn));
        nwarn++;
      } else {
        if (lbad + len < cap)
          PetscCall(PetscStrlcat(bad, line, cap + 80));
        else if (lbad < cap)
          PetscCall(PetscStrlcat(bad, "\n  ...", cap + 80));
        PetscCall(PetscStrlen(bad, &lbad));
        nbad++;
      }
    }
    PetscCall(PetscFree(old));
  }
  if (nwarn && !nbad) PetscCall(PetscFPrintf(s->comm, PETSC_STDERR, "Warning: checkpoint %s (-esdg_restart) differs from this run in %" PetscInt_FMT " item%s that a restart may change:%s\n", filename, nwarn, nwarn > 1 ? "s" : "", warn));
  PetscCall(PetscFree(it));
  msg[0] = 0;
  if (nbad)
    PetscCall(PetscSNPrintf(msg, msglen, "Checkpoint %s (-esdg_restart) does not match this run in %" PetscInt_FMT " item%s:%s%s%s\nRestart with the settings that wrote it", filename, nbad, nbad > 1 ? "s" : "", bad,
                            nwarn ? "\n  and, not refused (a restart may change these):" : "", nwarn ? warn : ""));
  PetscCall(PetscFree2(bad, warn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGReadCheckpoint - reads a state written by SquallESDGWriteCheckpoint() into Q, on any number
  of ranks (bit for bit the state that was written). The file must match this run in everything that
  changes the layout or the physics (order, brick size, bounds, periodicity, refinement, warp, gas
  constants, gravity, Coriolis, precision, perturbation form and reference residual, the test case and
  its parameters): a mismatch is refused with one error listing each item with the file's and this
  run's value. A different squall or PETSc version, surface flux or -esdg_perturbation_pressure gives
  a warning. Collective.
@*/
PetscErrorCode SquallESDGReadCheckpoint(SquallESDG s, const char filename[], Vec Q, PetscReal *time, PetscInt *step, PetscReal *dt)
{
  PetscViewer  v;
  Vec          P, H;
  VecScatter   sct;
  PetscScalar *qa;
  char        *layout = NULL, msg[2000];
  PetscBool    same;

  PetscFunctionBegin;
  PetscCall(CheckpointCheckFile(s->comm, filename));
  PetscCall(PetscViewerHDF5Open(s->comm, filename, FILE_MODE_READ, &v));
  PetscCall(PetscViewerHDF5ReadAttribute(v, CKPT_DATASET, "layout", PETSC_STRING, NULL, &layout));
  PetscCall(PetscStrcmp(layout, CKPT_LAYOUT, &same));
  if (!same)
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "Checkpoint %s (-esdg_restart) has the layout \"%s\"; this squall reads \"%s\"", filename, layout, CKPT_LAYOUT));
  else
    PetscCall(CheckpointCheckItems(s, v, filename, msg, sizeof(msg)));
  PetscCall(PetscFree(layout));
  /* a refused file leaves nothing open behind (a caller may go on) */
  if (msg[0]) PetscCall(PetscViewerDestroy(&v));
  PetscCheck(!msg[0], s->comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  PetscCall(CheckpointLayout(s, Q, &P, &H, &sct));
  PetscCall(VecLoad(P, v));
  PetscCall(VecGetArrayWrite(Q, &qa));
  PetscCall(VecPlaceArray(H, qa));
  PetscCall(VecScatterBegin(sct, P, H, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(sct, P, H, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecResetArray(H));
  PetscCall(VecRestoreArrayWrite(Q, &qa));
  if (time) PetscCall(PetscViewerHDF5ReadAttribute(v, CKPT_DATASET, "time", PETSC_REAL, NULL, time));
  if (step) PetscCall(PetscViewerHDF5ReadAttribute(v, CKPT_DATASET, "step", PETSC_INT, NULL, step));
  if (dt) PetscCall(PetscViewerHDF5ReadAttribute(v, CKPT_DATASET, "dt", PETSC_REAL, NULL, dt));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&H));
  PetscCall(VecDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0 gathers nloc rows of ncol values from every rank and writes them as CSV under the header */
static PetscErrorCode ESDGWriteCSV(MPI_Comm comm, PetscInt ncol, PetscInt nloc, const PetscReal *buf, const char header[], const char filename[])
{
  PetscMPIInt rank, size, cnt, *counts = NULL, *displs = NULL;
  PetscReal  *all = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMPIIntCast(ncol * nloc, &cnt));
  if (rank == 0) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  if (rank == 0) {
    displs[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
    PetscCall(PetscMalloc1(displs[size] + 1, &all));
  }
  PetscCallMPI(MPI_Gatherv(buf, cnt, MPIU_REAL, all, counts, displs, MPIU_REAL, 0, comm));
  if (rank == 0) {
    FILE *fp;
    char  tmp[PETSC_MAX_PATH_LEN];
    PetscCall(SquallOutputTemporaryName(filename, tmp, sizeof(tmp)));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, tmp, "w", &fp));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s\n", header));
    for (PetscMPIInt i = 0; i < displs[size]; i += ncol) {
      for (PetscInt c = 0; c < ncol; c++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, c ? ",%.12g" : "%.12g", (double)all[i + c]));
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "\n"));
    }
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCall(SquallOutputCommit(comm, filename));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the nodes on the plane coordinate[axis] = value (within tol), over all ranks, and the nearest node coordinates
   below and above it (-PETSC_MAX_REAL, PETSC_MAX_REAL where there is none) */
static PetscErrorCode SliceNodes(SquallESDG s, PetscInt axis, PetscReal value, PetscReal tol, PetscInt *count, PetscReal *below, PetscReal *above)
{
  SquallDGMesh   m      = s->mesh;
  const PetscInt Np     = m->Np;
  PetscInt       n      = 0;
  PetscReal      loc[2] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL}, glob[2]; /* max below, -min above */

  PetscFunctionBegin;
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e) + axis * Np;
    for (PetscInt k = 0; k < Np; k++) {
      if (PetscAbsReal(X[k] - value) <= tol)
        n++;
      else if (X[k] < value)
        loc[0] = PetscMax(loc[0], X[k]);
      else
        loc[1] = PetscMax(loc[1], -X[k]);
    }
  }
  PetscCallMPI(MPIU_Allreduce(&n, count, 1, MPIU_INT, MPI_SUM, s->comm));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPI_MAX, s->comm));
  *below = glob[0];
  *above = -glob[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGCheckSlice - collective, after SquallESDGSetUp(): an error naming option (as the user gave it,
  e.g. "-esdg_slice_y_value") unless the plane coordinate[axis] = value lies inside the domain and on at
  least one node of the mesh (within 1e-9 of the extent), so that a slice is refused before the first step
  instead of coming out empty at the end. The message gives the valid range and the nearest node planes.
@*/
PetscErrorCode SquallESDGCheckSlice(SquallESDG s, PetscInt axis, PetscReal value, const char option[])
{
  SquallDGMesh m = s->mesh;
  PetscReal    tol, below, above;
  PetscInt     count;
  const char   c = "xyz"[PetscMax(PetscMin(axis, 2), 0)];

  PetscFunctionBegin;
  PetscCheck(s->setup, s->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallESDGSetUp() before SquallESDGCheckSlice()");
  PetscCheck(!m->shell, s->comm, PETSC_ERR_SUP, "%s: a slice cuts the brick along a plane; on -%smesh shell use SquallESDGWriteShellLevel()", option, s->prefix);
  PetscCheck(axis >= 0 && axis < 3, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Slice axis %" PetscInt_FMT " must be 0, 1 or 2", axis);
  tol = 1e-9 * (m->hi[axis] - m->lo[axis]);
  PetscCheck(value >= m->lo[axis] - tol && value <= m->hi[axis] + tol, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is outside the domain: valid %c values are %g to %g (-dm_p4est_brick_bounds)", option, (double)value, c, (double)m->lo[axis],
             (double)m->hi[axis]);
  PetscCall(SliceNodes(s, axis, value, tol, &count, &below, &above));
  if (count) PetscFunctionReturn(PETSC_SUCCESS);
  if (below > -PETSC_MAX_REAL && above < PETSC_MAX_REAL)
    SETERRQ(s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g lies on no node plane of the mesh (%c from %g to %g): the nearest node planes are %c = %.10g and %c = %.10g", option, (double)value, c, (double)m->lo[axis], (double)m->hi[axis], c, (double)below,
            c, (double)above);
  SETERRQ(s->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g lies on no node plane of the mesh (%c from %g to %g): the nearest node plane is %c = %.10g", option, (double)value, c, (double)m->lo[axis], (double)m->hi[axis], c,
          (double)(below > -PETSC_MAX_REAL ? below : above));
}

/*@C
  SquallESDGWriteSlice - writes x, y, z, potential temperature theta = T (p0/p)^(R/cp) and the velocity
  components u and w of every node on the plane coordinate[axis] = value (nodes within 1e-9 of the
  extent) to a CSV file (columns x,y,z,theta,u,w); rank 0 gathers. p0 = 1e5 Pa. A plane without nodes is an
  error (SquallESDGCheckSlice()), not an empty file.
@*/
PetscErrorCode SquallESDGWriteSlice(SquallESDG s, Vec XQ, PetscInt axis, PetscReal value, const char filename[])
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  const PetscReal    kappa = s->gas.R * (s->gas.gamma - 1) / (s->gas.gamma * s->gas.R);
  PetscInt           nloc  = 0;
  PetscReal         *buf, tol;

  PetscFunctionBegin;
  PetscCall(SquallESDGCheckSlice(s, axis, value, "the slice's value"));
  tol = 1e-9 * (m->hi[axis] - m->lo[axis]);
  PetscCall(PetscMalloc1((size_t)6 * m->nOwned * Np + 1, &buf));
  PetscCall(SquallESDGGetFullState(s, XQ, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal q[5], a[SQUALL_NAUX];
      if (PetscAbsReal(X[axis * Np + n] - value) > tol) continue;
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qa[(m->gslot[e] * 5 + f) * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      buf[6 * nloc + 0] = X[n];
      buf[6 * nloc + 1] = X[Np + n];
      buf[6 * nloc + 2] = X[2 * Np + n];
      /* (gamma-1)/gamma = R/cp */
      buf[6 * nloc + 3] = a[SQ_P] / (s->gas.R * a[SQ_RHO]) * PetscPowReal((PetscReal)1e5 / a[SQ_P], kappa);
      buf[6 * nloc + 4] = q[1] / q[0];
      buf[6 * nloc + 5] = q[3] / q[0];
      nloc++;
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, XQ, &Q));
  PetscCall(ESDGWriteCSV(s->comm, 6, nloc, buf, "x,y,z,theta,u,w", filename));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGWriteShellLevel - on the shell (-esdg_mesh shell), writes every node at the height r - a =
  height (0: the surface, where the column p is the surface pressure; nodes within 1e-9 of the thickness)
  to a CSV file with columns lat,lon,height,p,T,u,v,w: latitude and longitude in degrees, pressure in Pa,
  temperature in K, and the eastward, northward and radial velocity in m/s; rank 0 gathers. The nodes lie
  on the equiangular grid of the cube faces; a latitude-longitude map interpolates them.
@*/
PetscErrorCode SquallESDGWriteShellLevel(SquallESDG s, Vec XQ, PetscReal height, const char filename[])
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  PetscInt           nloc = 0;
  PetscReal         *buf;

  PetscFunctionBegin;
  PetscCheck(m->shell, s->comm, PETSC_ERR_ARG_WRONGSTATE, "SquallESDGWriteShellLevel() needs -%smesh shell", s->prefix);
  PetscCheck(height >= 0 && height <= m->shellH, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Shell level height %g is out of range: it must lie in [0, %g] (the shell's thickness)", (double)height, (double)m->shellH);
  PetscCall(PetscMalloc1((size_t)8 * m->nOwned * Np + 1, &buf));
  PetscCall(SquallESDGGetFullState(s, XQ, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal       q[5], a[SQUALL_NAUX], r, lat, lon, u[3], er[3], ee[3], en[3];
      const PetscReal x = X[n], y = X[Np + n], z = X[2 * Np + n];
      if (PetscAbsReal(m->zh[(size_t)e * Np + n] - height) > 1e-9 * m->shellH) continue;
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qa[(m->gslot[e] * 5 + f) * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      r     = PetscSqrtReal(x * x + y * y + z * z);
      lat   = PetscAsinReal(z / r);
      lon   = PetscAtan2Real(y, x);
      er[0] = PetscCosReal(lat) * PetscCosReal(lon), er[1] = PetscCosReal(lat) * PetscSinReal(lon), er[2] = PetscSinReal(lat);
      ee[0] = -PetscSinReal(lon), ee[1] = PetscCosReal(lon), ee[2] = 0;
      en[0] = -PetscSinReal(lat) * PetscCosReal(lon), en[1] = -PetscSinReal(lat) * PetscSinReal(lon), en[2] = PetscCosReal(lat);
      for (PetscInt d = 0; d < 3; d++) u[d] = q[1 + d] / q[0];
      buf[8 * nloc + 0] = lat * 180 / PETSC_PI;
      buf[8 * nloc + 1] = lon * 180 / PETSC_PI;
      buf[8 * nloc + 2] = m->zh[(size_t)e * Np + n];
      buf[8 * nloc + 3] = a[SQ_P];
      buf[8 * nloc + 4] = a[SQ_P] / (s->gas.R * a[SQ_RHO]);
      buf[8 * nloc + 5] = u[0] * ee[0] + u[1] * ee[1] + u[2] * ee[2];
      buf[8 * nloc + 6] = u[0] * en[0] + u[1] * en[1] + u[2] * en[2];
      buf[8 * nloc + 7] = u[0] * er[0] + u[1] * er[1] + u[2] * er[2];
      nloc++;
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, XQ, &Q));
  PetscCall(ESDGWriteCSV(s->comm, 8, nloc, buf, "lat,lon,height,p,T,u,v,w", filename));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
