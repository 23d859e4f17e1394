package remote_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	_ "github.com/cairn-dev/cairn/index/fts" // search in the tests
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/remote"
)

const (
	sample      = "../testdata/claude"
	demoFolder  = "-path-to-Demo"
	demoSession = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
	spotter     = "-home-marco-projects-spotter"
)

// machine is one machine: its Claude dir and its data dir.
type machine struct {
	name, claude, data string
}

func (m machine) paths() app.Paths { return app.Paths{DataDir: m.data, ClaudeDir: m.claude} }

func (m machine) open(t *testing.T) *app.App {
	t.Helper()
	a, err := app.Open(m.paths(), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (m machine) sync(t *testing.T) remote.Result {
	t.Helper()
	res, err := remote.Sync(context.Background(), m.paths(), remote.Options{IndexFirst: true})
	if err != nil {
		t.Fatalf("sync on %s: %v", m.name, err)
	}
	for _, w := range res.Warnings {
		t.Logf("%s: warning: %s", m.name, w)
	}
	return res
}

// newMachine copies the sample's folders named into a Claude dir.
func newMachine(t *testing.T, name string, folders ...string) machine {
	t.Helper()
	m := machine{name: name, claude: t.TempDir(), data: t.TempDir()}
	for _, f := range folders {
		if err := testutil.CopyDir(filepath.Join(sample, "projects", f), filepath.Join(m.claude, "projects", f)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(m.claude, "projects"), 0o700)
	return m
}

func bareRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cairn.git")
	if out, err := exec.CommandContext(t.Context(), "git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

func initRemote(t *testing.T, m machine, url string) {
	t.Helper()
	if _, err := remote.Init(context.Background(), m.data, url, m.name); err != nil {
		t.Fatal(err)
	}
}

// plant appends a user line with word to the demo session of m.
func plant(t *testing.T, m machine, word string) {
	t.Helper()
	line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/path/to/Demo","sessionId":%q,"version":"1.0.98","gitBranch":"","type":"user","message":{"role":"user","content":"please remember the %s flag for the deploy script"},"uuid":"f0f0f0f0-0000-4000-8000-000000000001","timestamp":"2025-09-03T00:50:01.000Z"}`+"\n", demoSession, word)
	f, err := os.OpenFile(filepath.Join(m.claude, "projects", demoFolder, demoSession+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(line)
}

// grepDir lists the files under dir holding word.
func grepDir(t *testing.T, dir, word string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(word)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

func searchSessions(t *testing.T, a *app.App, word string) []string {
	t.Helper()
	sr, err := a.Store.OpenSearcher(context.Background(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	resp, err := sr.Search(context.Background(), index.SearchQuery{Text: word, Mode: index.ModeText, Kinds: []string{"messages"}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range resp.Results {
		out = append(out, r.SessionID)
	}
	return out
}

// TestTwoMachines is the end-to-end case: a session and an
// approved memory made on A appear on B, marked with A's name; an edit on
// both sides is kept twice for review; an opted-out project never reaches
// the remote; a forget on A removes the session and the memory from B and
// from the repository.
func TestTwoMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes and syncs two machines")
	}
	t.Setenv("CAIRN_CONFIG", "")
	ctx := context.Background()
	const word = "zanzibarquux"
	url := bareRepo(t)
	A := newMachine(t, "laptop", demoFolder, spotter)
	B := newMachine(t, "desktop", "-home-marco-projects-spotter-worktrees-spotter-0rt")
	plant(t, A, word)

	// A indexes, approves a memory drawn from the demo session.
	a := A.open(t)
	if _, err := a.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	add, err := a.Memories.Curator.Add(ctx, memories.NewMemory{Project: "/path/to/Demo", Type: memories.Gotcha, Importance: 4,
		Content: "the deploy script needs the " + word + " flag", SourceSession: demoSession, Origin: memories.OriginManual, Status: memories.Approved})
	if err != nil {
		t.Fatal(err)
	}
	memID := add.Memory.ID
	a.Close()
	// The spotter project is opted out after it was indexed: it must not leave.
	os.WriteFile(filepath.Join(A.data, "config.toml"), []byte("[index]\nexclude = [\"/home/marco/projects/spotter\"]\n"), 0o600)

	initRemote(t, A, url)
	initRemote(t, B, url)
	ra := A.sync(t)
	if ra.PushedSessions == 0 || ra.Excluded == 0 {
		t.Fatalf("A pushed %d sessions, %d opted out; want some of each", ra.PushedSessions, ra.Excluded)
	}
	rb := B.sync(t)
	if rb.PulledSessions != ra.PushedSessions {
		t.Errorf("B pulled %d sessions, A pushed %d", rb.PulledSessions, ra.PushedSessions)
	}

	b := B.open(t)
	if hits := searchSessions(t, b, word); len(hits) != 1 || hits[0] != demoSession {
		t.Errorf("B's search for %s found %v, want A's demo session", word, hits)
	}
	origins, err := b.Store.SessionOrigins(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if origins[demoSession] != "laptop" {
		t.Errorf("B marks the demo session as from %q, want laptop (origins %v)", origins[demoSession], origins)
	}
	ss, _ := b.Store.Sessions(ctx, index.SessionFilter{})
	for _, s := range ss {
		if strings.HasPrefix(s.ProjectPath, "/home/marco/projects/spotter") && origins[s.ID] != "" {
			t.Errorf("session %s of the opted-out project reached B from %s", s.ID, origins[s.ID])
		}
	}
	m, err := b.Memories.Get(ctx, memID)
	if err != nil || m.Status != memories.Approved {
		t.Fatalf("A's approved memory on B: %+v, %v", m, err)
	}
	top, err := b.Memories.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Approved}})
	if err != nil || len(top) == 0 {
		t.Errorf("B lists no approved memory: %v", err)
	}
	// The same memory edited on both machines.
	if _, err := b.Memories.Curator.Update(ctx, memID, memories.Update{Content: ptr("on the desktop the " + word + " flag is spelled differently")}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	a = A.open(t)
	if _, err := a.Memories.Curator.Update(ctx, memID, memories.Update{Content: ptr("on the laptop the " + word + " flag needs a value")}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	A.sync(t)
	if r := B.sync(t); r.Conflicts != 1 {
		t.Errorf("B saw %d conflicts, want 1", r.Conflicts)
	}
	A.sync(t)
	conflictIDs := map[string]string{}
	for _, mc := range []machine{A, B} {
		x := mc.open(t)
		all, _ := x.Memories.List(ctx, memories.Filter{})
		var texts []string
		for _, m := range all {
			if strings.Contains(m.Content, word) {
				texts = append(texts, string(m.Status)+": "+m.Content)
			}
			// The copy to review says what it is: tagged conflict and the
			// machine it came from, linked "contradicts" to the one kept;
			// the same id on both machines (derived from the two versions).
			if m.Status == memories.Pending && strings.Contains(m.Content, word) {
				tags := strings.Join(m.Tags, ",")
				linked := len(m.Links) == 1 && m.Links[0].Kind == memories.Contradicts && m.Links[0].Target == memID
				if !strings.Contains(tags, "conflict") || !strings.Contains(tags, "from:") || !linked {
					t.Errorf("%s: the conflict copy %s has tags %q, links %+v", mc.name, m.ID, tags, m.Links)
				}
				conflictIDs[mc.name] = m.ID
			}
		}
		x.Close()
		joined := strings.Join(texts, "\n")
		if !strings.Contains(joined, "on the desktop") || !strings.Contains(joined, "on the laptop") || !strings.Contains(joined, "pending") {
			t.Errorf("%s keeps %q; want both versions, one pending for review", mc.name, joined)
		}
	}
	if conflictIDs["laptop"] == "" || conflictIDs["laptop"] != conflictIDs["desktop"] {
		t.Errorf("conflict copies: %v, want one, the same on both machines", conflictIDs)
	}
	// The repository holds no opted-out session.
	repo := filepath.Join(A.data, "remote", "repo")
	if hits := grepDir(t, filepath.Join(repo, "machines"), "/home/marco/projects/spotter"); len(hits) > 0 {
		t.Errorf("the opted-out project is named in %v", hits)
	}

	// Forget on A; sync both: the word is nowhere on B, nor in the tree.
	a = A.open(t)
	if _, err := a.Forget(ctx, "", demoSession, nil); err != nil {
		t.Fatal(err)
	}
	a.Close()
	A.sync(t)
	if r := B.sync(t); r.Forgotten == 0 {
		t.Errorf("B forgot nothing")
	}
	A.sync(t)
	for _, dir := range []string{B.data, A.data} {
		if hits := grepDir(t, dir, word); len(hits) > 0 {
			t.Errorf("after forget + sync, %s is still in %v", word, hits)
		}
	}
	b = B.open(t)
	if hits := searchSessions(t, b, word); len(hits) != 0 {
		t.Errorf("B still finds %v", hits)
	}
	b.Close()
}

func ptr[T any](v T) *T { return &v }
