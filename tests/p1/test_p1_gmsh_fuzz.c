static char help[] = "Fuzzing of the Gmsh input path: random mutations of a valid Gmsh 2.2 file go through SquallP1CreateMeshFromFile()\n"
                     "(squall's line check, then PETSc's reader) and SquallP1SetUp(). Each must either fail with a PETSc error or\n"
                     "give a mesh of valid tetrahedra whose element count is that of the file; a crash fails the test.\n"
                     "  -file F (a valid mesh) -mutations n (default 400) -seed s\n";

#include <squall.h>
#include "squalltest.h"
#include <petscdmplex.h>

#define FUZZ_MAX_LINES 4096
#define FUZZ_LINE 256

typedef struct {
  char        line[FUZZ_MAX_LINES][FUZZ_LINE];
  int         n;
  PetscRandom rnd;
} Fuzz;

static int RandInt(Fuzz *f, int n)
{
  PetscReal r;

  (void)PetscRandomGetValueReal(f->rnd, &r);
  return (int)(r * n) % n;
}

/* one mutation of one line, of the kinds a damaged or hand-edited file shows: a token replaced by another
   number (out of range, negative, huge, not a number), a token removed or repeated, the line removed or
   repeated, a character flipped, the line truncated */
static void Mutate(Fuzz *f, char out[][FUZZ_LINE], int *nout)
{
  const char *repl[] = {"0", "-1", "999", "2147483648", "1e300", "nan", "x", "", "4", "65", "162", "3.5"};
  int         target = RandInt(f, f->n), kind = RandInt(f, 7), k = 0;

  for (int i = 0; i < f->n; i++) {
    char *dst = out[k];
    if (i != target) {
      (void)PetscStrncpy(dst, f->line[i], FUZZ_LINE);
      k++;
      continue;
    }
    if (kind == 0) continue; /* drop the line */
    (void)PetscStrncpy(dst, f->line[i], FUZZ_LINE);
    if (kind == 1) { /* repeat it */
      (void)PetscStrncpy(out[++k], f->line[i], FUZZ_LINE);
    } else if (kind == 2) { /* flip a character */
      size_t len = strlen(dst);
      if (len) dst[RandInt(f, (int)len)] = (char)(' ' + RandInt(f, 95));
    } else if (kind == 3) { /* truncate */
      size_t len = strlen(dst);
      if (len) dst[RandInt(f, (int)len)] = 0;
    } else { /* kinds 4-6: a token replaced, removed or repeated */
      char  *tok[64], copy[FUZZ_LINE];
      int    nt  = 0, t;
      size_t off = 0;

      (void)PetscStrncpy(copy, f->line[i], FUZZ_LINE);
      for (char *p = strtok(copy, " "); p && nt < 64; p = strtok(NULL, " ")) tok[nt++] = p;
      if (nt) {
        t      = RandInt(f, nt);
        dst[0] = 0;
        for (int j = 0; j < nt; j++) {
          const char *w = tok[j];
          if (j == t && kind == 4) w = repl[RandInt(f, (int)PETSC_STATIC_ARRAY_LENGTH(repl))];
          if (j == t && kind == 5) continue;
          off += (size_t)snprintf(dst + off, FUZZ_LINE - off, "%s%s", off ? " " : "", w);
          if (j == t && kind == 6) off += (size_t)snprintf(dst + off, FUZZ_LINE - off, " %s", w);
          if (off >= FUZZ_LINE) break;
        }
      }
    }
    k++;
  }
  *nout = k;
}

/* tetrahedra (element type 4) listed in the $Elements section of the file's lines */
static PetscInt CountTets(char lines[][FUZZ_LINE], int n)
{
  PetscInt ntet = 0;
  int      in   = 0;

  for (int i = 0; i < n; i++) {
    long id, type;
    if (!strcmp(lines[i], "$Elements"))
      in = 1;
    else if (!strcmp(lines[i], "$EndElements"))
      in = 0;
    else if (in == 1)
      in = 2; /* the count line */
    else if (in == 2 && sscanf(lines[i], "%ld %ld", &id, &type) == 2 && type == 4)
      ntet++;
  }
  return ntet;
}

/* a mesh that was accepted: every cell a tetrahedron with 4 distinct vertices, and P1's set-up (which rejects
   inverted and degenerate elements with an error) */
