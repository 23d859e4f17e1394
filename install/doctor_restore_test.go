package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
)

// Issue 29 item 1: doctor notices a store that was emptied (a backup or a
// store kept aside holds what the store in use lacks) and a store missing
// beside the one a restore kept aside, and says how to put it back.
func TestDoctorEmptiedStore(t *testing.T) {
	ctx := context.Background()
	find := func(r *Report, name string) Check {
		for _, c := range r.Checks {
			if c.Name == name {
				return c
			}
		}
		return Check{}
	}
	full := t.TempDir()
	st, err := index.Open(full)
	must(t, err)
	_, err = st.Sync(ctx, filepath.Join("..", "testdata", "claude"), index.SyncOptions{})
	must(t, err)
	backup := filepath.Join(t.TempDir(), index.BackupName(time.Now()))
	_, err = st.Backup(ctx, backup)
	must(t, err)
	st.Close()
	doctor := func(data string) *Report {
		return Doctor(ctx, DoctorOptions{User: newHome(t).opts(), DataDir: data, Version: "test", Config: config.Default()})
	}

	// A rolling backup holds sessions; the store in use is empty.
	data := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(data, "backups"), 0o700))
	must(t, os.Link(backup, filepath.Join(data, "backups", filepath.Base(backup))))
	empty, err := index.Open(data)
	must(t, err)
	empty.Close()
	r := doctor(data)
	if c := find(r, "store emptied"); c.Status != Fail || !strings.Contains(c.Detail, filepath.Base(backup)) || !strings.Contains(c.Fix, "cairn restore") || r.Healthy() {
		t.Fatalf("emptied store beside a backup: %+v", c)
	}

	// A store kept aside by a restore, none in its place.
	data = t.TempDir()
	aside := filepath.Join(data, "before-restore-20260301T100000Z")
	must(t, os.Mkdir(aside, 0o700))
	must(t, os.Link(backup, filepath.Join(aside, index.DBName)))
	r = doctor(data)
	if c := find(r, "store"); c.Status != Fail || !strings.Contains(c.Detail, aside) || r.Healthy() {
		t.Fatalf("store missing beside one kept aside: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(data, index.DBName)); err == nil {
		t.Fatal("doctor created a store")
	}
	// An empty store made beside it (by hand, or an older cairn).
	must(t, os.WriteFile(filepath.Join(data, index.DBName), nil, 0o600))
	empty, err = index.Open(data)
	must(t, err)
	empty.Close()
	r = doctor(data)
	if c := find(r, "store emptied"); c.Status != Fail || !strings.Contains(c.Detail, aside) {
		t.Fatalf("emptied store beside one kept aside: %+v", c)
	}
	// A store that holds sessions is not flagged.
	r = doctor(full)
	if c := find(r, "store emptied"); c.Name != "" {
		t.Fatalf("a full store flagged: %+v", c)
	}
}
