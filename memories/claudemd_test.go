package memories

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
)

func TestFindBlock(t *testing.T) {
	ok := []string{"", "# x\n", "a\n" + MarkerStart + "\nold\n" + MarkerEnd + "\nb\n"}
	for _, d := range ok {
		if _, _, _, err := FindBlock(d); err != nil {
			t.Errorf("%q: %v", d, err)
		}
	}
	bad := map[string]string{
		"start only":   "a\n" + MarkerStart + "\nb\n",
		"end only":     "a\n" + MarkerEnd + "\n",
		"reversed":     MarkerEnd + "\n" + MarkerStart + "\n",
		"two starts":   MarkerStart + "\n" + MarkerStart + "\n" + MarkerEnd + "\n",
		"two blocks":   MarkerStart + "\n" + MarkerEnd + "\n" + MarkerStart + "\n" + MarkerEnd + "\n",
		"two ends":     MarkerStart + "\n" + MarkerEnd + "\n" + MarkerEnd + "\n",
		"inline start": "text " + MarkerStart + " and no end",
	}
	for name, d := range bad {
		_, _, _, err := FindBlock(d)
		if !errors.Is(err, ErrMarkers) || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestReplaceBlockKeepsOutside(t *testing.T) {
	block := MarkerStart + "\nnew\n" + MarkerEnd
	before := "# Title\r\n\ttabs and trailing space   \n"
	after := "\n## After\nno newline at end"
	doc := before + MarkerStart + "\nold stuff\n" + MarkerEnd + after
	got, err := ReplaceBlock(doc, block)
	if err != nil {
		t.Fatal(err)
	}
	if got != before+block+after {
		t.Fatalf("outside bytes changed:\n%q", got)
	}
	for in, want := range map[string]string{
		"":        block + "\n",
		"x":       "x\n\n" + block + "\n",
		"x\n":     "x\n\n" + block + "\n",
		"x\n\n":   "x\n\n" + block + "\n",
		"x\n\n\n": "x\n\n\n" + block + "\n",
	} {
		got, err := ReplaceBlock(in, block)
		if err != nil || got != want {
			t.Errorf("append to %q: %q %v", in, got, err)
		}
	}
}

func syncFixture(t *testing.T) (*Service, string) {
	t.Helper()
	s := newService(t)
	dir := t.TempDir()
	approve(t, s, NewMemory{Project: dir, Type: Decision, Content: "Use Stripe Checkout, not custom payment forms", Importance: 4})
	approve(t, s, NewMemory{Project: dir, Type: Gotcha, Content: "The websocket test is flaky: await the open event"})
	approve(t, s, NewMemory{Type: Preference, Content: "Prefer table-driven tests"})
	approve(t, s, NewMemory{Project: "/elsewhere", Type: Fact, Content: "Not this project's memory"})
	mustAdd(t, s, NewMemory{Project: dir, Type: Fact, Content: "A pending memory stays out"})
	return s, dir
}

func TestSyncWritesBlock(t *testing.T) {
	ctx := context.Background()
	s, dir := syncFixture(t)
	target := filepath.Join(dir, "CLAUDE.md")
	orig := "# My project\n\nHand-written rules.\n"
	if err := os.WriteFile(target, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	dry, err := s.Sync.Sync(ctx, SyncOptions{Project: dir, DryRun: true})
	if err != nil || !dry.Changed || !strings.Contains(dry.Diff, "+- Use Stripe Checkout") {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if b, _ := os.ReadFile(target); string(b) != orig {
		t.Fatal("dry run wrote the file")
	}
	res, err := s.Sync.Sync(ctx, SyncOptions{Project: dir})
	if err != nil || !res.Written || res.Memories != 3 {
		t.Fatalf("sync: %v %+v", err, res)
	}
	b, _ := os.ReadFile(target)
	got := string(b)
	if !strings.HasPrefix(got, orig) || !strings.Contains(got, "Prefer table-driven tests") ||
		strings.Contains(got, "pending memory") || strings.Contains(got, "Not this project") {
		t.Fatalf("file:\n%s", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode changed to %v", fi.Mode().Perm())
	}
	// Preference before decisions; higher importance first within a type.
	if strings.Index(got, "### Preferences") > strings.Index(got, "### Decisions") {
		t.Fatalf("type order:\n%s", got)
	}
	// Edits outside the block survive the next sync byte for byte.
	edited := strings.Replace(got, "Hand-written rules.", "Hand-written rules, edited. ", 1) + "trailing text without newline"
	os.WriteFile(target, []byte(edited), 0o640)
	approve(t, s, NewMemory{Project: dir, Type: Bugfix, Content: "Fixed the 502s by disabling nginx buffering for SSE"})
	if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(target)
	start, end, _, _ := FindBlock(string(b))
	es, ee, _, _ := FindBlock(edited)
	if string(b[:start]) != edited[:es] || string(b[end:]) != edited[ee:] || !strings.Contains(string(b), "nginx buffering") {
		t.Fatalf("outside changed or block not updated:\n%s", b)
	}
	again, err := s.Sync.Sync(ctx, SyncOptions{Project: dir})
	if err != nil || again.Changed {
		t.Fatalf("second sync changed the file: %+v", again)
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("files in %s: %v", dir, ents)
	}
}

func TestSyncRefusesBrokenMarkers(t *testing.T) {
	ctx := context.Background()
	s, dir := syncFixture(t)
	target := filepath.Join(dir, "CLAUDE.local.md")
	for _, doc := range []string{
		"# x\n" + MarkerStart + "\nhalf a block\n",
		MarkerStart + "\n" + MarkerEnd + "\n" + MarkerStart + "\n" + MarkerEnd + "\n",
	} {
		os.WriteFile(target, []byte(doc), 0o644)
		_, err := s.Sync.Sync(ctx, SyncOptions{Project: dir, Target: target})
		if !errors.Is(err, ErrMarkers) || !strings.Contains(err.Error(), target) {
			t.Fatalf("broken markers accepted: %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != doc {
			t.Fatal("refused file was changed")
		}
	}
	if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir, Target: filepath.Join(dir, "missing", "CLAUDE.md")}); err == nil {
		t.Fatal("sync into a missing folder succeeded")
	}
}

func TestSyncBudget(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	dir := t.TempDir()
	for i := range 40 {
		approve(t, s, NewMemory{Project: dir, Type: Types[i%len(Types)], Content: fmt.Sprintf("Memory number %d about subsystem-%d", i, i)})
	}
	res, err := s.Sync.Sync(ctx, SyncOptions{Project: dir, Lines: 20})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	start, end, _, _ := FindBlock(string(b))
	lines := strings.Count(string(b[start:end]), "\n") + 1
	if lines > 20 || res.Omitted == 0 || res.Memories+res.Omitted != 40 || !strings.Contains(string(b), "more approved memories") {
		t.Fatalf("budget: %d lines, %+v\n%s", lines, res, b)
	}
}

// TestSyncConcurrentWriters: many syncs of one file at once (services on
// one store, as separate processes would be) leave one well-formed block
// and the hand-written text intact.
func TestSyncConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s, dir := syncFixture(t)
	target := filepath.Join(dir, "CLAUDE.md")
	head := "# Rules\n\nkeep me\n"
	os.WriteFile(target, []byte(head), 0o644)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		svc := New(s.st, s.cfg)
		wg.Go(func() {
			for range 3 {
				if _, err := svc.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	if _, _, found, err := FindBlock(string(b)); err != nil || !found || !strings.HasPrefix(string(b), head) {
		t.Fatalf("after concurrent syncs: %v\n%s", err, b)
	}
}

// TestSyncLockExcludesOthers: while one writer holds the lock, another
// cannot take it.
func TestSyncLockExcludesOthers(t *testing.T) {
	target := filepath.Join(t.TempDir(), "CLAUDE.md")
	unlock, err := lockFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := tryLock(lockPath(target)); err != nil || ok {
		t.Fatalf("second lock taken: %v %v", ok, err)
	}
	unlock()
	u2, ok, err := tryLock(lockPath(target))
	if err != nil || !ok {
		t.Fatalf("lock not released: %v", err)
	}
	u2()
}

// TestSyncChild is the child of TestSyncConcurrentProcesses.
func TestSyncChild(t *testing.T) {
	data, dir := os.Getenv("CAIRN_SYNC_CHILD_DATA"), os.Getenv("CAIRN_SYNC_CHILD_PROJECT")
	if data == "" {
		t.Skip("child process only")
	}
	st, err := index.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(st, config.Default())
	for i := range 5 {
		// Each child adds its own memory, so the blocks differ.
		if i == 0 {
			approve(t, s, NewMemory{Project: dir, Type: Fact, Content: fmt.Sprintf("Child process %d was here", os.Getpid())})
		}
		if _, err := s.Sync.Sync(context.Background(), SyncOptions{Project: dir}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSyncConcurrentProcesses runs syncs of one CLAUDE.md from several
// processes at once, while the user's text sits around the block.
func TestSyncConcurrentProcesses(t *testing.T) {
	s, dir := syncFixture(t)
	target := filepath.Join(dir, "CLAUDE.md")
	head, tail := "# Rules\n\nkeep me\n\n", "\n\n## Footer\nalso keep me"
	os.WriteFile(target, []byte(head+MarkerStart+"\n"+MarkerEnd+tail), 0o644)
	data := s.st.Dir()
	var cmds []*exec.Cmd
	for range 5 {
		c := exec.CommandContext(t.Context(), os.Args[0], "-test.run", "^TestSyncChild$", "-test.count", "1")
		c.Env = append(os.Environ(), "CAIRN_SYNC_CHILD_DATA="+data, "CAIRN_SYNC_CHILD_PROJECT="+dir)
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	// A last sync sees every child's memory; the text around is intact.
	if _, err := s.Sync.Sync(context.Background(), SyncOptions{Project: dir}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	got := string(b)
	if !strings.HasPrefix(got, head+MarkerStart) || !strings.HasSuffix(got, MarkerEnd+tail) || strings.Count(got, "Child process") != 5 {
		t.Fatalf("after concurrent processes:\n%s", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("leftover files: %v", ents)
	}
}

func TestSyncThroughSymlink(t *testing.T) {
	s, dir := syncFixture(t)
	real := filepath.Join(t.TempDir(), "shared-CLAUDE.md")
	os.WriteFile(real, []byte("# shared\n"), 0o644)
	link := filepath.Join(dir, "CLAUDE.md")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := s.Sync.Sync(context.Background(), SyncOptions{Project: dir}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	b, _ := os.ReadFile(real)
	if !strings.HasPrefix(string(b), "# shared\n") || !strings.Contains(string(b), MarkerStart) {
		t.Fatalf("target:\n%s", b)
	}
}
