package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/ftsapi"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/memories"
)

// plantEverywhere indexes the sample (with word in the demo session) and
// puts word in every kind of record that can quote a session or its
// memories: an approved memory corrected (its audit trail holds the
// content before and after, its replacement the corrected text), a memory
// deleted (the trash), a synthesis quoting an approved memory, and the
// hooks' list of the project's recent sessions (titles).
func plantEverywhere(t *testing.T, a *app.App, word string) {
	t.Helper()
	ctx := context.Background()
	if _, err := a.Index(ctx, app.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	const project = "/path/to/Demo"
	add := func(content string) string {
		t.Helper()
		r, err := a.Memories.Curator.Add(ctx, memories.NewMemory{Project: project, Type: "decision", Content: content, Importance: 4,
			Status: memories.Approved, SourceSession: demoSession})
		if err != nil || r.Memory == nil {
			t.Fatalf("add: %+v %v", r, err)
		}
		return r.Memory.ID
	}
	corrected := add("the deploy pipeline signs releases with the " + word + " key held in the vault")
	if _, err := a.Memories.Curator.Correct(ctx, memories.CorrectRequest{ID: corrected,
		Content: "the deploy pipeline signs releases with the " + word + " key, rotated every quarter", Reason: "rotation"}); err != nil {
		t.Fatal(err)
	}
	trashed := add("staging databases are rebuilt nightly from the " + word + " snapshot bucket")
	if err := a.Memories.Curator.Delete(ctx, trashed); err != nil {
		t.Fatal(err)
	}
	add("feature flags live in launchdarkly under the " + word + " environment, never in code")
	// Edited twice in place, growing: SQLite moves the row and leaves its
	// older text in the page's free space unless it is scrubbed.
	edited := add("the " + word + "alpha cluster drains before every deploy")
	for _, c := range []string{"the " + word + " cluster drains before every deploy, then the canary runs for ten minutes",
		"the " + word + " cluster drains before every deploy, then the canary runs for ten minutes and pages on a 1% error rate"} {
		if _, err := a.Memories.Curator.Update(ctx, edited, memories.Update{Content: &c}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Memories.Drafts.Synthesize(ctx, project, false); err != nil {
		t.Fatal(err)
	}
	recent, _ := json.Marshal([]map[string]any{{"id": demoSession, "start": time.Now(), "title": "set up the " + word + " deploy"}})
	if err := a.Store.SetSetting(ctx, index.RecentSessionsKeyPrefix+project, recent); err != nil {
		t.Fatal(err)
	}
	// Rebuilt so the full-text index and the model hold it too.
	if _, err := a.Index(ctx, app.IndexOptions{Rebuild: true, NoSync: true}); err != nil {
		t.Fatal(err)
	}
}

// planted checks that word is in at least want rows of each table that
// can quote a forgotten session (and in none when want is 0).
func planted(t *testing.T, data, word string, want int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, index.DBName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, col := range map[string]string{"memory_trash": "data", "synthesis": "markdown", "kv": "value", "memories": "content"} {
		var n int
		if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM "+table+" WHERE instr(CAST("+col+" AS TEXT), ?) > 0", word).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (want == 0) != (n == 0) || n < want {
			t.Fatalf("the word is in %d rows of %s, want %d", n, table, want)
		}
	}
}

// Issue 29 item 4: forgetting a session leaves none of its words in any
// record (audit trails, replacement memories, trash, syntheses, recent
// session titles) nor anywhere in the data dir.
func TestForgetLeavesNothingBehind(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	ctx := context.Background()
	const word = "plumbagoquetzalword"
	claude := sampleCopy(t, word)
	data := t.TempDir()
	a := openAt(t, data, claude, noVectors+"[backup]\nkeep = 3\n")
	defer a.Close()
	plantEverywhere(t, a, word)
	planted(t, data, word, 1)
	if _, err := a.Memories.Curator.Add(ctx, memories.NewMemory{Type: "fact", Content: "the release train leaves every second tuesday", Importance: 3}); err != nil {
		t.Fatal(err)
	}
	// Copies of the store: an automatic backup, and a store a restore
	// kept aside with its derived files.
	backup, err := a.RollingBackup(ctx, time.Now())
	if err != nil || backup == "" {
		t.Fatalf("rolling backup: %q %v", backup, err)
	}
	aside := filepath.Join(data, "before-restore-20260301T100000Z")
	if _, err := a.Backup(ctx, filepath.Join(aside, index.DBName)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(aside, "bleve"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aside, "bleve", "000000000001.zap"), []byte("a segment with "+word), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := a.Forget(ctx, "", demoSession, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories < 3 {
		t.Fatalf("forgot %d memories, want the two left and the replacement", res.Memories)
	}
	if len(res.Copies) != 2 {
		t.Fatalf("forgotten in the copies %v, want the backup and the store kept aside", res.Copies)
	}
	// The copies are whole stores still, with everything else in them.
	for _, c := range res.Copies {
		info, err := index.VerifyBackup(ctx, c)
		if err != nil || info.Sessions == 0 || info.Memories == 0 {
			t.Fatalf("the copy %s after forgetting: %+v %v", c, info, err)
		}
	}
	a.Close()
	planted(t, data, word, 0)
	if hits := grepDir(t, data, word); len(hits) != 0 {
		t.Fatalf("the forgotten session's words are still in %v", hits)
	}
}

// A forget killed after the store forgot, before the search indexes were
// rebuilt, is finished by the next open: nothing of it is left.
func TestForgetInterruptedIsFinished(t *testing.T) {
	if withoutRace.RanWith(t, plantedTests...) {
		return
	}
	ctx := context.Background()
	template, claude := plantedStore(t)
	data := t.TempDir()
	copyDataDir(t, template, data)
	a := openAt(t, data, claude, "")
	// What app.Forget does first, without what it does next.
	if _, err := a.Store.Forget(ctx, index.ForgetTarget{Session: demoSession}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	const word = plantedWord
	textHits := func() int {
		t.Helper()
		st, err := index.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ix, err := st.Derived().OpenFTS(time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		hits, _, err := ix.Search(word, ftsapi.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if textHits() == 0 {
		t.Fatal("the full-text index lost the words before it was rebuilt: the test proves nothing")
	}
	b := openAt(t, data, claude, "")
	if unfinished, err := b.Store.ForgetUnfinished(ctx); err != nil || unfinished {
		t.Fatalf("open left the forget unfinished (%v)", err)
	}
	b.Close()
	if n := textHits(); n != 0 {
		t.Fatalf("the interrupted forget's words are still found %d times", n)
	}
	if hits := grepDir(t, data, word); len(hits) != 0 {
		t.Fatalf("the interrupted forget's words are still in %v", hits)
	}
}

// Environment of the forget child process.
const (
	envForgetData   = "CAIRN_FORGET_TEST_DATA"
	envForgetClaude = "CAIRN_FORGET_TEST_CLAUDE"
)

// TestForgetChild is not a test: it is the child process of
// TestForgetKilled, forgetting the demo session.
func TestForgetChild(t *testing.T) {
	data := os.Getenv(envForgetData)
	if data == "" {
		t.Skip("child process only")
	}
	a, err := app.Open(app.Paths{DataDir: data, ClaudeDir: os.Getenv(envForgetClaude)}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Forget(context.Background(), "", demoSession, nil); err != nil {
		t.Fatal(err)
	}
}

// A forget killed with SIGKILL at random moments is finished by the next
// command: none of its words is left anywhere in the data dir. More
// trials with CAIRN_FORGET_KILLS=n.
func TestForgetKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	if withoutRace.RanWith(t, plantedTests...) {
		return
	}
	trials := 3
	if n, err := strconv.Atoi(os.Getenv("CAIRN_FORGET_KILLS")); err == nil {
		trials = n
	}
	const word = plantedWord
	// Each trial forgets in a copy of the planted store (plantedStore);
	// the transcripts, only read, are shared.
	template, claude := plantedStore(t)
	setup := func() (data, claude2 string) {
		data = t.TempDir()
		copyDataDir(t, template, data)
		return data, claude
	}
	child := func(data, claude string) *exec.Cmd {
		cmd := exec.CommandContext(context.Background(), os.Args[0], "-test.run=^TestForgetChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envForgetData+"="+data, envForgetClaude+"="+claude)
		return cmd
	}
	// How long a whole forget takes here.
	data, claude := setup()
	start := time.Now()
	if out, err := child(data, claude).CombinedOutput(); err != nil {
		t.Fatalf("forget child: %v\n%s", err, out)
	}
	whole := time.Since(start)
	r := rand.New(rand.NewPCG(29, 4))
	again := 0
	for i := range trials {
		data, claude := setup()
		cmd := child(data, claude)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(whole))))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// The next command finishes a forget that committed; one killed
		// before that left the session whole, and the user runs it again.
		a := openAt(t, data, claude, "")
		if _, err := a.Store.Session(context.Background(), demoSession); err == nil {
			if _, err := a.Forget(context.Background(), "", demoSession, nil); err != nil {
				t.Fatal(err)
			}
			again++
		}
		a.Close()
		planted(t, data, word, 0)
		if hits := grepDir(t, data, word); len(hits) != 0 {
			t.Fatalf("trial %d: after a forget killed at a random moment, the words are still in %v", i, hits)
		}
	}
	t.Logf("a forget takes %v; %d random kills, %d of them before the forget committed", whole, trials, again)
}

// plantedTests share the planted store (plantedStore): under -race they
// run together without it (withoutRace.RanWith), so it is planted once.
var plantedTests = []string{"TestForgetKilled", "TestForgetInterruptedIsFinished"}

// plantedWord is the word plantedStore puts everywhere.
const plantedWord = "kumquatlanternword"

// plantedFix is the package's planted store: built once, copied by each test.
var plantedFix struct {
	once         sync.Once
	data, claude string
	ok           bool
}

// plantedStore is a closed data dir of the sample (with plantedWord in
// the demo session) indexed, with the word planted everywhere
// (plantEverywhere: an index, a rebuild and a retrain), under the default
// config, and the transcripts it read. Built once per package; a test
// forgets in a copy of the data dir (copyDataDir) and only reads the
// transcripts.
func plantedStore(t *testing.T) (data, claude string) {
	t.Helper()
	plantedFix.once.Do(func() {
		root := sharedDir(t, "planted")
		claude := filepath.Join(root, "claude")
		if err := testutil.CopyDir(sample, claude); err != nil {
			t.Fatal(err)
		}
		appendLine(t, claude, promptLine(1, plantedWord))
		data := filepath.Join(root, "data")
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		a := openAt(t, data, claude, "")
		plantEverywhere(t, a, plantedWord)
		a.Close()
		plantedFix.data, plantedFix.claude, plantedFix.ok = data, claude, true
	})
	if !plantedFix.ok {
		t.Fatal("the planted store could not be built (see the first test that used it)")
	}
	return plantedFix.data, plantedFix.claude
}

// copyDataDir copies a closed data dir as `cp -a` would (modes kept).
func copyDataDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
