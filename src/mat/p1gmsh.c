/* A check of Gmsh ASCII 2.2 files before PETSc's reader sees them: PETSc's reader trusts the node
   references and the token counts of the element lines, so a reference to a missing node crashes it
   and a line with an extra token silently loses an element. Every line is checked against the format
   and the first problem is reported with the file's line number. Other Gmsh versions go to PETSc's
   reader as they are. */
#include "mat/p1impl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GMSH_LINE 4096

/* nodes of the Gmsh 2.2 element types squall can meet in a 3D mesh file (0: unknown type) */
static int GmshNodesOfType(long type)
{
  switch (type) {
    case 1: return 2;   /* line */
    case 2: return 3;   /* triangle */
    case 3: return 4;   /* quadrangle */
    case 4: return 4;   /* tetrahedron */
    case 5: return 8;   /* hexahedron */
    case 6: return 6;   /* prism */
    case 7: return 5;   /* pyramid */
    case 8: return 3;   /* second-order line */
    case 9: return 6;   /* second-order triangle */
    case 11: return 10; /* second-order tetrahedron */
    case 15: return 1;  /* point */
    default: return 0;
  }
}

typedef struct {
  FILE  *fp;
  long   line;
  char   buf[GMSH_LINE];
  char  *msg;
  size_t len;
} GmshReader;

/* the next line, without its end; 0 at the end of the file or for a line too long */
static int GmshNext(GmshReader *r)
{
  size_t n;

  if (!fgets(r->buf, sizeof(r->buf), r->fp)) return 0;
  r->line++;
  n = strlen(r->buf);
  if (n == sizeof(r->buf) - 1 && r->buf[n - 1] != '\n') {
    snprintf(r->msg, r->len, "line %ld is longer than %d characters", r->line, GMSH_LINE - 2);
    return 0;
  }
  r->buf[strcspn(r->buf, "\r\n")] = 0;
  return 1;
}

/* the whitespace-separated tokens of the current line as integers (reals where real is set), at most max */
static int GmshTokens(GmshReader *r, long v[], double x[], int max, int *count)
{
  char *s = r->buf, *end;
  int   n = 0;

  while (1) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) break;
    if (n == max) {
      snprintf(r->msg, r->len, "line %ld has more than %d values", r->line, max);
      return 1;
    }
    errno = 0;
    if (x)
      x[n] = strtod(s, &end);
    else
      v[n] = strtol(s, &end, 10);
    if (end == s || errno || (*end && *end != ' ' && *end != '\t')) {
      snprintf(r->msg, r->len, "line %ld: \"%.40s\" is not a%s number", r->line, s, x ? "" : "n integer");
      return 1;
    }
    s = end;
    n++;
  }
  *count = n;
  return 0;
}

static int GmshExpect(GmshReader *r, const char *what)
{
  if (!GmshNext(r) || strcmp(r->buf, what)) {
    if (!r->msg[0]) snprintf(r->msg, r->len, "line %ld should be %s", r->line, what);
    return 1;
  }
  return 0;
}

/* $Nodes: a count, then "id x y z" lines; marks the ids seen */
static int GmshNodes(GmshReader *r, char **seen, long *maxid)
{
  long   cnt, id, cap;
  double x[5];
  int    n;

  if (!GmshNext(r) || GmshTokens(r, &cnt, NULL, 1, &n) || n != 1 || cnt < 1 || cnt > 100000000) {
    if (!r->msg[0]) snprintf(r->msg, r->len, "line %ld should hold the number of nodes", r->line);
    return 1;
  }
  *maxid = 0;
  cap    = cnt + 1;
  *seen  = (char *)calloc((size_t)cap, 1);
  if (!*seen) {
    snprintf(r->msg, r->len, "out of memory for %ld nodes", cnt);
    return 1;
  }
  for (long i = 0; i < cnt; i++) {
    if (!GmshNext(r)) {
      if (!r->msg[0]) snprintf(r->msg, r->len, "the file ends after %ld of the %ld nodes", i, cnt);
      return 1;
    }
    if (GmshTokens(r, NULL, x, 5, &n)) return 1;
    id = (long)x[0];
    if (n != 4 || (double)id != x[0]) {
      snprintf(r->msg, r->len, "line %ld: a node is \"id x y z\" (4 values), not %d values", r->line, n);
      return 1;
    }
    if (id < 1 || id > 1000000000) {
      snprintf(r->msg, r->len, "line %ld: node id %ld is out of range (1 to 10^9)", r->line, id);
      return 1;
    }
    if (id >= cap) { /* ids may have gaps: grow the table */
      long  ncap = id + 1 > 2 * cap ? id + 1 : 2 * cap;
      char *t    = (char *)realloc(*seen, (size_t)ncap);
      if (!t) {
        snprintf(r->msg, r->len, "out of memory for node id %ld", id);
        return 1;
      }
      memset(t + cap, 0, (size_t)(ncap - cap));
      *seen = t;
      cap   = ncap;
    }
    if ((*seen)[id]) {
      snprintf(r->msg, r->len, "line %ld: node id %ld is repeated", r->line, id);
      return 1;
    }
    (*seen)[id] = 1;
    if (id > *maxid) *maxid = id;
  }
  return GmshExpect(r, "$EndNodes");
}

