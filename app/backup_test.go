package app_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// noVectors keeps the built-in embedder from training where a test does
// not need vectors (training is most of an index of the sample under -race).
const noVectors = "embedder.kind = \"none\"\n"

// indexedSample is the sample indexed, with one memory, opened with toml
// as its config: a copy of a store built once per package
// (indexedTemplate). The embedder's kind is an option of each open, not
// part of the store, and the store alone is indexed, so the copy is the
// store the test would have built.
func indexedSample(t *testing.T, toml string) *app.App {
	t.Helper()
	data := t.TempDir()
	copyDataDir(t, indexedTemplate(t), data)
	cfg := filepath.Join(data, config.FileName)
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	if toml != "" {
		if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CAIRN_CONFIG", "")
	a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: sample}, app.Options{SmallCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// indexed is the package's indexed sample (indexedTemplate).
var indexed struct {
	once sync.Once
	data string
	ok   bool
}

// indexedTemplate is a closed data dir of the sample indexed (the store
// alone: full text and vectors are not what the backup tests check) with
// one memory, built once per package (seven tests each synced the sample
// under -race).
func indexedTemplate(t *testing.T) string {
	t.Helper()
	indexed.once.Do(func() {
		data := sharedDir(t, "indexed")
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, config.FileName), []byte(noVectors), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("CAIRN_CONFIG", "")
		a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: sample}, app.Options{SmallCache: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := a.Index(ctx, app.IndexOptions{StoreOnly: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Memories.Curator.Add(ctx, memories.NewMemory{Type: "gotcha", Content: "bleve's scorch merger needs the index folder writable: a read-only copy fails at open", Importance: 4}); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		indexed.data, indexed.ok = data, true
	})
	if !indexed.ok {
		t.Fatal("the indexed sample could not be built (see the first test that used it)")
	}
	return indexed.data
}

// A backup taken while another process writes is a whole, verified store;
// restoring it into an empty data dir gives back every session and memory
// and a working full-text index.
func TestBackupRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := indexedSample(t, "")
	before, err := a.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Another writer keeps working during the backup.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, _ = a.Memories.Curator.Add(ctx, memories.NewMemory{Type: "fact", Content: "concurrent write number " + string(rune('a'+i%26)) + " keeps going during backup", Importance: 2})
		}
	}()
	dest := filepath.Join(t.TempDir(), "b.db")
	info, err := a.Backup(ctx, dest)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if info.Sessions != before.Sessions || info.Entries != before.Entries || info.Memories < 1 {
		t.Fatalf("backup holds %+v, store had %d sessions %d entries", info, before.Sessions, before.Entries)
	}
	if _, err := a.Backup(ctx, dest); err == nil {
		t.Fatal("a second backup over an existing file must be refused")
	}

	data := t.TempDir()
	res, err := app.Restore(ctx, app.Paths{DataDir: data, ClaudeDir: t.TempDir()}, dest, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside != "" {
		t.Fatalf("nothing to keep aside in an empty data dir, got %s", res.Aside)
	}
	b, err := app.Open(app.Paths{DataDir: data, ClaudeDir: t.TempDir()}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	after, err := b.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Sessions != before.Sessions || after.Entries != before.Entries {
		t.Fatalf("restored %d sessions %d entries, want %d %d", after.Sessions, after.Entries, before.Sessions, before.Entries)
	}
	if after.FTSQueue != 0 {
		t.Fatalf("restore left %d documents out of the full-text index", after.FTSQueue)
	}
	if fi, err := os.Stat(filepath.Join(data, "bleve")); err != nil || !fi.IsDir() {
		t.Fatalf("no full-text index after restore: %v", err)
	}
	got, err := b.Memories.List(ctx, memories.Filter{})
	if err != nil || len(got) < 1 {
		t.Fatalf("memories after restore: %d, %v", len(got), err)
	}
}

// Restore refuses a non-empty store without --force, keeps it aside with
// it, and refuses while another process has the store open.
func TestRestoreRefusals(t *testing.T) {
	ctx := context.Background()
	a := indexedSample(t, noVectors)
	dest := filepath.Join(t.TempDir(), "b.db")
	if _, err := a.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	paths := a.Paths
	// Open in this process = open in another one as far as SQLite knows.
	_, err := app.Restore(ctx, paths, dest, true, nil)
	if !errors.Is(err, index.ErrStoreInUse) {
		t.Fatalf("restore into an open store: %v, want ErrStoreInUse", err)
	}
	a.Close()
	if _, err := app.Restore(ctx, paths, dest, false, nil); err == nil {
		t.Fatal("restore over a non-empty store without --force must be refused")
	}
	res, err := app.Restore(ctx, paths, dest, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(res.Aside, index.DBName)); err != nil {
		t.Fatalf("the old store was not kept aside: %v", err)
	}
}

// A damaged or foreign backup file is refused and the store is untouched.
func TestRestoreBadBackup(t *testing.T) {
	ctx := context.Background()
	a := indexedSample(t, noVectors)
	good := filepath.Join(t.TempDir(), "b.db")
	if _, err := a.Backup(ctx, good); err != nil {
		t.Fatal(err)
	}
	a.Close()
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string][]byte{
		"garbage":   []byte("this is not a database\n"),
		"truncated": raw[:len(raw)/3],
		"empty":     nil,
	}
	// Damage the middle third's pages where SQLite's own check looks: each
	// page's b-tree header (bytes flipped inside a row's text are not
	// something integrity_check can see, wherever they land).
	flipped := append([]byte(nil), raw...)
	pageSize := int(binary.BigEndian.Uint16(raw[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	for p := len(flipped) / pageSize / 3; p < 2*len(flipped)/pageSize/3; p++ {
		for i := p * pageSize; i < p*pageSize+8; i++ {
			flipped[i] ^= 0x5a
		}
	}
	cases["flipped"] = flipped
	db := filepath.Join(a.Paths.DataDir, index.DBName)
	st, _ := os.Stat(db)
	for name, b := range cases {
		p := filepath.Join(dir, name+".db")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Restore(ctx, a.Paths, p, true, nil); err == nil {
			t.Errorf("%s backup was accepted", name)
		}
	}
	if _, err := app.Restore(ctx, a.Paths, filepath.Join(dir, "missing.db"), true, nil); err == nil {
		t.Error("a missing file was accepted")
	}
	now, err := os.Stat(db)
	if err != nil || now.Size() != st.Size() || !now.ModTime().Equal(st.ModTime()) {
		t.Fatalf("a refused restore changed the store: %v", err)
	}
}

// The rolling backup is off by default, runs at most once a day, and keeps
// the configured number.
func TestRollingBackup(t *testing.T) {
	ctx := context.Background()
	off := indexedSample(t, noVectors)
	if p, err := off.RollingBackup(ctx, time.Now()); p != "" || err != nil {
		t.Fatalf("rolling backup ran while off: %q %v", p, err)
	}
	dir := t.TempDir()
	a := indexedSample(t, noVectors+"[backup]\nkeep = 2\ndir = \""+dir+"\"\n")
	day := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var made []string
	for i := 0; i < 4; i++ {
		now := day.Add(time.Duration(i) * 25 * time.Hour)
		p, err := a.RollingBackup(ctx, now)
		if err != nil || p == "" {
			t.Fatalf("day %d: %q %v", i, p, err)
		}
		_ = os.Chtimes(p, now, now)
		made = append(made, p)
		if again, _ := a.RollingBackup(ctx, now.Add(time.Hour)); again != "" {
			t.Fatalf("a second backup on the same day: %s", again)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.db"))
	if len(left) != 2 || left[0] != made[2] || left[1] != made[3] {
		t.Fatalf("kept %v, want the last two of %v", left, made)
	}
}

// A backup that cannot be written says where and changes nothing.
func TestBackupUnwritable(t *testing.T) {
	ctx := context.Background()
	a := indexedSample(t, noVectors)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := a.Backup(ctx, filepath.Join(file, "b.db"))
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("backup under a file: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.partial")); len(left) != 0 {
		t.Fatalf("left %v behind", left)
	}
}

// Backups made in the same second (the default name is per second) get
// two files, not an "already exists" refusal.
func TestBackupSameSecond(t *testing.T) {
	ctx := context.Background()
	a := indexedSample(t, noVectors)
	t.Chdir(t.TempDir())
	seen := map[string]bool{}
	for range 3 {
		info, err := a.Backup(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if seen[info.Path] {
			t.Fatalf("%s written twice", info.Path)
		}
		seen[info.Path] = true
	}
}
