#!/bin/bash
# call 171 (2026-11-29, session 36): next-uniform's call, run as written there (its
# README says how tpl/ was made from templates/ at a7512f5 and uniform.patch).
exec bash docs/bench-2026-11-28/next-uniform/run.sh "$@"
