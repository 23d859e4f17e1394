package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/memories"
)

const (
	demoFolder  = "-path-to-Demo"
	demoSession = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
)

// promptLine is a user line of the demo session with a unique word in it.
func promptLine(n int, word string) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/path/to/Demo","sessionId":%q,"version":"1.0.98","gitBranch":"","type":"user","message":{"role":"user","content":"please remember the %s flag for the deploy script"},"uuid":"f0f0f0f0-0000-4000-8000-%012d","timestamp":"2025-09-03T00:50:%02d.000Z"}`+"\n",
		demoSession, word, n, n%60)
}

// sampleCopy copies the bundled sample to a temp dir, with a planted word
// in the demo session.
func sampleCopy(t *testing.T, word string) string {
	t.Helper()
	claude := t.TempDir()
	if err := testutil.CopyDir(sample, claude); err != nil {
		t.Fatal(err)
	}
	appendLine(t, claude, promptLine(1, word))
	return claude
}

func appendLine(t *testing.T, claude, line string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(claude, "projects", demoFolder, demoSession+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
}

// grepDir lists the files under dir holding word.
func grepDir(t *testing.T, dir, word string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(word)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

func openAt(t *testing.T, data, claude, toml string) *app.App {
	t.Helper()
	if toml != "" {
		if err := os.WriteFile(filepath.Join(data, "config.toml"), []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CAIRN_CONFIG", "")
	a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: claude}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Forgetting a session deletes every trace of it from the data dir (the
// store, its WAL, the full-text index, the vectors and the model), and it
// never comes back, even when its transcript grows again.
func TestForgetSessionLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	const word = "quixoticzebrafrobnicator"
	claude := sampleCopy(t, word)
	data := t.TempDir()
	a := openAt(t, data, claude, "")
	defer a.Close()
	if _, err := a.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Memories.Curator.Add(ctx, memories.NewMemory{Type: "gotcha", Content: "the deploy script needs the " + word + " flag before it runs migrations",
		Importance: 4, SourceSession: demoSession}); err != nil {
		t.Fatal(err)
	}
	if hits := grepDir(t, data, word); len(hits) == 0 {
		t.Fatal("the planted word is nowhere in the data dir before forgetting: the test proves nothing")
	}
	before, _ := a.Store.Stats(ctx)
	res, err := a.Forget(ctx, "", demoSession[:8], nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 1 || res.Entries == 0 || res.Memories != 1 {
		t.Fatalf("forget removed %+v", res.ForgetStats)
	}
	a.Close()
	if hits := grepDir(t, data, word); len(hits) != 0 {
		t.Fatalf("the forgotten session's text is still in %v", hits)
	}

	// The transcript grows; the next index reads nothing of it.
	appendLine(t, claude, promptLine(2, "second"+word))
	b := openAt(t, data, claude, "")
	defer b.Close()
	if _, err := b.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _ := b.Store.Stats(ctx)
	if after.Sessions != before.Sessions-1 {
		t.Fatalf("sessions after forget+index: %d, want %d", after.Sessions, before.Sessions-1)
	}
	if _, err := b.Store.Session(ctx, demoSession); err == nil {
		t.Fatal("the forgotten session came back")
	}
	b.Close()
	if hits := grepDir(t, data, word); len(hits) != 0 {
		t.Fatalf("the grown transcript was indexed again: %v", hits)
	}
}

// Forgetting a project removes all its sessions and keeps the folder out.
func TestForgetProject(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	ctx := context.Background()
	claude := sampleCopy(t, "frobnicatedproject")
	data := t.TempDir()
	a := openAt(t, data, claude, "embedder.kind = \"none\"\n")
	defer a.Close()
	if _, err := a.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Forget(ctx, "/path/to/Demo", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions < 2 {
		t.Fatalf("forgot %d sessions of the demo project", res.Sessions)
	}
	if _, err := a.Index(ctx, app.IndexOptions{Rebuild: true}); err != nil {
		t.Fatal(err)
	}
	if ss, _ := a.Store.Sessions(ctx, index.SessionFilter{}); len(ss) == 0 {
		t.Fatal("other projects went too")
	} else {
		for _, s := range ss {
			if s.ProjectPath == "/path/to/Demo" {
				t.Fatalf("session %s of the forgotten project is back", s.ID)
			}
		}
	}
	a.Close()
	if hits := grepDir(t, data, "frobnicatedproject"); len(hits) != 0 {
		t.Fatalf("the forgotten project's text is still in %v", hits)
	}
}

// index.exclude and a .cairnignore keep a project out of indexing and
// injection.
func TestOptOut(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	ctx := context.Background()
	claude := sampleCopy(t, "optoutword")
	data := t.TempDir()
	a := openAt(t, data, claude, "embedder.kind = \"none\"\n[index]\nexclude = [\"/path/to/*\"]\n")
	defer a.Close()
	r, err := a.Index(ctx, app.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sync.Excluded == 0 {
		t.Fatal("no file was excluded")
	}
	ss, _ := a.Store.Sessions(ctx, index.SessionFilter{})
	for _, s := range ss {
		if s.ProjectPath == "/path/to/Demo" {
			t.Fatalf("an excluded project was indexed: %s", s.ID)
		}
	}
	if ok, why := a.Store.Excluded(ctx, "/path/to/Demo"); !ok || why == "" {
		t.Fatal("Excluded does not report the glob")
	}
	// A .cairnignore in a real project folder.
	dir := t.TempDir()
	if ok, _ := a.Store.Excluded(ctx, filepath.Join(dir, "sub")); ok {
		t.Fatal("excluded before the marker exists")
	}
	if err := os.WriteFile(filepath.Join(dir, index.IgnoreFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, why := a.Store.Excluded(ctx, filepath.Join(dir, "sub")); !ok || why != filepath.Join(dir, index.IgnoreFile) {
		t.Fatalf("a .cairnignore above the folder is not honoured: %v %q", ok, why)
	}
}
