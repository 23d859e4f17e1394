package tui

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/fts"
)

// searchHub owns the full-text index for this process. bleve lets one
// process open it at a time, so the TUI opens it for a burst of queries
// (type-as-you-search) and closes it once the user stops typing, and the
// background indexer borrows it under the same lock.
type searchHub struct {
	st   *index.Store
	idle time.Duration

	mu    sync.Mutex
	sr    *index.Searcher
	last  time.Time
	timer *time.Timer
}

func newSearchHub(st *index.Store, idle time.Duration) *searchHub {
	return &searchHub{st: st, idle: idle}
}

// Search runs q, opening the searcher when it is closed.
func (h *searchHub) Search(ctx context.Context, q index.SearchQuery) (*index.SearchResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sr == nil {
		sr, err := h.st.OpenSearcher(ctx, 300*time.Millisecond)
		if err != nil {
			return nil, err
		}
		h.sr = sr
	}
	resp, err := h.sr.Search(ctx, q)
	h.last = time.Now()
	if h.timer == nil {
		h.timer = time.AfterFunc(h.idle, h.closeIfIdle)
	} else {
		h.timer.Reset(h.idle)
	}
	return resp, err
}

// Warm opens the searcher ahead of the first query (when the search box
// gets focus), so the open is paid while the user types.
func (h *searchHub) Warm(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sr == nil {
		sr, err := h.st.OpenSearcher(ctx, 50*time.Millisecond)
		if err != nil {
			return // the query will say why
		}
		h.sr = sr
	}
	h.last = time.Now()
	if h.timer == nil {
		h.timer = time.AfterFunc(h.idle, h.closeIfIdle)
	} else {
		h.timer.Reset(h.idle)
	}
}

func (h *searchHub) closeIfIdle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sr != nil && time.Since(h.last) >= h.idle-10*time.Millisecond {
		h.sr.Close()
		h.sr = nil
		// The searcher held the embedder's model and bleve's caches: give
		// the memory back while the user reads.
		go debug.FreeOSMemory()
	}
}

// Drain indexes what is queued for full-text search. A busy index (another
// cairn process holds it) is not an error: the work stays queued.
func (h *searchHub) Drain(ctx context.Context, progress func(int)) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sr != nil {
		h.sr.Close()
		h.sr = nil
	}
	ix, err := h.st.OpenFTS(50 * time.Millisecond)
	if err != nil {
		if errors.Is(err, fts.ErrLocked) {
			return 0, nil
		}
		return 0, err
	}
	n, err := h.st.DrainFTS(ctx, ix, progress)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Reopen closes an open searcher so the next query drains what was
// written since (new entries become searchable at once).
func (h *searchHub) Reopen() {
	go func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.sr != nil {
			h.sr.Close()
			h.sr = nil
		}
	}()
}

// Close releases the index.
func (h *searchHub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.timer != nil {
		h.timer.Stop()
	}
	if h.sr != nil {
		h.sr.Close()
		h.sr = nil
	}
}

// indexMsg reports background indexing: progress, then one final message.
type indexMsg struct {
	stage    string // "reading transcripts", "full-text", "embeddings"
	p        index.Progress
	done     int
	finished bool
	quiet    bool // a periodic refresh: no progress shown
	stats    index.SyncStats
	err      error
	ch       chan indexMsg
}

// runIndex syncs the store with the transcripts, drains the full-text
// queue and embeds what is queued, reporting on ch. It never blocks on a
// slow reader: progress messages are dropped when the UI is behind.
func runIndex(ctx context.Context, st *index.Store, hub *searchHub, claudeDir string, quiet, embed bool, ch chan indexMsg) {
	defer close(ch)
	send := func(m indexMsg) {
		m.quiet = quiet
		select {
		case ch <- m:
		default:
		}
	}
	final := func(m indexMsg) {
		m.quiet, m.finished = quiet, true
		select {
		case ch <- m:
		case <-ctx.Done():
		}
	}
	t0 := time.Now()
	defer func() { trace("index-ms %.1f quiet %v", float64(time.Since(t0).Microseconds())/1000, quiet) }()
	stats, err := st.Sync(ctx, claudeDir, index.SyncOptions{
		Workers: workers(), // leave a core to the UI
		// Small batches: the TUI's memory stays low and readers are never
		// kept waiting behind a long transaction.
		Budget:       16 << 20,
		BatchEntries: 2000,
		BatchBytes:   16 << 20,
		Progress: func(p index.Progress) {
			send(indexMsg{stage: "reading transcripts", p: p})
		},
	})
	if err != nil {
		final(indexMsg{stats: stats, err: err})
		return
	}
	trace("index-sync-ms %.1f entries %d", float64(time.Since(t0).Microseconds())/1000, stats.EntriesAdded)
	if _, err := hub.Drain(ctx, func(n int) { send(indexMsg{stage: "full-text", done: n}) }); err != nil {
		final(indexMsg{stats: stats, err: err})
		return
	}
	if embed {
		// The embedder's model is large: load it only when there is work.
		if ss, err := st.Stats(); err == nil && ss.EmbedQueue == 0 {
			embed = false
		}
	}
	if embed {
		if m, err := st.BuiltinEmbedder(ctx, false); err == nil {
			n, err := st.EmbedQueued(ctx, m, func(n int) { send(indexMsg{stage: "embeddings", done: n}) })
			trace("index-embedded %d", n)
			if err == nil {
				err = st.RefreshVecCache(ctx, m.ID(), m.Dims())
				if err != nil {
					final(indexMsg{stats: stats, err: err})
					return
				}
			}
		}
		// Not enough text to train the built-in embedder is normal on a new
		// machine: search says it uses text only.
	}
	debug.FreeOSMemory() // indexing buffers and the embedder's model are garbage now
	final(indexMsg{stats: stats})
}
