package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Install and uninstall keep their backups, and a record of each file's
// bytes before cairn first changed it, in Options.BackupDir (cairn's data
// dir), never beside the file: a project's working tree stays as the
// person left it. Uninstall gives a file back byte for byte (or removes
// the file install created) when nobody changed it since cairn wrote it;
// otherwise it takes cairn's entries out and keeps the rest.

// original is the record of a file cairn changed.
type original struct {
	Path      string `json:"path"`
	Existed   bool   `json:"existed"`
	Original  []byte `json:"original"`  // its bytes before cairn's first change
	Installed []byte `json:"installed"` // what cairn last wrote
}

// recordPath is where path's record lives.
func (o *Options) recordPath(path string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return filepath.Join(o.BackupDir, "originals", hex.EncodeToString(sum[:12])+".json")
}

func (o *Options) readRecord(path string) (original, bool) {
	var r original
	if o.BackupDir == "" {
		return r, false
	}
	b, err := os.ReadFile(o.recordPath(path))
	if err != nil || json.Unmarshal(b, &r) != nil || filepath.Clean(r.Path) != filepath.Clean(path) {
		return original{}, false
	}
	return r, true
}

// recordOriginal records, before cairn writes neu over path, what path
// held: kept from an earlier record while the file still holds what cairn
// wrote then (a second install keeps the first original).
func (o *Options) recordOriginal(path string, old []byte, exists bool, neu []byte) error {
	if o.BackupDir == "" {
		return nil
	}
	r, ok := o.readRecord(path)
	if !ok || !exists || !bytes.Equal(r.Installed, old) {
		r = original{Path: filepath.Clean(path), Existed: exists, Original: old}
	}
	r.Installed = neu
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	rp := o.recordPath(path)
	if err := os.MkdirAll(filepath.Dir(rp), 0o700); err != nil {
		return err
	}
	return writeAtomic(rp, b, 0o600)
}

// backupPath is a new backup file for path: in BackupDir when set (the
// path's folders folded into the name), else beside the file.
func (o *Options) backupPath(path string) string {
	if o.BackupDir == "" {
		return backupName(path, o.now())
	}
	name := strings.ReplaceAll(strings.TrimLeft(filepath.ToSlash(filepath.Clean(path)), "/"), "/", "%")
	name = strings.ReplaceAll(name, ":", "%")
	return backupName(filepath.Join(o.BackupDir, name), o.now())
}

// uneditJSON is uninstall's editJSON: the file's original bytes when it
// still holds what cairn wrote, else fn's edit; a file left an empty
// object that install created (or of unknown origin, such as a clone's
// committed copy) is removed.
func (o *Options) uneditJSON(path string, fn func(*Object) error) (Change, error) {
	if o.BackupDir == "" {
		return o.editJSON(path, fn)
	}
	rec, hasRec := o.readRecord(path)
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{Path: path, Action: "unchanged"}, fmt.Errorf("reading %s: %w", path, err)
	}
	exists := err == nil
	if hasRec && exists && bytes.Equal(cur, rec.Installed) {
		return o.restore(path, cur, rec)
	}
	return o.uneditChanged(path, fn, rec, hasRec)
}

// uneditChanged is uninstall's edit of a file changed since cairn wrote
// it (or installed elsewhere, without a record): cairn's entries are
// taken out and the rest kept; the record goes, and the file goes too
// when left an empty object that cairn created or of unknown origin.
func (o *Options) uneditChanged(path string, fn func(*Object) error, rec original, hasRec bool) (Change, error) {
	ch, err := o.editUnrecorded(path, fn)
	if err != nil || ch.Action == "unchanged" {
		return ch, err
	}
	if !o.DryRun {
		os.Remove(o.recordPath(path))
	}
	if !hasRec || !rec.Existed {
		return o.removeEmpty(path, ch)
	}
	return ch, nil
}

// editUnrecorded is editJSON without a new install record (uninstall's
// own write is not one), its backup moved to BackupDir all the same.
func (o *Options) editUnrecorded(path string, fn func(*Object) error) (Change, error) {
	before := o.BackupDir
	o.BackupDir = ""
	ch, err := o.editJSON(path, fn)
	o.BackupDir = before
	if ch.Backup != "" && !o.DryRun {
		nb := o.backupPath(path)
		if os.MkdirAll(filepath.Dir(nb), 0o700) == nil && os.Rename(ch.Backup, nb) == nil {
			ch.Backup = nb
		}
	}
	return ch, err
}

// removeEmpty removes path when uninstall's edit ch left it an empty
// object; its callers ask only of a file that install created or of
// unknown origin (such as a clone's committed copy).
func (o *Options) removeEmpty(path string, ch Change) (Change, error) {
	if !emptyObjectFile(path, o.DryRun, ch) {
		return ch, nil
	}
	ch.Action, ch.Diff, ch.Note = "removed", "", "it held only cairn's settings"
	if !o.DryRun {
		if err := os.Remove(path); err != nil {
			return ch, err
		}
	}
	return ch, nil
}

// emptyObjectFile reports whether path (or, in a dry run, the change's
// result) is an empty JSON object.
func emptyObjectFile(path string, dry bool, ch Change) bool {
	if dry {
		return strings.Contains(ch.Diff, "+ {}")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	obj, err := ParseObject(b)
	return err == nil && obj.Len() == 0
}

// restore gives path its bytes from before cairn's first change back (or
// removes it when install created it), after backing up cur.
func (o *Options) restore(path string, cur []byte, rec original) (Change, error) {
	ch := Change{Path: path, Action: "updated", Note: "restored byte for byte as it was before cairn install"}
	if !rec.Existed {
		ch.Action, ch.Note = "removed", "cairn install created it"
	} else {
		ch.Diff = Diff(path, cur, rec.Original)
	}
	if o.DryRun {
		return ch, nil
	}
	ch.Backup = o.backupPath(path)
	if err := os.MkdirAll(filepath.Dir(ch.Backup), 0o700); err != nil {
		return ch, err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(ch.Backup, cur, mode); err != nil {
		return ch, fmt.Errorf("writing the backup %s: %w; cairn changed nothing", ch.Backup, err)
	}
	var err error
	if rec.Existed {
		err = writeAtomic(path, rec.Original, mode)
	} else {
		err = os.Remove(path)
	}
	if err != nil {
		return ch, err
	}
	os.Remove(o.recordPath(path))
	return ch, nil
}

// removeEmptyDir removes dir when it is empty.
func removeEmptyDir(dir string) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
		os.Remove(dir)
	}
}
