/*
 * test_runtime.c -- kgrt: backends, devices and the per-thread error.
 *
 * Runs on any machine: with no NVIDIA driver, CUDA must report zero devices
 * and say why (the CUDA checks are skipped where libcuda.so.1 does load);
 * a build with OpenCL must find PoCL, the CPU device CI runs on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <kgen/kgrt.h>

static bool have_libcuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

static void test_cuda_without_driver(void **state)
{
    kgrt_device_info info;
    (void)state;
    if (have_libcuda())
        skip();
    assert_int_equal(kgrt_device_count(KGRT_CUDA), 0);
    assert_non_null(strstr(kgrt_last_error(), "libcuda.so.1"));
    /* Asking again gives the same answer (the load is done once). */
    assert_int_equal(kgrt_device_count(KGRT_CUDA), 0);
    assert_string_not_equal(kgrt_last_error(), "");

    memset(&info, 0x55, sizeof info);
    assert_int_equal(kgrt_device_info_get(KGRT_CUDA, 0, &info), KGRT_EINVAL);
    assert_string_not_equal(kgrt_last_error(), "");
    assert_string_equal(info.name, "");         /* zeroed on failure */
    assert_string_equal(info.bus_id, "");
    assert_int_equal(info.mem_bytes, 0);
}

static void test_cuda_devices(void **state)
{
    int n, i;
    (void)state;
    if (!have_libcuda())
        skip();
    n = kgrt_device_count(KGRT_CUDA);
    assert_true(n >= 0 || kgrt_last_error()[0]);
    for (i = 0; i < n; i++) {
        kgrt_device_info info;
        assert_int_equal(kgrt_device_info_get(KGRT_CUDA, i, &info), KGRT_OK);
        assert_int_equal(info.backend, KGRT_CUDA);
        assert_int_equal(info.index, i);
        assert_string_not_equal(info.name, "");
        assert_memory_equal(info.arch, "sm_", 3);
        assert_true(info.mem_bytes > 0);
        /* "0000:19:00.0": the tuner's device lock is named by it */
        assert_non_null(strchr(info.bus_id, ':'));
    }
}

static void test_opencl(void **state)
{
    (void)state;
#ifdef KGEN_WITH_OPENCL
    int n = kgrt_device_count(KGRT_OPENCL), i, pocl = 0;
    kgrt_device_info info;

    if (n <= 0)
        print_error("opencl: %d: %s\n", n, kgrt_last_error());
    assert_true(n >= 1);
    for (i = 0; i < n; i++) {
        assert_int_equal(kgrt_device_info_get(KGRT_OPENCL, i, &info), KGRT_OK);
        assert_int_equal(info.backend, KGRT_OPENCL);
        assert_int_equal(info.index, i);
        assert_string_not_equal(info.name, "");
        assert_string_equal(info.arch, "opencl");
        assert_true(info.mem_bytes > 0);
        assert_string_equal(info.bus_id, "");   /* OpenCL cannot say */
        if (strstr(info.driver, "Portable Computing Language"))
            pocl++;
    }
    assert_true(pocl >= 1);
    assert_int_equal(kgrt_device_info_get(KGRT_OPENCL, n, &info), KGRT_EINVAL);
    assert_non_null(strstr(kgrt_last_error(), "out of range"));
#else
    kgrt_device_info info;
    assert_int_equal(kgrt_device_count(KGRT_OPENCL), KGRT_ENOBACKEND);
    assert_string_equal(kgrt_last_error(), "kgen built without OpenCL");
    assert_int_equal(kgrt_device_info_get(KGRT_OPENCL, 0, &info),
                     KGRT_ENOBACKEND);
#endif
}

static void test_invalid_arguments(void **state)
{
    kgrt_device_info info;
    (void)state;
    assert_int_equal(kgrt_device_count((kgrt_backend)7), KGRT_EINVAL);
    assert_string_not_equal(kgrt_last_error(), "");
    assert_int_equal(kgrt_device_count((kgrt_backend)-1), KGRT_EINVAL);
    assert_int_equal(kgrt_device_info_get((kgrt_backend)7, 0, &info),
                     KGRT_EINVAL);
    assert_int_equal(kgrt_device_info_get(KGRT_CUDA, -1, &info), KGRT_EINVAL);
    assert_int_equal(kgrt_device_info_get(KGRT_OPENCL, -1, &info),
                     KGRT_EINVAL);
    assert_int_equal(kgrt_device_info_get(KGRT_CUDA, 0, NULL), KGRT_EINVAL);
    assert_string_equal(kgrt_backend_name(KGRT_CUDA), "cuda");
    assert_string_equal(kgrt_backend_name(KGRT_OPENCL), "opencl");
    assert_string_equal(kgrt_backend_name((kgrt_backend)7), "unknown");
}

static void test_status_strings(void **state)
{
    static const int st[] = { KGRT_OK, KGRT_EINVAL, KGRT_ENOBACKEND,
                              KGRT_EDRIVER, KGRT_ENOMEM };
    size_t i, j;
    (void)state;
    for (i = 0; i < sizeof st / sizeof st[0]; i++) {
        assert_string_not_equal(kgrt_status_string(st[i]), "unknown status");
        for (j = 0; j < i; j++)
            assert_string_not_equal(kgrt_status_string(st[i]),
                                    kgrt_status_string(st[j]));
    }
    assert_string_equal(kgrt_status_string(-99), "unknown status");
}

static void *fail_in_thread(void *arg)
{
    (void)arg;
    kgrt_device_count((kgrt_backend)42);
    return (void *)(intptr_t)(kgrt_last_error()[0] != '\0');
}

/* The last error is per thread: a failure elsewhere never overwrites it. */
static void test_error_is_per_thread(void **state)
{
    pthread_t t;
    void *ret = NULL;
    char mine[512];
    (void)state;
    assert_int_equal(kgrt_device_count((kgrt_backend)5), KGRT_EINVAL);
    snprintf(mine, sizeof mine, "%s", kgrt_last_error());
    assert_non_null(strstr(mine, "5"));
    assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
    assert_int_equal(pthread_join(t, &ret), 0);
    assert_true(ret != NULL);
    assert_string_equal(kgrt_last_error(), mine);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_without_driver),
        cmocka_unit_test(test_cuda_devices),
        cmocka_unit_test(test_opencl),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_error_is_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
