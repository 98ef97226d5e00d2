#!/bin/bash
# call 216 (session 43): what a LayerNorm split into a statistics pass and a conv that
# normalises as it stages would cost, measured before building it (the template contract
# has no second kernel or scratch yet).  (1) LYNXNet2's plain conv (its tuned config,
# path=mma BC=32 BLOCK=256 BT=384) against the same conv whose staging also normalises
# each 16-byte vector in f32 (unpack, two FMAs a value with a step's (rstd, -mean * rstd)
# read as a float2 and each channel's gamma and beta in registers, pack), with those
# numbers made 1 and 0 from loads the compiler cannot fold, so the result stays the
# conv's and passes the check; (2) the statistics pass's floor, a mean over the channels
# of x (100 MB read), by the reduce template.  The LayerNorm was 0.0568 ms, the conv
# 0.0834 in call 212.
export PYTHONUNBUFFERED=1 KGEN_PATTERNS=$PWD/patterns
K=$PWD/build-dev-bin/kgen
Y=examples/lynxnet2_block.pat
rm -rf /tmp/tn && cp -r templates /tmp/tn
python3 - <<'PY'
p = '/tmp/tn/dwconv.lua'
s = open(p).read()
a = '''  add("    const unsigned *h0 = (const unsigned *)&r0, *h1 = (const unsigned *)&r1;")'''
b = '''  if not tail then
    local bc = g.bias.cname
    add(string.format([[
    {
      const float2 *stp = (const float2 *)%s;
      float2 s0 = stp[p & 255], s1 = stp[(p + 1) & 255];
      s0.x = 1.0f + 0.0f * fminf(fabsf(s0.x), 1.0f); s0.y = 0.0f * fminf(fabsf(s0.y), 1.0f);
      s1.x = 1.0f + 0.0f * fminf(fabsf(s1.x), 1.0f); s1.y = 0.0f * fminf(fabsf(s1.y), 1.0f);
      unsigned *u0 = (unsigned *)&r0, *u1 = (unsigned *)&r1;
      #pragma unroll
      for (int j = 0; j < 4; j++) {
        const float2 f = __half22float2(*(const __half2 *)&u0[j]), k = __half22float2(*(const __half2 *)&u1[j]);
        const __half2 o = __floats2half2_rn(fmaf(fmaf(f.x, s0.x, s0.y), gg[2 * j], ee[2 * j]), fmaf(fmaf(f.y, s0.x, s0.y), gg[2 * j + 1], ee[2 * j + 1]));
        const __half2 o1 = __floats2half2_rn(fmaf(fmaf(k.x, s1.x, s1.y), gg[2 * j], ee[2 * j]), fmaf(fmaf(k.y, s1.x, s1.y), gg[2 * j + 1], ee[2 * j + 1]));
        if (%s) u0[j] = *(const unsigned *)&o;
        if (%s) u1[j] = *(const unsigned *)&o1;
      }
    }]], bc, in0, in1))
  end
  add("    const unsigned *h0 = (const unsigned *)&r0, *h1 = (const unsigned *)&r1;")'''
assert s.count(a) == 1
s = s.replace(a, b)
a = '''    add("  for (int e = tid; e < BC / 8 * (WS / 2); e += BLOCK) {")'''
b = '''    add(string.format([[
  float gg[8], ee[8];
  #pragma unroll
  for (int j = 0; j < 8; j++) {
    gg[j] = 1.0f + 0.0f * fminf(fabsf(__half2float(%s[(tid * 8 + j) & 1023])), 1.0f);
    ee[j] = 0.0f * fminf(fabsf(__half2float(%s[(tid * 8 + j + 1) & 1023])), 1.0f);
  }]], g.bias.cname, g.bias.cname))
    add("  for (int e = tid; e < BC / 8 * (WS / 2); e += BLOCK) {")'''
assert s.count(a) == 1
s = s.replace(a, b)
open(p, 'w').write(s)
PY
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
pin="--where path=mma --where BC=32 --where BLOCK=256 --where BT=384"
KGEN_TEMPLATES=/tmp/tn $K check $Y --dim B=2 --dim T=301 --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 $pin --configs 2 2>&1 | tail -2
KGEN_TEMPLATES=/tmp/tn $K gen $Y --unfuse k0_ln_dwconv --kernel k2_conv1d --backend cuda --arch sm_90 $pin -o $OUT/gen_norm >/dev/null 2>&1
for i in 1 2; do
  for T in $PWD/templates /tmp/tn; do
    rm -f /tmp/p.db
    KGEN_TEMPLATES=$T timeout 100 $K tune $Y --unfuse k0_ln_dwconv --kernel k2_conv1d --arch sm_90 --db /tmp/p.db $pin --budget 1 -q >/dev/null 2>&1
    echo "$T round $i: $($K cache list --db /tmp/p.db | sed -n 2p | awk '{print $5}')"
  done
done | tee $OUT/conv.txt
cat > /tmp/st.pat <<'PAT'
model stats
dim B = 64, T = 768, C = 1024
input x : f16[B, T, C]
m = mean(x, axis=-1)
output m
PAT
KGEN_TEMPLATES=$PWD/templates timeout 150 $K tune /tmp/st.pat --arch sm_90 --db /tmp/st.db --budget 16 -q > /dev/null 2>&1
$K cache list --db /tmp/st.db 2>&1 | cut -c1-200 | tee $OUT/stats.txt
echo "done at ${SECONDS}s"
