#!/usr/bin/env bash
# Hook latency, whole process, on a big store: p50/p95/p99 of SessionStart,
# UserPromptSubmit and Stop (cairn-hook), plus `cairn hook SessionStart`
# (the full binary) for comparison.
#
# Usage: scripts/bench-hooks.sh [--data DIR] [--claude-dir DIR] [--runs N] [--memories N]
#   --data        an indexed store (default /tmp/cairn-bench-data); it is COPIED
#                 first, never written
#   --claude-dir  the corpus it was indexed from (default /tmp/cairn-bench-1g);
#                 one project folder is copied, the corpus is never written
#   --runs        runs per event (default 100)
#   --memories    approved memories imported first (default 500; a tenth in the
#                 benchmarked project, a tenth global, the rest spread over 50
#                 other projects), so injection ranks a realistic memory store
# Budgets (issue 5): SessionStart and UserPromptSubmit p99 <= 50 ms, Stop p99 <= 100 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
data=/tmp/cairn-bench-data
claude=/tmp/cairn-bench-1g
runs=100
nmem=500
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data=$2; shift 2 ;;
    --claude-dir) claude=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --memories) nmem=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ! -f "$data/cairn.db" ] || [ ! -d "$claude/projects" ]; then
  echo "needs an indexed store in $data built from $claude (scripts/bench-index.sh makes both)" >&2
  exit 2
fi
work=$(mktemp -d /tmp/cairn-bench-hooks.XXXXXX)
if [ -z "${KEEP_WORK:-}" ]; then trap 'rm -rf "$work"' EXIT; else echo "work dir: $work" >&2; fi
echo "building cairn and cairn-hook ..." >&2
go build -o "$work/" . ./cmd/cairn-hook
bin=$work/cairn
hook=$work/cairn-hook
echo "copying the store ($(du -sh "$data" | cut -f1)) ..." >&2
cp -r "$data" "$work/data"
d=$work/data

