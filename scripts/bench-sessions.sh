#!/usr/bin/env bash
# Times `cairn sessions` (parse everything with all cores) on a large tree.
# Usage: scripts/bench-sessions.sh [CLAUDE_DIR] [RUNS]
# Default tree: /tmp/cairn-bench-1g, grown from ../shared/corpus/claude with
# ../shared/tools/scale-corpus when missing (1 GB, ~1,500 files).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/cairn-bench-1g}
runs=${2:-5}
if [ ! -d "$dir/projects" ]; then
  echo "growing a 1 GB corpus into $dir ..." >&2
  python3 ../shared/tools/scale-corpus ../shared/corpus/claude/projects "$dir/projects" 1024 >&2
fi
go build -o /tmp/cairn-bench .
echo "corpus: $(du -sh "$dir" | cut -f1), $(find "$dir" -name '*.jsonl' | wc -l) files" >&2
/tmp/cairn-bench sessions --claude-dir "$dir" --json >/dev/null 2>&1 # warm the page cache
for i in $(seq "$runs"); do
  /usr/bin/time -f "%e %M" /tmp/cairn-bench sessions --claude-dir "$dir" --json 2>&1 >/dev/null | tail -1
done | sort -n | awk '{t[NR]=$1; if ($2>m) m=$2} END {printf "cairn sessions: median %.2f s over %d runs (min %.2f, max %.2f), peak RSS %.0f MB\n", t[int((NR+1)/2)], NR, t[1], t[NR], m/1024}'
