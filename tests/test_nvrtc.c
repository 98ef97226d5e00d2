/*
 * test_nvrtc.c -- the compile stage: CUDA C to CUBIN + PTX with NVRTC, no
 * GPU needed.  Tensor-core inline PTX, half and bfloat16 headers, defines,
 * compile errors with their line, ptxas resource overflows, bad arches, and
 * the CUBIN's ELF read back for its resource use.  Skipped (77) in a build
 * without CUDA, after checking that compiling then fails cleanly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

/* One warp multiplies a 16x16 by a 16x8 f16 tile on the tensor cores. */
static const char mma_src[] =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "extern \"C\" __global__ void mma_tile(const __half *a, const __half *b,\n"
    "                                      const __nv_bfloat16 *bias,\n"
    "                                      __half *c)\n"
    "{\n"
    "    __shared__ float stage[32 * 4];\n"
    "    unsigned lane = threadIdx.x & 31;\n"
    "    const unsigned *pa = (const unsigned *)a + lane * 4;\n"
    "    const unsigned *pb = (const unsigned *)b + lane * 2;\n"
    "    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;\n"
    "    asm volatile(\n"
    "        \"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \"\n"
    "        \"{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n"
    "        : \"+f\"(d0), \"+f\"(d1), \"+f\"(d2), \"+f\"(d3)\n"
    "        : \"r\"(pa[0]), \"r\"(pa[1]), \"r\"(pa[2]), \"r\"(pa[3]),\n"
    "          \"r\"(pb[0]), \"r\"(pb[1]));\n"
    "    float bv = __bfloat162float(bias[lane]);\n"
    "    stage[lane * 4 + 0] = d0 + bv;\n"
    "    stage[lane * 4 + 1] = d1 + bv;\n"
    "    stage[lane * 4 + 2] = d2 + bv;\n"
    "    stage[lane * 4 + 3] = d3 + bv;\n"
    "    __syncwarp();\n"
    "    for (int i = 0; i < 4; i++)\n"
    "        c[lane * 4 + i] = __float2half(stage[(lane * 4 + i + 4) % 128]);\n"
    "}\n";

static void check_mma(const char *arch)
{
    KgCubin c;
    char target[64];
    int regs = -1, rc;
    size_t shared = 0, local = 1;

    rc = kg_nvrtc_compile(mma_src, "mma.cu", arch, NULL, 0, &c);
    if (rc != KG_COMPILE_OK)
        print_error("%s: %d\n%s\n", arch, rc, c.log ? c.log : "(no log)");
    assert_int_equal(rc, KG_COMPILE_OK);
    assert_non_null(c.cubin);
    assert_true(c.cubin_size > 64);
    assert_memory_equal(c.cubin, "\177ELF", 4);
    assert_non_null(c.ptx);
    assert_int_equal(c.ptx_size, strlen(c.ptx) + 1);
    snprintf(target, sizeof target, ".target %s", arch);
    assert_non_null(strstr(c.ptx, target));
    assert_non_null(strstr(c.ptx, "mma.sync.aligned.m16n8k16"));
    assert_non_null(strstr(c.ptx, ".entry mma_tile"));
    assert_true(c.registers > 0);
    assert_true(c.shared_static >= 32 * 4 * sizeof(float));
    /* ptxas's report is in the log. */
    assert_non_null(c.log);
    assert_non_null(strstr(c.log, "mma_tile"));

    /* The ELF says the same as ptxas. */
    assert_int_equal(kg_cubin_resources(c.cubin, c.cubin_size, "mma_tile",
                                        &regs, &shared, &local), 0);
    assert_int_equal(regs, c.registers);
    assert_int_equal(local, c.local_bytes);
    assert_true(shared >= c.shared_static);
    assert_int_equal(kg_cubin_resources(c.cubin, c.cubin_size, NULL, &regs,
                                        NULL, NULL), 0);
    assert_int_equal(regs, c.registers);
    assert_int_equal(kg_cubin_resources(c.cubin, c.cubin_size, "nope", &regs,
                                        &shared, &local), -1);
    assert_int_equal(regs, 0);
    kg_cubin_free(&c);
    assert_null(c.cubin);
    assert_null(c.log);
}

