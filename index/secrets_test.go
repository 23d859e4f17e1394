package index

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func randomChars(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

type plantedSecrets struct {
	anthropic, aws, awsSecret, github, pem string
}

func newSecrets() plantedSecrets {
	r := rand.New(rand.NewPCG(7, 11))
	var pem strings.Builder
	pem.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for range 12 {
		pem.WriteString(randomChars(r, 64, alnum+"+/"))
		pem.WriteString("\n")
	}
	pem.WriteString("-----END RSA PRIVATE KEY-----")
	return plantedSecrets{
		anthropic: "sk-ant-api03-" + randomChars(r, 90, alnum+"-_"),
		aws:       "AKIA" + randomChars(r, 16, upperAlnum),
		awsSecret: randomChars(r, 40, alnum+"/+"),
		github:    "ghp_" + randomChars(r, 36, alnum),
		pem:       pem.String(),
	}
}

// needles are the parts of the secrets that must not appear anywhere:
// each whole secret and distinctive chunks of it (a partial leak counts).
func (p plantedSecrets) needles() map[string]string {
	out := map[string]string{
		"anthropic":         p.anthropic,
		"anthropic body":    p.anthropic[20:60],
		"aws":               p.aws,
		"aws body":          p.aws[4:],
		"aws secret":        p.awsSecret,
		"github":            p.github,
		"github body":       p.github[4:30],
		"pem line":          strings.Split(p.pem, "\n")[3],
		"pem line (escape)": strings.Split(p.pem, "\n")[5][:40],
	}
	return out
}

func TestSecretsNeverReachTheStore(t *testing.T) {
	claude := copyTree(t, sampleDir)
	sec := newSecrets()
	const sid = "55604662-cf2a-4331-851a-ec234028f8ca"
	path := filepath.Join(claude, "projects/-home-marco-projects-spotter", sid+".jsonl")
	line := func(m map[string]any) []byte {
		m["sessionId"] = sid
		m["timestamp"] = "2026-02-10T22:00:00.000Z"
		m["cwd"] = "/home/marco/projects/spotter"
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	var lines bytes.Buffer
	lines.Write(line(map[string]any{"type": "user", "uuid": "secret-0001", "message": map[string]any{"role": "user",
		"content": "please use my key " + sec.anthropic + " and AWS " + sec.aws + " with secret aws_secret_access_key=" + sec.awsSecret}}))
	lines.Write(line(map[string]any{"type": "assistant", "uuid": "secret-0002", "requestId": "req_secret",
		"message": map[string]any{"id": "msg_secret1", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_secret1", "name": "Bash",
				"input": map[string]any{"command": "export GITHUB_TOKEN=" + sec.github + " && gh auth status", "description": "check " + sec.aws}}}}}))
	lines.Write(line(map[string]any{"type": "assistant", "uuid": "secret-0003", "requestId": "req_secret2",
		"message": map[string]any{"id": "msg_secret2", "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_secret2", "name": "Write",
				"input": map[string]any{"file_path": "/tmp/" + sec.github + "/id_rsa", "content": sec.pem + "\n"}}}}}))
	lines.Write(line(map[string]any{"type": "user", "uuid": "secret-0004", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_secret1",
			"content": "Logged in with token " + sec.github + "\n" + sec.pem + "\nANTHROPIC_API_KEY=" + sec.anthropic}}}}))
	lines.Write(line(map[string]any{"type": "custom-title", "customTitle": "debugging " + sec.github}))
	lines.Write(line(map[string]any{"type": "last-prompt", "lastPrompt": "key " + sec.anthropic}))
	appendFile(t, path, lines.Bytes())

	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Sync(t.Context(), claude, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Redactions < 10 {
		t.Errorf("only %d redactions recorded", st.Redactions)
	}
	// Force every derived copy to exist: queue rows, session state, titles.
	sess, err := s.Session(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sess.Title, "[redacted:github]") {
		t.Errorf("title %q: the custom title was not redacted", sess.Title)
	}
	conv, err := s.Conversation(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	for _, e := range conv.Entries {
		for _, b := range e.Blocks {
			shown.WriteString(b.Text)
			shown.Write(b.ToolInput)
		}
	}
	for name, n := range sec.needles() {
		if strings.Contains(shown.String(), n) {
			t.Errorf("%s secret shown by Conversation", name)
		}
	}
	kinds := map[string]bool{}
	rows, err := s.r.QueryContext(t.Context(), `SELECT DISTINCT kind FROM redactions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		kinds[k] = true
	}
	rows.Close()
	for _, k := range []string{"anthropic", "aws", "github", "private_key"} {
		if !kinds[k] {
			t.Errorf("no %s redaction recorded (have %v)", k, kinds)
		}
	}
	// Stored text is compressed on disk (compress.go), so the byte scan
	// below cannot see inside it: scan every stored value inflated too.
	var inflated strings.Builder
	for _, q := range []string{
		`SELECT coalesce(text, '') || coalesce(data, '') FROM entries`,
		`SELECT coalesce(cairn_unz(detail), '') || coalesce(cairn_unz(state), '') || title || first_prompt FROM sessions`,
	} {
		rows, err := s.r.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			rows.Scan(&v)
			inflated.WriteString(v)
		}
		rows.Close()
	}
	for name, n := range sec.needles() {
		if strings.Contains(inflated.String(), n) {
			t.Errorf("%s secret found in a stored (inflated) value", name)
		}
	}
	if !strings.Contains(inflated.String(), "[redacted:") {
		t.Error("no placeholder in the inflated values: were the planted lines stored at all?")
	}
	walBytes, _ := os.ReadFile(filepath.Join(dir, DBName+"-wal"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dbBytes, err := os.ReadFile(filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	walAfter, _ := os.ReadFile(filepath.Join(dir, DBName+"-wal"))
	all := bytes.Join([][]byte{dbBytes, walBytes, walAfter}, nil)
	for name, n := range sec.needles() {
		if bytes.Contains(all, []byte(n)) {
			t.Errorf("%s secret found in the database files", name)
		}
		// JSON-escaped forms too (blocks are stored as JSON).
		esc, _ := json.Marshal(n)
		if bytes.Contains(all, esc[1:len(esc)-1]) {
			t.Errorf("%s secret found JSON-escaped in the database files", name)
		}
	}
	// That the planted lines were stored is the inflated values' check
	// above: on disk a placeholder is compressed (short values against a
	// dictionary that may hold part of it) and need not appear as it is.
}
