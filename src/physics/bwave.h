/* The baroclinic wave on the sphere of P. A. Ullrich, T. Melvin, C. Jablonowski, A. Staniforth, "A proposed
   baroclinic wave test case for deep- and shallow-atmosphere dynamical cores", Q. J. R. Meteorol. Soc. 140
   (2014) 1590-1602, pointwise (C reference and CUDA): the balanced zonal state, an exact steady solution of
   the deep-atmosphere equations with gravity g (a/r)^2 (or, with deep = 0, of the shallow-atmosphere
   equations with constant g and the metric radius a), and the localised zonal-wind perturbation that
   triggers the wave. The formulas follow the paper's section 2 as written in the DCMIP-2016 reference
   implementation (P. A. Ullrich, baroclinic_wave_test.f90, routines evaluate_pressure_temperature and
   evaluate_exponential, with the Earth scaling factor X = 1):

     T0 = (T0E + T0P)/2,  H = Rd T0 / g,  A = 1/Gamma,  B' = (T0 - T0P)/(T0 T0P),  C = (K + 2)/2 (T0E - T0P)/(T0E T0P)
     s = z / (b H),  tau1 = (1/T0) exp(Gamma z/T0) + B' (1 - 2 s^2) exp(-s^2),  tau2 = C (1 - 2 s^2) exp(-s^2)
     I1 = A (exp(Gamma z/T0) - 1) + B' z exp(-s^2),  I2 = C z exp(-s^2)     (the integrals of tau1, tau2 in z)
     rr = r/a (deep) or 1 (shallow),  c = rr cos(lat),  F = c^K - K/(K+2) c^(K+2)
     T = 1 / (rr^2 (tau1 - tau2 F)),  p = p0 exp(-g/Rd (I1 - I2 F))
     U = g/a K I2 (c^(K-1) - c^(K+1)) T,  R = r cos(lat) (deep) or a cos(lat) (shallow)
     u = -Omega R + sqrt(Omega^2 R^2 + R U),  v = w = 0

   and the perturbation u' = u_p Z(z) exp(-(d/d0)^2) for d < d0 (0 beyond, as in the reference), with d the
   great-circle distance (radians) from the centre, d0 the radius (radians, 0.1), Z = 1 - 3 (z/zp)^2 +
   2 (z/zp)^3 below zp = 15 km and 0 above. */
#pragma once

#include "physics/hostdevice.h"

typedef struct {
  PetscReal a, omega, g, Rd, p0; /* radius, rotation rate, surface gravity, gas constant, surface pressure */
  PetscReal T0E, T0P, b, K, lapse;
  PetscReal up, d0, lonc, latc, zp; /* perturbation: amplitude (m/s), radius (radians), centre (radians), top (m) */
  int       deep;                   /* 1: deep atmosphere, 0: shallow */
} SquallBWave;

/* pressure, temperature and zonal wind of the balanced state at latitude lat (radians) and height z = r - a */
SQUALL_HOST_DEVICE static inline void SquallBWaveBalanced(const SquallBWave *w, PetscReal lat, PetscReal z, PetscReal *p, PetscReal *T, PetscReal *u)
{
  const PetscReal T0 = (PetscReal)0.5 * (w->T0E + w->T0P), H = w->Rd * T0 / w->g, A = 1 / w->lapse;
  const PetscReal Bc = (T0 - w->T0P) / (T0 * w->T0P), C = (PetscReal)0.5 * (w->K + 2) * (w->T0E - w->T0P) / (w->T0E * w->T0P);
  const PetscReal s = z / (w->b * H), es = PetscExpReal(-s * s), el = PetscExpReal(w->lapse * z / T0);
  const PetscReal tau1 = el / T0 + Bc * (1 - 2 * s * s) * es, tau2 = C * (1 - 2 * s * s) * es;
  const PetscReal I1 = A * (el - 1) + Bc * z * es, I2 = C * z * es;
  const PetscReal rr = w->deep ? (w->a + z) / w->a : 1, c = rr * PetscCosReal(lat);
  const PetscReal F  = PetscPowReal(c, w->K) - w->K / (w->K + 2) * PetscPowReal(c, w->K + 2);
  const PetscReal Tv = 1 / (rr * rr * (tau1 - tau2 * F));
  const PetscReal U  = w->g / w->a * w->K * I2 * (PetscPowReal(c, w->K - 1) - PetscPowReal(c, w->K + 1)) * Tv;
  const PetscReal R = (w->deep ? w->a + z : w->a) * PetscCosReal(lat), oR = w->omega * R;

  *T = Tv;
  *p = w->p0 * PetscExpReal(-w->g / w->Rd * (I1 - I2 * F));
  *u = -oR + PetscSqrtReal(oR * oR + R * U);
}

/* the zonal-wind perturbation u' at (lon, lat) in radians and height z */
SQUALL_HOST_DEVICE static inline PetscReal SquallBWavePerturbation(const SquallBWave *w, PetscReal lon, PetscReal lat, PetscReal z)
{
  PetscReal cd = PetscSinReal(w->latc) * PetscSinReal(lat) + PetscCosReal(w->latc) * PetscCosReal(lat) * PetscCosReal(lon - w->lonc), d, Z;

  cd = cd > 1 ? 1 : (cd < -1 ? -1 : cd);
  d  = PetscAcosReal(cd) / w->d0;
  Z  = z < w->zp ? 1 - 3 * (z / w->zp) * (z / w->zp) + 2 * (z / w->zp) * (z / w->zp) * (z / w->zp) : 0;
  return d < 1 ? w->up * Z * PetscExpReal(-d * d) : 0;
}
