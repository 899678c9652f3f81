/* Global numbering of spectral-element nodes from keys alone, as for an unstructured mesh: no rank
   knows which other ranks hold a node, so the keys meet at a "directory" rank (the owner of the key
   in an even split of the key range, a rendezvous), which learns every rank that holds the key,
   picks the owner and relays the owner's global number back. The SFs that result (owned -> ghost
   copies and ghost -> shared owned rows) are all the operator needs to communicate. */
#include "ksp/hbimpl.h"

/* rendezvous ("highest random weight") hashing: each rank holding a key bids a hash of (key, rank),
   the highest bid owns the key. Every rank gets about 1/d of each interface it shares with d-1
   others, independently of the order in which the bids arrive, and the directory finds the winner
   with a single MPI_MAX reduction instead of gathering the list of sharers. The bid carries the
   rank in its low 32 bits. */
static PetscInt64 OwnerBid(PetscInt key, PetscMPIInt rank)
{
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)rank + 1) * 0xC2B2AE3D27D4EB4Full;

  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return (PetscInt64)(((h >> 33) << 32) | (uint64_t)rank);
}

/* UniqueKeys() when the keys span a range comparable to their number (any reasonable partition of a mesh numbered
   with some locality): a direct-address table over [kmin, kmax] finds the distinct ones in linear time */
static PetscErrorCode UniqueKeysTable(PetscInt nkeys, const PetscInt keys[], PetscInt kmin, PetscInt kmax, PetscInt *nu, PetscInt **ukey, PetscInt **ucount, PetscInt uid[])
{
  const PetscInt range = kmax - kmin + 1;
  PetscInt      *table, n = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(range, &table));
  for (PetscInt t = 0; t < range; t++) table[t] = -1;
  for (PetscInt p = 0; p < nkeys; p++) {
    if (keys[p] < 0) continue;
    if (table[keys[p] - kmin] < 0) table[keys[p] - kmin] = n++;
  }
  PetscCall(PetscMalloc2(n, ukey, n, ucount));
  PetscCall(PetscArrayzero(*ucount, n));
  for (PetscInt p = 0; p < nkeys; p++) {
    PetscInt u;

    if (keys[p] < 0) {
      uid[p] = -1;
      continue;
    }
    u          = table[keys[p] - kmin];
    uid[p]     = u;
    (*ukey)[u] = keys[p];
    (*ucount)[u] += 1;
  }
  PetscCall(PetscFree(table));
  *nu = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* UniqueKeys() for keys scattered over a wide range: sorted, then the groups of equal keys numbered in the order
   of their first appearance */
static PetscErrorCode UniqueKeysSorted(PetscInt nkeys, const PetscInt keys[], PetscInt *nu, PetscInt **ukey, PetscInt **ucount, PetscInt uid[])
{
  PetscInt *sk, *sp, ng = 0, n = 0, *first, *order, *rank;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(nkeys, &sk, nkeys, &sp));
  for (PetscInt p = 0; p < nkeys; p++) {
    sk[p] = keys[p];
    sp[p] = p;
  }
  PetscCall(PetscSortIntWithArray(nkeys, sk, sp));
  for (PetscInt a = 0; a < nkeys; a++)
    if (sk[a] >= 0 && (a == 0 || sk[a] != sk[a - 1])) ng++;
  PetscCall(PetscMalloc3(ng, &first, ng, &order, ng, &rank));
  /* groups in key order; their first appearance is the smallest position (sp is sorted within equal keys) */
  for (PetscInt a = 0; a < nkeys; a++) {
    if (sk[a] < 0) continue;
    if (a == 0 || sk[a] != sk[a - 1]) {
      first[n] = sp[a];
      order[n] = n;
      n++;
    }
  }
  PetscCall(PetscSortIntWithArray(ng, first, order));
  for (PetscInt g = 0; g < ng; g++) rank[order[g]] = g;
  PetscCall(PetscMalloc2(ng, ukey, ng, ucount));
  PetscCall(PetscArrayzero(*ucount, ng));
  n = -1;
  for (PetscInt a = 0; a < nkeys; a++) {
    PetscInt u;

    if (sk[a] < 0) {
      uid[sp[a]] = -1;
      continue;
    }
    if (a == 0 || sk[a] != sk[a - 1]) n++;
    u          = rank[n];
    uid[sp[a]] = u;
    (*ukey)[u] = sk[a];
    (*ucount)[u] += 1;
  }
  PetscCall(PetscFree3(first, order, rank));
  PetscCall(PetscFree2(sk, sp));
  *nu = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distinct keys of the rank, in order of first appearance (so that nodes an element touches
   are numbered close together), and the index of each element node in that list */
