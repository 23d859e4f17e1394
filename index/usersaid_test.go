package index

import (
	"context"
	json "github.com/go-json-experiment/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// Sessions of testdata/usersaid (real lines; see its README).
const (
	saidRejection = "7acd37a8-2745-4b58-a8a9-46164b22ad9e" // "use pnpm" on a rejected npm install; two queued prompts sent as prompts
	saidAnswer    = "4d5611e5-241a-462a-8d15-5122611a9569" // an AskUserQuestion answer
	saidQueued    = "258c7280-ae70-4798-800f-63464d01a85d" // two prompts that only ever were queued
	saidVSCode    = "9e953218-585f-4692-89df-9e0747a31c68" // a VS Code prompt written again block by block
)

func userSaidDir() string { return filepath.Join(testutil.RepoRoot(), "testdata", "usersaid") }

// userEntries are the user entries extraction reads of a session, as
// "source|text".
func userEntries(t *testing.T, s *Store, sid string) []string {
	t.Helper()
	es, err := s.Mem().Entries(context.Background(), sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Role == roleUser {
			out = append(out, e.Source+"|"+transcripts.OneLine(e.Text, 60))
		}
	}
	return out
}

// TestUserSaidReachesExtraction: a rejection's reason, an AskUserQuestion
// answer and a prompt that was only ever queued are user entries of their
// own source holding only the person's words; queued prompts later sent
// as prompts, and a VS Code prompt's blocks written again, are one entry.
func TestUserSaidReachesExtraction(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, copyTree(t, userSaidDir()), SyncOptions{})
	want := map[string][]string{
		saidRejection: {"|I have both Node and Python, but I don't want to make it on…", "|ok, fine, let's do vite", "rejection|use pnpm"},
		saidAnswer:    {"|Work on bead spotter-dov. Run bd show spotter-dov to see th…", "answer|main was clean; fix the issues"},
		saidQueued:    {"|Implement spotter-gqc", "queued|check again", "queued|new beads for the epic were added. tackle them", "|did you push?"},
		// A typed prompt's text is its row's: the IDE context, then the prompt.
		saidVSCode: {"|The user opened the file /Users/dain/workspace/danieldemmel…"},
	}
	for sid, w := range want {
		if got := userEntries(t, s, sid); strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("session %s: user entries\n%s\nwant\n%s", sid[:8], strings.Join(got, "\n"), strings.Join(w, "\n"))
		}
	}
	es, _ := s.Mem().Entries(context.Background(), saidRejection, 0, 0)
	for _, e := range es {
		if e.Source == transcripts.SaidRejection && e.ToolUse != "toolu_011v8qQUhd84LQXKGc9RVofA" {
			t.Errorf("the rejection names call %q, want the npm install call", e.ToolUse)
		}
	}
	prompts := map[string]int{saidRejection: 2, saidAnswer: 1, saidQueued: 4, saidVSCode: 1}
	for sid, n := range prompts {
		ss, err := s.Session(context.Background(), sid)
		if err != nil {
			t.Fatal(err)
		}
		if ss.Prompts != n {
			t.Errorf("session %s counts %d prompts, want %d", sid[:8], ss.Prompts, n)
		}
	}
	// The VS Code prompt's repeated blocks are not stored at all.
	if n := count(t, s, `SELECT count(*) FROM entries e JOIN sessions s ON s.id = e.session WHERE s.sid = ? AND e.type = 'user'`, saidVSCode); n != 1 {
		t.Errorf("%d user rows of the VS Code prompt, want 1", n)
	}
}

