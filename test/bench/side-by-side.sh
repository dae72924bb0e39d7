#!/usr/bin/env bash
# Two builds of the engine measured at the same time (issue 18): the cost scenario runs from two
# checkouts at once, each with its own database, streams, receiver and engine, so that what the
# shared machine does meanwhile weighs on both alike. Prints, per round, the engine's CPU s per
# 1,000 deliveries at 200 events/s of each and their ratio (B / A).
#
#   test/bench/side-by-side.sh ROUNDS CHECKOUT_A CHECKOUT_B
#
# Each checkout must be built for the bench (`npm run -s build && npx tsc -p tsconfig.bench.json
# && npx tsc-alias -p tsconfig.bench.json`) and have its node_modules. The cost scenario's
# settings come from the environment; by default here 100 then 200 events/s for 30 s each (the
# engine is warm at 200/s), a burst of 1,000 and no floor. Two runs at once load the machine
# more than one, so the figures are for comparing, not for docs/benchmarks.md's table.
set -euo pipefail

if [ $# -ne 3 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
rounds=$1
a=$(cd "$2" && pwd)
b=$(cd "$3" && pwd)
logs=$(mktemp -d)
export BENCH_SCENARIOS=cost
export BENCH_COST_RATES=${BENCH_COST_RATES:-100,200}
export BENCH_COST_SECONDS=${BENCH_COST_SECONDS:-30}
export BENCH_COST_BURST_EVENTS=${BENCH_COST_BURST_EVENTS:-1000}
export BENCH_COST_FLOOR_SECONDS=${BENCH_COST_FLOOR_SECONDS:-0}

figure() { # figure LOG NAME
  awk -v name="$2:" '$1 == name { print $2 }' "$1"
}

for round in $(seq 1 "$rounds"); do
  (cd "$a" && BENCH_RESULTS_FILE="$logs/a.$round.json" node dist/test/bench/delivery-bench.js >"$logs/a.$round.log" 2>&1) &
  first=$!
  (cd "$b" && BENCH_RESULTS_FILE="$logs/b.$round.json" node dist/test/bench/delivery-bench.js >"$logs/b.$round.log" 2>&1) &
  second=$!
  wait "$first" || { echo "round $round: A failed, see $logs/a.$round.log"; exit 1; }
  wait "$second" || { echo "round $round: B failed, see $logs/b.$round.log"; exit 1; }
  ea=$(figure "$logs/a.$round.log" at200EngineCpuSecondsPer1000)
  eb=$(figure "$logs/b.$round.log" at200EngineCpuSecondsPer1000)
  echo "round $round: engine CPU s per 1,000 at 200/s: A $ea, B $eb, B / A $(awk -v a="$ea" -v b="$eb" 'BEGIN { printf "%.3f", b / a }')"
done
echo "logs: $logs"
