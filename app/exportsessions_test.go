package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
	"github.com/cairn-dev/cairn/transcripts"
)

// sessionKey is what must survive export → index: the session's identity,
// where it ran, counts, models and title (cli's
// TestExportSessionsRoundTripJSON compares every field `sessions --json`
// prints).
func sessionKey(s *transcripts.Session) string {
	return fmt.Sprintf("%s project=%s cwd=%s title=%q (%s) prompts=%d turns=%d tools=%d errors=%d entries=%d start=%s end=%s model=%s models=%v branches=%v tokens=%d subagents=%d",
		s.ID, s.ProjectPath, s.CWD, s.Title, s.TitleSource, s.Prompts, s.AssistantTurns, s.ToolCalls, s.Errors, s.Entries,
		s.Start.UTC().Format("15:04:05.000"), s.End.UTC().Format("15:04:05.000"), s.MainModel, sorted(s.Models), sorted(s.Branches), s.Usage.Total(), len(s.Subagents))
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func conversationKey(t *testing.T, st *index.Store, sid string) []string {
	t.Helper()
	c, err := st.Conversation(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(thread string, es []transcripts.Entry) {
		for _, e := range es {
			var bs []string
			for _, b := range e.Blocks {
				text := b.Text
				if b.Type == "image" || b.Type == "document" {
					text = b.MediaType // the payload is not kept: an export carries none
				}
				bs = append(bs, fmt.Sprintf("%s:%s:%s:%s:%q", b.Type, b.ToolName, b.ToolUseID, b.ToolInput, text))
			}
			// Each line's own context and model: a worktree's cwd, a
			// subagent's model, a branch switched mid-session.
			out = append(out, fmt.Sprintf("%s %s %s %s %s %v %q %s cwd=%s branch=%s version=%s model=%s agent=%s", thread, e.UUID, e.ParentUUID, e.Type, e.Subtype,
				e.IsSidechain, e.Text, strings.Join(bs, "|"), e.CWD, e.GitBranch, e.Version, e.Model, e.ResultAgentID))
		}
	}
	add("main", c.Entries)
	for id, es := range c.Agents {
		add(id, es)
	}
	sort.Strings(out)
	return out
}

// Sessions exported as Claude Code JSONL and indexed again give the same
// sessions and the same conversations: on the bundled sample and on the
// claude-code-log corpus (Claude Code 1.0 to 2.1, VS Code sessions).
func TestExportSessionsRoundTrip(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	t.Run("sample", func(t *testing.T) { roundTrip(t, sample) })
	t.Run("claude-code-log", func(t *testing.T) {
		dir := t.TempDir()
		if err := testutil.ExtractClaudeCodeLog(dir); err != nil {
			t.Fatal(err)
		}
		roundTrip(t, dir)
	})
	// Prompts queued while Claude worked, rejections, answers, a VS Code
	// prompt written again block by block (testdata/usersaid).
	t.Run("usersaid", func(t *testing.T) { roundTrip(t, filepath.Join(testutil.RepoRoot(), "testdata", "usersaid")) })
}

func roundTrip(t *testing.T, claude string) {
	ctx := context.Background()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "config.toml"), []byte("embedder.kind = \"none\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_CONFIG", "")
	a, err := app.Open(app.Paths{DataDir: src, ClaudeDir: claude}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Index(ctx, app.IndexOptions{StoreOnly: true}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := a.ExportSessions(ctx, out, "")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := a.Store.Sessions(ctx, index.SessionFilter{})
	if res.Sessions != len(orig) || res.Files < res.Sessions {
		t.Fatalf("exported %+v of %d sessions", res, len(orig))
	}
	if _, err := a.ExportSessions(ctx, out, ""); err == nil {
		t.Fatal("a second export over the same files must be refused")
	}

	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "config.toml"), []byte("embedder.kind = \"none\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := app.Open(app.Paths{DataDir: data, ClaudeDir: out}, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := b.Index(ctx, app.IndexOptions{StoreOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sync.BadLines > 0 {
		t.Fatalf("the export has %d unreadable lines: %v", r.Sync.BadLines, r.Sync.LineErrors)
	}
	again, _ := b.Store.Sessions(ctx, index.SessionFilter{})
	if len(again) != len(orig) {
		t.Fatalf("%d sessions after the round trip, want %d", len(again), len(orig))
	}
	byID := map[string]*transcripts.Session{}
	for _, s := range again {
		byID[s.ID] = s
	}
	for _, s := range orig {
		g := byID[s.ID]
		if g == nil {
			t.Errorf("session %s lost", s.ID)
			continue
		}
		if sessionKey(s) != sessionKey(g) {
			t.Errorf("session changed in the round trip:\n was %s\n now %s", sessionKey(s), sessionKey(g))
		}
		want, got := conversationKey(t, a.Store, s.ID), conversationKey(t, b.Store, s.ID)
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			for i := range min(len(want), len(got)) {
				if want[i] != got[i] {
					t.Errorf("session %s, first differing entry:\n was %s\n now %s", s.ID, want[i], got[i])
					break
				}
			}
			if len(want) != len(got) {
				t.Errorf("session %s: %d entries, was %d", s.ID, len(got), len(want))
			}
		}
	}
}
