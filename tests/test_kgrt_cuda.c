/*
 * test_kgrt_cuda.c -- kgrt on a real NVIDIA GPU: kernels compiled here with
 * NVRTC for the device's arch, loaded as CUBIN and as PTX through the
 * dlopen'd driver, launched, timed and checked; the error classes a tuner
 * relies on (ENOTFOUND, ERESOURCE, EIMAGE, ECOMPILE, ETIMEOUT, and last,
 * because it poisons the context, ESTICKY).  Skipped (77) without a CUDA
 * device or in a build without NVRTC.
 */
/* kgen-test-labels: cuda */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kgen/kgrt.h>

#include "compile.h"

#ifdef KGEN_WITH_CUDA

static const char src[] =
    "extern \"C\" __global__ void vadd_scale(const float *a, const float *b,\n"
    "                                        float *c, int n, float s)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        c[i] = (a[i] + b[i]) * s + OFFSET;\n"
    "}\n"
    "extern \"C\" __global__ void reverse_dyn(float *x, int n)\n"
    "{\n"
    "    extern __shared__ float buf[];\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        buf[i] = (float)i;\n"
    "    __syncthreads();\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        x[i] = buf[n - 1 - i];\n"
    "}\n"
    "extern \"C\" __global__ void spin(float *x, long long cycles)\n"
    "{\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < cycles)\n"
    "        ;\n"
    "    x[0] = 1.0f;\n"
    "}\n"
    "extern \"C\" __global__ void bad_access(float *x, long long off)\n"
    "{\n"
    "    x[off] = 1.0f;\n"
    "}\n";

/* One TMA copy (sm_90): a box of 8 rows of 32 floats at (c0, c1) through
 * the tensor map m into shared memory with the 128-byte swizzle, completing
 * on an mbarrier; the tile is written out as it lies in shared memory. */
static const char tma_src[] =
    "struct __align__(64) tmap { unsigned long long q[16]; };\n"
    "extern \"C\" __global__ void tma_tile(float *out, int c0, int c1,\n"
    "                                      const __grid_constant__ tmap m)\n"
    "{\n"
    "    __shared__ __align__(1024) float tile[8 * 32];\n"
    "    __shared__ __align__(8) unsigned long long bar;\n"
    "    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(b) : \"memory\");\n"
    "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;\"\n"
    "                     :: \"r\"(b) : \"memory\");\n"
    "        asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier\"\n"
    "                     \"::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\"\n"
    "                     :: \"r\"((unsigned)__cvta_generic_to_shared(tile)),\n"
    "                        \"l\"((unsigned long long)&m), \"r\"(c0), \"r\"(c1), \"r\"(b)\n"
    "                     : \"memory\");\n"
    "    }\n"
    "    asm volatile(\"{\\n.reg .pred p;\\nW:\\n\"\n"
    "                 \"mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n\"\n"
    "                 \"@!p bra W;\\n}\\n\" :: \"r\"(b) : \"memory\");\n"
    "    for (int i = threadIdx.x; i < 8 * 32; i += blockDim.x)\n"
    "        out[i] = tile[i];\n"
    "}\n";

static kgrt_device *dev;
static kgrt_device_info info;
static KgCubin native;         /* for the device's arch */
static KgCubin older;          /* sm_80: its PTX JITs forward */

