#!/bin/bash
# call 195 (2026-11-29, session 40): attempt 37's next40 as written there, at 71d6a94
# (the conv's mma kernel against minb5, minb6 and wstage; a/ has its checks and pins).
exec bash docs/bench-2026-11-29/next40/run.sh "$@"
