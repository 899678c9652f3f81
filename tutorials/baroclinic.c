static char help[] = "Baroclinic instability in a channel (Ullrich, Reed, Jablonowski 2015) with squall's ESDG.\n"
                     "See options/baroclinic.opts for the domain, gas constants and Coriolis parameters.\n"
                     "  -esdg_checkpoint file.h5  -esdg_restart file.h5  -esdg_slice_y file  -esdg_wall_time (print TSSolve's wall time)\n"
                     "  -dm_vec_type cuda (GPU)\n\n";

#include "esdg_run.h"

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(RunCase("baroclinic", 86400.0, 10.0));
  PetscCall(PetscFinalize());
  return 0;
}
