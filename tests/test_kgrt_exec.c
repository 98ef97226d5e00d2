/*
 * test_kgrt_exec.c -- kgrt running kernels: devices, buffers, modules,
 * launches, timing and the error classes a tuner relies on, on OpenCL
 * (PoCL in CI).  Without an OpenCL device the whole file is skipped (77);
 * the CUDA checks here need no GPU (a machine without libcuda.so.1 must
 * refuse to open a CUDA device cleanly).
 */
/* kgen-test-labels: opencl */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kgen/kgrt.h>

static int cl_index = -1;      /* the OpenCL device the tests use */

static const char vadd_src[] =
    "#ifndef OFFSET\n"
    "#error \"OFFSET must be defined\"\n"
    "#endif\n"
    "__kernel void vadd_scale(__global const float *a,\n"
    "                         __global const float *b,\n"
    "                         __global float *c, int n, float s)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = (a[i] + b[i]) * s + OFFSET;\n"
    "}\n"
    "__kernel void spin(__global float *x, int iters)\n"
    "{\n"
    "    float v = x[get_global_id(0)];\n"
    "    for (int i = 0; i < iters; i++)\n"
    "        v = v * 0.9999999f + 0.5f;\n"
    "    x[get_global_id(0)] = v;\n"
    "}\n";

static const char bad_src[] =
    "__kernel void broken(__global float *x)\n"
    "{\n"
    "    x[0] = undeclared_thing;\n"
    "}\n";

static const kgrt_image vadd_image = {
    KGRT_IMAGE_OPENCL_SOURCE, vadd_src, 0, "-D OFFSET=1.0f -cl-std=CL1.2"
};

static kgrt_device *open_device(void)
{
    kgrt_device *d = NULL;
    int rc = kgrt_device_open(KGRT_OPENCL, cl_index, &d);
    if (rc != KGRT_OK)
        print_error("open: %s: %s\n", kgrt_status_string(rc),
                    kgrt_last_error());
    assert_int_equal(rc, KGRT_OK);
    assert_non_null(d);
    return d;
}

static kgrt_module *load_vadd(kgrt_device *d)
{
    kgrt_module *m = NULL;
    char *log = NULL;
    int rc = kgrt_module_load(d, &vadd_image, &m, &log);
    if (rc != KGRT_OK)
        print_error("build: %s: %s\n%s\n", kgrt_status_string(rc),
                    kgrt_last_error(), log ? log : "");
    free(log);
    assert_int_equal(rc, KGRT_OK);
    assert_non_null(m);
    return m;
}

/* a[i] = i, b[i] = i/2: c[i] = (1.5 i) * 2 + 1 = 3i + 1 exactly, however
 * the device rounds or contracts. */
static void run_vadd(kgrt_device *d, kgrt_kernel *k, int n, unsigned bs,
                     double *ms)
{
    kgrt_buffer *a = NULL, *b = NULL, *c = NULL;
    float *ha = malloc(n * sizeof *ha), *hb = malloc(n * sizeof *hb);
    float *hc = malloc(n * sizeof *hc), nan_ = nanf("");
    unsigned grid[3] = { (unsigned)(n + (int)bs - 1) / bs, 1, 1 };
    unsigned block[3] = { bs, 1, 1 };
    kgrt_arg args[5];
    int i;

    assert_non_null(ha);
    assert_non_null(hb);
    assert_non_null(hc);
    assert_int_not_equal(n % (int)bs, 0);   /* the bounds check matters */
    for (i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = (float)i * 0.5f;
    }
    assert_int_equal(kgrt_buffer_alloc(d, n * sizeof(float), &a), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(d, n * sizeof(float), &b), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(d, n * sizeof(float), &c), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(a, 0, ha, n * sizeof(float)), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(b, 0, hb, n * sizeof(float)), KGRT_OK);
    assert_int_equal(kgrt_buffer_fill(c, &nan_, sizeof nan_), KGRT_OK);
    args[0] = kgrt_arg_buffer(a);
    args[1] = kgrt_arg_buffer(b);
    args[2] = kgrt_arg_buffer(c);
    args[3] = kgrt_arg_i32(n);
    args[4] = kgrt_arg_f32(2.0f);
    if (ms) {
        assert_int_equal(kgrt_launch_timed(k, grid, block, 0, args, 5, ms),
                         KGRT_OK);
        assert_true(*ms > 0);
    } else {
        assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_OK);
        assert_int_equal(kgrt_synchronize(d), KGRT_OK);
    }
    assert_int_equal(kgrt_buffer_read(c, 0, hc, n * sizeof(float)), KGRT_OK);
    for (i = 0; i < n; i++)
        if (hc[i] != (float)(3 * i + 1)) {
            print_error("c[%d] = %g, want %d\n", i, hc[i], 3 * i + 1);
            fail();
        }
    kgrt_buffer_free(a);
    kgrt_buffer_free(b);
    kgrt_buffer_free(c);
    free(ha);
    free(hb);
    free(hc);
}

