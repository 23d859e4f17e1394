package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/internal/transcriptstest"
	"github.com/cairn-dev/cairn/transcripts"
)

func fmtAny(v any) string { return fmt.Sprintf("%+v", v) }

func TestSyncMatchesScan(t *testing.T) {
	claude := copyTree(t, sampleDir)
	s, _ := openStore(t)
	st := mustSync(t, s, claude, SyncOptions{})
	ref := scan(t, claude)
	if st.FilesNew != ref.Files || st.FilesScanned != ref.Files {
		t.Errorf("files: new %d scanned %d, scan read %d", st.FilesNew, st.FilesScanned, ref.Files)
	}
	if st.BytesRead != ref.Bytes {
		t.Errorf("bytes read %d, scan %d", st.BytesRead, ref.Bytes)
	}
	if st.BadLines != ref.BadLines {
		t.Errorf("bad lines %d, scan %d", st.BadLines, ref.BadLines)
	}
	sameSessions(t, storeSessions(t, s), ref.Sessions)

	projects, err := s.Projects(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The scan lists folders; the store one project per repository
	// (ProjectOf), holding its folders' sessions and bytes.
	var want []transcripts.ProjectSummary
	for _, w := range ref.Projects {
		repo := ProjectOf(w.Path)
		i := slices.IndexFunc(want, func(p transcripts.ProjectSummary) bool { return p.Path == repo })
		if i < 0 {
			want = append(want, transcripts.ProjectSummary{Path: repo, Name: w.Name})
			i = len(want) - 1
		}
		p := &want[i]
		p.Sessions += w.Sessions
		p.Size += w.Size
		if w.LastUsed.After(p.LastUsed) {
			p.LastUsed = w.LastUsed
		}
		if w.Path != repo {
			p.Folders = append(p.Folders, w.Path)
		}
	}
	if len(projects) != len(want) {
		t.Fatalf("projects: store %d, scan %d grouped by repository", len(projects), len(want))
	}
	for i := range projects {
		g := projects[i]
		j := slices.IndexFunc(want, func(p transcripts.ProjectSummary) bool { return p.Path == g.Path })
		if j < 0 {
			t.Errorf("project %s is not in the scan", g.Path)
			continue
		}
		w := want[j]
		slices.Sort(g.Folders)
		slices.Sort(w.Folders)
		if g.Sessions != w.Sessions || !g.LastUsed.Equal(w.LastUsed) || g.Size != w.Size || !slices.Equal(g.Folders, w.Folders) {
			t.Errorf("project %s: store %+v, scan %+v", g.Path, g, w)
		}
	}
	stats, err := s.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sessions != len(ref.Sessions) || stats.Entries == 0 || stats.FTSQueue < stats.Entries/2 || stats.DBBytes == 0 {
		t.Errorf("stats %+v", stats)
	}
	t.Logf("sample: %d entries, %d sessions, %d bytes of db for %d bytes of transcripts", stats.Entries, stats.Sessions, stats.DBBytes, ref.Bytes)
}

func TestSecondSyncReadsNothing(t *testing.T) {
	claude, s := syncedSample(t)
	st := mustSync(t, s, claude, SyncOptions{})
	if st.BytesRead != 0 || st.FilesChanged != 0 || st.FilesNew != 0 || st.EntriesAdded != 0 || st.Transactions != 0 {
		t.Fatalf("second sync did work: %+v", st)
	}
}

func TestConversationMatchesTranscripts(t *testing.T) {
	claude, s := syncedSample(t)
	tree, err := transcripts.Discover(claude)
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range storeSessions(t, s) {
		want, err := transcriptstest.LoadConversation(context.Background(), tree, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Conversation(context.Background(), sess.ID[:8])
		if err != nil {
			t.Fatal(err)
		}
		sameConversation(t, got, want)
	}
}

// sameConversation compares what a transcript view shows.
func sameConversation(t *testing.T, got, want *transcripts.Conversation) {
	t.Helper()
	id := want.Session.ID
	keep := func(es []transcripts.Entry) []transcripts.Entry {
		var out []transcripts.Entry
		for _, e := range es {
			if stored(&e) {
				out = append(out, e)
			}
		}
		return out
	}
	check := func(where string, g, w []transcripts.Entry) {
		w = keep(w)
		if len(g) != len(w) {
			t.Errorf("%s %s: %d entries, transcripts %d", id, where, len(g), len(w))
			return
		}
		for i := range g {
			ge, we := &g[i], &w[i]
			if ge.UUID != we.UUID || ge.Type != we.Type || !ge.Timestamp.Equal(we.Timestamp) || ge.IsMeta != we.IsMeta ||
				ge.IsSidechain != we.IsSidechain || ge.IsCompactSummary != we.IsCompactSummary || ge.ParentUUID != we.ParentUUID {
				t.Errorf("%s %s entry %d: envelope %+v vs %+v", id, where, i, ge.UUID, we.UUID)
				continue
			}
			if transcripts.IsRealPrompt(ge) != transcripts.IsRealPrompt(we) || ge.PromptText() != we.PromptText() {
				t.Errorf("%s %s entry %d (%s): prompt differs", id, where, i, ge.UUID)
			}
			if len(ge.Blocks) != len(we.Blocks) {
				t.Errorf("%s %s entry %d (%s): %d blocks vs %d", id, where, i, ge.UUID, len(ge.Blocks), len(we.Blocks))
				continue
			}
			for bi := range ge.Blocks {
				gb, wb := &ge.Blocks[bi], &we.Blocks[bi]
				wantText := wb.Text
				if wb.Type == transcripts.BlockToolResult {
					wantText = transcripts.HeadTail(wb.Text, 1200, 400)
				}
				if gb.Type != wb.Type || gb.Text != wantText || gb.ToolName != wb.ToolName || gb.ToolID != wb.ToolID ||
					gb.ToolUseID != wb.ToolUseID || gb.IsError != wb.IsError {
					t.Errorf("%s %s entry %d block %d: %+v vs %+v", id, where, i, bi, gb.Type, wb.Type)
				}
				if gb.Type == transcripts.BlockToolUse && transcripts.ToolSummary(gb) != transcripts.ToolSummary(wb) {
					t.Errorf("%s tool summary %q vs %q", id, transcripts.ToolSummary(gb), transcripts.ToolSummary(wb))
				}
			}
			if ge.CompactTrigger != we.CompactTrigger || ge.PreTokens != we.PreTokens || ge.ResultAgentID != we.ResultAgentID {
				t.Errorf("%s %s entry %d: system fields differ", id, where, i)
			}
		}
	}
	check("main", got.Entries, want.Entries)
	if len(got.Agents) != len(want.Agents) {
		t.Errorf("%s: %d agent threads, transcripts %d", id, len(got.Agents), len(want.Agents))
	}
	for a, es := range want.Agents {
		check("agent "+a, got.Agents[a], es)
	}
	if fmt.Sprint(got.SpawnedBy) != fmt.Sprint(want.SpawnedBy) {
		t.Errorf("%s spawned-by %v vs %v", id, got.SpawnedBy, want.SpawnedBy)
	}
}
