package index

import "sync"

// handoff carries the documents a sync commits to the same process's
// full-text drainer, so it does not read them back from the store (that
// read cost ~9% of a cold index). The documents stay queued in the store
// until the drainer acknowledges them, exactly as when it reads them.
//
// A document's title and project are the session's as of when it is
// indexed, as a read from the queue would give: a summary or title line
// committed after the entry still reaches it.
type handoff struct {
	ch   chan []DocRow
	gone chan struct{} // closed when the drainer stops
	// spec carries the documents a sync is about to commit in its only
	// transaction (Store.offerSpeculation).
	spec chan []DocRow

	mu       sync.Mutex
	sessions map[string]sessionLabel // session id -> as last committed
	pushes   int                     // transactions that handed documents off
	first    []DocRow                // the documents of the first of them
}

type sessionLabel struct{ title, path string }

// newHandoff holds up to depth committed batches: a full channel makes the
// sync wait, so the two move at the pace of the slower with bounded memory.
func newHandoff(depth int) *handoff {
	return &handoff{ch: make(chan []DocRow, depth), gone: make(chan struct{}), spec: make(chan []DocRow, 1), sessions: map[string]sessionLabel{}}
}

// push is called by the sync after a transaction commits.
func (h *handoff) push(docs []DocRow, flushed []*sessionRow) {
	h.mu.Lock()
	for _, sr := range flushed {
		h.sessions[sr.sid] = sessionLabel{sr.curTitle, sr.curPath}
	}
	if len(docs) > 0 {
		if h.pushes++; h.pushes == 1 {
			h.first = docs
		} else {
			h.first = nil
		}
	}
	h.mu.Unlock()
	if len(docs) == 0 {
		return
	}
	select {
	case h.ch <- docs:
	case <-h.gone: // the drainer failed: the documents stay queued
	}
}

// label gives documents their session's current title and project.
func (h *handoff) label(docs []DocRow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range docs {
		if l, ok := h.sessions[docs[i].Session]; ok {
			docs[i].Title, docs[i].Project = l.title, l.path
		}
	}
}

// only returns the documents of a sync that committed them all in one
// transaction, under smallHandoff of them (an incremental run), else nil.
// Their queue keys are then a run of row ids no other process can have
// queued anything in (one write transaction assigned them all), which
// queuedOutside relies on. Call it once the sync is done.
func (h *handoff) only() []DocRow {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pushes != 1 || len(h.first) >= smallHandoff {
		return nil
	}
	return h.first
}