static int have_libcuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_cuda_open_without_driver(void **state)
{
    kgrt_device *d = (kgrt_device *)1;
    (void)state;
    if (have_libcuda())
        skip();
    assert_int_equal(kgrt_device_open(KGRT_CUDA, 0, &d), KGRT_ENODEVICE);
    assert_null(d);
    assert_non_null(strstr(kgrt_last_error(), "libcuda.so.1"));
}

static void test_device_info_and_limits(void **state)
{
    kgrt_device *d = open_device();
    kgrt_device_info info;
    kgrt_limits lim;
    (void)state;

    assert_int_equal(kgrt_device_get_info(d, &info), KGRT_OK);
    assert_int_equal(info.backend, KGRT_OPENCL);
    assert_int_equal(info.index, cl_index);
    assert_string_equal(info.arch, "opencl");
    assert_string_not_equal(info.name, "");
    assert_int_equal(kgrt_device_limits(d, &lim), KGRT_OK);
    assert_true(lim.max_threads_per_block >= 1);
    assert_true(lim.max_shared_per_block > 0);
    assert_true(lim.compute_units >= 1);
    assert_true(lim.max_block[0] >= 1);
    assert_true(lim.max_alloc > 0);
    assert_int_equal(kgrt_device_set_timeout(d, -1), KGRT_EINVAL);
    assert_int_equal(kgrt_device_set_timeout(d, 0), KGRT_OK);
    kgrt_device_close(d);
}