/* $Elements: a count, then "id type ntags tags... nodes..." lines, each node an existing one, none twice */
static int GmshElements(GmshReader *r, const char *seen, long maxid)
{
  long v[3 + 64 + 10], cnt;
  int  n;

  if (!GmshNext(r) || GmshTokens(r, &cnt, NULL, 1, &n) || n != 1 || cnt < 1) {
    if (!r->msg[0]) snprintf(r->msg, r->len, "line %ld should hold the number of elements", r->line);
    return 1;
  }
  for (long i = 0; i < cnt; i++) {
    int nn, want;
    if (!GmshNext(r)) {
      if (!r->msg[0]) snprintf(r->msg, r->len, "the file ends after %ld of the %ld elements", i, cnt);
      return 1;
    }
    if (GmshTokens(r, v, NULL, (int)(sizeof(v) / sizeof(v[0])), &n)) return 1;
    if (n < 3 || !(nn = GmshNodesOfType(v[1])) || v[2] < 0 || v[2] > 64) {
      snprintf(r->msg, r->len, "line %ld: an element is \"id type ntags tags... nodes...\" with a known type and 0 to 64 tags", r->line);
      return 1;
    }
    want = 3 + (int)v[2] + nn;
    if (n != want) {
      snprintf(r->msg, r->len, "line %ld: an element of type %ld with %ld tags has %d values; it should have %d", r->line, v[1], v[2], n, want);
      return 1;
    }
    for (int k = 3 + (int)v[2]; k < n; k++) {
      if (v[k] < 1 || v[k] > maxid || !seen[v[k]]) {
        snprintf(r->msg, r->len, "line %ld: element %ld names node %ld, which the file does not define", r->line, v[0], v[k]);
        return 1;
      }
      /* a repeated node collapses the element (PETSc's reader takes it as it is) */
      for (int j = 3 + (int)v[2]; j < k; j++)
        if (v[j] == v[k]) {
          snprintf(r->msg, r->len, "line %ld: element %ld names node %ld twice", r->line, v[0], v[k]);
          return 1;
        }
    }
  }
  return GmshExpect(r, "$EndElements");
}

/* Checks an ASCII Gmsh 2.2 file; msg is empty when it is well formed (or of another version) */
PetscErrorCode SquallP1GmshCheck(const char filename[], char msg[], size_t len)
{
  GmshReader r     = {NULL, 0, "", msg, len};
  char      *seen  = NULL;
  long       maxid = 0;
  double     ver[3];
  int        n, bad = 0;

  PetscFunctionBegin;
  msg[0] = 0;
  r.fp   = fopen(filename, "r");
  PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open the mesh file %s", filename);
  if (GmshExpect(&r, "$MeshFormat") || !GmshNext(&r) || GmshTokens(&r, NULL, ver, 3, &n) || n != 3)
    bad = 1;
  else if (ver[0] < 2 || ver[0] >= 3 || ver[1] != 0) {
    (void)fclose(r.fp); /* binary files and other versions: PETSc's reader alone */
    PetscFunctionReturn(PETSC_SUCCESS);
  } else if (GmshExpect(&r, "$EndMeshFormat"))
    bad = 1;
  while (!bad && GmshNext(&r)) {
    if (!strcmp(r.buf, "$Nodes"))
      bad = GmshNodes(&r, &seen, &maxid);
    else if (!strcmp(r.buf, "$Elements")) {
      if (!seen) {
        snprintf(msg, len, "line %ld: $Elements before $Nodes", r.line);
        bad = 1;
      } else
        bad = GmshElements(&r, seen, maxid);
    }
  }
  if (!bad && !msg[0] && !seen) snprintf(msg, len, "the file has no $Nodes section");
  if (bad && !msg[0]) snprintf(msg, len, "line %ld is not what the Gmsh 2.2 format has there", r.line);
  free(seen);
  (void)fclose(r.fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}
