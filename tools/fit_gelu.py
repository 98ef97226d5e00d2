#!/usr/bin/env python3
"""fit_gelu.py [--atan] [DEGREE] -- the polynomial behind the CUDA prelude's GELU
(templates/lib.lua, KG_GELU_Q): Q(a) ~ log2 Phi(-a) over a in [0, 6],
fitted by the Remez exchange, its error weighted so that what is minimised
is the GELU's own error at x = -a, relative to max(|GELU|, 6.1e-5) (f16's
smallest normal: below it an f16 store keeps a fixed absolute step, so a
relative error there buys nothing).  A unit error in Q moves 2^Q by ln 2
relative, and GELU(-a) = -a 2^Q(a) with it; for x > 0 the error is smaller
by Phi(-a).  Prints the coefficients, highest first, as KG_GELU_Q takes
them, and the weighted error in double precision; tests/fast_gelu.sh then
checks the fit as the GPU evaluates it, in f32.  With --atan, the one
behind its atan (KG_ATAN_P): P(s) ~ atan(t) / t over s = t^2 in [0, 1],
its relative error minimised (degree 5 by default).  Standard library
only."""
import math
import sys

A = 6.0          # the clamp of kg_gelu_a
FMIN = 6.1e-5    # f16's smallest normal


def q_exact(a):
    return math.log2(0.5 * math.erfc(a / math.sqrt(2.0)))


def weight(a):
    g = a * 0.5 * math.erfc(a / math.sqrt(2.0))
    return math.log(2.0) * (g / max(g, FMIN) if a > 0 else 1.0)


def horner(c, a):
    s = 0.0
    for x in reversed(c):
        s = s * a + x
    return s


def solve(m, b):
    """Gaussian elimination with partial pivoting, m x = b"""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def atan_ratio(s):
    return math.atan(math.sqrt(s)) / math.sqrt(s) if s > 0 else 1.0


def fit(degree, f=q_exact, weight=weight, hi=A, grid_points=20000, rounds=80):
    """coefficients (lowest first) of the minimax fit of f over [0, hi]
    with its error weighted, and that weighted error"""
    n = degree + 2
    xs = [hi / 2 * (1 - math.cos(math.pi * i / (n - 1))) for i in range(n)]
    grid = [hi * i / grid_points for i in range(grid_points + 1)]
    c, err = [], float("inf")
    for _ in range(rounds):
        # the polynomial that alternates +-E (weighted) on the reference xs
        m = [[x ** j for j in range(degree + 1)] + [(-1) ** i / weight(x)]
             for i, x in enumerate(xs)]
        c = solve(m, [f(x) for x in xs])[:degree + 1]
        e = [(horner(c, x) - f(x)) * weight(x) for x in grid]
        err = max(abs(v) for v in e)
        # the new reference: the largest error of each run of one sign
        ext, i = [], 0
        while i < len(grid):
            j, best = i, i
            while j < len(grid) and (e[j] >= 0) == (e[i] >= 0):
                if abs(e[j]) > abs(e[best]):
                    best = j
                j += 1
            ext.append(best)
            i = j
        while len(ext) > n:
            ext.pop(0 if abs(e[ext[0]]) < abs(e[ext[-1]]) else -1)
        if len(ext) < n:
            break
        xs = [grid[k] for k in ext]
    return c, err


def main():
    args = sys.argv[1:]
    atan = "--atan" in args
    args = [a for a in args if a != "--atan"]
    degree = int(args[0]) if args else (5 if atan else 6)
    if atan:
        c, err = fit(degree, atan_ratio, lambda s: 1.0 / atan_ratio(s), 1.0)
    else:
        c, err = fit(degree)
    print("degree %d: weighted error %.3g" % (degree, err))
    print(", ".join("%.9g" % x for x in reversed(c)))


if __name__ == "__main__":
    main()