static int setup(void **state)
{
    const char *defs[] = { "OFFSET=1.0f" };
    int rc;
    (void)state;
    if ((rc = kgrt_device_open(KGRT_CUDA, 0, &dev)) != KGRT_OK) {
        fprintf(stderr, "open: %s\n", kgrt_last_error());
        return -1;
    }
    kgrt_device_get_info(dev, &info);
    printf("# %s %s %s, NVRTC %s\n", info.name, info.arch, info.driver,
           kg_nvrtc_version());
    if (kg_nvrtc_compile(src, "t.cu", info.arch, defs, 1, &native) != 0 ||
        kg_nvrtc_compile(src, "t.cu", "sm_80", defs, 1, &older) != 0) {
        fprintf(stderr, "compile: %s\n%s\n", native.log ? native.log : "",
                older.log ? older.log : "");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kg_cubin_free(&native);
    kg_cubin_free(&older);
    kgrt_device_close(dev);
    return 0;
}

static kgrt_module *load(kgrt_image_kind kind, const KgCubin *c)
{
    kgrt_image img = { kind, kind == KGRT_IMAGE_PTX ? (const void *)c->ptx
                                                    : c->cubin,
                       kind == KGRT_IMAGE_PTX ? c->ptx_size : c->cubin_size,
                       NULL };
    kgrt_module *m = NULL;
    char *log = NULL;
    int rc = kgrt_module_load(dev, &img, &m, &log);
    if (rc != KGRT_OK)
        print_error("load: %s\n%s\n", kgrt_last_error(), log ? log : "");
    free(log);
    assert_int_equal(rc, KGRT_OK);
    return m;
}

static void run_vadd(kgrt_module *m, int n, unsigned bs)
{
    kgrt_kernel *k = NULL;
    kgrt_buffer *a, *b, *c;
    float *h = malloc(3 * n * sizeof *h), nan_ = nanf("");
    unsigned grid[3] = { (n + bs - 1) / bs, 1, 1 }, block[3] = { bs, 1, 1 };
    kgrt_arg args[5];
    double ms = 0;
    int i;

    assert_non_null(h);
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    for (i = 0; i < n; i++) {
        h[i] = (float)i;
        h[n + i] = (float)i * 0.5f;
    }
    assert_int_equal(kgrt_buffer_alloc(dev, n * sizeof(float), &a), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, n * sizeof(float), &b), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, n * sizeof(float), &c), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(a, 0, h, n * sizeof(float)), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(b, 0, h + n, n * sizeof(float)),
                     KGRT_OK);
    assert_int_equal(kgrt_buffer_fill(c, &nan_, sizeof nan_), KGRT_OK);
    args[0] = kgrt_arg_buffer(a);
    args[1] = kgrt_arg_buffer(b);
    args[2] = kgrt_arg_buffer(c);
    args[3] = kgrt_arg_i32(n);
    args[4] = kgrt_arg_f32(2.0f);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_OK);
    assert_int_equal(kgrt_launch_timed(k, grid, block, 0, args, 5, &ms),
                     KGRT_OK);
    assert_true(ms > 0 && ms < 1000);
    assert_int_equal(kgrt_buffer_read(c, 0, h + 2 * n, n * sizeof(float)),
                     KGRT_OK);
    for (i = 0; i < n; i++)
        if (h[2 * n + i] != (float)(3 * i + 1)) {
            print_error("c[%d] = %g, want %d\n", i, h[2 * n + i], 3 * i + 1);
            fail();
        }
    kgrt_buffer_free(a);
    kgrt_buffer_free(b);
    kgrt_buffer_free(c);
    free(h);
}

static void test_limits(void **state)
{
    kgrt_limits lim;
    (void)state;
    assert_int_equal(kgrt_device_limits(dev, &lim), KGRT_OK);
    printf("# limits: shared %zu, threads %d, regs %d, warp %d, SMs %d, "
           "L2 %zu\n", lim.max_shared_per_block, lim.max_threads_per_block,
           lim.max_registers_per_block, lim.warp_or_simd, lim.compute_units,
           lim.l2_bytes);
    assert_int_equal(lim.warp_or_simd, 32);
    assert_int_equal(lim.max_threads_per_block, 1024);
    assert_true(lim.max_shared_per_block > 48 * 1024);
    assert_true(lim.compute_units > 0);
    assert_true(lim.l2_bytes > 0);
    assert_memory_equal(info.arch, "sm_", 3);
}

static void test_cubin(void **state)
{
    kgrt_module *m = load(KGRT_IMAGE_CUBIN, &native);
    kgrt_kernel *k = NULL;
    kgrt_kernel_attrs at;
    (void)state;
    run_vadd(m, 100003, 256);
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_int_equal(kgrt_kernel_get_attrs(k, &at), KGRT_OK);
    printf("# vadd_scale: %d registers (NVRTC said %d)\n", at.registers,
           native.registers);
    assert_true(at.registers > 0);
    assert_true(at.max_threads_per_block > 0);
    kgrt_module_unload(m);
}

