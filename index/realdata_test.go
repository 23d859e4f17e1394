package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/transcripts"
)

// reducedDir holds lines of the claude-code-log corpus (MIT): see
// testdata/reduced/README.md.
const reducedDir = "../testdata/reduced"

const vscodeSession = "9e953218-585f-4692-89df-9e0747a31c68"

// TestSummaryResolvesWithinItsProject: a summary line names the
// conversation it describes by a leaf uuid; it is looked for in its own
// project's files, never in another project's.
func TestSummaryResolvesWithinItsProject(t *testing.T) {
	claude := copyTree(t, reducedDir)
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	var leaf, got string
	// The uuid of the session's last line.
	if err := s.r.QueryRowContext(t.Context(), `SELECT e.uuid FROM entries e JOIN sessions ss ON ss.id = e.session
		WHERE ss.sid = ? ORDER BY e.id DESC LIMIT 1`, vscodeSession).Scan(&leaf); err != nil {
		t.Fatal(err)
	}
	title := func() string {
		t.Helper()
		if err := s.r.QueryRowContext(t.Context(), `SELECT title FROM sessions WHERE sid = ?`, vscodeSession).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	first := title()
	summary := func(project, text string) {
		t.Helper()
		p := filepath.Join(claude, "projects", project, "0e9d1c7e-0000-4000-8000-000000000000.jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		line := `{"type":"summary","summary":"` + text + `","leafUuid":"` + leaf + `"}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary("-Users-someone-else-project", "Another project's summary")
	mustSync(t, s, claude, SyncOptions{})
	if title() != first {
		t.Fatalf("title %q: taken from another project's summary", got)
	}
	summary("-Users-dain-workspace-danieldemmel-me-next", "Tokenizer submodule")
	mustSync(t, s, claude, SyncOptions{})
	if title() != "Tokenizer submodule" {
		t.Fatalf("title %q: the project's own summary is not used", got)
	}
	// The in-memory reader agrees.
	for _, ss := range scan(t, claude).Sessions {
		if ss.ID == vscodeSession && ss.Title != "Tokenizer submodule" {
			t.Errorf("transcriptstest.Scan title %q", ss.Title)
		}
	}
}

// TestVSCodePromptsAreStoredAsTheUsers: prompts typed in the VS Code
// extension (an IDE context block, then the prompt) are stored with the
// user role, so `search --role user` finds them.
func TestVSCodePromptsAreStoredAsTheUsers(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, reducedDir, SyncOptions{})
	n := count(t, s, `SELECT count(*) FROM entries e JOIN sessions ss ON ss.id = e.session WHERE ss.sid = ? AND e.role = 'user'`, vscodeSession)
	if n != 4 {
		t.Fatalf("%d entries with the user role, want 4", n)
	}
	c, err := s.Conversation(t.Context(), "9e953218")
	if err != nil {
		t.Fatal(err)
	}
	if ide := c.Entries[0].IDEContext(); len(ide) != 1 || !transcripts.IsRealPrompt(&c.Entries[0]) {
		t.Fatalf("stored VS Code prompt: context %q", ide)
	}
}

// TestQuietLastLineIsSyncedOnce: a complete last line without its newline
// is stored once the file has been quiet, even though the file did not
// change since the sync that left it waiting, and not again when the
// newline arrives.
func TestQuietLastLineIsSyncedOnce(t *testing.T) {
	defer func(d time.Duration) { transcripts.QuietPeriod = d }(transcripts.QuietPeriod)
	// The first sync must end while the file is still fresh: 300 ms of
	// quiet, doubled until a sync fits in it (under the race detector on
	// a loaded machine one took longer, found the file quiet already and
	// stored 21: the premise, not the rule, had failed).
	var claude, path string
	var s *Store
	for period := 300 * time.Millisecond; ; period *= 2 {
		transcripts.QuietPeriod = period
		claude = copyTree(t, reducedDir)
		path = filepath.Join(claude, "projects", "-Users-dain-workspace-danieldemmel-me-next", vscodeSession+".jsonl")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.TrimSuffix(string(b), "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		written := time.Now()
		s, _ = openStore(t)
		mustSync(t, s, claude, SyncOptions{})
		if time.Since(written) < period {
			break
		}
		if period > 5*time.Second {
			t.Fatalf("a sync of the reduced tree took over %v: cannot catch the file fresh", period)
		}
	}
	entries := func() int {
		return count(t, s, `SELECT count(*) FROM entries e JOIN sessions ss ON ss.id = e.session WHERE ss.sid = ?`, vscodeSession)
	}
	if n := entries(); n != 20 {
		t.Fatalf("%d entries while the file is fresh, want 20 (the last line waits)", n)
	}
	time.Sleep(2 * transcripts.QuietPeriod)
	mustSync(t, s, claude, SyncOptions{})
	if n := entries(); n != 21 {
		t.Fatalf("%d entries once quiet, want 21", n)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.WriteString("\n")
	f.Close()
	st := mustSync(t, s, claude, SyncOptions{})
	if n := entries(); n != 21 || st.BadLines != 0 || st.Restarts != 0 {
		t.Fatalf("after the newline: %d entries, %d bad lines, %d restarts", n, st.BadLines, st.Restarts)
	}
}

// TestResumedHistoryIsStoredOnce: history a resume wrote again (new uuids;
// the same timestamps, message ids and tool-use ids) is not stored, counted
// or searched twice.
func TestResumedHistoryIsStoredOnce(t *testing.T) {
	claude := copyTree(t, reducedDir)
	path := filepath.Join(claude, "projects", "-Users-dain-workspace-danieldemmel-me-next", vscodeSession+".jsonl")
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	type counts struct{ prompts, turns, tools, entries, rows int }
	get := func() counts {
		var c counts
		if err := s.r.QueryRowContext(t.Context(), `SELECT prompts, turns, tool_calls, entries FROM sessions WHERE sid = ?`, vscodeSession).
			Scan(&c.prompts, &c.turns, &c.tools, &c.entries); err != nil {
			t.Fatal(err)
		}
		c.rows = count(t, s, `SELECT count(*) FROM entries e JOIN sessions ss ON ss.id = e.session WHERE ss.sid = ?`, vscodeSession)
		return c
	}
	before := get()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var replay strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[6:] {
		// The same line with other uuids.
		l = strings.Replace(l, `"uuid":"`, `"uuid":"r`, 1)
		l = strings.Replace(l, `"parentUuid":"`, `"parentUuid":"r`, 1)
		replay.WriteString(l + "\n")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.WriteString(replay.String())
	f.Close()
	st := mustSync(t, s, claude, SyncOptions{})
	if after := get(); after != before || st.Duplicates != 15 {
		t.Fatalf("after a replay: %+v, before %+v (%d duplicates)", after, before, st.Duplicates)
	}
}

// TestIDEContextIsSearchedWithoutTags: the words of the IDE context are
// searchable, its tags are not indexed (they showed up in snippets).
func TestIDEContextIsSearchedWithoutTags(t *testing.T) {
	s, _ := openStore(t)
	mustSync(t, s, reducedDir, SyncOptions{})
	if n := count(t, s, `SELECT count(*) FROM entries WHERE role = 'user' AND text LIKE '%ide_opened_file%'`); n != 0 {
		t.Fatalf("%d stored prompts carry <ide_opened_file> tags in their searchable text", n)
	}
	if n := count(t, s, `SELECT count(*) FROM entries WHERE role = 'user' AND text LIKE 'The user opened the file %'`); n != 2 {
		t.Fatalf("%d prompts with the IDE context's words, want 2", n)
	}
}

// TestStoredSourceNotes: the store tells a session recorded in another
// session's file, and one whose main file is empty, from one whose main
// file is gone, as transcriptstest.Scan does.
func TestStoredSourceNotes(t *testing.T) {
	claude := copyTree(t, reducedDir)
	dir := filepath.Join(claude, "projects", "-Users-dain-workspace-danieldemmel-me-next")
	guest := filepath.Join(dir, "4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl")
	b, err := os.ReadFile(guest)
	if err != nil {
		t.Fatal(err)
	}
	// The guest's lines in the host's file; the guest's own file is gone.
	f, _ := os.OpenFile(filepath.Join(dir, vscodeSession+".jsonl"), os.O_APPEND|os.O_WRONLY, 0o644)
	_, _ = f.Write(b)
	f.Close()
	if err := os.Remove(guest); err != nil {
		t.Fatal(err)
	}
	// A session whose main file is empty and whose entries are in a
	// legacy agent file (2.0.x "Warmup").
	empty := "7864f562-717b-4d70-a1cb-b588f7826a1a"
	if err := os.WriteFile(filepath.Join(dir, empty+".jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	agent := `{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/Users/dain/workspace/danieldemmel.me-next","sessionId":"` + empty +
		`","version":"2.0.28","gitBranch":"main","agentId":"3ea04571","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"6b1f1d34-1cd4-4a9e-a4c4-2b4b1b0f5b11","timestamp":"2025-10-29T16:03:09.377Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "agent-3ea04571.jsonl"), []byte(agent), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	ss, err := s.Sessions(t.Context(), SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, x := range ss {
		notes[x.ID[:8]] = x.SourceNote()
		if x.ID[:8] == "4379d1bf" && x.Partial() {
			t.Error("a session recorded in another's file is called partial")
		}
	}
	want := map[string]string{
		"9e953218": "",
		"4379d1bf": "recorded in the file of session " + vscodeSession,
		"7864f562": "main transcript empty; only subagent files hold entries",
	}
	for id, note := range want {
		if notes[id] != note {
			t.Errorf("%s: note %q, want %q", id, notes[id], note)
		}
	}
	// transcriptstest.Scan says the same.
	for _, x := range scan(t, claude).Sessions {
		if w, ok := want[x.ID[:8]]; ok && x.SourceNote() != w {
			t.Errorf("Scan %s: note %q, want %q", x.ID[:8], x.SourceNote(), w)
		}
	}
}

// TestRecountFixesSessionsAnOlderBuildCounted: a store whose sessions were
// aggregated by an older build's rules (here: a VS Code session counted
// with 2 prompts, the IDE prompts stored as system text) gets them counted
// afresh by a Recount sync, without storing any line twice; a session with
// a file gone keeps what it has.
func TestRecountFixesSessionsAnOlderBuildCounted(t *testing.T) {
	claude := copyTree(t, reducedDir)
	s, _ := openStore(t)
	mustSync(t, s, claude, SyncOptions{})
	want := storeSessions(t, s)
	rows := count(t, s, `SELECT count(*) FROM entries`)
	// What an older build stored.
	old := func(sid string) {
		var id int64
		var blob []byte
		if err := s.r.QueryRowContext(t.Context(), `SELECT id, cairn_unz(state) FROM sessions WHERE sid = ?`, sid).Scan(&id, &blob); err != nil {
			t.Fatal(err)
		}
		st, err := transcripts.UnmarshalState(blob)
		if err != nil {
			t.Fatal(err)
		}
		st.Session.Prompts, st.Session.FirstPrompt = 2, "OK, I created a repo"
		st.Replays, st.MainModels, st.MainCWD = nil, nil, ""
		b, _ := transcripts.MarshalState(st)
		if _, err := s.w.ExecContext(t.Context(), `UPDATE sessions SET state = ?, prompts = 2, first_prompt = 'OK, I created a repo', title = 'OK, I created a repo' WHERE id = ?`, packBlob(b), id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.w.ExecContext(t.Context(), `UPDATE entries_raw SET role = ? WHERE session = ? AND role = ? AND cairn_unz(text) LIKE 'The user opened%'`, packKind(roleSystem), id, packKind(roleUser)); err != nil {
			t.Fatal(err)
		}
	}
	old(vscodeSession)
	old("4379d1bf-ccb1-414e-a856-9791b73f3af2")
	// The image session's file is gone: it is left as it is.
	if err := os.Remove(filepath.Join(claude, "projects", "-Users-dain-workspace-danieldemmel-me-next", "4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl")); err != nil {
		t.Fatal(err)
	}
	mustSync(t, s, claude, SyncOptions{Recount: true})
	got := storeSessions(t, s)
	for _, g := range got {
		switch g.ID {
		case vscodeSession:
			for _, w := range want {
				if w.ID == g.ID && (g.Prompts != w.Prompts || g.Title != w.Title || g.ToolCalls != w.ToolCalls || g.AssistantTurns != w.AssistantTurns || g.Usage != w.Usage) {
					t.Errorf("recounted: prompts %d title %q; want %d %q", g.Prompts, g.Title, w.Prompts, w.Title)
				}
			}
		case "4379d1bf-ccb1-414e-a856-9791b73f3af2":
			if g.Prompts != 2 {
				t.Errorf("a session with its file gone was recounted: %d prompts", g.Prompts)
			}
		}
	}
	if n := count(t, s, `SELECT count(*) FROM entries`); n != rows {
		t.Errorf("%d entries after the recount, %d before", n, rows)
	}
	if n := count(t, s, `SELECT count(*) FROM entries e JOIN sessions ss ON ss.id = e.session WHERE ss.sid = ? AND e.role = 'user'`, vscodeSession); n != 4 {
		t.Errorf("%d user rows after the recount, want 4", n)
	}
}
