package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// copySample copies the bundled sample so a test can delete files from it.
func copySample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(sample(), func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sample(), p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestSearchIndexesFirstAndAnswers(t *testing.T) {
	data := t.TempDir()
	out, _, err := run(t, "search", "dialyzer PLT", "--claude-dir", sample(), "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r SearchJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Results) == 0 || r.Mode != "hybrid" || !strings.HasPrefix(r.Embedder, "cairn-lsa") {
		t.Fatalf("%+v", r)
	}
	top := r.Results[0]
	if top.SessionID == "" || top.UUID == "" || top.Timestamp == nil || top.Project == "" || top.Kind == "" {
		t.Fatalf("incomplete result %+v", top)
	}
	if !strings.Contains(strings.ToLower(top.Snippet), "dialyzer") || strings.Contains(top.Snippet, "\x1b") {
		t.Fatalf("snippet %q", top.Snippet)
	}
	// Filters.
	out, _, err = run(t, "search", "dialyzer", "--claude-dir", sample(), "--data", data, "--json", "--project", "Demo")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(out), &r)
	for _, x := range r.Results {
		if !strings.Contains(x.Project, "Demo") {
			t.Fatalf("project filter let %s through", x.Project)
		}
	}
	out, _, _ = run(t, "search", "test", "--claude-dir", sample(), "--data", data, "--json", "--since", "1d", "--mode", "text")
	_ = json.Unmarshal([]byte(out), &r)
	if len(r.Results) != 0 {
		t.Fatalf("--since 1d should exclude the 2025/2026-02 sample: %d", len(r.Results))
	}
	out, _, _ = run(t, "search", "phoenix", "--claude-dir", sample(), "--data", data, "--json", "--group", "--limit", "20")
	_ = json.Unmarshal([]byte(out), &r)
	seen := map[string]bool{}
	for _, x := range r.Results {
		if seen[x.SessionID] {
			t.Fatal("--group returned a session twice")
		}
		seen[x.SessionID] = true
	}
	if _, _, err := run(t, "search", "x", "--claude-dir", sample(), "--data", data, "--mode", "bogus"); err == nil {
		t.Fatal("bad mode accepted")
	}
	if _, _, err := run(t, "search", "x", "--claude-dir", sample(), "--data", data, "--since", "yesterday-ish"); err == nil {
		t.Fatal("bad --since accepted")
	}
}

func TestHistorySurvivesDeletedTranscripts(t *testing.T) {
	claude, data := copySample(t), t.TempDir()
	if out, _, err := run(t, "index", "--claude-dir", claude, "--data", data); err != nil || !strings.Contains(out, "indexed") {
		t.Fatalf("%v %s", err, out)
	}
	// Claude Code's cleanup deletes the big session's files.
	proj := filepath.Join(claude, "projects", "-home-marco-projects-spotter-worktrees-spotter-4te")
	if err := os.RemoveAll(proj); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "sessions", "--claude-dir", claude, "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []SessionJSON
	_ = json.Unmarshal([]byte(out), &ss)
	found := false
	for _, s := range ss {
		if strings.HasPrefix(s.ID, "ae4a77f8") {
			found = true
			if s.SourceExists {
				t.Fatal("deleted session not marked archived")
			}
		}
	}
	if len(ss) != 8 || !found {
		t.Fatalf("sessions after deletion: %d (found %v)", len(ss), found)
	}
	out, _, err = run(t, "show", "ae4a77f8", "--claude-dir", claude, "--data", data)
	if err != nil || !strings.Contains(out, "◆ Claude") || !strings.Contains(out, "subagent aac57f5") {
		t.Fatalf("show from the store: %v\n%.500s", err, out)
	}
	out, _, err = run(t, "search", "OpentelemetryBandit", "--claude-dir", claude, "--data", data, "--json")
	var r SearchJSON
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || len(r.Results) == 0 {
		t.Fatalf("search after deletion: %v %s", err, out)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{"7d": now.AddDate(0, 0, -7), "24h": now.Add(-24 * time.Hour), "2w": now.AddDate(0, 0, -14)} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	if got, err := parseSince("2026-03-01", now); err != nil || got.Day() != 1 {
		t.Errorf("date: %v %v", got, err)
	}
}

// TestSearchNonsenseFindsNothing (issue 15.4): a query that matches
// nothing by words or, above the relevance floor, by meaning returns no
// result and says what to try; real results say how they matched.
// searchedSample is a copy of the data dir a first `cairn search` leaves
// for the bundled sample (the store, the full-text index, the built-in
// embedder trained and every vector), made once for the package: the
// search tests that only ask questions of it each built it under -race.
// The sample is the repository's, at the path the store read.
// TestSearchIndexesFirstAndAnswers keeps its fresh store.
func searchedSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(sharedDirRoot(t), "searched-data")
	searchedShared.once.Do(func() {
		if _, stderr, err := run(t, "search", "zzzzqqqq-nothing-matches", "--claude-dir", sample(), "--data", dir); err != nil {
			t.Fatalf("indexing the sample: %v\n%s", err, stderr)
		}
		searchedShared.ok = true
	})
	if !searchedShared.ok {
		t.Fatal("the shared searched sample failed to build (see the first test that used it)")
	}
	data := t.TempDir()
	copyTree(t, dir, data)
	return data
}

