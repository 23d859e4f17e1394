package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A restore into a data dir with no store puts the backup in place and
// keeps nothing aside; one into a data dir holding only derived files
// (a full-text index left from a store that is gone) moves them aside
// with the restore, so that they are rebuilt from the new store.
func TestRestoreWithoutAStore(t *testing.T) {
	ctx := context.Background()
	f := newRestoreFixture(t)

	empty := filepath.Join(t.TempDir(), "empty")
	res, err := Restore(ctx, empty, f.backup, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside != "" {
		t.Fatalf("a restore into an empty data dir kept %q aside", res.Aside)
	}
	if res.Backup.Bytes == 0 {
		t.Fatalf("the result does not describe the backup: %+v", res.Backup)
	}
	if _, err := os.Stat(filepath.Join(empty, DBName)); err != nil {
		t.Fatalf("the backup is not in place: %v", err)
	}

	derived := filepath.Join(t.TempDir(), "derived")
	if err := os.MkdirAll(filepath.Join(derived, "bleve"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(derived, "vectors.bin"), []byte("stale vectors"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err = Restore(ctx, derived, f.backup, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside == "" {
		t.Fatal("the derived files were not moved aside")
	}
	for _, n := range []string{"bleve", "vectors.bin"} {
		if _, err := os.Stat(filepath.Join(derived, n)); !os.IsNotExist(err) {
			t.Fatalf("%s is still in the data dir (%v)", n, err)
		}
		if _, err := os.Stat(filepath.Join(res.Aside, n)); err != nil {
			t.Fatalf("%s was not kept aside: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(res.Aside, DBName)); !os.IsNotExist(err) {
		t.Fatalf("a store that was not there was kept aside (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(derived, DBName)); err != nil {
		t.Fatalf("the backup is not in place: %v", err)
	}
}
