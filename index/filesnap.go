package index

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"
)

// The files snapshot (files.snap beside the store) is the files table as
// one read of it found it, so that a refresh that finds nothing new need
// not read the table again: at 10 GB, reading its 14,010 rows was 140 ms
// of every search. A sync only moves a file's row forward (to the size and
// mtime it read the file at, its cursor at the end), so a file whose size
// and mtime on disk are still those of a row the snapshot saw read to its
// end has nothing new, whatever has been synced since; every other file
// the tree holds (grown, new, not read to its end, absent then) is looked
// up in the table, and rows added since (a hook's sync of a new file) are
// read by id. The only changes that are not such a move, a file marked
// missing and a forgotten file's row deleted, draw a new files epoch
// (bumpFilesEpoch); a snapshot of another epoch is not used. A restore
// moves the snapshot aside with the other derived files (derivedNames).
// Anything unreadable is ignored: the table is read as before.

// filesSnapName is the snapshot's file name in the data dir.
const filesSnapName = "files.snap"

const filesSnapMagic = "cairn-files v1"

// filesEpochKey is the kv key of the files epoch.
const filesEpochKey = "files.epoch"

// snapRewrite is how many rows a refresh looks up before it writes the
// snapshot again with them (each search would otherwise look them up).
const snapRewrite = 16

// Snapshot states of a row.
const (
	snapDone    = 'd' // present and read to its end
	snapPending = 'p' // present, not read to its end: always looked up
	snapAbsent  = 'a' // marked missing
)

// filesSnap is a loaded snapshot: the rows it saw, marked as from it.
type filesSnap struct {
	epoch string
	maxID int64 // the largest id it saw: later rows are read by id
	known map[string]knownFile
	added int // rows read by id (added since it was written)
}

// bumpFilesEpoch draws a new files epoch: snapshots made before it are
// not used again. Run it in the transaction of every change to the files
// table other than a sync's move of a row forward. Without an epoch (no
// snapshot was ever made) it does nothing.
const bumpFilesEpoch = `UPDATE kv SET value = hex(randomblob(16)) WHERE key = '` + filesEpochKey + `'`

