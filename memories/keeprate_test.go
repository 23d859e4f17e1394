package memories

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// The labelled keep-rate set (issue 15 item 2): both shared corpora,
// reduced to what extraction reads (testdata/keeprate/reduce.py), and a
// label for every memory the built-in extractor proposes from them, judged
// by reading the source turns (kept beside the label, so the set stands
// alone). A proposal nobody labelled fails the test: run it with
// -keeprate.dump=FILE, judge each proposal in FILE and append it to
// labels.jsonl.

var keeprateDump = flag.String("keeprate.dump", "", "write the unlabelled proposals of TestExtractorKeepRate, with their source turns, to this JSONL file")

// keeprateAll writes every proposal (labelled or not) with its source
// turns: what a blind judge reads, and a way to compare two extractors.
// keeprateHeldOut prints the held-out lessons missed, not only their count:
// off by default, so whoever tunes a rule while reading -v output does not
// read the held-out lessons (which measure what tuning cannot see).
var keeprateHeldOut = flag.Bool("keeprate.heldout-misses", false, "print the held-out lessons TestExtractorKeepRate misses (they measure generalisation: do not tune to them)")

var keeprateAll = flag.String("keeprate.all", "", "write every proposal of TestExtractorKeepRate (corpus, content, source) to this JSONL file")

const keeprateDir = "testdata/keeprate"

// keepLabel is a reviewer's judgement of one proposal.
type keepLabel struct {
	Corpus  string `json:"corpus"`
	Content string `json:"content"`
	// Label is keep (worth injecting), marginal (true but of little use)
	// or noise (a fragment, a one-off, wrong or not self-contained).
	Label string `json:"label"`
	// Fact names what the memory says: two proposals of one corpus with
	// the same fact are duplicates.
	Fact   string `json:"fact"`
	Why    string `json:"why,omitempty"`
	Source string `json:"source"`
	// By names who labelled it, when not the first reviewer.
	By string `json:"by,omitempty"`
}

// keepRate is one corpus's row of the keep-rate table.
type keepRate struct {
	corpus                                 string
	proposals, keep, marginal, noise, dups int
	unlabelled, all                        []keepLabel
}

func (r keepRate) String() string {
	pct := func(n int) float64 {
		if r.proposals == 0 {
			return 0
		}
		return 100 * float64(n) / float64(r.proposals)
	}
	return fmt.Sprintf("| %s | %d | %d (%.0f%%) | %d (%.0f%%) | %d (%.0f%%) | %d |", r.corpus, r.proposals,
		r.keep, pct(r.keep), r.marginal, pct(r.marginal), r.noise, pct(r.noise), r.dups)
}

// TestExtractorKeepRate extracts from both corpora and scores every
// proposal by its label — at least 70% keep, at most 10% noise and no
// duplicates — and, beside it, the recall of the lessons a careful reader
// listed for the same sessions (recall-CORPUS.jsonl): the share of lessons
// some proposal states. Precision alone rewards proposing less; recall
// alone rewards proposing everything. Both are printed, per corpus.
func TestExtractorKeepRate(t *testing.T) {
	if *keeprateDump == "" && *keeprateAll == "" && withoutRace.RanAlone(t) {
		return
	}
	labels := readKeepLabels(t)
	var unlabelled, all []keepLabel
	var rows, agree, holdout []string
	for _, corpus := range []string{"claude", "claude-code-log"} {
		r, mems := measureKeepRate(t, corpus, labels)
		rc := measureRecall(t, "recall-"+corpus, mems)
		rows = append(rows, r.String()+rc.String())
		ho := measureRecall(t, "recall-holdout-"+corpus, mems)
		holdout = append(holdout, fmt.Sprintf("| %s |%s", corpus, ho.String()))
		if ho.found < heldOutFloor[corpus] {
			t.Errorf("%s: %d of the %d held-out lessons found: want ≥ %d", corpus, ho.found, ho.lessons, heldOutFloor[corpus])
		}
		agree = append(agree, judgeAgreement(t, corpus, mems, labels))
		unlabelled = append(unlabelled, r.unlabelled...)
		all = append(all, r.all...)
		f := qualityFloor[corpus]
		if len(r.unlabelled) > 0 {
			t.Errorf("%s: %d proposals have no label (run with -keeprate.dump=FILE and label them in %s/labels.jsonl)", corpus, len(r.unlabelled), keeprateDir)
		} else if r.keep*100 < r.proposals*f.keep || r.noise*100 > r.proposals*f.noise || r.dups > f.dups {
			t.Errorf("%s: keep %d, noise %d, duplicates %d of %d proposals: want ≥ %d%% keep, ≤ %d%% noise, ≤ %d duplicates", corpus, r.keep, r.noise, r.dups, r.proposals, f.keep, f.noise, f.dups)
		}
		if rc.found*100 < rc.lessons*f.recall {
			t.Errorf("%s: recall %d of %d lessons: want ≥ %d%%", corpus, rc.found, rc.lessons, f.recall)
		}
	}
	t.Log("| corpus | proposals | keep | marginal | noise | duplicates | lessons | found | recall |")
	t.Log("|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		t.Log(r)
	}
	// Lessons listed blind (session 35) by a reader who saw neither the
	// rules nor their proposals, mostly from sessions the lists above do
	// not cover: how the extractor does on lessons it was not tuned on.
	t.Log("| corpus, held-out lessons | lessons | found | recall |")
	t.Log("|---|---|---|---|")
	for _, r := range holdout {
		t.Log(r)
	}
	// The two judges side by side: the labels (is this proposal worth
	// keeping?) and the recall lists (does it state a listed lesson?).
	t.Log("| corpus | states a listed lesson: keep / marginal / noise | states none: keep / marginal / noise |")
	t.Log("|---|---|---|")
	for _, r := range agree {
		t.Log(r)
	}
	if *keeprateDump != "" {
		writeKeepLabels(t, *keeprateDump, unlabelled)
	}
	if *keeprateAll != "" {
		writeKeepLabels(t, *keeprateAll, all)
	}
}

