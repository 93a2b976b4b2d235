#!/bin/bash
# Instructions inside `Simulation::run_controlled` for the four reference cases of
# docs/benchmarks.md (deterministic, unlike wall time on a shared machine).
# usage: tools/callgrind_cases.sh [OUT_DIR]   (run from a checkout whose .venv is built: make setup)
# Writes OUT_DIR/CASE.out (callgrind_annotate it) and prints one line per case:
#   CASE  INSTRUCTIONS  events N
set -euo pipefail
OUT=${1:-callgrind-out}
mkdir -p "$OUT"
command -v valgrind >/dev/null || { echo "error: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
for C in tcp-100mb wlan-10sta-tcp cc-agent-100mb web-100-cc; do
  PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect='*run_controlled*' \
    --callgrind-out-file="$OUT/$C.out" .venv/bin/wattlab bench --case "$C" --repeat 1 -q --json \
    > "$OUT/$C.json" 2> "$OUT/$C.err"
  echo "$C $(grep -o 'summary: [0-9]*' "$OUT/$C.out" | awk '{printf "%.2f M", $2/1e6}') events $(grep -o '"events": *[0-9]*' "$OUT/$C.json" | head -1 | grep -o '[0-9]*$')"
done | tee "$OUT/summary.txt"
