/* AutoSync's stand-in for <math.h>/<cmath> (written for AutoSync): the constants as
   literals; the functions are declared by the prelude kpl/stubs/cuda.h. */
#ifndef KPL_STUB_MATH_H
#define KPL_STUB_MATH_H
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_E 2.7182818284590452354
#define M_LN2 0.69314718055994530942
#define M_SQRT2 1.41421356237309504880
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
#define HUGE_VALF (1.0f / 0.0f)
#define HUGE_VAL (1.0 / 0.0)
#endif
