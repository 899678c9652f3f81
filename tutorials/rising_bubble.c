static char help[] = "3D rising thermal bubble with squall's entropy-stable DG (Euler with gravity).\n"
                     "Domain, resolution and physics come from the options database; see options/rising_bubble.opts.\n"
                     "  -bubble_profile sharp|smooth  -esdg_order N  -esdg_surface_flux ec|es|rusanov\n"
                     "  -ts_type lsrk -ts_lsrk_type 14s4|5s4 (or any PETSc TS)  -esdg_cfl C  -esdg_monitor k  -esdg_vtk base\n"
                     "  -esdg_checkpoint file.h5  -esdg_checkpoint_interval k  -esdg_checkpoint_keep n  -esdg_restart file.h5 (any rank count)\n"
                     "  -esdg_slice_y file  -esdg_wall_time (print TSSolve's wall time)\n"
                     "  -dm_vec_type cuda (GPU)\n\n";

#include "esdg_run.h"

/* without options: options/rising_bubble.opts' domain at 8 elements of order 3 */
static const char *const defaults[][2] = {{"-dm_p4est_brick_size", "2,2,2"}, {"-dm_p4est_brick_periodicity", "1,1,0"}, {"-dm_p4est_brick_bounds", "-1000,1000,-1000,1000,0,2000"}, {"-esdg_order", "3"}, {NULL, NULL}};

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  return RunTutorial(defaults, "bubble", 1000.0, 0.1);
}
