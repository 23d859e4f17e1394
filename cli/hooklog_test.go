package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/hookspec"
)

// Malformed hook input used to reach hooks.log and `cairn doctor` raw: the
// first 60 characters of non-JSON stdin, an unknown event name, a
// transcript_path outside the Claude dir. None of its secrets may.
func TestMalformedHookInputNeverEchoesSecrets(t *testing.T) {
	const pw = "Hunter2S3cretPw"
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	data, claude := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(claude, "projects"), 0o700)
	for _, c := range []struct{ event, stdin string }{
		{"UserPromptSubmit", "mysql -u root -p" + pw + " " + token},
		{"", `{"hook_event_name":"Evil` + token + `","session_id":"11111111-2222-3333-4444-555555555555"}`},
		{"", `{"hook_event_name":"Stop","session_id":"x` + pw + `"}`},
		{"Stop", `{"hook_event_name":"Stop","session_id":"11111111-2222-3333-4444-555555555555","transcript_path":"/tmp/` + token + `/mysql -p` + pw + `.jsonl"}`},
		{"SessionStart", `{"hook_event_name":"SessionStart","session_id":"11111111-2222-3333-4444-555555555555","prompt":"` + pw},
	} {
		var out, errb bytes.Buffer
		o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(c.stdin)}
		root := NewRoot(o)
		args := []string{"hook"}
		if c.event != "" {
			args = append(args, c.event)
		}
		root.SetArgs(append(args, "--data", data, "--claude-dir", claude))
		if err := root.Execute(); err != nil {
			t.Fatalf("hook %v: %v (hooks never fail)", args, err)
		}
		for _, s := range []string{out.String(), errb.String()} {
			if strings.Contains(s, pw) || strings.Contains(s, token[4:]) {
				t.Errorf("hook output echoes the input: %q", s)
			}
		}
	}
	log, err := os.ReadFile(filepath.Join(data, hookspec.LogName))
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.Split(bytes.TrimSpace(log), []byte("\n"))) < 4 {
		t.Errorf("the malformed inputs were not logged:\n%s", log)
	}
	if bytes.Contains(log, []byte(pw)) || bytes.Contains(log, []byte(token[4:])) {
		t.Errorf("hooks.log echoes secrets from the input:\n%s", log)
	}
	out, _, _ := run(t, "doctor", "--data", data, "--claude-dir", claude)
	if !strings.Contains(out, "hook log") {
		t.Fatalf("doctor shows no hook log:\n%s", out)
	}
	if strings.Contains(out, pw) || strings.Contains(out, token[4:]) {
		t.Errorf("doctor echoes secrets from hook input:\n%s", out)
	}
}
