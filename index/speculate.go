package index

import (
	"context"
	"database/sql"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// An incremental run's full-text work used to wait for its sync to commit:
// analysing, building and persisting a segment for a few dozen documents
// takes as long as the transaction that stores them (~7 ms each on a 1 GB
// store). The documents are known before the transaction runs, so Update
// indexes them while it runs, and reconciles with what was committed
// afterwards. What the transaction decides is checked, never assumed.
//
// Before anything is indexed ahead, each document is queued under its own
// id ("m:<uuid>") in a transaction of its own. Draining such a row indexes
// the stored entry of that uuid, or deletes the document when the store has
// none. So whatever happens next (the transaction fails, or keeps an entry
// stored before under that uuid: first seen wins; the process is killed at
// any point), what was indexed ahead is put right by whoever drains the
// queue next. settle acknowledges the rows of the documents that were
// committed and indexed as committed (a session title or project the
// transaction changed means indexing them again); the others stay queued and
// are drained at once.

// speculation is the full-text work started on documents a sync is about
// to commit.
type speculation struct {
	done chan struct{}
	docs []DocRow // given to the full-text index, labelled
	err  error
}

// speculated, when set (by tests), is told how many documents each
// speculation indexed ahead.
var speculated func(n int)

// offerSpeculation queues the documents of batch that its sync's only
// transaction is about to add, under their own ids, and hands them to the
// drainer to index ahead. Nothing is offered when queueing fails (the
// transaction would most likely fail the same way).
func (s *Store) offerSpeculation(ctx context.Context, h *handoff, batch []*preparedFile) bool {
	docs := aheadDocs(batch)
	if len(docs) == 0 || len(docs) >= smallHandoff || s.queueAhead(ctx, docs) != nil {
		return false
	}
	select {
	case h.spec <- docs:
		return true
	default:
		return false
	}
}

// beforeLastTx, when set (by tests), runs just before a sync's last
// transaction, told whether a speculation was offered.
var beforeLastTx func(offered bool)

// aheadDocs are the documents of the entries a transaction writing batch
// would add (if their uuids are new).
func aheadDocs(batch []*preparedFile) []DocRow {
	var docs []DocRow
	for _, pf := range batch {
		for _, pe := range pf.entries {
			if r := pe.row; r != nil && blankFree(r.text) {
				docs = append(docs, r.doc(pe.sid))
			}
		}
	}
	return docs
}

// queueAhead queues docs under their ids ("m:<uuid>").
func (s *Store) queueAhead(ctx context.Context, docs []DocRow) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) VALUES (?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, d := range docs {
			if _, err := st.ExecContext(ctx, d.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// speculate starts indexing docs (offerSpeculation) in the background.
func (s *Store) speculate(ctx context.Context, ix ftsapi.Index, docs []DocRow) *speculation {
	sp := &speculation{done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		sp.docs, sp.err = s.speculable(ctx, docs)
		if sp.err == nil && len(sp.docs) > 0 {
			sp.err = ix.Index(ftsDocs(sp.docs))
		}
		if speculated != nil && sp.err == nil {
			speculated(len(sp.docs))
		}
	}()
	return sp
}

// speculable returns the documents of docs whose session is stored,
// labelled with the session's stored title and project. Documents whose
// uuid is stored already are not looked for (that cost as much as indexing
// them): the transaction will not add them, and their queued ids put the
// stored entries back.
func (s *Store) speculable(ctx context.Context, docs []DocRow) ([]DocRow, error) {
	labels, err := s.storedLabels(ctx, docSessions(docs))
	if err != nil {
		return nil, err
	}
	var out []DocRow
	for _, d := range docs {
		if l, ok := labels[d.Session]; ok {
			d.Title, d.Project = l.title, l.path
			out = append(out, d)
		}
	}
	return out, nil
}

// docSessions is the sessions of docs, each once, in order.
func docSessions(docs []DocRow) []any {
	sids := map[string]bool{}
	args := make([]any, 0, 1)
	for _, d := range docs {
		if !sids[d.Session] {
			sids[d.Session] = true
			args = append(args, d.Session)
		}
	}
	return args
}

// storedLabels is the stored title and project of those of the sessions
// sids that have entries.
func (s *Store) storedLabels(ctx context.Context, sids []any) (map[string]sessionLabel, error) {
	labels := map[string]sessionLabel{}
	rows, err := s.r.QueryContext(ctx, `SELECT sid, title, project_path FROM sessions WHERE entries > 0 AND sid IN (`+placeholders(len(sids))+`)`, sids...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid string
		var l sessionLabel
		if err := rows.Scan(&sid, &l.title, &l.path); err != nil {
			return nil, err
		}
		labels[sid] = l
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return labels, nil
}

// settle waits for sp and reconciles it with what the sync committed: only,
// its documents labelled as committed (nil when it failed). It indexes those
// that were not indexed as committed and acknowledges their queue rows (both
// the "e:" row the transaction queued and the id queued ahead). The ids of
// documents indexed ahead but not committed stay queued: draining them puts
// the stored entry back, or deletes the document.
func (s *Store) settle(ctx context.Context, ix ftsapi.Index, sp *speculation, only []DocRow) error {
	<-sp.done
	if len(only) == 0 {
		return nil
	}
	if redo := sp.missed(only); len(redo) > 0 {
		if err := ix.Index(ftsDocs(redo)); err != nil {
			return err
		}
	}
	ids := make([]string, 0, 2*len(only))
	for _, d := range only {
		ids = append(ids, d.key(), d.ID)
	}
	// Once the index has the documents the queue must say so, even when
	// the run was cancelled meanwhile (an interrupted drain settles what
	// the sync committed).
	return s.Derived().AckQueued(context.WithoutCancel(ctx), ids)
}

// missed are the documents of committed that sp did not index as they
// were committed (all of them when it failed).
func (sp *speculation) missed(committed []DocRow) []DocRow {
	indexed := make(map[string]DocRow, len(sp.docs))
	for _, d := range sp.docs {
		indexed[d.ID] = d
	}
	var redo []DocRow
	for _, d := range committed {
		if g, ok := indexed[d.ID]; !ok || sp.err != nil || !sameDoc(g, d) {
			redo = append(redo, d)
		}
	}
	return redo
}

// sameDoc reports whether two documents index the same way.
func sameDoc(a, b DocRow) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Text == b.Text && a.Title == b.Title && a.Project == b.Project &&
		a.Session == b.Session && a.Role == b.Role && a.Block == b.Block && a.Subagent == b.Subagent && a.Time.Equal(b.Time)
}

func ftsDocs(rows []DocRow) []ftsapi.Doc {
	out := make([]ftsapi.Doc, len(rows))
	for i, r := range rows {
		out[i] = ftsDoc(r)
	}
	return out
}
