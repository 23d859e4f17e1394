#!/usr/bin/env bash
# Measures backup, restore and export --sessions on a large store.
# Usage: scripts/bench-backup.sh [CLAUDE_DIR] [DATA_DIR]
# Default tree: /tmp/cairn-bench-1g (see scripts/bench-index.sh); the data
# dir is indexed first when it holds no store.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/cairn-bench-1g}
data=${2:-/tmp/cairn-bench-data}
go build -o /tmp/cairn-bench .
bin=/tmp/cairn-bench
if [ ! -f "$data/cairn.db" ]; then
  /usr/bin/time -f "cold index: %e s" $bin index --claude-dir "$dir" --data "$data" 2>&1 | tail -1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "store: $(du -sh "$data/cairn.db" | cut -f1) database, $(du -sh "$data" | cut -f1) data dir"
/usr/bin/time -f "backup: %e s wall, peak RSS %M KB" $bin backup -o "$work/b.db" --claude-dir "$dir" --data "$data" 2>&1 | tail -2
echo "backup file: $(du -sh "$work/b.db" | cut -f1)"
/usr/bin/time -f "restore (verify, copy, rebuild full text and vectors): %e s wall, peak RSS %M KB" \
  $bin restore "$work/b.db" --claude-dir "$dir" --data "$work/restored" 2>&1 | tail -2
/usr/bin/time -f "export --sessions: %e s wall, peak RSS %M KB" \
  $bin export --sessions -o "$work/export" --claude-dir "$dir" --data "$data" 2>&1 | tail -2
echo "export: $(du -sh "$work/export" | cut -f1)"