static PetscErrorCode UniqueKeys(PetscInt nkeys, const PetscInt keys[], PetscInt *nu, PetscInt **ukey, PetscInt **ucount, PetscInt **uid)
{
  PetscInt kmin = PETSC_INT_MAX, kmax = -1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nkeys, uid));
  for (PetscInt p = 0; p < nkeys; p++) {
    if (keys[p] < 0) continue;
    kmin = PetscMin(kmin, keys[p]);
    kmax = PetscMax(kmax, keys[p]);
  }
  if (kmax < 0) {
    for (PetscInt p = 0; p < nkeys; p++) (*uid)[p] = -1;
    PetscCall(PetscMalloc2(1, ukey, 1, ucount));
    *nu = 0;
  } else if ((PetscInt64)kmax - kmin < 4 * (PetscInt64)nkeys + 1024)
    PetscCall(UniqueKeysTable(nkeys, keys, kmin, kmax, nu, ukey, ucount, *uid));
  else
    PetscCall(UniqueKeysSorted(nkeys, keys, nu, ukey, ucount, *uid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per local node its multiplicity, per ghost its global index, and the two halo SFs, from the owner
   and count (leafinfo, 3 per distinct key) and the global and shared-row numbers (leafnum, 2 per key) */
static PetscErrorCode HaloMaps(MPI_Comm comm, PetscInt nu, const PetscInt ukey[], const PetscInt newidx[], const PetscInt leafinfo[], const PetscInt leafnum[], SquallSEMNumbering *num)
{
  const PetscInt nown = num->nown, nshared = num->nshared, nghost = num->nghost;
  PetscInt      *gshared;
  PetscLayout    lown, lshared;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nown + nghost, &num->mult));
  PetscCall(PetscMalloc1(nghost, &num->ghost_global));
  PetscCall(PetscMalloc1(nghost, &gshared));
  for (PetscInt u = 0; u < nu; u++) {
    const PetscInt l = newidx[u];

    num->mult[l] = leafinfo[3 * u + 1];
    if (l >= nown) {
      num->ghost_global[l - nown] = leafnum[2 * u];
      gshared[l - nown]           = leafnum[2 * u + 1];
      PetscCheck(leafnum[2 * u] >= 0 && leafnum[2 * u + 1] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghost key %" PetscInt_FMT " received no global number", ukey[u]);
    }
  }
  PetscCall(PetscLayoutCreateFromSizes(comm, nown, PETSC_DECIDE, 1, &lown));
  PetscCall(PetscLayoutCreateFromSizes(comm, nshared, PETSC_DECIDE, 1, &lshared));
  PetscCall(PetscSFCreate(comm, &num->sfx));
  PetscCall(PetscSFSetGraphLayout(num->sfx, lown, nghost, NULL, PETSC_COPY_VALUES, num->ghost_global));
  PetscCall(PetscSFCreate(comm, &num->sfy));
  PetscCall(PetscSFSetGraphLayout(num->sfy, lshared, nghost, NULL, PETSC_COPY_VALUES, gshared));
  PetscCall(PetscSFSetUp(num->sfx));
  PetscCall(PetscSFSetUp(num->sfy));
  PetscCall(PetscLayoutDestroy(&lown));
  PetscCall(PetscLayoutDestroy(&lshared));
  PetscCall(PetscFree(gshared));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SquallSEMNumberingCreate - numbers the distinct non-negative keys of all ranks globally and builds the halo SFs.

  Collective.
*/
/* per distinct key, in leafinfo[3 u ..]: its owner (the highest bid), its element copies over all ranks and the
   number of ranks holding it, met at a directory that splits the key range evenly over the ranks (*sfdir, NULL on
   one rank, where this rank owns every key) */
static PetscErrorCode NumberingOwners(MPI_Comm comm, PetscInt nu, const PetscInt ukey[], const PetscInt ucount[], PetscLogDouble *tlog, PetscSF *sfdir, PetscInt **leafinfo)
{
  PetscMPIInt  rank, size;
  PetscInt     kmax = -1, gkmax, nroots, *rootinfo, *leafcnt, *rootcnt;
  PetscInt64  *leafbid, *rootbid;
  PetscLayout  dir;
  MPI_Datatype int2, int3;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  *sfdir = NULL;
  PetscCall(PetscMalloc1(3 * nu, leafinfo));
  if (size == 1) {
    for (PetscInt u = 0; u < nu; u++) {
      (*leafinfo)[3 * u + 0] = 0;
      (*leafinfo)[3 * u + 1] = ucount[u];
      (*leafinfo)[3 * u + 2] = 1;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt u = 0; u < nu; u++) kmax = PetscMax(kmax, ukey[u]);
  PetscCallMPI(MPIU_Allreduce(&kmax, &gkmax, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(PetscLayoutCreateFromSizes(comm, PETSC_DECIDE, gkmax + 1, 1, &dir));
  PetscCall(PetscLayoutGetLocalSize(dir, &nroots));
  PetscCall(PetscSFCreate(comm, sfdir));
  PetscCall(PetscSFSetGraphLayout(*sfdir, dir, nu, NULL, PETSC_COPY_VALUES, ukey));
  PetscCall(PetscSFSetUp(*sfdir));
  PetscCall(PetscLayoutDestroy(&dir));
  PetscCall(SquallHBLogPhase(comm, tlog, "numbering: directory SF"));

  /* two reductions (PetscSF reduces contiguous integer types entry by entry), then the result back to the keys */
  PetscCall(PetscMalloc5(2 * nu, &leafcnt, 2 * nroots, &rootcnt, nu, &leafbid, nroots, &rootbid, 3 * nroots, &rootinfo));
  for (PetscInt u = 0; u < nu; u++) {
    leafcnt[2 * u]     = ucount[u];
    leafcnt[2 * u + 1] = 1;
    leafbid[u]         = OwnerBid(ukey[u], rank);
  }
  PetscCall(PetscArrayzero(rootcnt, 2 * nroots));
  for (PetscInt k = 0; k < nroots; k++) rootbid[k] = -1;
  PetscCallMPI(MPI_Type_contiguous(2, MPIU_INT, &int2));
  PetscCallMPI(MPI_Type_commit(&int2));
  PetscCall(PetscSFReduceBegin(*sfdir, int2, leafcnt, rootcnt, MPI_SUM));
  PetscCall(PetscSFReduceBegin(*sfdir, MPIU_INT64, leafbid, rootbid, MPI_MAX));
  PetscCall(PetscSFReduceEnd(*sfdir, int2, leafcnt, rootcnt, MPI_SUM));
  PetscCall(PetscSFReduceEnd(*sfdir, MPIU_INT64, leafbid, rootbid, MPI_MAX));
  PetscCallMPI(MPI_Type_free(&int2));
  for (PetscInt k = 0; k < nroots; k++) {
    rootinfo[3 * k + 0] = rootbid[k] < 0 ? -1 : (PetscInt)(rootbid[k] & 0xffffffff);
    rootinfo[3 * k + 1] = rootcnt[2 * k];
    rootinfo[3 * k + 2] = rootcnt[2 * k + 1];
  }
  PetscCallMPI(MPI_Type_contiguous(3, MPIU_INT, &int3));
  PetscCallMPI(MPI_Type_commit(&int3));
  PetscCall(PetscSFBcastBegin(*sfdir, int3, rootinfo, *leafinfo, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(*sfdir, int3, rootinfo, *leafinfo, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&int3));
  PetscCall(PetscFree5(leafcnt, rootcnt, leafbid, rootbid, rootinfo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local order: owned keys of one element copy in all (a node inside an element, or on a boundary face), the
   other owned keys no other rank holds, owned keys others hold as ghosts, then ghosts; the counts and the rank's
   first global and first shared row */
static PetscErrorCode NumberingLocalOrder(MPI_Comm comm, PetscInt nu, const PetscInt leafinfo[], PetscInt **newidx, PetscInt *sstart, SquallSEMNumbering *num)
{
  PetscMPIInt rank;
  PetscInt    nown = 0, nsingle, nshared = 0, nghost = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(nu, newidx));
  for (PetscInt u = 0; u < nu; u++)
    if (leafinfo[3 * u] == rank && leafinfo[3 * u + 1] == 1) (*newidx)[u] = nown++;
  nsingle = nown;
  for (PetscInt u = 0; u < nu; u++)
    if (leafinfo[3 * u] == rank && leafinfo[3 * u + 1] > 1 && leafinfo[3 * u + 2] == 1) (*newidx)[u] = nown++;
  for (PetscInt u = 0; u < nu; u++)
    if (leafinfo[3 * u] == rank && leafinfo[3 * u + 2] > 1) {
      (*newidx)[u] = nown++;
      nshared++;
    }
  for (PetscInt u = 0; u < nu; u++)
    if (leafinfo[3 * u] != rank) (*newidx)[u] = nown + nghost++;
  num->nsingle = nsingle;
  num->nown    = nown;
  num->nshared = nshared;
  num->nghost  = nghost;
  *sstart      = 0;
  PetscCallMPI(MPI_Exscan(&nown, &num->rstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Exscan(&nshared, sstart, 1, MPIU_INT, MPI_SUM, comm));
  if (rank == 0) num->rstart = *sstart = 0;
  PetscCallMPI(MPIU_Allreduce(&nown, &num->nglobal, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* per key, in leafnum[2 u ..]: its global index and its index among all shared rows (-1: not shared), which
   its owner publishes through the directory */
static PetscErrorCode NumberingPublish(MPI_Comm comm, PetscSF sfdir, PetscInt nu, const PetscInt leafinfo[], const PetscInt newidx[], PetscInt sstart, const SquallSEMNumbering *num, PetscInt **leafnum)
{
  PetscMPIInt  rank;
  PetscInt     nroots, *rootnum;
  MPI_Datatype int2;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc1(2 * nu, leafnum));
  for (PetscInt u = 0; u < nu; u++) {
    const PetscBool own = (PetscBool)(leafinfo[3 * u] == rank);

    (*leafnum)[2 * u]     = own ? num->rstart + newidx[u] : -1;
    (*leafnum)[2 * u + 1] = own && leafinfo[3 * u + 2] > 1 ? sstart + newidx[u] - (num->nown - num->nshared) : -1;
  }
  if (!sfdir) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFGetGraph(sfdir, &nroots, NULL, NULL, NULL));
  PetscCall(PetscMalloc1(2 * nroots, &rootnum));
  for (PetscInt k = 0; k < 2 * nroots; k++) rootnum[k] = -1;
  PetscCallMPI(MPI_Type_contiguous(2, MPIU_INT, &int2));
  PetscCallMPI(MPI_Type_commit(&int2));
  /* one owner per key: the max over the copies picks its pair out of the -1 of the others */
  PetscCall(PetscSFReduceBegin(sfdir, int2, *leafnum, rootnum, MPI_MAX));
  PetscCall(PetscSFReduceEnd(sfdir, int2, *leafnum, rootnum, MPI_MAX));
  PetscCall(PetscSFBcastBegin(sfdir, int2, rootnum, *leafnum, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sfdir, int2, rootnum, *leafnum, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&int2));
  PetscCall(PetscFree(rootnum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallSEMNumberingCreate(MPI_Comm comm, PetscInt nkeys, const PetscInt keys[], PetscLogDouble *tlog, SquallSEMNumbering *num)
{
  PetscInt nu, *ukey, *ucount, *uid, *leafinfo, *newidx, *leafnum, sstart;
  PetscSF  sfdir;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(num, sizeof(*num)));
  PetscCall(UniqueKeys(nkeys, keys, &nu, &ukey, &ucount, &uid));
  PetscCall(SquallHBLogPhase(comm, tlog, "numbering: distinct keys"));
  PetscCall(NumberingOwners(comm, nu, ukey, ucount, tlog, &sfdir, &leafinfo));
  PetscCall(SquallHBLogPhase(comm, tlog, "numbering: owners, multiplicities"));
  PetscCall(NumberingLocalOrder(comm, nu, leafinfo, &newidx, &sstart, num));
  PetscCall(NumberingPublish(comm, sfdir, nu, leafinfo, newidx, sstart, num, &leafnum));
  PetscCall(PetscSFDestroy(&sfdir));
  PetscCall(SquallHBLogPhase(comm, tlog, "numbering: global numbers"));
  PetscCall(HaloMaps(comm, nu, ukey, newidx, leafinfo, leafnum, num));
  PetscCall(SquallHBLogPhase(comm, tlog, "numbering: halo SFs"));
  PetscCall(PetscMalloc1(nkeys, &num->lidx));
  for (PetscInt p = 0; p < nkeys; p++) num->lidx[p] = uid[p] < 0 ? -1 : newidx[uid[p]];
  PetscCall(PetscFree(newidx));
  PetscCall(PetscFree(leafnum));
  PetscCall(PetscFree(leafinfo));
  PetscCall(PetscFree(uid));
  PetscCall(PetscFree2(ukey, ucount));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallSEMNumberingDestroy(SquallSEMNumbering *num)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(num->lidx));
  PetscCall(PetscFree(num->mult));
  PetscCall(PetscFree(num->ghost_global));
  PetscCall(PetscSFDestroy(&num->sfx));
  PetscCall(PetscSFDestroy(&num->sfy));
  PetscFunctionReturn(PETSC_SUCCESS);
}
