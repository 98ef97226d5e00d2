/*
 * launcher_errors.c -- a generated launcher refuses what it cannot run.
 *
 * Built by tests/build_examples.sh against the wavenet_layer library
 * (kgen build at B=2 C=16 H=8 T=37).  Each bad call must return its
 * documented status with a message naming the argument, and leave the
 * device usable: the good call at the end must still succeed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused.h"

static int failures;

static void expect(const char *what, int got, int want, const char *needle)
{
    const char *msg = kgrt_last_error();
    if (got != want || (needle && !strstr(msg, needle))) {
        printf("FAIL %s: status %d (%s), wanted %d (%s): %s\n", what, got,
               kgrt_status_string(got), want, kgrt_status_string(want), msg);
        failures++;
    } else {
        printf("ok   %s: %s\n", what, want ? msg : "launched");
    }
}

static kgrt_tensor tensor(void *data, int dtype, int rank, const int64_t *shape)
{
    kgrt_tensor t;
    int64_t st = 1;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    t.rank = rank;
    for (int d = rank - 1; d >= 0; d--) {
        t.shape[d] = shape[d];
        t.strides[d] = st;
        st *= shape[d];
    }
    return t;
}

int main(void)
{
    kgrt_device *dev;
    kgrt_buffer *b[6];
    int rc;
    const int64_t temb_s[] = {2, 16}, wd_s[] = {16, 16}, bd_s[] = {16};
    if ((rc = wavenet_layer_open(&dev)) < 0) {
        printf("no device: %s\n", kgrt_last_error());
        return 77;
    }
    kgrt_stream *s = kgrt_device_stream(dev);
    for (int i = 0; i < 6; i++)
        if (kgrt_buffer_alloc(dev, 4096, &b[i]) < 0) {
            printf("alloc: %s\n", kgrt_last_error());
            return 1;
        }
    kgrt_tensor temb = tensor(kgrt_buffer_native(b[0]), KGRT_F16, 2, temb_s);
    kgrt_tensor wd = tensor(kgrt_buffer_native(b[1]), KGRT_F16, 2, wd_s);
    kgrt_tensor bd = tensor(kgrt_buffer_native(b[2]), KGRT_F16, 1, bd_s);
    kgrt_tensor out = tensor(kgrt_buffer_native(b[3]), KGRT_F16, 2, temb_s);
    kgrt_tensor bad;

    bad = temb;
    bad.dtype = KGRT_F32;
    expect("wrong dtype", wavenet_layer_k0_linear(s, &bad, &wd, &bd, &out),
           KGRT_EDTYPE, "temb");
    bad = temb;
    bad.rank = 3;
    bad.shape[2] = 1;
    bad.strides[2] = 1;
    expect("wrong rank", wavenet_layer_k0_linear(s, &bad, &wd, &bd, &out),
           KGRT_ERANK, "rank 3");
    bad = temb;
    bad.shape[0] = 3;
    expect("wrong shape", wavenet_layer_k0_linear(s, &bad, &wd, &bd, &out),
           KGRT_ESHAPE, "built for [2, 16]");
    bad = wd;                          /* a transposed view */
    bad.strides[0] = 1;
    bad.strides[1] = 16;
    expect("unsupported stride",
           wavenet_layer_k0_linear(s, &temb, &bad, &bd, &out), KGRT_ESTRIDE,
           "strides");
    bad = temb;
    bad.offset = 2;                    /* one f16 element in */
    expect("misaligned pointer",
           wavenet_layer_k0_linear(s, &bad, &wd, &bd, &out), KGRT_EALIGN,
           "align");
    expect("output aliases an input",
           wavenet_layer_k0_linear(s, &temb, &wd, &bd, &temb), KGRT_EALIAS,
           "overlaps");
    expect("NULL tensor", wavenet_layer_k0_linear(s, &temb, &wd, NULL, &out),
           KGRT_EINVAL, "NULL");
    expect("NULL stream", wavenet_layer_k0_linear(NULL, &temb, &wd, &bd, &out),
           KGRT_EINVAL, "stream");
    {
        size_t ws = 0;
        expect("unbuilt dims", wavenet_layer_workspace_size(2, 16, 8, 99, 2, &ws),
               KGRT_ESHAPE, "not built");
    }
    expect("good call", wavenet_layer_k0_linear(s, &temb, &wd, &bd, &out),
           KGRT_OK, NULL);
    expect("synchronize", kgrt_stream_synchronize(s), KGRT_OK, NULL);
    for (int i = 0; i < 6; i++)
        kgrt_buffer_free(b[i]);
    wavenet_layer_release(dev);
    kgrt_device_close(dev);
    printf("%s\n", failures ? "launcher_errors: FAILED" : "launcher_errors: ok");
    return failures ? 1 : 0;
}