/* sm_80 PTX JITs on a newer GPU; the sm_80 CUBIN does not load there. */
static void test_ptx_forward(void **state)
{
    kgrt_module *m = load(KGRT_IMAGE_PTX, &older);
    kgrt_image img = { KGRT_IMAGE_CUBIN, older.cubin, older.cubin_size,
                       NULL };
    (void)state;
    run_vadd(m, 1000, 128);
    kgrt_module_unload(m);
    m = NULL;
    if (strcmp(info.arch, "sm_80") != 0 && strncmp(info.arch, "sm_8", 4) != 0) {
        assert_int_equal(kgrt_module_load(dev, &img, &m, NULL), KGRT_EIMAGE);
        assert_null(m);
        printf("# sm_80 cubin: %s\n", kgrt_last_error());
    }
}

static void test_errors(void **state)
{
    static const char bad_ptx[] = ".version 8.0\n.target sm_80\n"
                                  ".address_size 64\nthis is not ptx\n";
    kgrt_image ptx = { KGRT_IMAGE_PTX, bad_ptx, sizeof bad_ptx - 1, NULL };
    kgrt_image junk = { KGRT_IMAGE_CUBIN, "\177ELF-junk-junk-junk", 19, NULL };
    kgrt_module *m = load(KGRT_IMAGE_CUBIN, &native), *bad = NULL;
    kgrt_kernel *k = NULL;
    kgrt_buffer *b = NULL;
    kgrt_limits lim;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 2048, 1, 1 };
    kgrt_arg args[5];
    char *log = NULL;
    (void)state;

    assert_int_equal(kgrt_module_load(dev, &ptx, &bad, &log), KGRT_ECOMPILE);
    printf("# bad PTX: %s\n", kgrt_last_error());
    assert_non_null(log);
    free(log);
    assert_int_equal(kgrt_module_load(dev, &junk, &bad, NULL), KGRT_EIMAGE);
    assert_int_equal(kgrt_kernel_get(m, "nope", &k), KGRT_ENOTFOUND);
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, 4096, &b), KGRT_OK);
    args[0] = kgrt_arg_buffer(b);
    args[1] = kgrt_arg_buffer(b);
    args[2] = kgrt_arg_buffer(b);
    args[3] = kgrt_arg_i32(0);
    args[4] = kgrt_arg_f32(1.0f);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_ERESOURCE);
    block[0] = 32;
    /* The driver knows the parameters (CUDA 12.4+): counts and sizes. */
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_EINVAL);
    printf("# 4 args: %s\n", kgrt_last_error());
    args[3] = kgrt_arg_i64(0);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_EINVAL);
    args[3] = kgrt_arg_i32(0);
    assert_int_equal(kgrt_device_limits(dev, &lim), KGRT_OK);
    assert_int_equal(kgrt_launch(k, grid, block, lim.max_shared_per_block + 1,
                                 args, 5), KGRT_ERESOURCE);
    grid[0] = 0xffffffffu;
    grid[1] = 70000;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_ERESOURCE);
    grid[0] = grid[1] = 1;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_OK);
    assert_int_equal(kgrt_synchronize(dev), KGRT_OK);
    kgrt_buffer_free(b);
    kgrt_module_unload(m);
}

/* Over 48 KiB of dynamic shared memory: kgrt opts the kernel in. */
static void test_dynamic_shared(void **state)
{
    kgrt_module *m = load(KGRT_IMAGE_CUBIN, &native);
    kgrt_kernel *k = NULL;
    kgrt_buffer *x = NULL;
    int n = 50000, i;
    float *h = malloc(n * sizeof *h);
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
    kgrt_arg args[2];
    (void)state;

    assert_non_null(h);
    assert_int_equal(kgrt_kernel_get(m, "reverse_dyn", &k), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, n * sizeof(float), &x), KGRT_OK);
    args[0] = kgrt_arg_buffer(x);
    args[1] = kgrt_arg_i32(n);
    assert_int_equal(kgrt_launch(k, grid, block, n * sizeof(float), args, 2),
                     KGRT_OK);
    assert_int_equal(kgrt_buffer_read(x, 0, h, n * sizeof(float)), KGRT_OK);
    for (i = 0; i < n; i++)
        assert_true(h[i] == (float)(n - 1 - i));
    kgrt_buffer_free(x);
    kgrt_module_unload(m);
    free(h);
}