var searchedShared struct {
	once sync.Once
	ok   bool
}

func TestSearchNonsenseFindsNothing(t *testing.T) {
	data := searchedSample(t)
	out, _, err := run(t, "search", "zzzzqqqq-nothing-matches", "--claude-dir", sample(), "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r SearchJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Results) != 0 || r.Mode != "hybrid" || !strings.HasPrefix(r.Hint, "no matches; try") {
		t.Fatalf("nonsense: %d results, mode %s, hint %q", len(r.Results), r.Mode, r.Hint)
	}
	out, _, err = run(t, "search", "zzzzqqqq-nothing-matches", "--claude-dir", sample(), "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `No matches by words or meaning for "zzzzqqqq-nothing-matches"; try other or fewer words`) {
		t.Fatalf("text output %q", out)
	}
	out, _, err = run(t, "search", "dialyzer", "--claude-dir", sample(), "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	r = SearchJSON{}
	_ = json.Unmarshal([]byte(out), &r)
	if len(r.Results) == 0 || r.Results[0].Match != "words" || r.Hint != "" {
		t.Fatalf("dialyzer: %+v", r)
	}
	// --prefix: the last word as typed so far.
	out, _, err = run(t, "search", "dialy", "--prefix", "--claude-dir", sample(), "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	r = SearchJSON{}
	_ = json.Unmarshal([]byte(out), &r)
	if len(r.Results) == 0 || r.Results[0].Match != "prefix" {
		t.Fatalf("dialy --prefix: %+v", r)
	}
}

// TestSearchEverydayQuestionFindsNothing (issue 24.1): an everyday
// question that shares only a common word with the history finds nothing
// and says so; a query holding only some of a real query's words is
// partial, hidden unless --partial asks for it (then marked, with a low
// relevance); a real query keeps its hits at relevance 1.
func TestSearchEverydayQuestionFindsNothing(t *testing.T) {
	data := searchedSample(t)
	search := func(args ...string) SearchJSON {
		t.Helper()
		out, _, err := run(t, append([]string{"search", "--claude-dir", sample(), "--data", data, "--json"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r SearchJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}
	for _, q := range []string{"how do I fix a flat bicycle tire", "what is my favourite pizza topping", "how many players are on a volleyball team"} {
		for _, extra := range [][]string{nil, {"--partial"}} {
			if r := search(append([]string{q}, extra...)...); len(r.Results) != 0 || !strings.HasPrefix(r.Hint, "no matches") {
				t.Errorf("%q %v: %d results (first %.80q), hint %q", q, extra, len(r.Results), r.Results[0].Snippet, r.Hint)
			}
		}
	}
	out, _, err := run(t, "search", "how do I fix a flat bicycle tire", "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.HasPrefix(out, "No matches by words or meaning") {
		t.Fatalf("text output %q, %v", out, err)
	}
	real := search("dialyzer PLT")
	if len(real.Results) == 0 || real.Results[0].Relevance != 1 || real.Results[0].Match != "words" {
		t.Fatalf("dialyzer PLT: %+v", real.Results)
	}
	// Some hits hold two of "pnpm add lucide-react icons" (three make a
	// full match): hidden, counted; --partial shows them after the full
	// ones, marked, at a lower relevance.
	def := search("pnpm add lucide-react icons")
	if len(def.Results) == 0 || def.PartialHidden == 0 {
		t.Fatalf("pnpm add lucide-react icons: %d shown, %d partial hidden", len(def.Results), def.PartialHidden)
	}
	for _, r := range def.Results {
		if r.Match == "partial" {
			t.Errorf("partial result shown without --partial: %.80q", r.Snippet)
		}
	}
	shown := search("pnpm add lucide-react icons", "--partial")
	last := shown.Results[len(shown.Results)-1]
	if len(shown.Results) <= len(def.Results) || last.Match != "partial" || last.Relevance >= 0.8 {
		t.Fatalf("--partial: %d results, last %+v", len(shown.Results), last)
	}
	out, _, err = run(t, "search", "pnpm add lucide-react icons", "--partial", "--limit", "30", "--claude-dir", sample(), "--data", data)
	if err != nil || !strings.Contains(out, "[partial: some of the words]") {
		t.Fatalf("--partial text output %q, %v", out, err)
	}
}

// TestSearchTypoFallback (issue 24.5): a misspelt word that finds nothing
// is searched by its near spelling, and the results say so.
func TestSearchTypoFallback(t *testing.T) {
	data := searchedSample(t)
	out, errOut, err := run(t, "search", "dialyzr", "--claude-dir", sample(), "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "[near spelling]") || !strings.Contains(errOut, "near spellings (dialyzr → dialyz)") {
		t.Fatalf("stdout %q\nstderr %q", out, errOut)
	}
	out, _, err = run(t, "search", "dialyzr", "--json", "--claude-dir", sample(), "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var r SearchJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Results) == 0 || r.Results[0].Match != "typo" || len(r.Corrected) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
}

// TestMemoriesSearchPartialOnRequest (issue 24.1): `cairn memories search`
// hides the memories holding only some of the query's words, counts
// them, and shows them marked with --partial; an everyday question finds
// nothing.
func TestMemoriesSearchPartialOnRequest(t *testing.T) {
	data := t.TempDir()
	for _, c := range []string{
		"Dialyzer builds its PLT on the first run, which is slow; later runs reuse it",
		"Run mix phx.server in the background so the session is not blocked",
	} {
		if _, _, err := runIn(t, data, "", "memories", "add", c, "--type", "gotcha", "--global", "--status", "approved"); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runIn(t, data, "", "memories", "search", "how do I fix a flat bicycle tire")
	if err != nil || !strings.HasPrefix(out, "no matches by words or meaning") || strings.Contains(out, "--partial") {
		t.Fatalf("everyday question: %q, %v", out, err)
	}
	// Each memory holds two of "dialyzer PLT background server" (a full
	// match holds three): partial.
	out, _, _ = runIn(t, data, "", "memories", "search", "dialyzer PLT background server")
	if !strings.Contains(out, "--partial") || strings.Contains(out, "½") {
		t.Fatalf("partial hidden: %q", out)
	}
	out, _, _ = runIn(t, data, "", "memories", "search", "dialyzer PLT background server", "--partial")
	if !strings.Contains(out, "½ ") || !strings.Contains(out, "in part") {
		t.Fatalf("--partial: %q", out)
	}
}

// TestSearchSeesWhatWasJustWritten: a search answers from the store while
// its refresh surveys the transcripts, and asks again when the refresh
// wrote something: a line appended a moment before is found, by the first
// search after it and by the next (which has nothing new to index); a
// usage error still waits for the refresh.
func TestSearchSeesWhatWasJustWritten(t *testing.T) {
	claude, data := copySample(t), t.TempDir()
	if _, _, err := run(t, "index", "--claude-dir", claude, "--data", data); err != nil {
		t.Fatal(err)
	}
	const sid = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
	f, err := os.OpenFile(filepath.Join(claude, "projects", "-path-to-Demo", sid+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`{"type":"user","uuid":"3c5d0a2e-0000-4000-8000-000000000991","sessionId":"` + sid +
		`","timestamp":"2026-03-03T10:00:00.000Z","cwd":"/path/to/Demo","message":{"role":"user","content":"the zorblatt cache must be warmed before the benchmark"}}` + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		out, _, err := run(t, "search", "zorblatt", "--claude-dir", claude, "--data", data, "--json", "--mode", "text")
		if err != nil {
			t.Fatal(err)
		}
		var r SearchJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		found := false
		for _, x := range r.Results {
			found = found || x.UUID == "3c5d0a2e-0000-4000-8000-000000000991"
		}
		if !found {
			t.Fatalf("search %d after the append: %+v, want the new line", i+1, r.Results)
		}
	}
	if _, _, err := run(t, "search", "zorblatt", "--claude-dir", claude, "--data", data, "--project", "no-such-project"); err == nil {
		t.Fatal("an unknown project is not an error")
	}
}
