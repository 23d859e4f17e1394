package tui

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// updating reports -update (the flag is defined by x/exp/golden, which
// teatest imports): golden files are rewritten.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// fixedNow is the clock of every test: goldens must not move with time.
var fixedNow = time.Date(2026, 2, 13, 9, 0, 0, 0, time.UTC)

const sampleDir = "../testdata/claude"

var (
	baseOnce sync.Once
	baseDir  string
	baseErr  error
)

func TestMain(m *testing.M) {
	log.SetOutput(io.Discard) // bleve logs
	os.Setenv("HOME", "/nonexistent-home")
	code := m.Run()
	if baseDir != "" {
		os.RemoveAll(baseDir)
	}
	os.Exit(code)
}

// testStore returns a store holding the bundled sample, full-text indexed.
// The sample is indexed once and copied for each test.
func testStore(t testing.TB) *index.Store {
	t.Helper()
	baseOnce.Do(func() {
		baseDir, baseErr = os.MkdirTemp("", "cairn-tui-test-")
		if baseErr != nil {
			return
		}
		st, err := index.Open(baseDir)
		if err != nil {
			baseErr = err
			return
		}
		defer st.Close()
		if _, err := st.Sync(context.Background(), sampleDir, index.SyncOptions{}); err != nil {
			baseErr = err
			return
		}
		ix, err := st.Derived().OpenFTS(time.Second)
		if err != nil {
			baseErr = err
			return
		}
		_, baseErr = st.Derived().DrainFTS(context.Background(), ix, nil)
		ix.Close()
	})
	if baseErr != nil {
		t.Fatal(baseErr)
	}
	dir := t.TempDir()
	if err := copyDir(baseDir, dir); err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func copyDir(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
}

func testService(t testing.TB, st *index.Store) *memories.Service {
	svc := memories.New(st, config.Default())
	svc.SetClock(func() time.Time { return fixedNow })
	return svc
}

// newTestModel builds a model over st at w×h with a pinned clock, UTC, no
// colour, and no background work, and runs its Init to completion.
func newTestModel(t testing.TB, w, h int, st *index.Store, svc MemoryService) *Model {
	t.Helper()
	dark := true
	cfg := Config{
		Store: st, Now: func() time.Time { return fixedNow }, Location: time.UTC, NoColor: true, Dark: &dark,
		NoIndex: true, Poll: -1, Resync: -1, ExportDir: t.TempDir(),
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
	}
	if svc != nil {
		cfg.Memories = svc
	}
	m := New(cfg)
	t.Cleanup(m.Close)
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	run(t, m, m.Init())
	// Stable status bar for goldens.
	send(t, m, statsMsg{stats: index.StoreStats{DBBytes: 5 << 20, Sessions: 8}})
	return m
}

// send delivers msg and runs what it asks for.
func send(t testing.TB, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(msg)
	run(t, m, cmd)
}

// run executes cmd and feeds its messages back, like the program would,
// until nothing is left to do.
func run(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a command did not return in 10s")
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			run(t, m, c)
		}
	case tea.QuitMsg:
		quitSeen = true
	default:
		send(t, m, msg)
	}
}

var quitSeen bool

// press types keys: names as tea prints them ("enter", "ctrl+s", "j").
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		send(t, m, keyMsg(k))
	}
}

// typeText types each character of s.
func typeText(t testing.TB, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		send(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "space": tea.KeySpace, "home": tea.KeyHome,
		"end": tea.KeyEnd, "backspace": tea.KeyBackspace}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	if k == "shift+tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if r, ok := named[k]; ok {
		return tea.KeyPressMsg{Code: r}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the rendered screen without styles.
func screen(m *Model) string { return ansi.Strip(m.render()) }

var (
	timingRe = regexp.MustCompile(`\d+\.\d ms`)
	idRe     = regexp.MustCompile(`\b([md])-[0-9a-z]{8}\b`)
)

// typeQuery types s as one burst: only the last keystroke's debounced
// search runs, as when typing fast.
func typeQuery(t testing.TB, m *Model, s string) {
	t.Helper()
	var last tea.Cmd
	for _, r := range s {
		_, last = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	run(t, m, last)
}

// golden compares the screen with testdata/<name>.golden (-update rewrites).
func golden(t *testing.T, name string, m *Model) {
	t.Helper()
	got := screen(m)
	checkSize(t, got, m.c.lay.w, m.c.lay.h)
	got = timingRe.ReplaceAllString(got, "N.N ms")    // timings vary
	got = idRe.ReplaceAllString(got, "${1}-xxxxxxxx") // ids are random
	lines := strings.Split(got, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	got = strings.Join(lines, "\n")
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		os.WriteFile(filepath.Join(os.TempDir(), "cairn-tui-"+name+".got"), []byte(got), 0o644)
		t.Errorf("screen differs from %s (-update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// checkSize asserts the screen is exactly w×h cells.
func checkSize(t testing.TB, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, lw, w, l)
		}
	}
}

func mustContain(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("screen lacks %q:\n%s", sub, s)
		}
	}
}

// goldenSizes opens a model at each of sizes(), brings it to the screen
// under test with show and compares that with testdata/<name>_<size>.golden.
func goldenSizes(t *testing.T, name string, st *index.Store, svc MemoryService, show func(m *Model)) {
	t.Helper()
	for _, sz := range sizes() {
		m := newTestModel(t, sz.w, sz.h, st, svc)
		show(m)
		golden(t, name+"_"+sizeName(sz.w, sz.h), m)
		m.Close()
	}
}

func sizes() []struct{ w, h int } {
	return []struct{ w, h int }{{80, 24}, {120, 40}}
}

func sizeName(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

func indexFilterAll() index.SessionFilter { return index.SessionFilter{} }

func wheel(dir int) tea.Msg {
	if dir < 0 {
		return tea.MouseWheelMsg{Button: tea.MouseWheelUp}
	}
	return tea.MouseWheelMsg{Button: tea.MouseWheelDown}
}
