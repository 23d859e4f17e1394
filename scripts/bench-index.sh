#!/usr/bin/env bash
# Measures cold indexing, incremental re-indexing and whole-process search
# on a large tree. Usage: scripts/bench-index.sh [CLAUDE_DIR] [DATA_DIR]
# Default tree: /tmp/cairn-bench-1g (grown from ../shared/corpus/claude with
# ../shared/tools/scale-corpus when missing).
# For larger trees (10 GB), CPU time, search RSS and profiles:
# bench/scale.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/cairn-bench-1g}
data=${2:-/tmp/cairn-bench-data}
if [ ! -d "$dir/projects" ]; then
  echo "growing a 1 GB corpus into $dir ..." >&2
  python3 ../shared/tools/scale-corpus ../shared/corpus/claude/projects "$dir/projects" 1024 >&2
fi
go build -o /tmp/cairn-bench .
bin=/tmp/cairn-bench
corpus_mb=$(du -sm "$dir" | cut -f1)
echo "corpus: ${corpus_mb} MB, $(find "$dir" -name '*.jsonl' | wc -l) files"

rm -rf "$data"
/usr/bin/time -f "cold index: %e s wall, peak RSS %M KB" $bin index --claude-dir "$dir" --data "$data" 2>&1 | tail -2
store_mb=$(du -sm "$data" | cut -f1)
echo "store: ${store_mb} MB on disk ($(awk "BEGIN{printf \"%.0f\", 100*$store_mb/$corpus_mb}")% of the corpus): $(du -sh "$data"/* | tr '\n' ' ')"

# Incremental: grow one session by 50 entries, re-index, 21 times. Times are
# taken by bash around the whole process (fork and exec included), in ms.
ms() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local e=$EPOCHREALTIME; echo $(( (${e/./}-${s/./})/1000 )); }
f=$(find "$dir/projects" -name '*.jsonl' -not -path '*subagents*' -print -quit)
sid=$(basename "$f" .jsonl)
orig=$(mktemp)
cp "$f" "$orig"
# Leave the tree as it was when the script ends (the store keeps the
# benchmark's entries).
trap 'cp "$orig" "$f"; rm -f "$orig"' EXIT
for i in $(seq 21); do
  python3 - "$f" "$sid" "$i" <<'PY'
import json, sys, uuid, datetime
path, sid, run = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path, "a") as out:
    for k in range(50):
        u = str(uuid.uuid4())
        ts = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        out.write(json.dumps({"type": "user", "uuid": u, "sessionId": sid, "timestamp": ts, "cwd": "/bench",
            "message": {"role": "user", "content": f"benchmark prompt {run}-{k} about websocket reconnect tests"}}) + "\n")
PY
  ms $bin index --claude-dir "$dir" --data "$data"
done | sort -n | awk '{t[NR]=$1} END {printf "incremental index (+50 entries, whole process, 21 runs): median %d ms, min %d ms, max %d ms\n", t[int((NR+1)/2)], t[1], t[NR]}'

for q in "websocket reconnect" "mix phx.server" "how did I get the dev server to start" "dialyzer PLT"; do
  for i in $(seq 11); do
    ms $bin search "$q" --json --claude-dir "$dir" --data "$data"
  done | sort -n | awk -v q="$q" '{t[NR]=$1} END {printf "search %-40s whole process: median %d ms, max %d ms\n", "\"" q "\"", t[int((NR+1)/2)], t[NR]}'
done