static void test_mma_sm80(void **state)
{
    (void)state;
    check_mma("sm_80");
}

static void test_mma_sm90(void **state)
{
    (void)state;
    check_mma("sm_90");
}

static void test_syntax_error(void **state)
{
    static const char src[] =
        "extern \"C\" __global__ void k(float *x)\n"
        "{\n"
        "    x[0] = not_declared_anywhere;\n"
        "}\n";
    KgCubin c;
    (void)state;
    assert_int_equal(kg_nvrtc_compile(src, "bad.cu", "sm_80", NULL, 0, &c),
                     KG_COMPILE_ERROR);
    assert_null(c.cubin);
    assert_null(c.ptx);
    assert_non_null(c.log);
    assert_non_null(strstr(c.log, "bad.cu(3)"));
    assert_non_null(strstr(c.log, "error"));
    assert_non_null(strstr(c.log, "not_declared_anywhere"));
    kg_cubin_free(&c);

    /* #line (as in generated sources) moves the location to the template. */
    {
        static const char lined[] =
            "#line 41 \"templates/gemm.lua\"\n"
            "extern \"C\" __global__ void k(float *x) { x[0] = oops; }\n";
        assert_int_equal(kg_nvrtc_compile(lined, "gen.cu", "sm_90", NULL, 0,
                                          &c), KG_COMPILE_ERROR);
        assert_non_null(strstr(c.log, "templates/gemm.lua(41)"));
        kg_cubin_free(&c);
    }
}

static void test_defines(void **state)
{
    static const char src[] =
        "#if !defined(FOO) || FOO != 1\n"
        "#error FOO must be 1\n"
        "#endif\n"
        "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] = BAR; }\n";
    const char *good[] = { "FOO=1", "BAR=2.5f" };
    const char *wrong[] = { "FOO=2", "BAR=2.5f" };
    KgCubin c;
    (void)state;

    assert_int_equal(kg_nvrtc_compile(src, "def.cu", "sm_80", NULL, 0, &c),
                     KG_COMPILE_ERROR);
    assert_non_null(strstr(c.log, "FOO must be 1"));
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "def.cu", "sm_80", wrong, 2, &c),
                     KG_COMPILE_ERROR);
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "def.cu", "sm_80", good, 2, &c),
                     KG_COMPILE_OK);
    /* BAR = 2.5f, stored as its bits 0x40200000 */
    assert_true(strstr(c.ptx, "1075838976") || strstr(c.ptx, "0f40200000"));
    kg_cubin_free(&c);
}

/* ptxas refusing a hardware limit is a resource overflow, with its message
 * in the log (NVRTC drops it under -v; compile.c recovers it). */
static void test_resource_overflow(void **state)
{
    static const char src[] =
        "extern \"C\" __global__ void big(float *x)\n"
        "{\n"
        "    __shared__ float s[20000];\n"
        "    s[threadIdx.x] = x[threadIdx.x];\n"
        "    __syncthreads();\n"
        "    x[threadIdx.x] = s[threadIdx.x + 1];\n"
        "}\n";
    KgCubin c;
    (void)state;
    assert_int_equal(kg_nvrtc_compile(src, "big.cu", "sm_80", NULL, 0, &c),
                     KG_COMPILE_RESOURCE);
    assert_non_null(c.log);
    assert_non_null(strstr(c.log, "too much shared data"));
    assert_null(c.cubin);
    kg_cubin_free(&c);
}

