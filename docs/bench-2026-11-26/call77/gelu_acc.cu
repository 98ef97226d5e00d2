/* call 77: kg_gelu_f and kg_gelu_n on the GPU against double precision.
   gelu_prelude.h is templates/lib.lua's CUDA prelude from kg_ex2 to kg_gelu_n,
   cut out by a script; built here with nvcc -O2 -arch=sm_90 */
#include <cstdio>
#include <cmath>
#include <vector>
#include "gelu_prelude.h"
__global__ void ev(const float *x, float *a, float *b, int n)
{
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (i + 8 > n) return;
  float v[8];
  for (int j = 0; j < 8; j++) { v[j] = x[i + j]; a[i + j] = kg_gelu_f(x[i + j]); }
  kg_gelu_n<8>(v);
  for (int j = 0; j < 8; j++) b[i + j] = v[j];
}
__global__ void sp1(float *x) { for (int i = 0; i < 4; i++) x[i] = kg_gelu_f(x[i]); }
int main()
{
  const int n = 2600000;
  std::vector<float> x(n), a(n), b(n);
  for (int i = 0; i < n; i++) x[i] = -13.0f + 1e-5f * i;
  float *dx, *da, *db;
  cudaMalloc(&dx, n * 4); cudaMalloc(&da, n * 4); cudaMalloc(&db, n * 4);
  cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
  ev<<<(n / 8 + 255) / 256, 256>>>(dx, da, db, n);
  cudaMemcpy(a.data(), da, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), db, n * 4, cudaMemcpyDeviceToHost);
  double rel = 0, ab = 0, at = 0; long diff = 0;
  for (int i = 0; i < n; i++) {
    double xd = x[i], r = 0.5 * xd * erfc(-xd / sqrt(2.0));
    double e = fabs(a[i] - r);
    if (e > ab) ab = e;
    if (fabs(r) > 1e-3 && e / fabs(r) > rel) { rel = e / fabs(r); at = xd; }
    diff += a[i] != b[i];
  }
  float sp[4] = { NAN, INFINITY, -INFINITY, -100.0f }, *ds, hs[4];
  cudaMalloc(&ds, 64); cudaMemcpy(ds, sp, 16, cudaMemcpyHostToDevice);
  sp1<<<1, 1>>>(ds); cudaMemcpy(hs, ds, 16, cudaMemcpyDeviceToHost);
  printf("gelu(nan) %g gelu(inf) %g gelu(-inf) %g gelu(-100) %g\n", hs[0], hs[1], hs[2], hs[3]);
  printf("kg_gelu_f on the GPU over [-13, 13]: max rel %.3g (at %g, |gelu| > 1e-3), max abs %.3g; kg_gelu_n differs at %ld points\n", rel, at, ab, diff);
  return 0;
}
