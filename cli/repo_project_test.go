package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// runWith is run with stdin and the data dir given.
func runWith(t *testing.T, stdin, data string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin)}
	root := NewRoot(o)
	root.SetArgs(append(args, "--data", data))
	err := root.Execute()
	return out.String(), errb.String(), err
}

// writeSession writes a two-line session (a prompt and Claude's answer, in
// Claude Code's format) that ran in cwd, in the transcript folder Claude
// Code names after cwd, and returns the file.
func writeSession(t *testing.T, claude, cwd, sid, prompt, answer string, at time.Time) string {
	t.Helper()
	dir := filepath.Join(claude, "projects", transcripts.EncodeProjectPath(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(typ, uuid, parent string, msg map[string]any, ts time.Time) string {
		m := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": cwd,
			"sessionId": sid, "version": "2.1.197", "gitBranch": "main", "type": typ, "uuid": uuid, "message": msg,
			"timestamp": ts.UTC().Format(time.RFC3339Nano)}
		if parent != "" {
			m["parentUuid"] = parent
		}
		if typ == "assistant" {
			m["requestId"] = "req_" + uuid
		}
		b, _ := json.Marshal(m)
		return string(b) + "\n"
	}
	u1, a1 := sid[:8]+"-u1", sid[:8]+"-a1"
	body := line("user", u1, "", map[string]any{"role": "user", "content": prompt}, at) +
		line("assistant", a1, u1, map[string]any{"id": "msg_" + a1, "type": "message", "role": "assistant", "model": "claude-opus-4-7",
			"content": []any{map[string]any{"type": "text", "text": answer}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 20}}, at.Add(time.Minute))
	f := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// hookContext runs `cairn hook EVENT` with payload as Claude Code sends it
// (launched in cwd) and returns the context it injects.
func hookContext(t *testing.T, data, claude, cwd string, payload map[string]any) string {
	t.Helper()
	t.Setenv("CLAUDE_PROJECT_DIR", cwd)
	payload["cwd"] = cwd
	b, _ := json.Marshal(payload)
	// The hook tunes the process's garbage collector for a short life:
	// put it back for the tests that follow.
	defer func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}()
	out, _, err := runWith(t, string(b), data, "hook", payload["hook_event_name"].(string), "--claude-dir", claude)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) == "" {
		return ""
	}
	var o struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return o.HookSpecificOutput.AdditionalContext
}

