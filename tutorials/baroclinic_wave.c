static char help[] = "The deep-atmosphere baroclinic wave of Ullrich, Melvin, Jablonowski, Staniforth (QJRMS 140 (2014) 1590-1602)\n"
                     "on squall's cubed-sphere shell (ESDG case baroclinic_wave). options/bwave.opts: about 2 degrees, 10 days.\n"
                     "Without options: 192 elements of order 3 for one hour.\n"
                     "  -bwave_surface file.csv      the surface level at the end (lat,lon,height,p,T,u,v,w; p is the surface pressure)\n"
                     "                               for scripts/plot_latlon.py (default bwave_surface.csv)\n"
                     "  -bwave_output_days d1,d2,... also at the first step at or after each of these days, to file.dayDD.csv\n"
                     "  -bwave_perturbation 0|1  (0: the balanced steady state; the L2 error of the wind against it is printed)\n"
                     "  -bwave_T0E  -bwave_T0P  -bwave_B  -bwave_K  -bwave_lapse  -bwave_p0 ... (see -help)\n"
                     "  -esdg_gravity_model shallow: the shallow-atmosphere variant of the state\n"
                     "  -esdg_wall_time (print TSSolve's wall time)  -dm_vec_type cuda (GPU)\n\n";

#include "esdg_run.h"

/* without options: options/bwave.opts' physics at refinement 1 and order 3 */
static const char *const defaults[][2] = {{"-esdg_mesh", "shell"},
                                          {"-esdg_shell_radius", "6.371229e6"},
                                          {"-esdg_shell_thickness", "3.0e4"},
                                          {"-dm_forest_initial_refinement", "1"},
                                          {"-esdg_order", "3"},
                                          {"-esdg_gamma", "1.4"},
                                          {"-esdg_gas_constant", "287.0"},
                                          {"-esdg_gravity", "9.80616"},
                                          {"-esdg_gravity_model", "deep"},
                                          {"-esdg_coriolis", "sphere"},
                                          {"-esdg_coriolis_omega", "7.29212e-5"},
                                          {"-esdg_cfl", "1.0"},
                                          {NULL, NULL}};

typedef struct {
  char      file[PETSC_MAX_PATH_LEN];
  PetscReal days[32];
  PetscInt  ndays, next;
  PetscBool balanced; /* -bwave_perturbation 0: the state is steady, its wind error is printed */
} SurfaceOutput;

static SurfaceOutput out;

/* file.csv with ".dayDD" before the extension */
static PetscErrorCode DayName(const char *file, PetscReal day, char *name, size_t len)
{
  PetscBool csv;
  size_t    n;

  PetscFunctionBegin;
  PetscCall(PetscStrendswith(file, ".csv", &csv));
  PetscCall(PetscStrlen(file, &n));
  if (csv)
    PetscCall(PetscSNPrintf(name, len, "%.*s.day%02g.csv", (int)(n - 4), file, (double)day));
  else
    PetscCall(PetscSNPrintf(name, len, "%s.day%02g", file, (double)day));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the steady balanced state: the L2 error of the wind against it */
static PetscErrorCode WindError(SquallESDG s, Vec Q, PetscReal t)
{
  PetscReal rms, rel;

  PetscFunctionBegin;
  if (!out.balanced) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallESDGComputeWindError(s, "baroclinic_wave", t, Q, &rms, &rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "day %g: L2 error of the wind against the balanced state %.4e m/s (relative %.4e)\n", (double)(t / 86400), (double)rms, (double)rel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SurfaceMonitor(TS ts, PetscInt step, PetscReal t, Vec Q, void *ctx)
{
  SquallESDG s = (SquallESDG)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)step;
  while (out.next < out.ndays && t >= out.days[out.next] * 86400) {
    char name[PETSC_MAX_PATH_LEN];
    PetscCall(DayName(out.file, out.days[out.next], name, sizeof(name)));
    PetscCall(SquallESDGWriteShellLevel(s, Q, 0, name));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "day %g: surface level at t = %.1f s (step %" PetscInt_FMT ") written to %s\n", (double)out.days[out.next], (double)t, step, name));
    PetscCall(WindError(s, Q, t));
    out.next++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SurfaceHook(SquallESDG s, TS ts, Vec Q, PetscBool final)
{
  PetscFunctionBegin;
  if (!final) {
    if (out.ndays) PetscCall(TSMonitorSet(ts, SurfaceMonitor, s, NULL));
  } else {
    PetscReal t;
    PetscCall(TSGetTime(ts, &t));
    PetscCall(SquallESDGWriteShellLevel(s, Q, 0, out.file));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "surface level at t = %.1f s written to %s (scripts/plot_latlon.py %s map.png)\n", (double)t, out.file, out.file));
    PetscCall(WindError(s, Q, t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscBool flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscStrncpy(out.file, "bwave_surface.csv", sizeof(out.file)));
  out.ndays = 32;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Baroclinic wave tutorial output", "SquallESDGWriteShellLevel");
  PetscCall(PetscOptionsString("-bwave_surface", "Surface level (CSV) written at the end, for scripts/plot_latlon.py", "SquallESDGWriteShellLevel", out.file, out.file, sizeof(out.file), NULL));
  PetscCall(PetscOptionsRealArray("-bwave_output_days", "Also write the surface level at these days (the first step at or after each; increasing, >= 0)", "SquallESDGWriteShellLevel", out.days, &out.ndays, &flg));
  PetscOptionsEnd();
  if (!flg) out.ndays = 0;
  out.balanced = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bwave_perturbation", &out.balanced, &flg));
  out.balanced = (PetscBool)(flg && !out.balanced);
  for (PetscInt i = 0; i < out.ndays; i++)
    PetscCheck(out.days[i] >= 0 && (i == 0 || out.days[i] > out.days[i - 1]), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_output_days: day %g is out of range: the days must be >= 0 and increasing", (double)out.days[i]);
  PetscCall(SquallCheckOutputPath(PETSC_COMM_WORLD, "-bwave_surface", out.file));
  RunCaseHook = SurfaceHook;
  return RunTutorial(defaults, "baroclinic_wave", 3600.0, 10.0);
}
