#!/bin/sh
# bench_shard.sh SOURCE_DIR -- tools/bench/bench.py measure --gpus N
# --dry-run, which needs no GPU and no PyTorch: every workload goes to
# exactly one GPU, the GPUs' shares of the cost differ by at most the
# costliest workload's (5), the GPUs are those CUDA_VISIBLE_DEVICES names, and asking for
# more GPUs than it names is refused.
set -u
src=$1
bench="python3 $src/tools/bench/bench.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=
$bench list | awk '{print $1}' | sort > "$work/all"
[ -s "$work/all" ] || bad="$bad list"
for n in 1 3 8; do
    unset CUDA_VISIBLE_DEVICES
    $bench measure --kgen x --out "$work/o" --gpus $n --dry-run > "$work/split$n" || bad="$bad rc$n"
    [ "$(wc -l < "$work/split$n")" -eq $n ] || bad="$bad lines$n"
    sed 's/^[^:]*: //' "$work/split$n" | tr ',' '\n' | sed '/^$/d' | sort > "$work/got$n"
    cmp -s "$work/all" "$work/got$n" || bad="$bad cover$n"
    # "gpu I (LOAD): ...": the loads within 5 (a block's cost) of each other
    spread=$(sed 's/^gpu [0-9]* (\([0-9]*\)).*/\1/' "$work/split$n" | sort -n | sed -n '1p;$p' | tr '\n' ' ')
    set -- $spread
    [ $(($2 - $1)) -le 5 ] || bad="$bad spread$n:$spread"
done
CUDA_VISIBLE_DEVICES=6,7 $bench measure --kgen x --out "$work/o" --gpus 2 --dry-run > "$work/vis" || bad="$bad vis-rc"
[ "$(cut -d' ' -f2 "$work/vis" | tr '\n' ' ')" = "6 7 " ] || bad="$bad vis"
if CUDA_VISIBLE_DEVICES=4 $bench measure --kgen x --out "$work/o" --gpus 2 --dry-run > "$work/few" 2>&1; then
    bad="$bad few-accepted"
fi
grep -q "names 1" "$work/few" || bad="$bad few-message"
if [ -n "$bad" ]; then
    echo "FAILED: bench shard:$bad"
    exit 1
fi
echo "ok: bench shard"
