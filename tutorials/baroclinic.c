static char help[] = "Baroclinic instability in a channel (Ullrich, Reed, Jablonowski 2015) with squall's ESDG.\n"
                     "See options/baroclinic.opts for the domain, gas constants and Coriolis parameters.\n"
                     "  -esdg_checkpoint file.h5  -esdg_checkpoint_interval k  -esdg_checkpoint_keep n  -esdg_restart file.h5 (any rank count)\n"
                     "  -esdg_slice_y file  -esdg_wall_time (print TSSolve's wall time)\n"
                     "  -dm_vec_type cuda (GPU)\n\n";

#include "esdg_run.h"

/* without options: options/baroclinic.opts' channel and physics at 24 elements of order 2 */
static const char *const defaults[][2] = {{"-dm_p4est_brick_size", "12,2,1"},
                                          {"-dm_p4est_brick_periodicity", "1,0,0"},
                                          {"-dm_p4est_brick_bounds", "0,4.0e7,0,6.0e6,0,3.0e4"},
                                          {"-esdg_order", "2"},
                                          {"-esdg_gas_constant", "287.0"},
                                          {"-esdg_gravity", "9.80616"},
                                          {"-esdg_coriolis", "betaplane"},
                                          {"-esdg_coriolis_f0", "1.0312615002e-4"},
                                          {"-esdg_coriolis_beta0", "1.6186225613e-11"},
                                          {"-esdg_coriolis_y0", "3.0e6"},
                                          {NULL, NULL}};

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  return RunTutorial(defaults, "baroclinic", 86400.0, 10.0);
}
