static char help[] = "Schaer's mountain wave with squall's entropy-stable DG over terrain (Euler with gravity).\n"
                     "Domain, terrain, sponge and resolution come from the options database; see options/schaer.opts.\n"
                     "  -esdg_terrain schaer|bell|none  -esdg_terrain_h0 -esdg_terrain_a -esdg_terrain_lambda  -esdg_vertical_coordinate gal_chen|sleve\n"
                     "  -esdg_sponge_rate r -esdg_sponge_top z0 -esdg_sponge_lateral w  -schaer_U -schaer_N -schaer_T0\n"
                     "  -ts_type lsrk -ts_lsrk_type 14s4|5s4  -esdg_cfl C  -esdg_monitor k  -esdg_vtk base\n"
                     "  -esdg_slice_y file (x,y,z,theta,u,w on the wall y = 0, for scripts/schaer_linear.py --compare)\n"
                     "  -esdg_checkpoint file.h5  -esdg_restart file.h5  -esdg_wall_time  -dm_vec_type cuda (GPU)\n\n";

#include "esdg_run.h"

/* without options: options/schaer.opts' domain, terrain and sponge at order 3 on elements of 2 km x 2.1 km */
static const char *const defaults[][2] = {{"-dm_p4est_brick_size", "25,1,10"},
                                          {"-dm_p4est_brick_periodicity", "1,0,0"},
                                          {"-dm_p4est_brick_bounds", "-25000,25000,0,2000,0,21000"},
                                          {"-esdg_order", "3"},
                                          {"-esdg_terrain", "schaer"},
                                          {"-esdg_sponge_rate", "0.1"},
                                          {"-esdg_sponge_top", "13000"},
                                          {"-esdg_sponge_lateral", "10000"},
                                          {"-esdg_reference_residual", "1"},
                                          {"-esdg_cfl", "1"},
                                          {NULL, NULL}};

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  return RunTutorial(defaults, "schaer", 18000.0, 1.0);
}
