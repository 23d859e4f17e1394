package memories

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"
)

// transcript builds a Claude Code JSONL transcript for tests.
type transcript struct {
	sid, cwd string
	lines    []string
	n        int
	t0       time.Time
	last     string
}

func newTranscript(sid, cwd string) *transcript {
	return &transcript{sid: sid, cwd: cwd, t0: time.Now().Add(-time.Hour).UTC()}
}

// transcriptService is an empty service, a transcript of session sid in
// /work/proj and the Claude folder (a temp dir) tr.write puts it in.
func transcriptService(t testing.TB, sid string) (s *Service, tr *transcript, claude string) {
	t.Helper()
	return newService(t), newTranscript(sid, "/work/proj"), t.TempDir()
}

func (tr *transcript) uuid() string {
	tr.n++
	return fmt.Sprintf("%08d-0000-4000-8000-%012d", tr.n, tr.n)
}

func (tr *transcript) add(typ string, content any) string {
	u := tr.uuid()
	rec := map[string]any{"parentUuid": nilIfEmpty(tr.last), "isSidechain": false, "userType": "external", "cwd": tr.cwd,
		"sessionId": tr.sid, "version": "2.1.0", "type": typ, "uuid": u,
		"timestamp": tr.t0.Add(time.Duration(tr.n) * time.Second).Format(time.RFC3339Nano),
		"message":   map[string]any{"role": typ, "content": content}}
	if typ == "assistant" {
		rec["message"].(map[string]any)["model"] = "claude-test"
		rec["message"].(map[string]any)["id"] = "msg_" + u
	}
	b, _ := json.Marshal(rec)
	tr.lines = append(tr.lines, string(b))
	tr.last = u
	return u
}

func (tr *transcript) user(text string) string { return tr.add("user", text) }

func (tr *transcript) assistant(text string) string {
	return tr.add("assistant", []map[string]any{{"type": "text", "text": text}})
}

// bash adds a Bash call and its result; it returns the call's uuid.
func (tr *transcript) bash(cmd, output string, isErr bool) string {
	id := fmt.Sprintf("toolu_%d", tr.n+1)
	u := tr.add("assistant", []map[string]any{{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}})
	tr.add("user", []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": output, "is_error": isErr}})
	return u
}

func (tr *transcript) todos(items map[string]string) string {
	var todos []map[string]any
	for c, st := range items {
		todos = append(todos, map[string]any{"content": c, "status": st, "activeForm": c})
	}
	id := fmt.Sprintf("toolu_%d", tr.n+1)
	return tr.add("assistant", []map[string]any{{"type": "tool_use", "id": id, "name": "TodoWrite", "input": map[string]any{"todos": todos}}})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// write puts the transcript under claudeDir/projects and syncs the store.
func (tr *transcript) write(t testing.TB, s *Service, claudeDir string) {
	t.Helper()
	dir := filepath.Join(claudeDir, "projects", strings.ReplaceAll(tr.cwd, "/", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tr.sid+".jsonl"), []byte(strings.Join(tr.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.st.Sync(context.Background(), claudeDir, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
}