static PetscErrorCode CheckAccepted(DM dm, PetscInt ncells_file, PetscBool *ok)
{
  PetscInt       c0, c1, v0, v1;
  SquallP1       p1;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &c0, &c1));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &v0, &v1));
  if (c1 - c0 != ncells_file) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "accepted a mesh of %" PetscInt_FMT " cells from a file of %" PetscInt_FMT " tetrahedra\n", c1 - c0, ncells_file));
    *ok = PETSC_FALSE;
  }
  for (PetscInt c = c0; c < c1 && *ok; c++) {
    PetscInt *cl = NULL, ncl, vs[4], nv = 0;
    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++)
      if (cl[2 * i] >= v0 && cl[2 * i] < v1 && nv < 4) vs[nv++] = cl[2 * i];
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    if (nv != 4 || vs[0] == vs[1] || vs[0] == vs[2] || vs[0] == vs[3] || vs[1] == vs[2] || vs[1] == vs[3] || vs[2] == vs[3]) *ok = PETSC_FALSE;
  }
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SquallP1Create(dm, &p1);
  if (!ierr) ierr = SquallP1SetUp(p1);
  if (!ierr || p1) (void)SquallP1Destroy(&p1);
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char     file[PETSC_MAX_PATH_LEN] = "", tmp[PETSC_MAX_PATH_LEN];
  PetscInt nmut = 400, seed = 1, nerr = 0, nacc = 0, nbad = 0;
  Fuzz    *f;
  char(*out)[FUZZ_LINE];
  FILE *fp;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Gmsh fuzzing", NULL);
  PetscCall(PetscOptionsString("-file", "A valid Gmsh 2.2 mesh of tetrahedra", NULL, file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsInt("-mutations", "Mutated files to try", NULL, nmut, &nmut, NULL));
  PetscCall(PetscOptionsInt("-seed", "Seed of the mutations", NULL, seed, &seed, NULL));
  PetscOptionsEnd();
  PetscCall(PetscNew(&f));
  PetscCall(PetscMalloc1(FUZZ_MAX_LINES + 1, &out));
  PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &fp));
  while (f->n < FUZZ_MAX_LINES && fgets(f->line[f->n], FUZZ_LINE, fp)) {
    f->line[f->n][strcspn(f->line[f->n], "\r\n")] = 0;
    f->n++;
  }
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  {
    DM        dm;
    PetscBool ok;
    PetscCall(SquallP1CreateMeshFromFile(PETSC_COMM_SELF, file, &dm));
    PetscCall(CheckAccepted(dm, CountTets(f->line, f->n), &ok));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s is not a valid mesh of tetrahedra to start the mutations from", file);
    PetscCall(DMDestroy(&dm));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &f->rnd));
  PetscCall(PetscRandomSetSeed(f->rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(f->rnd));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "fuzz-%d.msh", (int)seed));
  for (PetscInt m = 0; m < nmut; m++) {
    int            nout;
    DM             dm = NULL;
    PetscErrorCode ierr;

    Mutate(f, out, &nout);
    PetscCall(PetscFOpen(PETSC_COMM_SELF, tmp, "w", &fp));
    for (int i = 0; i < nout; i++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s\n", out[i]));
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SquallP1CreateMeshFromFile(PETSC_COMM_SELF, tmp, &dm);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      nerr++;
      (void)DMDestroy(&dm);
      continue;
    }
    {
      PetscBool ok;
      nacc++;
      PetscCall(CheckAccepted(dm, CountTets(out, nout), &ok));
      if (!ok) {
        nbad++;
        char keep[PETSC_MAX_PATH_LEN];
        PetscCall(PetscSNPrintf(keep, sizeof(keep), "fuzz-wrong-%d-%d.msh", (int)seed, (int)m));
        (void)rename(tmp, keep);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "mutation %" PetscInt_FMT " was accepted with a wrong mesh: kept as %s\n", m, keep));
      }
    }
    PetscCall(DMDestroy(&dm));
  }
  (void)remove(tmp);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " mutations of %s: %" PetscInt_FMT " refused with an error, %" PetscInt_FMT " accepted, %" PetscInt_FMT " of them wrong\n", nmut, file, nerr, nacc, nbad));
  PetscCheck(nbad == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " mutated files gave a wrong mesh", nbad);
  PetscCheck(nerr > 0 && nacc > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the mutations should give both refused and accepted files (refused %" PetscInt_FMT ", accepted %" PetscInt_FMT ")", nerr, nacc);
  PetscCall(PetscRandomDestroy(&f->rnd));
  PetscCall(PetscFree(out));
  PetscCall(PetscFree(f));
  PetscCall(PetscFinalize());
  return 0;
}