// TestRepositoryIsOneProject: a repository with two worktrees and a
// subfolder (made with `git worktree add`) is one project in `projects`,
// in search scope, in the SessionStart and UserPromptSubmit hooks and in
// CLAUDE.md sync; the folder each session ran in stays visible. A
// worktree removed before cairn indexed its session stays in the
// repository through what SessionStart recorded.
func TestRepositoryIsOneProject(t *testing.T) {
	g := testutil.MakeGitRepo(t)
	claude, data := t.TempDir(), t.TempDir()
	other := filepath.Join(filepath.Dir(g.Root), "unrelated")
	// A fourth worktree in a place no naming rule knows; it is removed
	// before cairn indexes its session.
	scratch := filepath.Join(filepath.Dir(g.Root), "elsewhere", "scratch")
	testutil.Git(t, g.Root, "worktree", "add", "-q", "-b", "scratch", scratch)
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "config.toml"), []byte("[memories]\nremember_status = \"approved\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	folders := []string{g.Root, g.Worktree, g.Worktree2, g.Sub, scratch}
	files := map[string]string{}
	for i, cwd := range folders {
		sid := fmt.Sprintf("%08d-1111-2222-3333-444444444444", i+1)
		files[cwd] = writeSession(t, claude, cwd, sid, "how does the zebraquartz cache expire in "+filepath.Base(cwd)+"?",
			"The zebraquartz cache expires entries after ten minutes in "+filepath.Base(cwd)+".", at.Add(time.Duration(i)*time.Hour))
	}
	writeSession(t, claude, other, "99999999-1111-2222-3333-444444444444", "zebraquartz elsewhere?", "The zebraquartz in another project.", at)

	// SessionStart in the scratch worktree records its repository; then
	// the worktree goes away before any index.
	hookContext(t, data, claude, scratch, map[string]any{"hook_event_name": "SessionStart", "source": "startup",
		"session_id": "00000005-1111-2222-3333-444444444444", "transcript_path": files[scratch]})
	testutil.Git(t, g.Root, "worktree", "remove", "--force", scratch)

	if _, stderr, err := runWith(t, "", data, "index", "--claude-dir", claude); err != nil {
		t.Fatalf("index: %v %s", err, stderr)
	}

	// projects: the repository once, its worktrees and subfolder as folders.
	out, _, err := runWith(t, "", data, "projects", "--json", "--claude-dir", claude)
	var ps []ProjectJSON
	if err != nil || json.Unmarshal([]byte(out), &ps) != nil {
		t.Fatalf("projects: %v %s", err, out)
	}
	if len(ps) != 2 {
		t.Fatalf("%d projects, want the repository and the unrelated folder: %s", len(ps), out)
	}
	repo := ps[slices.IndexFunc(ps, func(p ProjectJSON) bool { return p.Path == g.Root })]
	wantFolders := []string{g.Worktree, g.Worktree2, g.Sub, scratch}
	slices.Sort(wantFolders)
	slices.Sort(repo.Folders)
	if repo.Sessions != 5 || !slices.Equal(repo.Folders, wantFolders) {
		t.Fatalf("repository project %+v, want 5 sessions in folders %v", repo, wantFolders)
	}
	// Sessions keep the folder they ran in.
	out, _, _ = runWith(t, "", data, "sessions", "--json", "--claude-dir", claude, "--project", g.Worktree)
	var ss []SessionJSON
	if err := json.Unmarshal([]byte(out), &ss); err != nil || len(ss) == 0 {
		t.Fatalf("sessions --project %s: %v %s", g.Worktree, err, out)
	}
	for _, s := range ss {
		if s.Project != g.Root {
			t.Errorf("session %s: project %s, want %s", s.ID, s.Project, g.Root)
		}
	}

	// Search scope: "." in any worktree or subfolder is the repository.
	for _, dir := range []string{g.Worktree2, g.Sub} {
		t.Chdir(dir)
		out, _, err := runWith(t, "", data, "search", "zebraquartz", "--project", ".", "--json", "--limit", "50", "--claude-dir", claude)
		var res SearchJSON
		if err != nil || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("search from %s: %v %s", dir, err, out)
		}
		sessions := map[string]bool{}
		for _, r := range res.Results {
			if r.Project != g.Root {
				t.Errorf("search from %s found %s of project %s", dir, r.SessionID, r.Project)
			}
			sessions[r.SessionID] = true
		}
		if len(sessions) != 5 {
			t.Errorf("search from %s found %d sessions of the repository, want 5: %v", dir, len(sessions), sessions)
		}
	}

	// A memory remembered in one worktree...
	t.Chdir(g.Worktree)
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	out, _, err = runWith(t, "", data, "remember", "--json", "--type", "gotcha", "--claude-dir", claude,
		"The zebraquartz cache must be flushed with `make flush-cache` after changing its schema")
	if err != nil || !strings.Contains(out, `"project": "`+g.Root+`"`) {
		t.Fatalf("remember in a worktree: %v %s", err, out)
	}
	// ...starts a session in the other worktree...
	ctx := hookContext(t, data, claude, g.Worktree2, map[string]any{"hook_event_name": "SessionStart", "source": "startup",
		"session_id": "00000003-1111-2222-3333-444444444444", "transcript_path": files[g.Worktree2]})
	if !strings.Contains(ctx, "make flush-cache") || !strings.Contains(ctx, "project "+g.Root) {
		t.Errorf("SessionStart in %s lacks the repository's memory:\n%s", g.Worktree2, ctx)
	}
	// ...is injected for a prompt in a subfolder...
	ctx = hookContext(t, data, claude, g.Sub, map[string]any{"hook_event_name": "UserPromptSubmit",
		"session_id": "00000004-1111-2222-3333-444444444444", "transcript_path": files[g.Sub],
		"prompt": "I changed the zebraquartz cache schema, what else do I need to do?"})
	if !strings.Contains(ctx, "make flush-cache") {
		t.Errorf("UserPromptSubmit in %s did not inject the repository's memory:\n%s", g.Sub, ctx)
	}
	// ...and is never injected in another project.
	ctx = hookContext(t, data, claude, other, map[string]any{"hook_event_name": "SessionStart", "source": "startup",
		"session_id": "99999999-1111-2222-3333-444444444444", "transcript_path": ""})
	if strings.Contains(ctx, "make flush-cache") {
		t.Errorf("another project got the repository's memory:\n%s", ctx)
	}

	// CLAUDE.md sync from a subfolder writes the main checkout's, from a
	// worktree the worktree's own; both hold the repository's memory.
	for dir, file := range map[string]string{g.Sub: filepath.Join(g.Root, "CLAUDE.md"), g.Worktree: filepath.Join(g.Worktree, "CLAUDE.md")} {
		t.Chdir(dir)
		if out, stderr, err := runWith(t, "", data, "sync", "--claude-dir", claude); err != nil {
			t.Fatalf("sync in %s: %v %s %s", dir, err, out, stderr)
		}
		b, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(b), "make flush-cache") {
			t.Errorf("sync in %s: %s lacks the memory (%v):\n%s", dir, file, err, b)
		}
	}
}