// qualityFloor is what each corpus must keep, in percent (duplicates
// counted): what the extractor reaches now, on both sides of the trade,
// so a change that buys precision by proposing less fails, and one that
// buys recall by proposing everything fails too. The target is
// 60% recall with 70% keep, 10% noise and no duplicate; both corpora
// reach it.
var qualityFloor = map[string]struct{ recall, keep, noise, dups int }{
	"claude":          {recall: 70, keep: 82, noise: 0, dups: 0},
	"claude-code-log": {recall: 81, keep: 81, noise: 0, dups: 0},
}

// heldOutFloor is how many lessons of recall-holdout-CORPUS.jsonl the
// extractor finds now (session 36, with the second reading's 20 lessons): a floor, not a target. A rule written
// to raise it makes it one more tuned list; its value is that it was
// written blind.
var heldOutFloor = map[string]int{"claude": 1, "claude-code-log": 3}

// lesson is one line of a recall list: what a careful reader would want
// remembered from a session.
type lesson struct {
	Session string     `json:"session"` // 8-character id prefix, or "*"
	Kind    string     `json:"kind"`
	Lesson  string     `json:"lesson"`
	Keys    [][]string `json:"keys"` // alternatives; a proposal holding every term of one states the lesson
}

// recall is one corpus's recall row.
type recall struct {
	lessons, found int
	missed         []string
}

func (r recall) String() string {
	pct := 0.0
	if r.lessons > 0 {
		pct = 100 * float64(r.found) / float64(r.lessons)
	}
	return fmt.Sprintf(" %d | %d | %.0f%% |", r.lessons, r.found, pct)
}

// measureRecall counts the lessons of recall-CORPUS.jsonl that some
// memory states: it holds every key term of one alternative (case
// folded) and comes from the lesson's session when one is named.
func measureRecall(t *testing.T, list string, mems []Memory) recall {
	b, err := os.ReadFile(filepath.Join(keeprateDir, list+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var r recall
	for n, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var l lesson
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%s.jsonl:%d: %v", list, n+1, err)
		}
		r.lessons++
		if lessonFound(l, mems) {
			r.found++
		} else {
			r.missed = append(r.missed, l.Lesson)
		}
	}
	if testing.Verbose() && (!strings.HasPrefix(list, "recall-holdout-") || *keeprateHeldOut) {
		for _, m := range r.missed {
			t.Logf("  missed   %s", cut(m, 120))
		}
	}
	return r
}

