package memories

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	a := approve(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Use Postgres for the event store", Tags: []string{"db"},
		SourceSession: sampleSpotter, SourceUUIDs: []string{"u1", "u2"}, Importance: 4})
	b := mustAdd(t, s, NewMemory{Project: "/p", Type: Decision, Content: "Never use Postgres for the event store; use Kafka"})
	if _, err := s.Curator.Merge(ctx, a, mustAdd(t, s, NewMemory{Type: Fact, Content: "Event store is append only"}).Memory.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall.Rank(ctx, "postgres event store", RankOptions{Touch: true, Threshold: 0.01}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Drafts.AddDraft(ctx, sampleSpotter, goodDraft)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Drafts.ApproveDraft(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StoreSummary(ctx, sampleDemo); err != nil {
		t.Fatal(err)
	}
	_ = b
	var out bytes.Buffer
	c, err := s.Sync.ExportJSONL(ctx, &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Memories < 4 || c.Links < 2 || c.Summaries != 2 || c.Drafts != 1 {
		t.Fatalf("export counts %+v", c)
	}
	// Into a fresh store: the same data comes out again.
	s2 := newService(t)
	ic, err := s2.Sync.Import(ctx, bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if ic.Memories != c.Memories || ic.Links != c.Links || ic.Summaries != c.Summaries || ic.Drafts != c.Drafts || ic.Replaced != 0 {
		t.Fatalf("import counts %+v, export %+v", ic, c)
	}
	m1, s1, d1, _ := s.exportData(ctx)
	m2, s2r, d2, _ := s2.exportData(ctx)
	if !reflect.DeepEqual(m1, m2) || !reflect.DeepEqual(s1, s2r) || !reflect.DeepEqual(d1, d2) {
		t.Fatalf("round trip differs:\n%+v\n%+v", m1[0], m2[0])
	}
	var again bytes.Buffer
	if _, err := s2.Sync.ExportJSONL(ctx, &again); err != nil {
		t.Fatal(err)
	}
	if stripHeader(again.String()) != stripHeader(out.String()) {
		t.Fatal("second export differs from the first")
	}
	// Importing twice replaces, never duplicates.
	ic, err = s2.Sync.Import(ctx, bytes.NewReader(out.Bytes()))
	if err != nil || ic.Replaced != c.Memories {
		t.Fatalf("re-import: %v %+v", err, ic)
	}
	if ms, _ := s2.List(ctx, Filter{}); len(ms) != c.Memories {
		t.Fatalf("%d memories after re-import", len(ms))
	}
	// Markdown export mentions every memory.
	var md bytes.Buffer
	if _, err := s.Sync.ExportMarkdown(ctx, &md); err != nil || !strings.Contains(md.String(), "Use Postgres for the event store") {
		t.Fatalf("markdown: %v", err)
	}
}

func stripHeader(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

func TestImportBadInput(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	header := `{"kind":"cairn-export","version":1}` + "\n"
	good := `{"kind":"memory","memory":{"id":"m-0000abcd","project":"","type":"fact","content":"ok","tags":[],"importance":3,"status":"pending","source_session":"","source_uuids":[],"origin":"import","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z","access_count":0,"last_access":"0001-01-01T00:00:00Z","injected":0,"used":0,"links":[]}}` + "\n"
	for name, in := range map[string]string{
		"empty":       "",
		"no header":   good,
		"not json":    header + good + "{oops\n",
		"bad type":    header + strings.Replace(good, `"fact"`, `"opinion"`, 1),
		"bad status":  header + strings.Replace(good, `"pending"`, `"maybe"`, 1),
		"bad id":      header + strings.Replace(good, `m-0000abcd`, `x`, 1),
		"newer":       `{"kind":"cairn-export","version":99}` + "\n" + good,
		"markdown":    "# cairn memories\n",
		"unknown":     header + `{"kind":"spaceship"}` + "\n",
		"bad link":    header + strings.Replace(good, `"links":[]`, `"links":[{"kind":"loves","target":"m-1"}]`, 1),
		"no content":  header + strings.Replace(good, `"content":"ok"`, `"content":" "`, 1),
		"bad summary": header + `{"kind":"summary","summary":{"session":""}}` + "\n",
	} {
		_, err := s.Sync.Import(ctx, strings.NewReader(in))
		if !errors.Is(err, ErrBadImport) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if ms, _ := s.List(ctx, Filter{}); len(ms) != 0 {
		t.Fatalf("a failed import stored %d memories", len(ms))
	}
	if _, err := s.Sync.Import(ctx, strings.NewReader(header+good)); err != nil {
		t.Fatal(err)
	}
}

// A bad record's error names its line and what is wrong with it.
func TestImportBadLineMessages(t *testing.T) {
	s := newService(t)
	header := `{"kind":"cairn-export","version":1}` + "\n"
	draft := `{"kind":"draft","draft":{"id":"d-1234","session":"s1","markdown":"# x","status":"pending"}}` + "\n"
	for in, want := range map[string]string{
		header + "\n" + `{"kind":"draft","draft":{"id":"x-1","session":"s1"}}` + "\n":  "cannot import: line 3: a draft needs an id (d-…) and a session",
		header + `{"kind":"draft"}` + "\n":                                             "cannot import: line 2: a draft needs an id (d-…) and a session",
		header + strings.Replace(draft, `"pending"`, `"done"`, 1):                      `cannot import: line 2: draft status "done"`,
		header + `{"kind":"summary","summary":{"session":"s1","markdown":" "}}` + "\n": "cannot import: line 2: a summary needs a session and Markdown",
		header + `{"kind":"memory"}` + "\n":                                            "cannot import: line 2: a memory record without a memory",
		header + draft + `{"kind":"spaceship"}` + "\n":                                 `cannot import: line 3 has unknown kind "spaceship"`,
		header + draft + "\n\n[1]\n":                                                   "cannot import: line 5 is not a cairn export record",
		"\n" + draft:                                                                   "cannot import: no cairn-export header line",
	} {
		_, err := s.Sync.Import(context.Background(), strings.NewReader(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
	c, err := s.Sync.Import(context.Background(), strings.NewReader(header+draft))
	if err != nil || c.Drafts != 1 {
		t.Fatalf("a good draft: %+v %v", c, err)
	}
}

// `cairn export` prints to stdout by default: a memory or project stored
// with raw C1, bidi, zero-width or tag characters (by an older cairn)
// reaches the terminal only as \u escapes in the JSONL and as visible
// escapes in the Markdown, and the JSONL still imports to the same text.
func TestExportSpellsControlsAndInvisibles(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	const hostile = "deploy\u009b31m \u202eexe zw\u200bsp tag\U000E0041\U000E0042 \x1b[201~"
	id := approve(t, s, NewMemory{Project: "/p", Type: Fact, Content: "placeholder"})
	row, err := s.row(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	row.Content, row.Project = hostile, "/p"+hostile
	if err := s.st.Mem().Save(ctx, row); err != nil {
		t.Fatal(err)
	}
	var jl, md bytes.Buffer
	if _, err := s.Sync.ExportJSONL(ctx, &jl); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.ExportMarkdown(ctx, &md); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"jsonl": jl.String(), "markdown": md.String()} {
		for i, r := range out {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("%s: raw %U at byte %d", name, r, i)
				break
			}
		}
	}
	if !strings.Contains(md.String(), "zw<U+200B>sp") || !strings.Contains(md.String(), "tag<U+E0041><U+E0042>") {
		t.Errorf("markdown does not show the invisible characters:\n%s", md.String())
	}
	s2 := newService(t)
	if _, err := s2.Sync.Import(ctx, bytes.NewReader(jl.Bytes())); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Get(ctx, id)
	if err != nil || got.Content != hostile || got.Project != "/p"+hostile {
		t.Errorf("the JSONL export does not import to the same text: %q %q (%v)", got.Content, got.Project, err)
	}
}
