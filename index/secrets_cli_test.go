package index

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// Passwords given as command-line flags (issue 19: "mysql -u root -pPASSWORD
// is stored, searchable, shown and exported in full"): none may reach the
// database, its WAL, the full-text index's files or search.
func TestCommandLinePasswordsNeverReachTheStore(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 5))
	pw := func() string { return "Pw" + randomChars(r, 14, alnum) }
	secrets := map[string]string{}
	var cmds []string
	for name, form := range map[string]string{
		"mysql -p":        "mysql -u root -p%s mydb",
		"mysql -p'…'":     "mysql -u root -p'%s' mydb",
		"--password=":     "mysqldump --password=%s --all-databases",
		"PGPASSWORD=":     "PGPASSWORD=%s psql -h db -U app",
		"sshpass -p":      "sshpass -p '%s' ssh deploy@host",
		"sshpass -p bare": "sshpass -p %s scp a host:",
	} {
		p := pw()
		secrets[name] = p
		cmds = append(cmds, strings.Replace(form, "%s", p, 1))
	}
	claude := copyTree(t, sampleDir)
	const sid = "55604662-cf2a-4331-851a-ec234028f8ca"
	path := filepath.Join(claude, "projects/-home-marco-projects-spotter", sid+".jsonl")
	var lines bytes.Buffer
	for i, c := range cmds {
		m := map[string]any{"type": "assistant", "uuid": "clipw-000" + string(rune('a'+i)), "sessionId": sid,
			"timestamp": "2026-02-10T22:00:00.000Z", "cwd": "/home/marco/projects/spotter",
			"message": map[string]any{"id": "msg_clipw" + string(rune('a'+i)), "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{
					map[string]any{"type": "text", "text": "run this: " + c},
					map[string]any{"type": "tool_use", "id": "toolu_clipw" + string(rune('a'+i)), "name": "Bash", "input": map[string]any{"command": c}},
				}}}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	appendFile(t, path, lines.Bytes())
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(t.Context(), claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
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
	if !strings.Contains(shown.String(), "[redacted:cli_password]") {
		t.Error("no cli_password placeholder shown: were the lines stored?")
	}
	sr, err := s.OpenSearcher(t.Context(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range secrets {
		if strings.Contains(shown.String(), p) {
			t.Errorf("%s: the password is shown by Conversation", name)
		}
		hits, n, err := sr.FTS.Search(p, ftsapi.Filter{}, 5)
		if err != nil || n > 0 || len(hits) > 0 {
			t.Errorf("%s: the password is a full-text term (%d hits, %v)", name, n, err)
		}
	}
	sr.Close()
	walBytes, _ := os.ReadFile(filepath.Join(dir, DBName+"-wal"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var all [][]byte
	all = append(all, walBytes)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			all = append(all, b)
		}
		return nil
	})
	blob := bytes.Join(all, nil)
	for name, p := range secrets {
		if bytes.Contains(blob, []byte(p)) {
			t.Errorf("%s: the password is in the data dir's files (database, WAL, bleve, vectors)", name)
		}
	}
}
