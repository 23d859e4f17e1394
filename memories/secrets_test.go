package memories

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Planted secrets (fake, but shaped like real ones).
var planted = []string{
	"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01234567-AbCdEfAA",
	"ghp_1234567890abcdefghijABCDEFGHIJ123456",
	"AKIAIOSFODNN7EXAMPLF",
	"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
}

func containsSecret(s string) string {
	for _, p := range planted {
		if strings.Contains(s, p) {
			return p
		}
	}
	return ""
}

// TestNoSecretReachesMemoriesSummariesDraftsOrSync plants secrets in a
// transcript, a hand-added memory, a draft and an import, then checks every
// output cairn writes.
func TestNoSecretReachesMemoriesSummariesDraftsOrSync(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	claude := t.TempDir()
	proj := t.TempDir()
	tr := newTranscript("41111111-2222-4333-8444-555555555555", proj)
	tr.user("Always export ANTHROPIC_API_KEY=" + planted[0] + " before running the evals.")
	tr.user("Remember that the deploy token is " + planted[1] + " for the CI pipeline.")
	tr.assistant("The upload failed because the key `" + planted[2] + "` in `config/aws.yml` had expired. Fixed by rotating it with `aws iam create-access-key`.")
	tr.write(t, s, claude)
	res, err := s.Curator.Extract(ctx, ExtractOptions{Summaries: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposed) < 3 {
		t.Fatalf("expected the planted lines to be proposed (redacted): %d", len(res.Proposed))
	}
	r := mustAdd(t, s, NewMemory{Project: proj, Type: Fact, Content: "Slack bot token " + planted[3] + " posts to #deploys", Status: Approved})
	if !strings.Contains(r.Memory.Content, "[redacted:") {
		t.Fatalf("not redacted: %q", r.Memory.Content)
	}
	d, err := s.Drafts.AddDraft(ctx, tr.sid, "## Learned\n- The staging key is "+planted[1]+" and it rotates monthly\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Drafts.ApproveDraft(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	ms, _ := s.List(ctx, Filter{})
	for _, m := range ms {
		if _, err := s.Curator.SetStatus(ctx, m.ID, Approved); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Sync.Sync(ctx, SyncOptions{Project: proj}); err != nil {
		t.Fatal(err)
	}
	syn, err := s.Drafts.Synthesize(ctx, proj, false)
	if err != nil {
		t.Fatal(err)
	}
	var exp, md bytes.Buffer
	s.Sync.ExportJSONL(ctx, &exp)
	s.Sync.ExportMarkdown(ctx, &md)
	synced, _ := os.ReadFile(filepath.Join(proj, "CLAUDE.md"))
	sum, _ := s.Drafts.Summary(ctx, tr.sid)
	outputs := map[string]string{"export": exp.String(), "markdown": md.String(), "CLAUDE.md": string(synced),
		"synthesis": syn.Markdown, "summary": sum.Markdown}
	ms, _ = s.List(ctx, Filter{})
	for _, m := range ms {
		outputs["memory "+m.ID] = m.Content + strings.Join(m.Tags, " ")
	}
	ds, _ := s.Drafts.Drafts(ctx, "all")
	for _, d := range ds {
		outputs["draft "+d.ID] = d.Markdown
	}
	for name, out := range outputs {
		if p := containsSecret(out); p != "" {
			t.Errorf("%s holds the planted secret %s", name, p[:8])
		}
	}
	if !strings.Contains(string(synced), "[redacted:") {
		t.Fatalf("synced file lost the redacted memories:\n%s", synced)
	}
	// Import redacts too.
	s2 := newService(t)
	in := `{"kind":"cairn-export","version":1}` + "\n" +
		`{"kind":"memory","memory":{"id":"m-0000abcd","type":"fact","content":"key ` + planted[1] + `","importance":3,"status":"approved","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}}` + "\n"
	if _, err := s2.Sync.Import(ctx, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	m, _ := s2.Get(ctx, "m-0000abcd")
	if containsSecret(m.Content) != "" {
		t.Fatal("import kept a secret")
	}
}