// TestUserSaidSearchedAsTheirs: the person's words in a rejection, an
// answer and a queued prompt are found as the user's, with only their
// words as the text; a queued prompt sent later is found once.
func TestUserSaidSearchedAsTheirs(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	if _, err := s.Update(ctx, copyTree(t, userSaidDir()), UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	for _, c := range []struct{ query, text string }{
		{"pnpm", "use pnpm"},
		{"main was clean", "main was clean; fix the issues"},
		{"tackle", "new beads for the epic were added. tackle them"},
		{"vite", "ok, fine, let's do vite"},
	} {
		resp, err := sr.Search(ctx, SearchQuery{Text: c.query, Mode: ModeText, Roles: []string{roleUser}, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range resp.Results {
			if r.Kind == DocMessage && count(t, s, `SELECT count(*) FROM entries WHERE uuid = ? AND text = ?`, r.UUID, c.text) == 1 {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q: %d user hits with the text %q, want 1 (%+v)", c.query, n, c.text, resp.Results)
		}
	}
}

// TestUserSaidUpgrade: a store written before the person's words were
// read everywhere (no rows for queued prompts, a rejection stored as tool
// output, counts that missed them) is flagged by its migration and
// recounted by its next full sync; a hook's sync (one project) leaves it
// to that one.
func TestUserSaidUpgrade(t *testing.T) {
	s, dir := openStore(t)
	claude := copyTree(t, userSaidDir())
	mustSync(t, s, claude, SyncOptions{})
	ctx := context.Background()
	// The rows and counts of the build before.
	var uuid, full string
	var data []byte
	if err := s.r.QueryRowContext(ctx, `SELECT uuid, data FROM entries WHERE role = 'user' AND type = 'user' AND text = 'use pnpm'`).Scan(&uuid, &data); err != nil {
		t.Fatal(err)
	}
	var se storedEntry
	if err := json.Unmarshal(data, &se); err != nil || len(se.Blocks) != 1 {
		t.Fatalf("rejection row data %s: %v", data, err)
	}
	full, se.Blocks[0].Text = se.Blocks[0].Text, ""
	old := se.marshal()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE entries_raw SET role = ?, block = ?, text = ?, data = ? WHERE uuid = cairn_pack(?)`, []any{packKind(roleTool), packKind("tool_result"), full, string(old), uuid}},
		{`DELETE FROM entries_raw WHERE type = ?`, []any{packKind("queue-operation")}},
		{`UPDATE sessions SET prompts = 99`, nil},
	} {
		if _, err := s.w.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	s = reopenAfter(t, s, dir, `PRAGMA user_version = 10`)
	if !s.recountDue(ctx) {
		t.Fatal("the migration did not flag the store for a recount")
	}
	// Read at once as the person's words, before any sync.
	if got := userEntries(t, s, saidRejection); len(got) != 3 || got[2] != "rejection|use pnpm" {
		t.Errorf("before the recount, the rejection reads as %q", got)
	}
	mustSync(t, s, claude, SyncOptions{Projects: []string{"-Users-dain-workspace-JSSoundRecorder"}})
	if !s.recountDue(ctx) {
		t.Fatal("a sync limited to a project recounted")
	}
	mustSync(t, s, claude, SyncOptions{})
	if s.recountDue(ctx) {
		t.Fatal("the full sync left the recount flag")
	}
	// The queued prompts' rows are stored after the others (entries are
	// read in the order they were stored: extraction's cursor follows it).
	if got := userEntries(t, s, saidQueued); strings.Join(got, "\n") != "|Implement spotter-gqc\n|did you push?\nqueued|check again\nqueued|new beads for the epic were added. tackle them" {
		t.Errorf("after the recount, the queued session's user entries are %q", got)
	}
	// The conversation shows them where they were typed.
	c, err := s.Conversation(ctx, saidQueued)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range c.Entries {
		if q := transcripts.QueuedText(&e); q != "" {
			order = append(order, "queued "+q)
		} else if transcripts.IsRealPrompt(&e) {
			order = append(order, e.PromptText())
		}
	}
	if strings.Join(order, "|") != "Implement spotter-gqc|queued check again|queued new beads for the epic were added. tackle them|did you push?" {
		t.Errorf("conversation order after the recount: %q", order)
	}
	for sid, n := range map[string]int{saidRejection: 2, saidAnswer: 1, saidQueued: 4, saidVSCode: 1} {
		if ss, err := s.Session(ctx, sid); err != nil || ss.Prompts != n {
			t.Errorf("session %s: %v prompts after the recount (%v), want %d", sid[:8], ss, err, n)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM entries WHERE uuid = ? AND role = 'user' AND text = 'use pnpm'`, uuid); n != 1 {
		t.Error("the recount did not make the rejection's row the person's words")
	}
	// Once: a second full sync is an ordinary one.
	if st := mustSync(t, s, claude, SyncOptions{}); st.EntriesAdded != 0 {
		t.Errorf("a sync after the recount added %d entries", st.EntriesAdded)
	}
}

// TestQueuedPromptSentLater: a prompt queued while Claude worked is the
// person's words until a later sync reads the same prompt sent as one of
// its own; then the queued row goes (from search too) and the prompt
// counts once.
func TestQueuedPromptSentLater(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	claude := copyTree(t, userSaidDir())
	path := filepath.Join(claude, "projects", "-Users-dain-workspace-JSSoundRecorder", saidRejection+".jsonl")
	all, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	// Up to the queue line of "ok, fine, let's do vite".
	if err := os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if got := userEntries(t, s, saidRejection); strings.Join(got, "|") != "|I have both Node and Python, but I don't want to make it on…|queued|ok, fine, let's do vite" {
		t.Fatalf("before the prompt was sent: %q", got)
	}
	appendFile(t, path, []byte(strings.Join(lines[5:], "")))
	if _, err := s.Update(ctx, claude, UpdateOptions{NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if got := userEntries(t, s, saidRejection); strings.Join(got, "|") != "|I have both Node and Python, but I don't want to make it on…||ok, fine, let's do vite|rejection|use pnpm" {
		t.Errorf("after the prompt was sent: %q", got)
	}
	if ss, err := s.Session(ctx, saidRejection); err != nil || ss.Prompts != 2 {
		t.Errorf("prompts after the prompt was sent: %+v, %v", ss, err)
	}
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	resp, err := sr.Search(ctx, SearchQuery{Text: "vite", Mode: ModeText, Roles: []string{roleUser}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 {
		t.Errorf("%d user hits for the prompt, want 1: %+v", len(resp.Results), resp.Results)
	}
}