static void test_fill(void **state)
{
    kgrt_buffer *b = NULL;
    float f[1024], nan_ = nanf("");
    double d2[2] = { 1.5, -2.25 };
    unsigned char p128[128];
    unsigned char out[4096];
    int i;
    (void)state;

    assert_int_equal(kgrt_buffer_alloc(dev, sizeof f, &b), KGRT_OK);
    assert_int_equal(kgrt_buffer_fill(b, &nan_, sizeof nan_), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, f, sizeof f), KGRT_OK);
    for (i = 0; i < 1024; i++)
        assert_true(isnan(f[i]));
    assert_int_equal(kgrt_buffer_fill(b, d2, sizeof d2), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, out, sizeof out), KGRT_OK);
    for (i = 0; i < 4096; i += 16)
        assert_memory_equal(out + i, d2, 16);
    for (i = 0; i < 128; i++)
        p128[i] = (unsigned char)(i * 13);
    assert_int_equal(kgrt_buffer_fill(b, p128, sizeof p128), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, out, sizeof out), KGRT_OK);
    for (i = 0; i < 4096; i += 128)
        assert_memory_equal(out + i, p128, 128);
    kgrt_buffer_free(b);
}

static void test_timeout(void **state)
{
    kgrt_module *m = load(KGRT_IMAGE_CUBIN, &native);
    kgrt_kernel *k = NULL;
    kgrt_buffer *x = NULL;
    unsigned one[3] = { 1, 1, 1 };
    kgrt_arg args[2];
    double ms = 0;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "spin", &k), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, 4, &x), KGRT_OK);
    args[0] = kgrt_arg_buffer(x);
    args[1] = kgrt_arg_i64(400LL * 1000 * 1000);   /* ~0.2 s at 2 GHz */
    assert_int_equal(kgrt_device_set_timeout(dev, 5), KGRT_OK);
    assert_int_equal(kgrt_launch_timed(k, one, one, 0, args, 2, &ms),
                     KGRT_ETIMEOUT);
    printf("# %s\n", kgrt_last_error());
    assert_int_equal(kgrt_device_set_timeout(dev, 0), KGRT_OK);
    assert_int_equal(kgrt_synchronize(dev), KGRT_OK);
    args[1] = kgrt_arg_i64(1000);
    assert_int_equal(kgrt_device_set_timeout(dev, 10000), KGRT_OK);
    assert_int_equal(kgrt_launch_timed(k, one, one, 0, args, 2, &ms), KGRT_OK);
    assert_int_equal(kgrt_synchronize(dev), KGRT_OK);
    assert_int_equal(kgrt_device_set_timeout(dev, 0), KGRT_OK);
    kgrt_buffer_free(x);
    kgrt_module_unload(m);
}

/* Last: an illegal address poisons the (primary) context for good. */
/* A tensor map encoded at launch over a buffer plus an offset: the box
 * lands swizzled (16-byte chunk ch of row r at chunk ch ^ r) and zero past
 * the tensor's edges; layouts the driver would refuse are refused first. */
