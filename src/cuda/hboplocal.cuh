/* The element kernels of one geometry source, dispatched by order: each of src/cuda/hbopstored.cu,
   hboptrilinear.cu and hbopaffine.cu includes this and instantiates HBLocalOpGeo<GEO>, so the three
   geometries compile as separate translation units (in parallel). Each unit has its own constant D
   (HBConstD), filled by its HBUploadConstD<GEO>. Not a header of its own. */
#include "cuda/hbopdevice.cuh"
#include "cuda/hbsweep.cuh"
#include "cuda/hblayers.cuh"
#include "cuda/hblayerstiled.cuh"
#include "cuda/hbmma.cuh"

template <int Nq, int GEO> static PetscErrorCode HBLaunchLocalOpG(const SquallHBOpDesc *d, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (d->kernel) {
    case SQUALL_HB_KERNEL_SWEEP:
      if constexpr (Nq <= SQUALL_HB_SWEEP_MAX_ORDER + 1) {
        constexpr int NE = HBElemsSweep(Nq);

        HBLocalOpSweep<Nq, GEO><<<(unsigned int)((e1 - e0 + NE - 1) / NE), HBThreadsSweep(Nq), 0, stream>>>(e0, e1, a);
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel sweep is available at orders 1 to %d, not at %d", SQUALL_HB_SWEEP_MAX_ORDER, Nq - 1);
    case SQUALL_HB_KERNEL_LAYERS: PetscCall(HBLaunchLayers<Nq, GEO>(d->layers, d->elements, e0, e1, a, stream)); break;
    case SQUALL_HB_KERNEL_LAYERS_TILED: PetscCall(HBLaunchTiled<Nq, GEO>(d->layers, e0, e1, a, stream)); break;
    case SQUALL_HB_KERNEL_MMA: PetscCall(HBLaunchMma<Nq, GEO>(e0, e1, a, stream)); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The operator's kernel must be resolved (sweep, layers, layers_tiled, mma) before a device product");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int GEO> PetscErrorCode HBLocalOpGeo(const SquallHBOpDesc *d, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (d->Nq) {
    case 2: PetscCall((HBLaunchLocalOpG<2, GEO>(d, e0, e1, a, stream))); break;
    case 3: PetscCall((HBLaunchLocalOpG<3, GEO>(d, e0, e1, a, stream))); break;
    case 4: PetscCall((HBLaunchLocalOpG<4, GEO>(d, e0, e1, a, stream))); break;
    case 5: PetscCall((HBLaunchLocalOpG<5, GEO>(d, e0, e1, a, stream))); break;
    case 6: PetscCall((HBLaunchLocalOpG<6, GEO>(d, e0, e1, a, stream))); break;
    case 7: PetscCall((HBLaunchLocalOpG<7, GEO>(d, e0, e1, a, stream))); break;
    case 8: PetscCall((HBLaunchLocalOpG<8, GEO>(d, e0, e1, a, stream))); break;
    case 9: PetscCall((HBLaunchLocalOpG<9, GEO>(d, e0, e1, a, stream))); break;
    case 10: PetscCall((HBLaunchLocalOpG<10, GEO>(d, e0, e1, a, stream))); break;
    case 11: PetscCall((HBLaunchLocalOpG<11, GEO>(d, e0, e1, a, stream))); break;
    case 12: PetscCall((HBLaunchLocalOpG<12, GEO>(d, e0, e1, a, stream))); break;
    case 13: PetscCall((HBLaunchLocalOpG<13, GEO>(d, e0, e1, a, stream))); break;
    case 14: PetscCall((HBLaunchLocalOpG<14, GEO>(d, e0, e1, a, stream))); break;
    case 15: PetscCall((HBLaunchLocalOpG<15, GEO>(d, e0, e1, a, stream))); break;
    case 16: PetscCall((HBLaunchLocalOpG<16, GEO>(d, e0, e1, a, stream))); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA kernel for order %" PetscInt_FMT " (valid orders are 1 to %d)", d->N, SQUALL_HB_MAX_ORDER);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this order's slot of this unit's constant D (operators of the same order write the same values) */
template <int GEO> PetscErrorCode HBUploadConstD(const PetscReal *D, PetscInt Nq)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyToSymbol(HBConstD, D, (size_t)Nq * Nq * sizeof(PetscReal), (size_t)HBConstOffset((int)Nq) * sizeof(PetscReal)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define HB_INSTANTIATE_GEOMETRY(GEO)                                                                                                     \
  template PetscErrorCode HBLocalOpGeo<GEO>(const SquallHBOpDesc *, PetscInt, PetscInt, const HBOpArgs &, cudaStream_t);                 \
  template PetscErrorCode HBLocalOpGeo<GEO | HB_ATOMIC_BIT>(const SquallHBOpDesc *, PetscInt, PetscInt, const HBOpArgs &, cudaStream_t); \
  template PetscErrorCode HBUploadConstD<GEO>(const PetscReal *, PetscInt)
