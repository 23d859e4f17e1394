package index

import (
	"errors"
	"testing"
)

// A process that cannot wait (a hook) does not run a migration that
// rewrites every row: Open says the upgrade is pending and changes
// nothing; the next process with time runs it. A new store, and a store
// whose pending migrations only change the schema, open at once.
func TestDeferRewritesLeavesTheUpgrade(t *testing.T) {
	fresh := t.TempDir()
	s, err := OpenWith(fresh, OpenOptions{DeferRewrites: true})
	if err != nil {
		t.Fatalf("a new store with DeferRewrites: %v", err)
	}
	s.Close()

	s, dir := openStore(t)
	mustSync(t, s, copyTree(t, sampleDir), SyncOptions{})
	storeAsSchema12(t, s)
	if _, err := s.w.ExecContext(t.Context(), `PRAGMA user_version = 15`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = OpenWith(dir, OpenOptions{DeferRewrites: true})
	if !errors.Is(err, ErrUpgradePending) {
		t.Fatalf("a store at schema 15 with rows, DeferRewrites: %v, want ErrUpgradePending", err)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := userVersion(t.Context(), s.r); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d after a plain open, want %d (%v)", v, SchemaVersion, err)
	}
	if n := count(t, s, `SELECT count(*) FROM entries_raw WHERE typeof(uuid) = 'text' AND length(uuid) = 36`); n != 0 {
		t.Fatalf("%d uuids left as text", n)
	}
	s.Close()
	s, err = OpenWith(dir, OpenOptions{DeferRewrites: true})
	if err != nil {
		t.Fatalf("an upgraded store with DeferRewrites: %v", err)
	}
	s.Close()
}
