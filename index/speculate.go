package index

import (
	"context"
	"database/sql"

	"cairn/index/ftsapi"
)

// An incremental run's full-text work used to wait for its sync to commit:
// analysing, building and persisting a segment for a few dozen documents
// takes as long as the transaction that stores them (~7 ms each on a 1 GB
// store). The documents are known before the transaction runs, so Update
// indexes them while it runs, and reconciles with what was committed
// afterwards. What the transaction decides is checked, never assumed:
//
//   - an entry whose uuid is already stored is not added (first seen wins):
//     the stored entry's document is put back from the store afterwards;
//   - a session's title and project are the ones stored before the
//     transaction: a document whose label the transaction changed (a new
//     session, a summary line) is indexed again once committed;
//   - when the transaction fails, the documents it did not store are
//     removed from the full-text index again.
//
// The queue rows are acknowledged only after the commit, as before. A
// process killed between the two can leave documents in the full-text index
// that the store does not have yet (search drops hits it cannot find in the
// store), or a replayed line's document in place of the stored entry's: the
// next sync reads the same lines again, and settles them.

// speculation is the full-text work started on documents a sync is about
// to commit.
type speculation struct {
	done chan struct{}
	docs []DocRow // given to the full-text index, labelled
	err  error
}

// speculate starts indexing docs (handoff.speculate) in the background.
func (s *Store) speculate(ctx context.Context, ix ftsapi.Index, docs []DocRow) *speculation {
	sp := &speculation{done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		sp.docs, sp.err = s.speculable(ctx, docs)
		if sp.err == nil && len(sp.docs) > 0 {
			sp.err = ix.Index(ftsDocs(sp.docs))
		}
	}()
	return sp
}

// speculable returns the documents of docs whose session is stored,
// labelled with the session's stored title and project. Documents whose
// uuid is stored already are not left out: looking them up cost as much as
// indexing them, the transaction does not add them (first seen wins), and
// settle puts the stored ones back.
func (s *Store) speculable(ctx context.Context, docs []DocRow) ([]DocRow, error) {
	sids := map[string]bool{}
	args := make([]any, 0, 1)
	for _, d := range docs {
		if !sids[d.Session] {
			sids[d.Session] = true
			args = append(args, d.Session)
		}
	}
	labels := map[string]sessionLabel{}
	rows, err := s.r.QueryContext(ctx, `SELECT sid, title, project_path FROM sessions WHERE entries > 0 AND sid IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	for rows.Next() {
		var sid string
		var l sessionLabel
		if err := rows.Scan(&sid, &l.title, &l.path); err != nil {
			rows.Close()
			return nil, err
		}
		labels[sid] = l
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
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

// settle waits for sp and reconciles it with what the sync committed: only,
// its documents labelled as committed (nil when the sync failed). It indexes
// those that were not indexed as committed, takes back those that were not
// committed, and acknowledges only's queue rows.
func (s *Store) settle(ctx context.Context, ix ftsapi.Index, sp *speculation, only []DocRow) error {
	<-sp.done
	indexed := make(map[string]DocRow, len(sp.docs))
	for _, d := range sp.docs {
		indexed[d.ID] = d
	}
	var redo []DocRow
	for _, d := range only {
		if g, ok := indexed[d.ID]; !ok || sp.err != nil || !sameDoc(g, d) {
			redo = append(redo, d)
		}
		delete(indexed, d.ID)
	}
	if err := s.unspeculate(ctx, ix, indexed); err != nil {
		return err
	}
	if len(only) == 0 {
		return nil
	}
	if len(redo) > 0 {
		if err := ix.Index(ftsDocs(redo)); err != nil {
			return err
		}
	}
	ids := make([]string, len(only))
	for i, d := range only {
		ids[i] = d.key()
	}
	return s.AckQueued(ids)
}

// unspeculate takes back documents indexed ahead that the sync did not
// commit: one whose uuid is stored now (another process stored it first)
// is queued to be indexed again from the store; the others are deleted.
func (s *Store) unspeculate(ctx context.Context, ix ftsapi.Index, docs map[string]DocRow) error {
	if len(docs) == 0 {
		return nil
	}
	uuids := make([]any, 0, len(docs))
	for id := range docs {
		uuids = append(uuids, id[len(docEntryPrefix):])
	}
	// Kept even when the caller was interrupted: this undoes its work.
	ctx = context.WithoutCancel(ctx)
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO fts_queue(doc) SELECT printf('e:%013d', id) FROM entries_raw WHERE uuid IN (`+placeholders(len(uuids))+`)`, uuids...)
		return err
	})
	if err != nil {
		return err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT uuid FROM entries_raw WHERE uuid IN (`+placeholders(len(uuids))+`)`, uuids...)
	if err != nil {
		return s.wrap(err)
	}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			rows.Close()
			return err
		}
		delete(docs, docEntryPrefix+u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.wrap(err)
	}
	gone := make([]string, 0, len(docs))
	for id := range docs {
		gone = append(gone, id)
	}
	if len(gone) == 0 {
		return nil
	}
	return ix.Delete(gone)
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
