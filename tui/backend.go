package tui

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/app"
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
	ix, err := h.st.Derived().OpenFTS(50 * time.Millisecond)
	if err != nil {
		if errors.Is(err, fts.ErrLocked) {
			return 0, nil
		}
		return 0, err
	}
	n, err := h.st.Derived().DrainFTS(ctx, ix, progress)
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
	stage    string // app.StageSync, app.StageFullText, app.StageEmbeddings...
	p        index.Progress
	done     int
	finished bool
	quiet    bool // a periodic refresh: no progress shown
	stats    index.SyncStats
	proposed int // memories the post-index extraction proposed
	err      error
	ch       chan indexMsg
}

// runIndex runs cairn's one indexing pipeline (Config.Index: sync, full
// text, embeddings with the configured embedder, extraction) with the
// TUI's profile, reporting on ch. The full-text index belongs to the
// search hub, which drains the queue under its lock. Progress messages are
// dropped when the UI is behind: it never blocks on a slow reader.
func runIndex(ctx context.Context, pipeline func(context.Context, app.IndexOptions) (app.IndexResult, error), hub *searchHub, quiet bool, ch chan indexMsg) {
	defer close(ch)
	t0 := time.Now()
	defer func() { trace("index-ms %.1f quiet %v", float64(time.Since(t0).Microseconds())/1000, quiet) }()
	res, err := pipeline(ctx, app.IndexOptions{
		Profile:  app.Interactive,
		DrainFTS: hub.Drain,
		Progress: func(p app.Progress) {
			select {
			case ch <- indexMsg{stage: p.Stage, p: p.Sync, done: p.Done, quiet: quiet}:
			default:
			}
		},
	})
	debug.FreeOSMemory() // indexing buffers and the embedder's model are garbage now
	select {
	case ch <- indexMsg{stats: res.Sync, proposed: res.Proposed, err: err, quiet: quiet, finished: true}:
	case <-ctx.Done():
	}
}