# The project the hooks act on: the first project folder; it is copied so
# Stop can grow one of its sessions without touching the corpus.
folder=""
for f in "$claude"/projects/*/; do
  if compgen -G "$f*.jsonl" >/dev/null; then folder=$(basename "$f"); break; fi
done
mkdir -p "$work/claude/projects"
cp -r "$claude/projects/$folder" "$work/claude/projects/"
c=$work/claude
files=("$c/projects/$folder"/*.jsonl)
transcript=${files[0]}
sid=$(basename "$transcript" .jsonl)
project=$(grep -m1 -o '"cwd":"[^"]*"' "$transcript" | cut -d'"' -f4 || true)
export CLAUDE_PROJECT_DIR=$project

# Memories: generated and imported (the built-in extractor is precise and
# finds few in the synthetic corpus).
echo "importing $nmem approved memories ..." >&2
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
awk -v n="$nmem" -v proj="$project" -v now="$now" 'BEGIN {
  split("decision gotcha pattern fact preference bugfix architecture", types, " ")
  split("the websocket reconnect test|the users table migration|search ranking|the staging deploy|the liveview test suite|the release build|the auth middleware|the session cache|the CSV export|the rate limiter|the background job queue|the payment webhook|the image resizer|the feature flags|the GraphQL schema|the docker compose setup", subj, "|")
  split("must await the open event before sending|runs only with NODE_ENV=test|uses recency as a tie breaker|goes through the staging cluster first|is flaky under parallel runs: serialise it|needs the migration applied before seeding|keeps state in ETS, not the database|is configured in config/runtime.exs|retries three times with exponential backoff|breaks when the locale is not UTF-8|must stay idempotent because webhooks are retried|logs at debug level only|is owned by the platform team|was rewritten from callbacks to async functions", pred, "|")
  print "{\"kind\":\"cairn-export\",\"version\":1,\"written\":\"" now "\"}"
  for (i = 0; i < n; i++) {
    p = (i % 10 == 0) ? proj : ((i % 10 == 1) ? "" : sprintf("/home/marco/projects/spotter-bench%03d", 100 + i % 50))
    c = sprintf("%s %s (see lib/app/mod%d.ex, handler_%d)", subj[1 + i % 16], pred[1 + int(i / 16) % 14], i, i)
    printf "{\"kind\":\"memory\",\"memory\":{\"id\":\"m-b%07x\",\"project\":\"%s\",\"type\":\"%s\",\"content\":\"%s\",\"tags\":[],\"importance\":%d,\"status\":\"approved\",\"source_session\":\"\",\"source_uuids\":[],\"origin\":\"import\",\"created\":\"%s\",\"updated\":\"%s\",\"access_count\":0,\"last_access\":\"0001-01-01T00:00:00Z\",\"injected\":0,\"used\":0,\"links\":[]}}\n", i, p, types[1 + i % 7], c, 1 + i % 5, now, now
  }
}' >"$work/memories.jsonl"
$bin import --data "$d" "$work/memories.jsonl" >&2
# What a user's background `cairn index` does: embed the new memories.
$bin index --data "$d" --claude-dir "$claude" >/dev/null 2>&1 || echo "warning: cairn index failed" >&2
echo "store $(du -sh "$d" | cut -f1); project $project" >&2

# Warm up: the copied project folder is new to the store (other paths),
# so the first Stop reads it once; then every Stop reads only new lines.
printf '{"hook_event_name":"Stop","session_id":"%s","transcript_path":"%s"}' "$sid" "$transcript" |
  "$hook" --data "$d" --claude-dir "$c" >/dev/null

prompts=("why is the websocket reconnect test flaky" "add a migration for the users table" "the build fails with undefined: handler"
  "refactor the search ranking to use recency" "how do we deploy to staging" "fix the failing liveview test")

# CPU seconds (user+sys) of finished children: `times` must run in this
# shell (not in a $(...) subshell), so it writes a file.
cpu_read() {
  tail -1 "$work/times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); n += a[1]*60 + a[2] } printf "%.4f", n }'
}
times >"$work/times"
cpu0=$(cpu_read)

ms() { # prints the wall time of a command in ms (fractional)
  local s=$EPOCHREALTIME
  "$@"
  local e=$EPOCHREALTIME
  echo "$s $e" >>"$work/t"
}

report() { # name
  awk '{printf "%.3f\n", ($2-$1)*1000}' "$work/t" | sort -n >"$work/sorted"
  local count p50 p95 p99 max
  count=$(wc -l <"$work/sorted")
  p50=$(sed -n "$(( (count*50+99)/100 ))p" "$work/sorted")
  p95=$(sed -n "$(( (count*95+99)/100 ))p" "$work/sorted")
  p99=$(sed -n "$(( (count*99+99)/100 ))p" "$work/sorted")
  max=$(tail -1 "$work/sorted")
  local cpu1 cpu
  times >"$work/times"
  cpu1=$(cpu_read)
  cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v n="$count" 'BEGIN { printf "%.1f", 1000*(b-a)/n }')
  cpu0=$cpu1
  printf "%-34s runs %4d  p50 %6.1f ms  p95 %6.1f ms  p99 %6.1f ms  max %6.1f ms  cpu %5.1f ms/run\n" "$1" "$count" "$p50" "$p95" "$p99" "$max" "$cpu"
  rm -f "$work/t"
}

run_event() { # event exe... ; stdin from $work/in
  "$@" <"$work/in" >"$work/out"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?), $(nproc 2>/dev/null || echo ?) cores"
# SessionStart: a new session each time.
for i in $(seq "$runs"); do
  printf '{"hook_event_name":"SessionStart","session_id":"bench-start-%06d-0000","transcript_path":"%s","cwd":"%s","source":"startup"}' \
    "$i" "$c/projects/$folder/bench-start-$i.jsonl" "$project" >"$work/in"
  ms run_event "$hook" --data "$d" --claude-dir "$c"
done
tokens=$(wc -c <"$work/out")
report "SessionStart (cairn-hook)"
echo "  last SessionStart output: $tokens bytes"

for i in $(seq "$runs"); do
  printf '{"hook_event_name":"SessionStart","session_id":"bench-full-%06d-0000","cwd":"%s","source":"startup"}' "$i" "$project" >"$work/in"
  ms run_event "$bin" hook --data "$d" --claude-dir "$c"
done
report "SessionStart (cairn hook, full)"

# UserPromptSubmit: a new session every 3 prompts (injection is once per session).
injected=0
for i in $(seq "$runs"); do
  p=${prompts[$((i % ${#prompts[@]}))]}
  printf '{"hook_event_name":"UserPromptSubmit","session_id":"bench-prompt-%06d-0000","transcript_path":"%s","cwd":"%s","prompt":"%s"}' \
    "$((i/3))" "$transcript" "$project" "$p" >"$work/in"
  ms run_event "$hook" --data "$d" --claude-dir "$c"
  if [ -s "$work/out" ]; then injected=$((injected+1)); fi
done
report "UserPromptSubmit (cairn-hook)"
echo "  prompts that got memories injected: $injected of $runs"

# Stop: the session grows by a prompt and a reply before each Stop.
parent=""
for i in $(seq "$runs"); do
  ts=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
  u1=$(printf 'b0000000-0000-4000-8000-%012d' $((2*i)))
  u2=$(printf 'b0000000-0000-4000-8000-%012d' $((2*i+1)))
  printf '{"type":"user","uuid":"%s","parentUuid":%s,"sessionId":"%s","timestamp":"%s","cwd":"%s","message":{"role":"user","content":"%s (round %d)"}}\n' \
    "$u1" "${parent:-null}" "$sid" "$ts" "$project" "${prompts[$((i % ${#prompts[@]}))]}" "$i" >>"$transcript"
  printf '{"type":"assistant","uuid":"%s","parentUuid":"%s","sessionId":"%s","timestamp":"%s","cwd":"%s","message":{"id":"msg_b%d","role":"assistant","model":"bench","content":[{"type":"text","text":"Let us fix it: always await the open event before sending. We decided to use recency in ranking (round %d)."}]}}\n' \
    "$u2" "$u1" "$sid" "$ts" "$project" "$i" "$i" >>"$transcript"
  parent="\"$u2\""
  printf '{"hook_event_name":"Stop","session_id":"%s","transcript_path":"%s","cwd":"%s","stop_hook_active":false}' "$sid" "$transcript" "$project" >"$work/in"
  ms run_event "$hook" --data "$d" --claude-dir "$c"
done
report "Stop (cairn-hook, +2 entries each)"

if [ -s "$d/hooks.log" ]; then
  echo "hook log ($(wc -l <"$d/hooks.log") lines), last:"
  tail -3 "$d/hooks.log"
fi
