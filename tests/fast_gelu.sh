#!/bin/sh
# fast_gelu.sh CC SOURCE_DIR -- the fit behind the CUDA prelude's GELU for
# 16-bit results (templates/lib.lua, kg_gelu_f: max(x, 0) - a 2^Q(a),
# a = min(|x|, 6)): its polynomial (tools/fit_gelu.py), cut out of lib.lua,
# evaluated in f32 on the host, stays within 8e-6 relative of double
# precision over [-13, 13] where |GELU| > 6.1e-5 (f16's smallest normal;
# 6.2e-6 when written) and within 1e-6 absolute everywhere, against the
# 2^-11 (4.9e-4) relative of an f16 store.  Then the same for the atan
# (kg_atan_f: KG_ATAN_P with the range fold and the sign): within 6e-6
# relative over [-1e4, 1e4], NaN kept, +-inf to +-pi/2.  A changed
# coefficient or clamp fails here, where no GPU is needed.
set -u
cc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=$src/templates/lib.lua
# the clamp at 6 (0f40C00000) keeps a NaN a NaN (min.NaN)
grep -q 'min\.NaN\.f32 %0, %1, 0f40C00000' "$lib" || { echo "FAILED: kg_gelu_a no longer clamps at 6 by min.NaN"; exit 1; }
sed -n '/^#define KG_GELU_Q/,/[^\\]$/p' "$lib" > "$work/q.h"
[ -s "$work/q.h" ] || { echo "FAILED: no KG_GELU_Q in $lib"; exit 1; }
cat > "$work/t.c" <<'C'
#include <math.h>
#include <stdio.h>
#include "q.h"
static float gelu(float x)
{
  float a = isnan(x) ? x : fminf(fabsf(x), 6.0f), q;
  KG_GELU_Q(q, a);
  return fmaf(-a, exp2f(q), fmaxf(x, 0.0f));
}
int main(void)
{
  double rel = 0, ab = 0, at = 0;
  for (long i = 0; i <= 2600000; i++) {
    float x = -13.0f + 1e-5f * (float)i;
    double r = 0.5 * x * erfc(-x / sqrt(2.0)), e = fabs(gelu(x) - r);
    if (e > ab) ab = e;
    if (fabs(r) > 6.1e-5 && e / fabs(r) > rel) { rel = e / fabs(r); at = x; }
  }
  printf("GELU fit over [-13, 13]: max rel %.3g (at %g), max abs %.3g; gelu(nan) %g gelu(-inf) %g\n",
         rel, at, ab, gelu(NAN), gelu(-INFINITY));
  return !(rel < 8e-6 && ab < 1e-6 && isnan(gelu(NAN)) && fabs(gelu(-INFINITY)) < 1e-8 &&
           gelu(INFINITY) == INFINITY);
}
C
"$cc" -std=c11 -O2 -ffp-contract=off -o "$work/t" "$work/t.c" -lm || { echo "FAILED: the fit does not compile as C"; exit 1; }
"$work/t" || { echo "FAILED: the GELU fit is off"; exit 1; }
sed -n '/^#define KG_ATAN_P/,/[^\\]$/p' "$lib" > "$work/p.h"
[ -s "$work/p.h" ] || { echo "FAILED: no KG_ATAN_P in $lib"; exit 1; }
cat > "$work/a.c" <<'C'
#include <math.h>
#include <stdio.h>
#include "p.h"
/* kg_atan_f as the prelude writes it, 1/a exact here (rcp.approx is within an ulp) */
static float fatan(float x)
{
  const float a = fabsf(x), t = fminf(a, 1.0f / a), s = t * t;
  float p;
  KG_ATAN_P(p, s);
  const float y = t * p;
  return copysignf(a > 1.0f ? 1.57079637f - y : y, x);
}
int main(void)
{
  double rel = 0, at = 0;
  for (long i = -2000000; i <= 2000000; i++) {
    /* dense near 0 and 1, out to 1e4 */
    float x = (float)(i < 0 ? -1 : 1) * (float)(1e-6 * pow(1e10, fabs((double)i) / 2e6));
    double r = atan((double)x), e = fabs(fatan(x) - r) / fmax(fabs(r), 1e-30);
    if (e > rel) { rel = e; at = x; }
  }
  printf("atan fit: max rel %.3g (at %g); atan(nan) %g atan(+-inf) %g %g atan(-0) %g\n",
         rel, at, fatan(NAN), fatan(INFINITY), fatan(-INFINITY), fatan(-0.0f));
  return !(rel < 6e-6 && isnan(fatan(NAN)) && fatan(INFINITY) == 1.57079637f &&
           fatan(-INFINITY) == -1.57079637f && signbit(fatan(-0.0f)));
}
C
"$cc" -std=c11 -O2 -ffp-contract=off -o "$work/a" "$work/a.c" -lm || { echo "FAILED: the atan fit does not compile as C"; exit 1; }
"$work/a" || { echo "FAILED: the atan fit is off"; exit 1; }