// filesEpoch reads the files epoch; create makes one when there is none.
// "" means none (or a failure): no snapshot is valid.
func (s *Store) filesEpoch(ctx context.Context, create bool) string {
	b, ok, err := s.Setting(ctx, filesEpochKey)
	if err != nil {
		return ""
	}
	if ok || !create || s.readOnly {
		return string(b)
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO kv(key, value) VALUES (?, hex(randomblob(16)))`, filesEpochKey)
		return err
	})
	if err != nil {
		return ""
	}
	return s.filesEpoch(ctx, false)
}

func (s *Store) filesSnapPath() string { return filepath.Join(s.Dir(), filesSnapName) }

// loadFilesSnap reads the snapshot and the rows added since it; nil when
// there is none or it is not of the store's current epoch.
func (s *Store) loadFilesSnap(ctx context.Context) *filesSnap {
	b, err := os.ReadFile(s.filesSnapPath())
	if err != nil {
		return nil
	}
	sn := parseFilesSnap(b)
	if sn == nil || sn.epoch != s.filesEpoch(ctx, false) {
		return nil
	}
	var top sql.NullInt64 // max(id) alone: SQLite reads the last row, not the table
	if err := s.r.QueryRowContext(ctx, `SELECT max(id) FROM files`).Scan(&top); err != nil || top.Int64 < sn.maxID {
		return nil // not this store's (a store put back by hand)
	}
	maxID := top.Int64
	if maxID > sn.maxID {
		err := s.eachRow(ctx, knownColumns+` WHERE f.id > ?`, []any{sn.maxID}, func(rows *sql.Rows) error {
			path, k, err := scanKnown(rows)
			sn.known[path] = k
			sn.added++
			return err
		})
		if err != nil {
			return nil
		}
	}
	return sn
}

// parseFilesSnap parses what marshal wrote; nil when it cannot. Every path
// is a substring of one copy of b.
func parseFilesSnap(b []byte) *filesSnap {
	head, rest, ok := strings.Cut(string(b), "\n")
	f := strings.Fields(head)
	if !ok || len(f) != 4 || f[0]+" "+f[1] != filesSnapMagic {
		return nil
	}
	maxID, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return nil
	}
	sn := &filesSnap{epoch: f[2], maxID: maxID, known: make(map[string]knownFile, strings.Count(rest, "\n"))}
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		path, k, ok := parseSnapLine(line)
		if !ok {
			return nil
		}
		sn.known[path] = k
	}
	return sn
}

// parseSnapLine parses "state id size mtime path" (tab-separated).
func parseSnapLine(line string) (string, knownFile, bool) {
	var n [3]int64
	if len(line) < 2 || line[1] != '\t' {
		return "", knownFile{}, false
	}
	state, rest := line[0], line[2:]
	for i := range n {
		var field string
		var ok bool
		if field, rest, ok = strings.Cut(rest, "\t"); !ok {
			return "", knownFile{}, false
		}
		v, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return "", knownFile{}, false
		}
		n[i] = v
	}
	k := knownFile{id: n[0], size: n[1], mtime: n[2], present: state != snapAbsent, snap: true}
	switch state {
	case snapDone:
		k.cursor = transcripts.Cursor{Offset: k.size, Size: k.size}
	case snapPending, snapAbsent:
	default:
		return "", knownFile{}, false
	}
	return rest, k, rest != ""
}

// marshalFilesSnap writes known (rows of the files table, all of them) as
// a snapshot of epoch.
func marshalFilesSnap(epoch string, known map[string]knownFile) []byte {
	var maxID int64
	for _, k := range known {
		maxID = max(maxID, k.id)
	}
	var b bytes.Buffer
	b.Grow(len(known) * 160)
	b.WriteString(filesSnapMagic + " " + epoch + " " + strconv.FormatInt(maxID, 10) + "\n")
	var num []byte
	for path, k := range known {
		if strings.ContainsAny(path, "\t\n") {
			continue // not representable: looked up as new each time
		}
		b.WriteByte(snapState(k))
		for _, v := range [3]int64{k.id, k.size, k.mtime} {
			b.WriteByte('\t')
			b.Write(strconv.AppendInt(num[:0], v, 10))
		}
		b.WriteByte('\t')
		b.WriteString(path)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// snapState is a row's state in a snapshot.
func snapState(k knownFile) byte {
	switch {
	case !k.present:
		return snapAbsent
	case k.cursor.Offset >= k.size:
		return snapDone
	}
	return snapPending
}

// writeFilesSnap writes the snapshot of known, all the table's rows as of
// epoch (best effort).
func (s *Store) writeFilesSnap(epoch string, known map[string]knownFile) {
	if s.readOnly || epoch == "" {
		return
	}
	writeFileAtomic(s.filesSnapPath(), marshalFilesSnap(epoch, known))
}

// snapStale reports whether the snapshot's row k cannot tell about the
// file on disk f: the row is looked up.
func snapStale(k knownFile, f *transcripts.File) bool {
	return k.snap && !k.readThrough(f)
}

// knownFromSnap completes the snapshot's rows for the tree: the rows of
// the files it cannot tell about are read from the table. When it read
// many (looked up, or added since it was written: a cold index's first
// survey snapshots the empty table, and every search read all 14,010 rows
// by id until this rewrote it), it writes the snapshot again.
func (s *Store) knownFromSnap(ctx context.Context, sn *filesSnap, tree *transcripts.Tree) (map[string]knownFile, error) {
	var look []any
	for _, p := range tree.Projects {
		for i := range p.Files {
			f := &p.Files[i]
			if k, ok := sn.known[f.Path]; ok && snapStale(k, f) {
				look = append(look, f.Path)
			}
		}
	}
	err := s.eachRowIn(ctx, knownColumns+` WHERE f.path IN (`, look, func(rows *sql.Rows) error {
		path, k, err := scanKnown(rows)
		sn.known[path] = k
		return err
	})
	if err != nil {
		return nil, s.wrap(err)
	}
	if len(look)+sn.added >= snapRewrite {
		s.writeFilesSnap(sn.epoch, sn.known)
	}
	return sn.known, nil
}

// knownWhole loads the files table for a survey of the whole tree, beside
// the listing: the snapshot when it is current (completed for the tree
// by knownFromSnap once it is listed), else the table, then written as
// the snapshot.
func (s *Store) knownWhole(ctx context.Context) (*filesSnap, map[string]knownFile, error) {
	if sn := s.loadFilesSnap(ctx); sn != nil {
		return sn, nil, nil
	}
	epoch := s.filesEpoch(ctx, !s.readOnly) // before the rows: a change after it draws another
	known, err := s.knownFiles(ctx, nil)
	if err == nil {
		s.writeFilesSnap(epoch, known)
	}
	return nil, known, err
}