static void test_buffers(void **state)
{
    kgrt_device *d = open_device();
    kgrt_buffer *b = NULL;
    kgrt_limits lim;
    unsigned char in[4096], out[4096];
    float f[1024], nan_ = nanf(""), quad[4] = { 1, 2, 3, 4 };
    double dnan = nan("");
    size_t i;
    (void)state;

    for (i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(kgrt_buffer_alloc(d, sizeof in, &b), KGRT_OK);
    assert_int_equal(kgrt_buffer_size(b), sizeof in);
    assert_int_equal(kgrt_buffer_write(b, 0, in, sizeof in), KGRT_OK);
    memset(out, 0, sizeof out);
    assert_int_equal(kgrt_buffer_read(b, 0, out, sizeof out), KGRT_OK);
    assert_memory_equal(in, out, sizeof in);
    /* A part, at an offset. */
    assert_int_equal(kgrt_buffer_read(b, 100, out, 50), KGRT_OK);
    assert_memory_equal(in + 100, out, 50);
    assert_int_equal(kgrt_buffer_write(b, 4000, in, 96), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 4000, out, 96), KGRT_OK);
    assert_memory_equal(in, out, 96);
    /* Out of range, overflowing, NULL. */
    assert_int_equal(kgrt_buffer_read(b, 4000, out, 97), KGRT_EINVAL);
    assert_non_null(strstr(kgrt_last_error(), "outside"));
    assert_int_equal(kgrt_buffer_write(b, SIZE_MAX, in, 2), KGRT_EINVAL);
    assert_int_equal(kgrt_buffer_read(b, 0, NULL, 4), KGRT_EINVAL);

    /* NaN canary: every float reads back as NaN. */
    assert_int_equal(kgrt_buffer_fill(b, &nan_, sizeof nan_), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, f, sizeof f), KGRT_OK);
    for (i = 0; i < 1024; i++)
        assert_true(isnan(f[i]));
    assert_int_equal(kgrt_buffer_fill(b, &dnan, sizeof dnan), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, f, sizeof f), KGRT_OK);
    for (i = 0; i < 512; i++) {
        double v;
        memcpy(&v, &f[2 * i], sizeof v);
        assert_true(isnan(v));
    }
    /* A 16-byte pattern repeats as it is. */
    assert_int_equal(kgrt_buffer_fill(b, quad, sizeof quad), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, f, sizeof f), KGRT_OK);
    for (i = 0; i < 1024; i++)
        assert_true(f[i] == (float)(i % 4 + 1));
    /* Bad patterns. */
    assert_int_equal(kgrt_buffer_fill(b, in, 3), KGRT_EINVAL);
    assert_int_equal(kgrt_buffer_fill(b, in, 256), KGRT_EINVAL);
    assert_int_equal(kgrt_buffer_fill(b, in, 0), KGRT_EINVAL);
    assert_int_equal(kgrt_buffer_fill(b, NULL, 4), KGRT_EINVAL);
    kgrt_buffer_free(b);

    /* 96 bytes: an 64-byte pattern does not divide it. */
    assert_int_equal(kgrt_buffer_alloc(d, 96, &b), KGRT_OK);
    assert_int_equal(kgrt_buffer_fill(b, in, 64), KGRT_EINVAL);
    assert_int_equal(kgrt_buffer_fill(b, in, 32), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(b, 0, out, 96), KGRT_OK);
    assert_memory_equal(out, in, 32);
    assert_memory_equal(out + 64, in, 32);
    kgrt_buffer_free(b);

    /* Sizes: 0 is invalid, over the device maximum is EOOM. */
    b = (kgrt_buffer *)1;
    assert_int_equal(kgrt_buffer_alloc(d, 0, &b), KGRT_EINVAL);
    assert_null(b);
    assert_int_equal(kgrt_device_limits(d, &lim), KGRT_OK);
    b = (kgrt_buffer *)1;
    assert_int_equal(kgrt_buffer_alloc(d, lim.max_alloc + 1, &b), KGRT_EOOM);
    assert_null(b);
    assert_string_not_equal(kgrt_last_error(), "");
    kgrt_buffer_free(NULL);
    kgrt_device_close(d);
}

static void test_vadd(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = NULL, *k2 = NULL;
    kgrt_kernel_attrs at;
    double ms = 0;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_non_null(k);
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k2), KGRT_OK);
    assert_ptr_equal(k, k2);     /* one object per name */
    assert_int_equal(kgrt_kernel_get_attrs(k, &at), KGRT_OK);
    assert_int_equal(at.registers, -1);
    assert_true(at.max_threads_per_block >= 1);

    run_vadd(d, k, 1000, 64, NULL);
    run_vadd(d, k, 1000, 64, &ms);
    assert_true(ms > 0);
    run_vadd(d, k, 77, 16, NULL);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

static void test_compile_error(void **state)
{
    kgrt_device *d = open_device();
    kgrt_image img = { KGRT_IMAGE_OPENCL_SOURCE, bad_src, 0, NULL };
    kgrt_image nodef = vadd_image;
    kgrt_module *m = (kgrt_module *)1;
    char *log = NULL;
    (void)state;

    assert_int_equal(kgrt_module_load(d, &img, &m, &log), KGRT_ECOMPILE);
    assert_null(m);
    assert_non_null(log);
    assert_non_null(strstr(log, "error"));
    assert_non_null(strstr(log, "undeclared_thing"));
    assert_non_null(strstr(kgrt_last_error(), "CL_BUILD_PROGRAM_FAILURE"));
    free(log);

    /* Without its define the source #errors: the options do matter. */
    nodef.options = "-cl-std=CL1.2";
    log = NULL;
    assert_int_equal(kgrt_module_load(d, &nodef, &m, &log), KGRT_ECOMPILE);
    assert_non_null(log);
    assert_non_null(strstr(log, "OFFSET must be defined"));
    free(log);

    /* log may be NULL. */
    assert_int_equal(kgrt_module_load(d, &img, &m, NULL), KGRT_ECOMPILE);
    assert_null(m);
    /* The device still builds good code afterwards. */
    m = load_vadd(d);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

static void test_kernel_not_found(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = (kgrt_kernel *)1;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "no_such_kernel", &k), KGRT_ENOTFOUND);
    assert_null(k);
    assert_non_null(strstr(kgrt_last_error(), "no_such_kernel"));
    assert_int_equal(kgrt_kernel_get(m, "", &k), KGRT_EINVAL);
    assert_int_equal(kgrt_kernel_get(m, NULL, &k), KGRT_EINVAL);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

