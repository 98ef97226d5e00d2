# scratch: copy templates/ to .devdb/tpl with clock64 phase counters in the pp consumer and
# producer; the persistent walk runs KQR times and the last walk's counters are printed
import shutil, os, sys
src, dst = "templates", ".devdb/tpl"
shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst)
p = os.path.join(dst, "gemm.lua"); s = open(p).read()
def rep(a, b):
    global s
    assert s.count(a) == 1, (s.count(a), a)
    s = s.replace(a, b)
R = os.environ.get("KQR", "3")
# (no producer counters: after setmaxnreg.dec its code must fit the registers it kept)
# the walks: the block's tiles j = 0 .. R n - 1 in turn (t = PB + (j mod n) PG), so the two
# consumers still alternate strictly (R whole walks of an odd n would let one run ahead)
rep("    for (long t = GEMM_PB; t < GEMM_TILES; t += GEMM_PG) {\n$ptile$producer",
    "    const long kqn_ = (GEMM_TILES - GEMM_PB + GEMM_PG - 1) / GEMM_PG;\n    for (long j = 0; j < " + R + " * kqn_; j++) {\n      const long t = GEMM_PB + j % kqn_ * GEMM_PG;\n$ptile$producer")
rep("    unsigned it = (unsigned)cw * (unsigned)GEMM_KT, turn = 0;\n$bwait    for (long t = GEMM_PB + cw * GEMM_PG; t < GEMM_TILES; t += 2 * GEMM_PG) {\n",
    "    unsigned it = (unsigned)cw * (unsigned)GEMM_KT, turn = 0;\n    long long kqs[7] = {0, 0, 0, 0, 0, 0, 0}; int kqn = 0; long long kq4 = clock64(), kqst = clock64(); unsigned long long kgt0 = 0; bool kqz = false;\n$bwait"
    "    const long kqn_ = (GEMM_TILES - GEMM_PB + GEMM_PG - 1) / GEMM_PG;\n"
    "    for (long j = cw; j < " + R + " * kqn_; j += 2) {\n      const long t = GEMM_PB + j % kqn_ * GEMM_PG;\n"
    "    if (!kqz && j >= (" + R + " - 1) * kqn_) { kqz = true; for (int i = 0; i < 7; i++) kqs[i] = 0; kqn = 0; kq4 = kqst = clock64(); asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(kgt0)); }\n")
rep('"      kg_mb_wait(&gemm_turn[cw], (turn & 1u) ^ (cw == 0 ? 1u : 0u));\\n" ..',
    '"      long long kq0 = clock64(); kqs[4] += kq0 - kq4;\\n      kg_mb_wait(&gemm_turn[cw], (turn & 1u) ^ (cw == 0 ? 1u : 0u));\\n      long long kq1 = clock64();\\n" ..')
rep("      kg_mb_wait(&gemm_full[cs], (q / STAGES) & 1u);\n      kg_wg_fence_async();\n      const $ct *as_c",
    "      long long kw0 = clock64();\n      kg_mb_wait(&gemm_full[cs], (q / STAGES) & 1u);\n      kqs[5] += clock64() - kw0;\n      kg_wg_fence_async();\n      const $ct *as_c")
rep("$mmas\n      kg_wg_wait<1>();\n      if (kt > 0) kg_mb_arrive(&gemm_empty[(q - 1u) % STAGES]);\n$retire", "$mmas\n      long long kw1 = clock64();\n      kg_wg_wait<1>();\n      kqs[6] += clock64() - kw1;\n      if (kt > 0) kg_mb_arrive(&gemm_empty[(q - 1u) % STAGES]);\n$retire")
rep("$turn    kg_wg_wait<0>();\n", "    long long kq2 = clock64();\n$turn    kg_wg_wait<0>();\n    long long kq3 = clock64();\n")
rep("$consumer$pins$epi\n      it += 2u * (unsigned)GEMM_KT;\n    }\n",
    "$consumer$pins$epi\n      kq4 = clock64(); kqs[0] += kq1 - kq0; kqs[1] += kq2 - kq1; kqs[2] += kq3 - kq2; kqs[3] += kq4 - kq3; kqn++;\n      it += 2u * (unsigned)GEMM_KT;\n    }\n"
    "    { unsigned long long kgt1; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(kgt1)); long long kqe = clock64();\n"
    "    if (tid == 0 && kqn && (blockIdx.x % 33) == 0) printf(\"KQ blk %d cw %d tiles %d turnwait %lld main %lld (fullwait %lld, mmawait %lld) drain %lld epi %lld pre %lld | total %lld cyc %llu ns\\n\", (int)blockIdx.x, cw, kqn, kqs[0]/kqn, kqs[1]/kqn, kqs[5]/kqn, kqs[6]/kqn, kqs[2]/kqn, kqs[3]/kqn, kqs[4]/kqn, kqe - kqst, kgt1 - kgt0); }\n")
open(p, "w").write(s)
print("ok")
