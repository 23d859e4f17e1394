#!/usr/bin/env bash
# Scale benchmark: cold index, store size, whole-process search and
# incremental indexing on a large grown corpus (issue 28).
#
# Usage: bench/scale.sh [CORPUS_DIR] [SIZE_MB] [DATA_DIR]
#   CORPUS_DIR  a Claude directory (with projects/); grown from
#               ../shared/corpus/claude/projects to SIZE_MB when it has no
#               projects/ yet, by bench/scalecorpus (the Go port of
#               ../shared/tools/scale-corpus, byte-identical output; 10 GB
#               in under a minute) (default /tmp/cairn-10g)
#   SIZE_MB     size to grow it to (default 10240)
#   DATA_DIR    cairn's store, deleted first (default /tmp/cairn-scale-data)
# Environment: PROFILE=DIR writes the cold index's CPU and heap profiles
# there (cpu.prof, mem.prof); RUNS=N searches per query (default 11);
# SKIP_COLD=1 reuses the store in DATA_DIR (search and incremental only);
# BIN=path measures that binary instead of building this tree (before/after).
#
# Every figure is a whole process, fork and exec included: wall time and,
# because the reference machine is often shared, CPU time (user+sys) too.
# Medians are of RUNS runs; max is the slowest.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/cairn-10g}
size=${2:-10240}
data=${3:-/tmp/cairn-scale-data}
runs=${RUNS:-11}
if [ ! -d "$dir/projects" ]; then
  echo "growing a ${size} MB corpus into $dir (takes a while) ..." >&2
  go run ./bench/scalecorpus ../shared/corpus/claude/projects "$dir/projects" "$size" >&2
fi
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  bin=$(mktemp -d)/cairn
  go build -o "$bin" .
fi
corpus_mb=$(du -sm "$dir" | cut -f1)
echo "corpus: $dir, ${corpus_mb} MB, $(find "$dir" -name '*.jsonl' | wc -l) files; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# timed CMD...: runs CMD under GNU time; prints "wall_ms cpu_ms rss_kb".
timed() {
  local out
  out=$(mktemp)
  /usr/bin/time -f "%e %U %S %M" -o "$out" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; cat "$out" >&2; rm -f "$out"; return 1; }
  awk '{printf "%d %d %d\n", $1*1000, ($2+$3)*1000, $4}' "$out"
  rm -f "$out"
}

if [ -z "${SKIP_COLD:-}" ]; then
  rm -rf "$data"
  prof=()
  if [ -n "${PROFILE:-}" ]; then
    mkdir -p "$PROFILE"
    prof=(--cpuprofile "$PROFILE/cpu.prof" --memprofile "$PROFILE/mem.prof")
  fi
  t=$(mktemp)
  /usr/bin/time -f "%e %U %S %M" -o "$t" "$bin" index --claude-dir "$dir" --data "$data" "${prof[@]}" | tail -1
  read -r wall user sys rss <"$t"
  rm -f "$t"
  awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v mb="$corpus_mb" 'BEGIN {
    printf "cold index: %.1f s wall, %.1f s CPU (%.1f user + %.1f sys), peak RSS %d MB, %.1f MB/s of CPU\n", w, u+s, u, s, r/1024, mb/(u+s) }'
fi
store_mb=$(du -sm "$data" | cut -f1)
echo "store: ${store_mb} MB ($(awk "BEGIN{printf \"%.1f\", 100*$store_mb/$corpus_mb}")% of the corpus): $(cd "$data" && du -sh -- * | awk '{printf "%s %s, ", $2, $1}')"

# stats LABEL: reads "wall cpu rss" lines, prints median and max.
stats() {
  local t
  t=$(mktemp)
  cat >"$t"
  local cpu
  cpu=$(sort -n -k2 "$t" | awk '{c[NR]=$2} END {print c[int((NR+1)/2)]}')
  sort -n -k1 "$t" | awk -v l="$1" -v cpu="$cpu" '{w[NR]=$1; if ($3>r) r=$3} END {
    printf "%-52s median %4d ms, max %4d ms wall; CPU median %4d ms; peak RSS %d MB\n", l, w[int((NR+1)/2)], w[NR], cpu, r/1024 }'
  rm -f "$t"
}

for mode in text hybrid; do
  for q in "websocket reconnect" "mix phx.server" "how did I get the dev server to start" "dialyzer PLT"; do
    "$bin" search "$q" --mode "$mode" --json --claude-dir "$dir" --data "$data" >/dev/null # warm the page cache
    for _ in $(seq "$runs"); do
      timed "$bin" search "$q" --mode "$mode" --json --claude-dir "$dir" --data "$data"
    done | stats "search $mode \"$q\""
  done
done

# Incremental: grow one session by 200 entries, re-index, RUNS times.
f=$(find "$dir/projects" -name '*.jsonl' -not -path '*subagents*' -print -quit)
sid=$(basename "$f" .jsonl)
orig=$(mktemp)
cp "$f" "$orig"
trap 'cp "$orig" "$f"; rm -f "$orig"' EXIT # the tree as it was (the store keeps the entries)
for i in $(seq "$runs"); do
  python3 - "$f" "$sid" "$i" <<'PY'
import json, sys, uuid, datetime
path, sid, run = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path, "a") as out:
    for k in range(200):
        u = str(uuid.uuid4())
        ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        out.write(json.dumps({"type": "user", "uuid": u, "sessionId": sid, "timestamp": ts, "cwd": "/bench",
            "message": {"role": "user", "content": f"benchmark prompt {run}-{k} about websocket reconnect tests"}}) + "\n")
PY
  timed "$bin" index --claude-dir "$dir" --data "$data"
done | stats "incremental index, +200 lines"
