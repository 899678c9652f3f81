#!/usr/bin/env bash
# One GPU per MPI rank on a node: mpiexec -n 2 bench/gpu-bind.sh ./program ...
# The node-local rank (MPICH: MPI_LOCALRANKID, else PMI_RANK; Open MPI: OMPI_COMM_WORLD_LOCAL_RANK) modulo
# the number of GPUs picks CUDA_VISIBLE_DEVICES, so every rank sees exactly one device.
n=${SQUALL_NGPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
r=${MPI_LOCALRANKID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${PMI_RANK:-0}}}
[ "${n:-0}" -gt 0 ] && export CUDA_VISIBLE_DEVICES=$(( r % n ))
exec "$@"
