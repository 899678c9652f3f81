/* MatView() of the hipBone operator: sizes, the CUDA kernel it runs, its mesh and geometry, its partition. */
#include "ksp/hbimpl.h"

PetscErrorCode SquallHBMatView(Mat A, PetscViewer viewer)
{
  Mat_HB        *hb;
  PetscBool      isascii;
  SquallHBKernel k;
  PetscInt       layers, elements;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "hipBone operator Z^T (S_L + lambda W) Z: order %" PetscInt_FMT ", %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " elements, %" PetscInt_FMT " unknowns, lambda %g%s\n", hb->N, hb->E[0], hb->E[1],
                                     hb->E[2], hb->nglobal, (double)hb->lambda, hb->dirichlet ? ", Dirichlet boundary" : ""));
    PetscCall(SquallHBResolveKernel(hb, &k, &layers, &elements));
    if (k == SQUALL_HB_KERNEL_SWEEP)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA kernel: sweep (-hb_kernel %s), vectors %s\n", SquallHBKernels[hb->kernel], hb->vectype));
    else if (k == SQUALL_HB_KERNEL_LAYERS)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA kernel: layers (-hb_kernel %s), %" PetscInt_FMT " layers per step, %" PetscInt_FMT " elements per block, vectors %s\n", SquallHBKernels[hb->kernel], layers, elements, hb->vectype));
    else if (k == SQUALL_HB_KERNEL_MMA)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA kernel: mma, FP64 tensor cores (-hb_kernel %s), vectors %s\n", SquallHBKernels[hb->kernel], hb->vectype));
    else
      PetscCall(PetscViewerASCIIPrintf(viewer, "  CUDA kernel: layers_tiled (-hb_kernel %s), %" PetscInt_FMT " layers per step, vectors %s\n", SquallHBKernels[hb->kernel], layers, hb->vectype));
    {
      SquallHBGeometry g;
      char             mesh[64];

      PetscCall(SquallHBResolveGeometry(hb, &g));
      if (hb->mesh == HB_MESH_KERSHAW)
        PetscCall(PetscSNPrintf(mesh, sizeof(mesh), "kershaw (eps %g)", (double)hb->kershaw_eps));
      else if (hb->mesh == HB_MESH_PERTURBED)
        PetscCall(PetscSNPrintf(mesh, sizeof(mesh), "perturbed (eps %g, seed %" PetscInt_FMT ")", (double)hb->perturb_eps, hb->perturb_seed));
      else
        PetscCall(PetscStrncpy(mesh, "brick", sizeof(mesh)));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  mesh %s, elements %s; geometry %s (-hb_geometry %s), %.2f bytes per element node\n", mesh,
                                       hb->parallelepiped ? "all parallelepipeds" : (hb->straight ? "all straight-sided" : "not all straight-sided"), SquallHBGeometries[g], SquallHBGeometries[hb->geometry],
                                       (double)SquallHBGeometryBytesPerNode(g, hb->Np)));
    }
    {
      PetscBool atomic;

      PetscCall(SquallHBResolveScatter(hb, k, &atomic));
      PetscCall(PetscViewerASCIIPrintf(viewer, "  device Z^T: %s (-hb_scatter %s)\n", atomic ? "atomic adds from the element kernels" : "CSR row sums", SquallHBScatters[hb->scatter]));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  elements partitioned %s\n", hb->forest ? "as a p8est DMForest of the brick (-hb_partition forest)" : "in slabs of the lexicographic order (-hb_partition slabs)"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
