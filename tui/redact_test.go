package tui

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

// Fake secrets are made at run time (no provider-shaped credential is
// committed), in the shapes the redact tests plant.
const secretAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func fakeSecret(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	// Real keys mix cases and digits.
	b[0], b[1], b[2] = 'Q', 'q', '7'
	return string(b)
}

// plantedSecrets are file texts each holding one secret, and the secret.
func plantedSecrets() (texts, secrets []string) {
	r := rand.New(rand.NewPCG(29, 3))
	add := func(text, secret string) {
		texts = append(texts, strings.ReplaceAll(text, "{S}", secret))
		secrets = append(secrets, secret)
	}
	add("ANTHROPIC_API_KEY={S}", "sk-ant-api03-"+fakeSecret(r, secretAlnum+"-_", 93)+"AA")
	add(`client = OpenAI(api_key="{S}")`, "sk-proj-"+fakeSecret(r, secretAlnum+"-_", 120))
	add("aws_access_key_id = {S}", "AKIA"+strings.ToUpper(fakeSecret(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)))
	add("aws_secret_access_key = {S}", fakeSecret(r, secretAlnum+"+/", 40))
	add("GH_TOKEN: {S}", "ghp_"+fakeSecret(r, secretAlnum, 36))
	add("SLACK_TOKEN='{S}'", "xoxb-1234567890-1234567890123-"+fakeSecret(r, secretAlnum, 24))
	add("Stripe.api_key = '{S}'", "sk_live_"+fakeSecret(r, secretAlnum, 24))
	add("DATABASE_URL=postgres://admin:{S}@db.internal:5432/app", "S3cr3t-Pa55word")
	add("DB_PASSWORD={S}", "hunter2hunter2hunter2")
	var pem []string
	for range 8 {
		pem = append(pem, fakeSecret(r, secretAlnum+"+/", 64))
	}
	body := strings.Join(pem, "\n")
	add("-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v1.4.11 (GNU/Linux)\n\n{S}\n-----END PGP PRIVATE KEY BLOCK-----", body)
	body = strings.Join(pem[:6], "\n")
	add("-----BEGIN RSA PRIVATE KEY-----\n{S}\n-----END RSA PRIVATE KEY-----", body)
	return texts, secrets
}

// Issue 29 item 3: an expanded Write or Edit is read whole from the
// transcript (the store keeps only its start); what it shows must be
// redacted as everything the store keeps is. Secrets are planted far
// into a written file and an edit, where only the transcript has them.
func TestReaderFileChangesRedacted(t *testing.T) {
	texts, secrets := plantedSecrets()
	filler := strings.Repeat("    // ordinary code that pushes the secrets past what the store keeps\n", 40)
	const sid = "7d9c4c1e-2b8a-4f4e-9a55-2f1b9c0d2929"
	cwd := "/home/u/proj"
	lines := []map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": sid, "cwd": cwd, "timestamp": "2026-03-01T10:00:00Z",
			"message": map[string]any{"role": "user", "content": "write the config"}},
		{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid, "cwd": cwd, "timestamp": "2026-03-01T10:00:01Z",
			"message": map[string]any{"role": "assistant", "model": "claude-x", "id": "msg_1", "content": []any{
				map[string]any{"type": "tool_use", "id": "toolu_write", "name": "Write", "input": map[string]any{
					"file_path": cwd + "/config.txt", "content": filler + strings.Join(texts, "\n") + "\nEND-OF-WRITE\n"}},
			}}},
		{"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": sid, "cwd": cwd, "timestamp": "2026-03-01T10:00:02Z",
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_write", "content": "File created"}}}},
		{"type": "assistant", "uuid": "a2", "parentUuid": "u2", "sessionId": sid, "cwd": cwd, "timestamp": "2026-03-01T10:00:03Z",
			"message": map[string]any{"role": "assistant", "model": "claude-x", "id": "msg_2", "content": []any{
				map[string]any{"type": "tool_use", "id": "toolu_edit", "name": "Edit", "input": map[string]any{
					"file_path": cwd + "/config.txt", "old_string": filler + strings.Join(texts[:6], "\n") + "\nEND-OF-OLD",
					"new_string": filler + strings.Join(texts[6:], "\n") + "\nEND-OF-NEW"}},
			}}},
		{"type": "user", "uuid": "u3", "parentUuid": "a2", "sessionId": sid, "cwd": cwd, "timestamp": "2026-03-01T10:00:04Z",
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_edit", "content": "File edited"}}}},
	}
	claude := t.TempDir()
	dir := filepath.Join(claude, "projects", "-home-u-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := index.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Sync(context.Background(), claude, index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}

	m := newTestModel(t, 200, 60, st, nil)
	for _, c := range []struct{ uuid, end string }{{"a1", "END-OF-WRITE"}, {"a2", "END-OF-NEW"}} {
		send(t, m, openSessionMsg{id: sid, uuid: c.uuid})
		screen(m)
		if it := m.reader.items[m.reader.cur]; it.kind != kTool {
			t.Fatalf("cursor on kind %d, want the tool call of %s", it.kind, c.uuid)
		}
		if len(m.reader.fullInputs) == 0 {
			t.Fatal("the whole inputs were not read from the transcript")
		}
		press(t, m, "enter")
		got := strings.Join(m.reader.lines(m.reader.cur), "\n")
		// The whole input is shown (its end), with the secrets' places.
		mustContain(t, got, c.end, "[redacted:")
		for _, s := range secrets {
			for _, part := range strings.Split(s, "\n") {
				for i := 0; i+12 <= len(part); i += 6 {
					if strings.Contains(got, part[i:i+12]) {
						t.Fatalf("%s: the view shows part %q of a planted secret:\n%s", c.uuid, part[i:i+12], got)
					}
				}
			}
		}
	}
}