// judgeAgreement is a row of how the labels judged the proposals that
// state a lesson of the corpus's recall list, and those that state none.
func judgeAgreement(t *testing.T, corpus string, mems []Memory, labels map[string]keepLabel) string {
	b, err := os.ReadFile(filepath.Join(keeprateDir, "recall-"+corpus+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lessons []lesson
	for _, line := range strings.Split(string(b), "\n") {
		var l lesson
		if json.Unmarshal([]byte(line), &l) == nil {
			lessons = append(lessons, l)
		}
	}
	var counts [2][3]int // [states a lesson][keep, marginal, noise]
	for _, m := range mems {
		l, ok := labels[corpus+"\x00"+m.Content]
		if !ok {
			continue
		}
		states := 1
		for _, ls := range lessons {
			if lessonFound(ls, []Memory{m}) {
				states = 0
				break
			}
		}
		switch l.Label {
		case "keep":
			counts[states][0]++
		case "marginal":
			counts[states][1]++
		default:
			counts[states][2]++
		}
	}
	return fmt.Sprintf("| %s | %d / %d / %d | %d / %d / %d |", corpus, counts[0][0], counts[0][1], counts[0][2], counts[1][0], counts[1][1], counts[1][2])
}

func lessonFound(l lesson, mems []Memory) bool {
	for _, m := range mems {
		if l.Session != "*" && !strings.HasPrefix(m.SourceSession, l.Session) {
			continue
		}
		low := strings.ToLower(m.Content)
		for _, alt := range l.Keys {
			all := len(alt) > 0
			for _, k := range alt {
				all = all && strings.Contains(low, strings.ToLower(k))
			}
			if all {
				return true
			}
		}
	}
	return false
}

func measureKeepRate(t *testing.T, corpus string, labels map[string]keepLabel) (keepRate, []Memory) {
	ctx := context.Background()
	dir := untarCorpus(t, filepath.Join(keeprateDir, corpus+".tar.gz"))
	s := newService(t)
	// As `cairn index` does: the store, then the built-in embedder's
	// vectors (dedup compares them).
	if _, err := s.st.Update(ctx, dir, index.UpdateOptions{Sync: index.SyncOptions{Workers: 1}, DeferFTS: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Curator.Extract(ctx, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	mems, err := s.List(ctx, Filter{Statuses: []Status{Pending, Approved}})
	if err != nil {
		t.Fatal(err)
	}
	r := keepRate{corpus: corpus}
	facts := map[string]int{}
	for _, m := range mems {
		r.proposals++
		if *keeprateAll != "" {
			r.all = append(r.all, keepLabel{Corpus: corpus, Content: m.Content, Label: "?", Source: sourceText(ctx, t, s, m)})
		}
		l, ok := labels[corpus+"\x00"+m.Content]
		if !ok {
			r.unlabelled = append(r.unlabelled, keepLabel{Corpus: corpus, Content: m.Content, Label: "?", Source: sourceText(ctx, t, s, m)})
			continue
		}
		if testing.Verbose() {
			t.Logf("  %-8s %-34s %s", l.Label, l.Fact, cut(m.Content, 110))
		}
		switch l.Label {
		case "keep":
			r.keep++
		case "marginal":
			r.marginal++
		default:
			r.noise++
		}
		// A duplicate is a fact proposed twice where it is injected:
		// in one project (a repository's worktrees are one project).
		if k := m.Project + "\x00" + l.Fact; facts[k] > 0 {
			r.dups++
		}
		facts[m.Project+"\x00"+l.Fact]++
	}
	return r, mems
}

// sourceText is the text of the entries m was extracted from, each cut
// to 1,500 characters around where m's content starts.
func sourceText(ctx context.Context, t *testing.T, s *Service, m Memory) string {
	entries, err := s.st.Mem().Entries(ctx, m.SourceSession, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, e := range entries {
		if !slices.Contains(m.SourceUUIDs, e.UUID) {
			continue
		}
		text := e.Text
		if e.ToolName != "" {
			text = e.ToolName + " " + string(e.Input)
		}
		parts = append(parts, e.Role+": "+around(text, m.Content, 1500))
	}
	return strings.Join(parts, "\n---\n")
}

// around is up to n bytes of text around where the first words of
// content occur in it.
func around(text, content string, n int) string {
	if len(text) <= n {
		return text
	}
	probe := content
	if len(probe) > 30 {
		probe = probe[:30]
	}
	i := max(0, strings.Index(text, strings.Trim(probe, "`")))
	start := max(0, i-n/3)
	end := min(len(text), start+n)
	for start > 0 && start < len(text) && (text[start]&0xC0) == 0x80 {
		start--
	}
	for end < len(text) && (text[end]&0xC0) == 0x80 {
		end++
	}
	return "…" + text[start:end] + "…"
}

// readKeepLabels reads labels.jsonl and every labels-*.jsonl beside it
// (a rule's own labels can live in its own file).
func readKeepLabels(t *testing.T) map[string]keepLabel {
	files, err := filepath.Glob(filepath.Join(keeprateDir, "labels-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]keepLabel{}
	for _, path := range append([]string{filepath.Join(keeprateDir, "labels.jsonl")}, files...) {
		readKeepLabelFile(t, path, out)
	}
	return out
}

func readKeepLabelFile(t *testing.T, path string, out map[string]keepLabel) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := filepath.Base(path)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l keepLabel
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		switch l.Label {
		case "keep", "marginal", "noise":
		default:
			t.Fatalf("%s:%d: label %q: use keep, marginal or noise", name, n, l.Label)
		}
		if l.Fact == "" {
			t.Fatalf("%s:%d: no fact", name, n)
		}
		out[l.Corpus+"\x00"+l.Content] = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func writeKeepLabels(t *testing.T, path string, ls []keepLabel) {
	var b strings.Builder
	for _, l := range ls {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// untarCorpus unpacks a reduced corpus into a temp dir and returns it.
func untarCorpus(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) || h.Typeflag != tar.TypeReg {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, h.ModTime, h.ModTime); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