static void test_tensor_map(void **state)
{
    enum { R = 20, C = 40 };
    float h[R * C + 4], out[8 * 32];
    kgrt_buffer *in, *o;
    kgrt_module *m;
    kgrt_kernel *k = NULL;
    KgCubin bin;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 128, 1, 1 };
    /* a [R, C] f32 tensor 16 bytes into the buffer, boxes of 8 x 32 */
    kgrt_tmap tm = { KGRT_F32, 2, { C, R }, { C * 4 }, { 32, 8 }, 16, 128 };
    kgrt_arg args[4];
    (void)state;

    if (atoi(info.arch + 3) < 90) {
        printf("# TMA needs sm_90; %s\n", info.arch);
        skip();
    }
    memset(&bin, 0, sizeof bin);
    if (kg_nvrtc_compile(tma_src, "tma.cu", info.arch, NULL, 0, &bin) != 0)
        print_error("%s\n", bin.log ? bin.log : "");
    assert_non_null(bin.cubin);
    m = load(KGRT_IMAGE_CUBIN, &bin);
    assert_int_equal(kgrt_kernel_get(m, "tma_tile", &k), KGRT_OK);
    for (int i = 0; i < R * C + 4; i++)
        h[i] = (float)(i - 4);      /* element (r, c) holds r * C + c */
    assert_int_equal(kgrt_buffer_alloc(dev, sizeof h, &in), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, sizeof out, &o), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(in, 0, h, sizeof h), KGRT_OK);
    args[0] = kgrt_arg_buffer(o);
    args[1] = kgrt_arg_i32(16);     /* column: columns 40..47 lie past C */
    args[2] = kgrt_arg_i32(16);     /* row: rows 20..23 lie past R */
    args[3] = kgrt_arg_tmap(kgrt_arg_buffer(in), &tm);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_OK);
    assert_int_equal(kgrt_synchronize(dev), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(o, 0, out, sizeof out), KGRT_OK);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 32; c++) {
            int row = 16 + r, col = 16 + c;
            float want = row < R && col < C ? (float)(row * C + col) : 0.0f;
            float got = out[r * 32 + (((c / 4) ^ r) * 4) + c % 4];
            if (got != want) {
                print_error("(%d, %d) = %g, want %g\n", row, col, got, want);
                fail();
            }
        }
    /* refused before the driver sees them: a stride not a multiple of 16,
       a box row wider than the swizzle, an unaligned start */
    tm.strides[0] = C * 4 + 4;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_EINVAL);
    assert_non_null(strstr(kgrt_last_error(), "multiple of 16"));
    tm.strides[0] = C * 4;
    tm.box[0] = 64;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_EINVAL);
    assert_non_null(strstr(kgrt_last_error(), "wider than"));
    tm.box[0] = 32;
    tm.off = 8;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_EINVAL);
    tm.off = 16;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_OK);
    assert_int_equal(kgrt_synchronize(dev), KGRT_OK);
    kgrt_buffer_free(in);
    kgrt_buffer_free(o);
    kgrt_module_unload(m);
    kg_cubin_free(&bin);
}

static void test_sticky(void **state)
{
    kgrt_module *m = load(KGRT_IMAGE_CUBIN, &native);
    kgrt_kernel *k = NULL;
    kgrt_buffer *x = NULL, *y = (kgrt_buffer *)1;
    unsigned one[3] = { 1, 1, 1 };
    kgrt_arg args[2];
    int rc;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "bad_access", &k), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(dev, 4, &x), KGRT_OK);
    args[0] = kgrt_arg_buffer(x);
    args[1] = kgrt_arg_i64(1LL << 40);
    rc = kgrt_launch(k, one, one, 0, args, 2);
    if (rc == KGRT_OK)
        rc = kgrt_synchronize(dev);
    printf("# %s\n", kgrt_last_error());
    assert_int_equal(rc, KGRT_ESTICKY);
    assert_non_null(strstr(kgrt_last_error(), "CUDA_ERROR_"));
    /* Latched: every later call fails fast, naming the first fault. */
    assert_int_equal(kgrt_buffer_alloc(dev, 4, &y), KGRT_ESTICKY);
    assert_null(y);
    assert_non_null(strstr(kgrt_last_error(), "earlier fault"));
    assert_int_equal(kgrt_synchronize(dev), KGRT_ESTICKY);
    kgrt_buffer_free(x);
    kgrt_module_unload(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_cubin),
        cmocka_unit_test(test_ptx_forward),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dynamic_shared),
        cmocka_unit_test(test_fill),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_tensor_map),
        cmocka_unit_test(test_sticky),
    };
    int n = kgrt_device_count(KGRT_CUDA);
    if (n <= 0) {
        printf("skipped: no CUDA device: %s\n", kgrt_last_error());
        return 77;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else

int main(void)
{
    printf("skipped: kgen built without CUDA (NVRTC)\n");
    return 77;
}

#endif
