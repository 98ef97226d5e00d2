#!/bin/sh
# bench_energy.sh KGEN SOURCE_DIR -- tools/bench/energy.py reads each
# kernel's tensors from a build's fused.h (no GPU, no PyTorch): for the
# encoder (a bool mask, views with strides) and WaveNet built for OpenCL,
# every launcher's comment names as many tensors as it has parameters, the
# views keep their strides and offsets, each buffer reaches every view of
# it, and a header whose comment lost a tensor is refused.
set -u
kgen=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for m in encoder_layer wavenet_layer; do
    "$kgen" build "$src/examples/$m.pat" --arch opencl -o "$work/$m" -q ||
        { echo "FAILED: kgen build $m"; exit 1; }
done
python3 - "$src/tools/bench" "$work" <<'PY'
import math
import re
import sys
sys.path.insert(0, sys.argv[1])
import energy

bad = []
seen = {"view": 0, "bool": 0}
for m in ("encoder_layer", "wavenet_layer"):
    text = open(f"{sys.argv[2]}/{m}/fused.h").read()
    ks = energy.kernels(text)
    if len(ks) != len(re.findall(r"\nint \w+_k\d+_\w+\(", text)):
        bad.append(f"{m}: {len(ks)} launchers read")
    ext = energy.extents(ks)
    for _, _, args in ks:
        for n, dt, shape, st, off in args:
            if st:
                seen["view"] += 1
                if len(st) != len(shape):
                    bad.append(f"{m} {n}: strides {st} for shape {shape}")
            seen["bool"] += dt == "bool"
            st = st or [math.prod(shape[i + 1:]) for i in range(len(shape))]
            reach = off + sum((d - 1) * s for d, s in zip(shape, st)) + 1
            if ext[n][1] < reach or ext[n][0] != dt:
                bad.append(f"{m} {n}: buffer {ext[n]} short of {reach} {dt}")
if not seen["view"] or not seen["bool"]:
    bad.append(f"no view or no bool tensor read: {seen}")
# a comment that lost a tensor no longer matches its launcher
text = open(f"{sys.argv[2]}/encoder_layer/fused.h").read()
broken = re.sub(r"(\* k\d+_\w+: [^\n]*\n \* variant 0: .*), \S+ \w+\[[\d,]+\]\n",
                r"\1\n", text, count=1)
if broken == text:
    bad.append("the test's header edit did not apply")
try:
    energy.kernels(broken)
    bad.append("a launcher with a tensor missing from its comment was read")
except ValueError:
    pass
if bad:
    print("FAILED: bench energy: " + "; ".join(bad))
    sys.exit(1)
print("ok: bench energy")
PY