static void test_bad_calls(void **state)
{
    static const char src[] =
        "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";
    const char *empty[] = { "" };
    KgCubin c;
    (void)state;

    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_8", NULL, 0, &c),
                     KG_COMPILE_ENV);
    assert_non_null(strstr(c.log, "sm_8"));
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "compute_80", NULL, 0, &c),
                     KG_COMPILE_ENV);
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", NULL, NULL, 0, &c),
                     KG_COMPILE_ENV);
    kg_cubin_free(&c);
    /* Well-formed but unknown to this NVRTC. */
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_21", NULL, 0, &c),
                     KG_COMPILE_ENV);
    assert_non_null(c.log);
    assert_non_null(strstr(c.log, "sm_21"));
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(NULL, "k.cu", "sm_80", NULL, 0, &c),
                     KG_COMPILE_ENV);
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_80", NULL, 1, &c),
                     KG_COMPILE_ENV);
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_80", empty, 1, &c),
                     KG_COMPILE_ENV);
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, NULL, "sm_90a", NULL, 0, &c),
                     KG_COMPILE_OK);
    assert_non_null(strstr(c.ptx, ".target sm_90a"));
    kg_cubin_free(&c);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_80", NULL, 0, NULL),
                     KG_COMPILE_ENV);
    kg_cubin_free(NULL);
}

static void test_version_and_include(void **state)
{
    const char *v = kg_nvrtc_version();
    int major = 0, minor = -1;
    (void)state;
    assert_int_equal(sscanf(v, "%d.%d", &major, &minor), 2);
    assert_true(major >= 11);
    assert_true(minor >= 0);
    assert_non_null(kg_cuda_include_dir());
}

/* kg_cubin_resources on damaged data: never a crash, -1 or 0. */
static void test_elf_robustness(void **state)
{
    static const char src[] =
        "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.f; }\n";
    KgCubin c;
    unsigned char *copy;
    size_t n, i;
    unsigned seed = 12345;
    int regs;
    (void)state;

    assert_int_equal(kg_cubin_resources(NULL, 0, NULL, &regs, NULL, NULL), -1);
    assert_int_equal(kg_cubin_resources("garbage", 7, NULL, &regs, NULL,
                                        NULL), -1);
    assert_int_equal(kg_nvrtc_compile(src, "k.cu", "sm_80", NULL, 0, &c),
                     KG_COMPILE_OK);
    /* Every truncation. */
    for (n = 0; n < c.cubin_size; n++) {
        int rc = kg_cubin_resources(c.cubin, n, "k", &regs, NULL, NULL);
        assert_true(rc == 0 || rc == -1);
    }
    /* Random corruption. */
    copy = malloc(c.cubin_size);
    assert_non_null(copy);
    for (i = 0; i < 2000; i++) {
        int k;
        memcpy(copy, c.cubin, c.cubin_size);
        for (k = 0; k < 8; k++) {
            seed = seed * 1103515245u + 12345u;
            copy[(seed >> 8) % c.cubin_size] = (unsigned char)(seed >> 3);
        }
        kg_cubin_resources(copy, c.cubin_size, (i & 1) ? "k" : NULL, &regs,
                           NULL, NULL);
    }
    free(copy);
    kg_cubin_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_and_include),
        cmocka_unit_test(test_mma_sm80),
        cmocka_unit_test(test_mma_sm90),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_defines),
        cmocka_unit_test(test_resource_overflow),
        cmocka_unit_test(test_bad_calls),
        cmocka_unit_test(test_elf_robustness),
    };
#ifndef KGEN_WITH_CUDA
    KgCubin c;
    int rc = kg_nvrtc_compile("", "k.cu", "sm_80", NULL, 0, &c);
    if (rc != KG_COMPILE_ENV || !c.log || !strstr(c.log, "without CUDA")) {
        fprintf(stderr, "without CUDA: rc %d, log %s\n", rc,
                c.log ? c.log : "(null)");
        return 1;
    }
    kg_cubin_free(&c);
    printf("skipped: kgen built without CUDA (NVRTC)\n");
    (void)tests;
    return 77;
#else
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
