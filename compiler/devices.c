/*
 * devices.c -- `kgen devices`: which backends and devices this kgen can use.
 *
 * Asks the runtime (kgrt) for every backend's devices and prints one table
 * row per device, or one row per backend saying why it has none ("libcuda.so.1
 * not found: no NVIDIA driver", "kgen built without OpenCL").  Compiling is
 * reported apart from running: with NVRTC built in, CUDA kernels compile for
 * any --arch on a machine with no GPU at all.  Having no device is not an
 * error; the command always succeeds.
 */
#include "kgen.h"

#include <string.h>

#include <kgen/kgrt.h>

typedef struct BackendRow {
    kgrt_backend b;
    bool compile;              /* kgen can compile kernels for it */
    int n;                     /* devices, or a negative kgrt_status */
    char why[512];             /* when n <= 0 */
    kgrt_device_info *dev;     /* n entries (those that could be read) */
    int ndev;
} BackendRow;

static void probe(BackendRow *r, kgrt_backend b, Arena *a)
{
    r->b = b;
#ifdef KGEN_WITH_CUDA
    r->compile = b == KGRT_CUDA;
#endif
#ifdef KGEN_WITH_OPENCL
    r->compile |= b == KGRT_OPENCL;
#endif
    r->n = kgrt_device_count(b);
    snprintf(r->why, sizeof r->why, "%s", kgrt_last_error());
    if (r->n <= 0)
        return;
    r->dev = arena_alloc(a, (size_t)r->n * sizeof *r->dev);
    for (int i = 0; i < r->n; i++) {
        if (kgrt_device_info_get(b, i, &r->dev[r->ndev]) == KGRT_OK)
            r->ndev++;
        else
            snprintf(r->why, sizeof r->why, "device %d: %s", i,
                     kgrt_last_error());
    }
}

static void print_json(FILE *fp, const BackendRow *rows, int nrows)
{
    fputs("{\"backends\": [", fp);
    for (int i = 0; i < nrows; i++) {
        const BackendRow *r = &rows[i];
        fprintf(fp, "%s\n  {\"backend\": ", i ? "," : "");
        json_write_str(fp, kgrt_backend_name(r->b));
        fprintf(fp, ", \"compile\": %s, \"usable\": %s, \"error\": ",
                r->compile ? "true" : "false", r->ndev > 0 ? "true" : "false");
        if (r->ndev > 0 && r->ndev == r->n)
            fputs("null", fp);
        else
            json_write_str(fp, r->why);
        fputs(", \"devices\": [", fp);
        for (int j = 0; j < r->ndev; j++) {
            const kgrt_device_info *d = &r->dev[j];
            fprintf(fp, "%s\n    {\"index\": %d, \"name\": ", j ? "," : "",
                    d->index);
            json_write_str(fp, d->name);
            fputs(", \"arch\": ", fp);
            json_write_str(fp, d->arch);
            fprintf(fp, ", \"mem_bytes\": %llu, \"driver\": ", d->mem_bytes);
            json_write_str(fp, d->driver);
            fputs(", \"bus_id\": ", fp);
            if (d->bus_id[0])
                json_write_str(fp, d->bus_id);
            else
                fputs("null", fp);
            fputc('}', fp);
        }
        fputs(r->ndev ? "\n  ]}" : "]}", fp);
    }
    fputs("\n]}\n", fp);
}

static const char *mem_str(Arena *a, unsigned long long bytes)
{
    return arena_printf(a, "%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void print_table(FILE *fp, const BackendRow *rows, int nrows, Arena *a)
{
    int wname = 4, warch = 4, wmem = 6;
    for (int i = 0; i < nrows; i++)
        for (int j = 0; j < rows[i].ndev; j++) {
            const kgrt_device_info *d = &rows[i].dev[j];
            wname = max_int(wname, (int)strlen(d->name));
            warch = max_int(warch, (int)strlen(d->arch));
            wmem = max_int(wmem, (int)strlen(mem_str(a, d->mem_bytes)));
        }
    fprintf(fp, "%-7s  %-6s  %-*s  %-*s  %-*s  %s\n", "BACKEND", "DEVICE",
            wname, "NAME", warch, "ARCH", wmem, "MEMORY", "DRIVER");
    for (int i = 0; i < nrows; i++) {
        const BackendRow *r = &rows[i];
        const char *bname = kgrt_backend_name(r->b);
        for (int j = 0; j < r->ndev; j++) {
            const kgrt_device_info *d = &r->dev[j];
            fprintf(fp, "%-7s  %-6d  %-*s  %-*s  %-*s  %s\n", bname, d->index,
                    wname, d->name, warch, d->arch, wmem,
                    mem_str(a, d->mem_bytes), d->driver);
        }
        if (r->ndev == 0)
            fprintf(fp, "%-7s  %-6s  (none: %s)\n", bname, "-",
                    r->why[0] ? r->why : "no device");
        else if (r->ndev < r->n)
            fprintf(fp, "%-7s  %-6s  (%d of %d devices unreadable: %s)\n",
                    bname, "-", r->n - r->ndev, r->n, r->why);
    }
    fputc('\n', fp);
#ifdef KGEN_WITH_CUDA
    fputs("cuda:   kernels compile with NVRTC for any --arch, no device "
          "needed; tuning needs a device of that arch\n", fp);
#else
    fputs("cuda:   kgen built without NVRTC: CUDA kernels cannot be "
          "compiled\n", fp);
#endif
#ifdef KGEN_WITH_OPENCL
    fputs("opencl: kernels compile with clBuildProgram on the device "
          "they run on\n", fp);
#else
    fputs("opencl: kgen built without OpenCL\n", fp);
#endif
}

int cmd_devices(bool json)
{
    BackendRow rows[KGRT_BACKEND_COUNT] = {0};
    Arena *a = arena_new();

    for (int i = 0; i < KGRT_BACKEND_COUNT; i++)
        probe(&rows[i], (kgrt_backend)i, a);
    if (json)
        print_json(stdout, rows, KGRT_BACKEND_COUNT);
    else
        print_table(stdout, rows, KGRT_BACKEND_COUNT, a);
    fflush(stdout);
    arena_free(a);
    return 0;
}