static void test_resource_errors(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = NULL;
    kgrt_buffer *a = NULL;
    kgrt_limits lim;
    kgrt_arg args[5];
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
    double ms = 1;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_int_equal(kgrt_device_limits(d, &lim), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(d, 4096, &a), KGRT_OK);
    args[0] = kgrt_arg_buffer(a);
    args[1] = kgrt_arg_buffer(a);
    args[2] = kgrt_arg_buffer(a);
    args[3] = kgrt_arg_i32(0);
    args[4] = kgrt_arg_f32(1.0f);

    /* A work-group over the device's maximum: not sticky. */
    block[0] = (unsigned)lim.max_threads_per_block * 2;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_ERESOURCE);
    assert_string_not_equal(kgrt_last_error(), "");
    assert_int_equal(kgrt_launch_timed(k, grid, block, 0, args, 5, &ms),
                     KGRT_ERESOURCE);
    assert_true(ms == 0);
    /* Within each axis but over the total. */
    if (lim.max_block[1] >= 2 &&
        lim.max_block[0] >= (unsigned)lim.max_threads_per_block) {
        block[0] = (unsigned)lim.max_threads_per_block;
        block[1] = 2;
        assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5),
                         KGRT_ERESOURCE);
        block[1] = 1;
    }
    /* Wrong arguments are the caller's: EINVAL. */
    block[0] = 1;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 4), KGRT_EINVAL);
    assert_non_null(strstr(kgrt_last_error(), "takes 5 arguments"));
    args[3] = kgrt_arg_i64(0);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_EINVAL);
    args[3] = kgrt_arg_i32(0);
    args[1].buf = NULL;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_EINVAL);
    args[1].buf = a;
    /* A tensor map is CUDA's: refused before anything runs. */
    {
        kgrt_tmap tm = { KGRT_F32, 1, { 16 }, { 0 }, { 16 }, 0, 0 };
        args[2] = kgrt_arg_tmap(kgrt_arg_buffer(a), &tm);
        assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5),
                         KGRT_EINVAL);
        assert_non_null(strstr(kgrt_last_error(), "tensor maps are CUDA's"));
        args[2] = kgrt_arg_buffer(a);
    }
    /* OpenCL has no dynamic shared memory; empty axes are invalid. */
    assert_int_equal(kgrt_launch(k, grid, block, 64, args, 5), KGRT_EINVAL);
    grid[1] = 0;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_EINVAL);
    grid[1] = 1;
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 5), KGRT_OK);
    assert_int_equal(kgrt_synchronize(d), KGRT_OK);

    /* The device still works. */
    run_vadd(d, k, 1000, 64, NULL);
    kgrt_buffer_free(a);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

/* A wait past the device's timeout is KGRT_ETIMEOUT; the kernel goes on
 * and a later unbounded wait sees it finish. */
