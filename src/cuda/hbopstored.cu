/* The hipBone element kernels with the stored geometry source (src/cuda/hboplocal.cuh). */
#include "cuda/hboplocal.cuh"

HB_INSTANTIATE_GEOMETRY(SQUALL_HB_GEOMETRY_STORED);
