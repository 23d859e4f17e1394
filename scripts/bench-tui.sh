#!/usr/bin/env bash
# bench-tui.sh — measure the TUI on an indexed store, driving the real
# binary in tmux: time to the first frame with content, search latency
# after the last keystroke (debounce excluded), and resident memory.
#
#   scripts/bench-tui.sh [DATA_DIR] [CLAUDE_DIR]
#
# Defaults: the 1 GB reference store /tmp/cairn-bench-data built from
# /tmp/cairn-bench-1g. The store is copied first (the TUI writes to it:
# incremental sync, queued embeddings), and the copy is removed at the end.
set -euo pipefail

DATA=${1:-/tmp/cairn-bench-data}
CLAUDE=${2:-/tmp/cairn-bench-1g}
RUNS=${RUNS:-3}
QUERY=${QUERY:-websocket reconnect}
command -v tmux >/dev/null || { echo "bench-tui: needs tmux (apt-get install -y tmux)" >&2; exit 2; }
[ -d "$DATA" ] || { echo "bench-tui: no store at $DATA (build one with cairn index)" >&2; exit 2; }

cd "$(dirname "$0")/.."
WORK=$(mktemp -d /tmp/cairn-bench-tui.XXXXXX)
SESSION=cairn-bench-tui-$$
cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

go build -o "$WORK/cairn" .
cp -r "$DATA" "$WORK/data"
TRACE=$WORK/trace

wait_for() { # wait_for PATTERN FILE SECONDS
	local i
	for ((i = 0; i < $3 * 100; i++)); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

start() {
	: >"$TRACE"
	tmux new-session -d -s "$SESSION" -x 120 -y 40 \
		"exec env CAIRN_TUI_TRACE=$TRACE $WORK/cairn --data $WORK/data --claude-dir $CLAUDE"
	PID=$(tmux list-panes -t "$SESSION" -F '#{pane_pid}')
}

stop() {
	tmux send-keys -t "$SESSION" q
	for ((i = 0; i < 300; i++)); do kill -0 "$PID" 2>/dev/null || break; sleep 0.01; done
	tmux kill-session -t "$SESSION" 2>/dev/null || true
}

echo "store: $(du -sh "$DATA" | cut -f1) at $DATA; transcripts: $(du -sh "$CLAUDE" | cut -f1) at $CLAUDE"
for ((r = 1; r <= RUNS; r++)); do
	start
	wait_for first-frame "$TRACE" 10 || { echo "run $r: no first frame in 10 s"; tmux capture-pane -p -t "$SESSION"; exit 1; }
	echo "run $r: $(grep first-frame "$TRACE")"
	if [ "$r" = 1 ]; then
		sleep 1
		# Search: type the query, wait for the last result.
		tmux send-keys -t "$SESSION" /
		tmux send-keys -t "$SESSION" -l "$QUERY"
		wait_for "query \"$QUERY\"" "$TRACE" 10 || true
		sleep 0.5
		echo "search (first query of a burst opens the index):"
		grep search-ms "$TRACE" | sed 's/^/    /'
		# Another query in the same burst: the index is open.
		tmux send-keys -t "$SESSION" C-u
		tmux send-keys -t "$SESSION" -l "dialyzer warnings"
		wait_for 'query "dialyzer warnings"' "$TRACE" 10 || true
		echo "search (index open): $(grep 'dialyzer warnings' "$TRACE")"
		# Open the first hit, page through it.
		tmux send-keys -t "$SESSION" Enter
		sleep 1
		for _ in 1 2 3 4 5 6 7 8 9 10; do tmux send-keys -t "$SESSION" PageDown; done
		sleep 0.5
		tmux send-keys -t "$SESSION" G
		sleep 0.5
		echo "rss after search and reading: $(grep -E 'VmRSS|VmHWM|RssAnon|RssFile' /proc/$PID/status | tr -s ' \t' ' ' | tr '\n' ' ')"
		sleep 5
		echo "rss after 5 s more (background indexing): $(grep -E 'VmRSS|VmHWM|RssAnon|RssFile' /proc/$PID/status | tr -s ' \t' ' ' | tr '\n' ' ')"
		tmux capture-pane -p -t "$SESSION" | tail -1 | sed 's/^/status bar: /'
	fi
	stop
	grep index "$TRACE" | sed "s/^/    /" || true
done
