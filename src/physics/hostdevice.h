/* SQUALL_HOST_DEVICE marks pointwise functions compiled for both the C reference and CUDA. */
#pragma once

#include <petscsys.h>

#if defined(__CUDACC__)
#  define SQUALL_HOST_DEVICE __host__ __device__
#else
#  define SQUALL_HOST_DEVICE
#endif
