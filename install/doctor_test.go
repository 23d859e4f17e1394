package install

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/hookspec"
)

func TestDoctor(t *testing.T) {
	h := newHome(t)
	exe := filepath.Join(t.TempDir(), "cairn")
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	o := h.opts()
	o.Exe = exe
	data := t.TempDir()
	find := func(r *Report, name string) Check {
		for _, c := range r.Checks {
			if c.Name == name {
				return c
			}
		}
		return Check{}
	}
	// Nothing installed, no store.
	r := Doctor(context.Background(), DoctorOptions{User: o, DataDir: data, Version: "test", Config: config.Default()})
	if c := find(r, "hooks"); c.Status != Warn || !strings.Contains(c.Fix, "cairn install") {
		t.Fatalf("hooks: %+v", c)
	}
	if c := find(r, "store"); c.Status != Warn || !r.Healthy() {
		t.Fatalf("store: %+v", c)
	}

	_, err := Install(o)
	must(t, err)
	st, err := index.Open(data)
	must(t, err)
	sample := filepath.Join(filepath.Dir(must2(os.Getwd())), "testdata", "claude")
	if _, err := os.Stat(sample); err == nil {
		_, err = st.Sync(context.Background(), sample, index.SyncOptions{})
		must(t, err)
	}
	st.Close()
	hookspec.NewLogger(data).Printf("Stop: failed open after 3ms: something broke")
	// A line an earlier build wrote, quoting a path outside the Claude
	// directory: doctor does not repeat the path.
	outsideLine := time.Now().UTC().Format(time.RFC3339) + ` Stop 1234: transcript_path "/home/someone/private/notes.jsonl" is outside the Claude config dir /home/me/.claude (set CLAUDE_CONFIG_DIR or --claude-dir)` + "\n"
	lf, err := os.OpenFile(filepath.Join(data, hookspec.LogName), os.O_APPEND|os.O_WRONLY, 0o600)
	must(t, err)
	_, err = lf.WriteString(outsideLine)
	must(t, err)
	lf.Close()
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			w.Write([]byte(`{"version":"0.9.9"}`))
		}
	}))
	defer ollama.Close()
	cfg := config.Default()
	cfg.Ollama.Host = ollama.URL
	r = Doctor(context.Background(), DoctorOptions{User: o, DataDir: data, Version: "test", Config: cfg,
		Pending: func(context.Context, *index.Store) (int, int, error) { return 3, 1, nil }})
	for name, want := range map[string]string{"hooks": OK, "mcp": OK, "slash commands": OK, "store": OK, "index lag": OK, "ollama": OK, "reviews": Info, "hook log": Warn} {
		if c := find(r, name); c.Status != want {
			t.Errorf("%s: %+v (want %s)", name, c, want)
		}
	}
	if c := find(r, "ollama"); !strings.Contains(c.Detail, "0.9.9") {
		t.Errorf("ollama: %+v", c)
	}
	if len(r.HookLog) != 2 || !strings.Contains(r.HookLog[0], "something broke") {
		t.Errorf("hook log: %v", r.HookLog)
	}
	if l := r.HookLog[len(r.HookLog)-1]; strings.Contains(l, "private/notes.jsonl") || !strings.Contains(l, hookspec.OutsideClaudeDir) {
		t.Errorf("doctor quotes an outside transcript_path: %q", l)
	}
	// One project count: doctor's is `cairn projects`' (worktrees of one
	// repository are one project, not one per transcript folder).
	if st, err := index.Open(data); err == nil {
		ps, _ := st.Projects(context.Background())
		st.Close()
		if c := find(r, "store"); !strings.Contains(c.Detail, fmt.Sprintf(" %d projects,", len(ps))) {
			t.Errorf("store: %q; projects lists %d", c.Detail, len(ps))
		}
	}
	if !r.Healthy() {
		t.Errorf("unhealthy: %+v", r.Checks)
	}
	// A damaged store fails.
	bad := t.TempDir()
	must(t, os.WriteFile(filepath.Join(bad, index.DBName), []byte(strings.Repeat("garbage ", 1000)), 0o600))
	r = Doctor(context.Background(), DoctorOptions{User: o, DataDir: bad, Version: "test", Config: cfg})
	if c := find(r, "store"); c.Status != Fail || r.Healthy() {
		t.Errorf("damaged store: %+v", c)
	}
	// The binary the hooks run disappears: a failure that says what to do.
	os.Remove(exe)
	r = Doctor(context.Background(), DoctorOptions{User: o, DataDir: data, Version: "test", Config: cfg})
	if c := find(r, "hooks"); c.Status != Fail || !strings.Contains(c.Detail, "does not exist") {
		t.Errorf("missing binary: %+v", c)
	}
	// Ollama configured but down.
	cfg.Embedder.Kind = "ollama"
	cfg.Ollama.Host = "http://127.0.0.1:1"
	r = Doctor(context.Background(), DoctorOptions{User: o, DataDir: data, Version: "test", Config: cfg})
	if c := find(r, "ollama"); c.Status != Warn {
		t.Errorf("ollama down: %+v", c)
	}
}

func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