static void test_timeout(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = NULL;
    kgrt_buffer *x = NULL;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
    kgrt_arg args[2];
    float v = 1.0f;
    double ms = 0;
    (void)state;

    assert_int_equal(kgrt_kernel_get(m, "spin", &k), KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(d, sizeof v, &x), KGRT_OK);
    assert_int_equal(kgrt_buffer_write(x, 0, &v, sizeof v), KGRT_OK);
    args[0] = kgrt_arg_buffer(x);
    args[1] = kgrt_arg_i32(200 * 1000 * 1000);
    assert_int_equal(kgrt_device_set_timeout(d, 1.0), KGRT_OK);
    assert_int_equal(kgrt_launch(k, grid, block, 0, args, 2), KGRT_OK);
    assert_int_equal(kgrt_synchronize(d), KGRT_ETIMEOUT);
    assert_non_null(strstr(kgrt_last_error(), "after"));
    assert_int_equal(kgrt_device_set_timeout(d, 0), KGRT_OK);
    assert_int_equal(kgrt_synchronize(d), KGRT_OK);
    assert_int_equal(kgrt_buffer_read(x, 0, &v, sizeof v), KGRT_OK);
    assert_false(isnan(v));

    /* A bounded wait that is long enough succeeds. */
    args[1] = kgrt_arg_i32(1000);
    assert_int_equal(kgrt_device_set_timeout(d, 60000), KGRT_OK);
    assert_int_equal(kgrt_launch_timed(k, grid, block, 0, args, 2, &ms),
                     KGRT_OK);
    assert_true(ms > 0);
    assert_int_equal(kgrt_synchronize(d), KGRT_OK);
    kgrt_buffer_free(x);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

static void test_bad_arguments(void **state)
{
    kgrt_device *d = (kgrt_device *)1;
    kgrt_module *m = (kgrt_module *)1;
    kgrt_image cubin = { KGRT_IMAGE_CUBIN, "\177ELF....", 8, NULL };
    kgrt_image empty = { KGRT_IMAGE_OPENCL_SOURCE, NULL, 0, NULL };
    kgrt_kernel_attrs at;
    kgrt_limits lim;
    kgrt_device_info info;
    (void)state;

    assert_int_equal(kgrt_device_open(KGRT_OPENCL, -1, &d), KGRT_EINVAL);
    assert_null(d);
    d = (kgrt_device *)1;
    assert_int_equal(kgrt_device_open(KGRT_OPENCL, 1 << 20, &d),
                     KGRT_ENODEVICE);
    assert_null(d);
    assert_non_null(strstr(kgrt_last_error(), "out of range"));
    assert_int_equal(kgrt_device_open((kgrt_backend)9, 0, &d), KGRT_EINVAL);
    assert_int_equal(kgrt_device_open(KGRT_OPENCL, 0, NULL), KGRT_EINVAL);
    assert_int_equal(kgrt_device_get_info(NULL, &info), KGRT_EINVAL);
    assert_int_equal(kgrt_device_limits(NULL, &lim), KGRT_EINVAL);
    assert_int_equal(kgrt_synchronize(NULL), KGRT_EINVAL);
    assert_int_equal(kgrt_kernel_get_attrs(NULL, &at), KGRT_EINVAL);
    assert_int_equal(kgrt_launch(NULL, NULL, NULL, 0, NULL, 0), KGRT_EINVAL);
    kgrt_device_close(NULL);
    kgrt_module_unload(NULL);

    d = open_device();
    /* A CUDA image on an OpenCL device, an empty image. */
    assert_int_equal(kgrt_module_load(d, &cubin, &m, NULL), KGRT_EINVAL);
    assert_null(m);
    assert_int_equal(kgrt_module_load(d, &empty, &m, NULL), KGRT_EINVAL);
    assert_int_equal(kgrt_module_load(d, NULL, &m, NULL), KGRT_EINVAL);
    kgrt_device_close(d);
}

/* A second stream, events around a launch, caller-owned memory passed as
 * native handles with a byte offset (a sub-buffer on OpenCL). */
static void test_streams_events_native(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = NULL;
    kgrt_stream *s = NULL;
    kgrt_event *e0 = NULL, *e1 = NULL;
    kgrt_buffer *a = NULL, *c = NULL;
    kgrt_limits lim;
    const int n = 256;
    size_t off;
    float host[512], out[256];
    double ms = -1;
    (void)state;

    assert_int_equal(kgrt_device_limits(d, &lim), KGRT_OK);
    assert_true(lim.base_align >= 1);
    off = lim.base_align > 64 ? lim.base_align : 64;
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_int_equal(kgrt_stream_create(d, &s), KGRT_OK);
    assert_ptr_equal(kgrt_stream_device(s), d);
    assert_non_null(kgrt_device_stream(d));
    for (int i = 0; i < 512; i++)
        host[i] = (float)i;
    assert_int_equal(kgrt_buffer_alloc(d, off + n * sizeof(float), &a),
                     KGRT_OK);
    assert_int_equal(kgrt_buffer_write(a, 0, host, off + n * sizeof(float)),
                     KGRT_OK);
    assert_int_equal(kgrt_buffer_alloc(d, n * sizeof(float), &c), KGRT_OK);
    assert_non_null(kgrt_buffer_native(a));
    {
        /* c[i] = (a[off/4 + i] + a[off/4 + i]) * 0.5 + 1 */
        kgrt_arg args[5] = {
            kgrt_arg_native(kgrt_buffer_native(a), off),
            kgrt_arg_native(kgrt_buffer_native(a), off),
            kgrt_arg_native(kgrt_buffer_native(c), 0),
            kgrt_arg_i32(n), kgrt_arg_f32(0.5f),
        };
        unsigned grid[3] = {(unsigned)n / 64, 1, 1}, block[3] = {64, 1, 1};
        assert_int_equal(kgrt_event_create(d, &e0), KGRT_OK);
        assert_int_equal(kgrt_event_create(d, &e1), KGRT_OK);
        assert_int_equal(kgrt_event_elapsed(e0, e1, &ms), KGRT_EINVAL);
        assert_int_equal(kgrt_event_record(e0, s), KGRT_OK);
        assert_int_equal(kgrt_launch_on(k, s, grid, block, 0, args, 5),
                         KGRT_OK);
        assert_int_equal(kgrt_event_record(e1, s), KGRT_OK);
        assert_int_equal(kgrt_event_synchronize(e1), KGRT_OK);
        assert_int_equal(kgrt_event_elapsed(e0, e1, &ms), KGRT_OK);
        assert_true(ms >= 0);
        assert_int_equal(kgrt_stream_synchronize(s), KGRT_OK);
        /* an offset off the base alignment is refused before the driver */
        if (lim.base_align > 1) {
            args[0] = kgrt_arg_native(kgrt_buffer_native(a), 4);
            assert_int_equal(kgrt_launch_on(k, s, grid, block, 0, args, 5),
                             KGRT_EINVAL);
            assert_non_null(strstr(kgrt_last_error(), "alignment"));
        }
    }
    assert_int_equal(kgrt_buffer_read(c, 0, out, sizeof out), KGRT_OK);
    for (int i = 0; i < n; i++)
        assert_true(out[i] == host[off / 4 + i] + 1.0f);
    kgrt_event_destroy(e0);
    kgrt_event_destroy(e1);
    kgrt_stream_destroy(s);
    kgrt_buffer_free(a);
    kgrt_buffer_free(c);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

/* Freed buffers are kept and reused for similar sizes; empty_cache gives
 * them back. */
static void test_caching_allocator(void **state)
{
    kgrt_device *d = open_device();
    kgrt_buffer *a = NULL, *b = NULL;
    size_t used = 1, cached = 1;
    void *native;
    (void)state;

    assert_int_equal(kgrt_device_memory(d, &used, &cached), KGRT_OK);
    assert_int_equal(used, 0);
    assert_int_equal(cached, 0);
    assert_int_equal(kgrt_buffer_alloc(d, 4000, &a), KGRT_OK);
    assert_int_equal(kgrt_buffer_size(a), 4000);
    native = kgrt_buffer_native(a);
    assert_int_equal(kgrt_device_memory(d, &used, &cached), KGRT_OK);
    assert_int_equal(used, 4096);
    kgrt_buffer_free(a);
    assert_int_equal(kgrt_device_memory(d, &used, &cached), KGRT_OK);
    assert_int_equal(used, 0);
    assert_int_equal(cached, 4096);
    /* the same block serves a request of at least half its size */
    assert_int_equal(kgrt_buffer_alloc(d, 3000, &b), KGRT_OK);
    assert_ptr_equal(kgrt_buffer_native(b), native);
    assert_int_equal(kgrt_buffer_size(b), 3000);
    assert_int_equal(kgrt_device_memory(d, &used, &cached), KGRT_OK);
    assert_int_equal(cached, 0);
    kgrt_buffer_free(b);
    /* a much smaller request does not take a big block */
    assert_int_equal(kgrt_buffer_alloc(d, 100, &a), KGRT_OK);
    assert_ptr_not_equal(kgrt_buffer_native(a), native);
    kgrt_buffer_free(a);
    assert_int_equal(kgrt_device_empty_cache(d), KGRT_OK);
    assert_int_equal(kgrt_device_memory(d, &used, &cached), KGRT_OK);
    assert_int_equal(cached, 0);
    kgrt_device_close(d);
}

/* KGRT launch log: one line per launch with the kernel and its time. */
static void test_launch_log(void **state)
{
    kgrt_device *d = open_device();
    kgrt_module *m = load_vadd(d);
    kgrt_kernel *k = NULL;
    char path[] = "/tmp/kgrt-log-XXXXXX", line[256] = "";
    int fd = mkstemp(path);
    FILE *fp;
    (void)state;

    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(kgrt_kernel_get(m, "vadd_scale", &k), KGRT_OK);
    assert_int_equal(kgrt_set_launch_log(path), KGRT_OK);
    run_vadd(d, k, 100, 64, NULL);
    assert_int_equal(kgrt_set_launch_log(NULL), KGRT_OK);
    run_vadd(d, k, 100, 64, NULL);      /* not logged */
    fp = fopen(path, "r");
    assert_non_null(fp);
    assert_non_null(fgets(line, sizeof line, fp));
    assert_non_null(strstr(line, "kgrt: vadd_scale grid 2,1,1 block 64,1,1 "));
    assert_null(strstr(line, "nan"));
    assert_non_null(strstr(line, " ms"));
    assert_null(fgets(line, sizeof line, fp));
    fclose(fp);
    unlink(path);
    assert_int_equal(kgrt_set_launch_log("/nonexistent/dir/log"),
                     KGRT_EINVAL);
    kgrt_module_unload(m);
    kgrt_device_close(d);
}

static void test_status_strings(void **state)
{
    static const int st[] = {
        KGRT_OK, KGRT_EINVAL, KGRT_ENOBACKEND, KGRT_EDRIVER, KGRT_ENOMEM,
        KGRT_ENODEVICE, KGRT_ECOMPILE, KGRT_EIMAGE, KGRT_ENOTFOUND,
        KGRT_ERESOURCE, KGRT_ELAUNCH, KGRT_ESTICKY, KGRT_ETIMEOUT, KGRT_EOOM,
    };
    size_t i, j;
    (void)state;
    for (i = 0; i < sizeof st / sizeof st[0]; i++) {
        assert_string_not_equal(kgrt_status_string(st[i]), "unknown status");
        for (j = 0; j < i; j++) {
            assert_int_not_equal(st[i], st[j]);
            assert_string_not_equal(kgrt_status_string(st[i]),
                                    kgrt_status_string(st[j]));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_open_without_driver),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_device_info_and_limits),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_vadd),
        cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_kernel_not_found),
        cmocka_unit_test(test_resource_errors),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_streams_events_native),
        cmocka_unit_test(test_caching_allocator),
        cmocka_unit_test(test_launch_log),
    };
    int n = kgrt_device_count(KGRT_OPENCL), i;

    /* Prefer PoCL (the CI device); else the first device. */
    for (i = 0; i < n; i++) {
        kgrt_device_info info;
        if (kgrt_device_info_get(KGRT_OPENCL, i, &info) == KGRT_OK &&
            (cl_index < 0 || strstr(info.driver, "Portable Computing")))
            cl_index = i;
    }
    if (cl_index < 0) {
        printf("skipped: no OpenCL device: %s\n", kgrt_last_error());
        return 77;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
