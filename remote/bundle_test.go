package remote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// A bundle is unpacked as it streams: the files of a real session come out
// as they went in; a bundle whose content does not match its name, or that
// holds a file of another session, leaves nothing behind (no file in the
// destination, no staging folder), as a warning (damagedBundle), not a
// failed sync.
func TestUnpackBundleStreams(t *testing.T) {
	src := filepath.Join(testutil.RepoRoot(), "testdata", "claude")
	const folder, sid = "-path-to-Demo", "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
	files, err := sessionFiles(src, folder, sid)
	if err != nil || len(files) == 0 {
		t.Fatalf("session files: %v %v", files, err)
	}
	gz, hash, err := makeBundle(src, files)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bundle := filepath.Join(tmp, "b.tar.gz")
	if err := os.WriteFile(bundle, gz, 0o600); err != nil {
		t.Fatal(err)
	}
	left := func() []string {
		ents, _ := os.ReadDir(tmp)
		var out []string
		for _, e := range ents {
			if e.Name() != "b.tar.gz" && e.Name() != "dst" {
				out = append(out, e.Name())
			}
		}
		return out
	}

	dst := filepath.Join(tmp, "dst")
	if _, err := unpackBundle(bundle, strings.Repeat("0", 64), folder, sid, dst, tmp); !damagedBundle(err) || !strings.Contains(err.Error(), "does not match its name") {
		t.Fatalf("a bundle not matching its name: %v", err)
	}
	if _, err := os.Stat(dst); err == nil || len(left()) != 0 {
		t.Fatalf("a refused bundle left files: dst %v, staging %v", err, left())
	}
	if _, err := unpackBundle(bundle, hash, folder, "11111111-1111-4111-8111-111111111111", dst, tmp); !damagedBundle(err) || !strings.Contains(err.Error(), "which is not a file of session") {
		t.Fatalf("a bundle of another session: %v", err)
	}
	if _, err := unpackBundle(filepath.Join(tmp, "missing.tar.gz"), hash, folder, sid, dst, tmp); !damagedBundle(err) {
		t.Fatalf("a missing bundle: %v", err)
	}

	rels, err := unpackBundle(bundle, hash, folder, sid, dst, tmp)
	if err != nil || len(rels) != len(files) {
		t.Fatalf("unpacked %v, %v; want %v", rels, err, files)
	}
	for _, rel := range files {
		want, _ := os.ReadFile(filepath.Join(src, "projects", filepath.FromSlash(rel)))
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(rel)))
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s: %d bytes unpacked (%v), %d packed", rel, len(got), err, len(want))
		}
	}
	if len(left()) != 0 {
		t.Fatalf("staging left behind: %v", left())
	}
}
