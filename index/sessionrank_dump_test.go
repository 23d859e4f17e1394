package index

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestLoCoMoDump writes, for every LoCoMo question asked through
// memory_recall of its own conversation and of the next one, what the
// session rule saw (each candidate entry's session, BM25 score, cosine,
// which query words it holds, its length) and what it returned, one JSON
// line per question, to CAIRN_LOCOMO_DUMP_FILE: session rules can then be
// compared offline without asking again. Skipped unless both are set.
func TestLoCoMoDump(t *testing.T) {
	out := os.Getenv("CAIRN_LOCOMO_DUMP_FILE")
	if out == "" {
		t.Skip("set CAIRN_LOCOMO_DUMP_FILE")
	}
	samples := locomoData(t)
	srs := make([]*Searcher, len(samples))
	for i, s := range samples {
		srs[i] = locomoStore(t, s)
	}
	var cur *dumpRecord
	enc := startDump(t, out, &cur)
	for i, s := range samples {
		for _, qa := range s.QA {
			var gold []string
			for _, m := range locomoEvidence.FindAllStringSubmatch(fmt.Sprint(qa.Evidence), -1) {
				gold = append(gold, locomoSessionID(m[1]))
			}
			if len(gold) == 0 {
				continue
			}
			for _, cross := range []bool{false, true} {
				sr := srs[i]
				if cross {
					if len(srs) < 2 {
						continue
					}
					sr = srs[(i+1)%len(srs)]
				}
				cur = &dumpRecord{Sample: s.SampleID, Cross: cross, Question: qa.Question, Category: locomoCategories[fmt.Sprint(qa.Category)], Gold: gold}
				n := 20
				if cross {
					n = 5
				}
				cur.Got, cur.GotRel = locomoAsk(t, sr, "memory_recall", qa.Question, n)
				if err := enc.Encode(cur); err != nil {
					t.Fatal(err)
				}
				cur = nil
			}
		}
	}
}

// TestSessionRankingDump is TestLoCoMoDump for the labelled set and the
// everyday questions (TestSessionRanking), through memory_recall, to
// CAIRN_LABELLED_DUMP_FILE.
func TestSessionRankingDump(t *testing.T) {
	out := os.Getenv("CAIRN_LABELLED_DUMP_FILE")
	if out == "" {
		t.Skip("set CAIRN_LABELLED_DUMP_FILE")
	}
	qs := loadEval(t)
	for _, e := range everyday {
		qs = append(qs, evalQuery{ID: e, Type: "everyday", Query: e})
	}
	_, sr := evalStore(t)
	var cur *dumpRecord
	enc := startDump(t, out, &cur)
	for _, e := range qs {
		cur = &dumpRecord{Sample: "labelled", Question: e.Query, Category: e.Type}
		if e.Session != "" {
			cur.Gold = []string{e.Session}
		}
		cur.Got, cur.GotRel = locomoAsk(t, sr, "memory_recall", e.Query, 5)
		if err := enc.Encode(cur); err != nil {
			t.Fatal(err)
		}
		cur = nil
	}
}

type dumpEntry struct {
	Session string  `json:"s"`
	Text    float64 `json:"t"`
	Cos     float64 `json:"c"`
	Match   string  `json:"m"`
	Has     uint64  `json:"h"`
	Len     int     `json:"l"`
	Time    int64   `json:"ts"`
	Body    string  `json:"x,omitempty"` // with CAIRN_DUMP_TEXT set (=all: every entry's, else those holding a query word)
}

type dumpWord struct {
	Text   string  `json:"w"`
	Weight float64 `json:"wt"`
	Date   int     `json:"d"`
}

type dumpRecord struct {
	Sample   string      `json:"sample"`
	Cross    bool        `json:"cross"`
	Question string      `json:"q"`
	Category string      `json:"cat"`
	Gold     []string    `json:"gold"`
	Words    []dumpWord  `json:"words"`
	Entries  []dumpEntry `json:"entries"`
	Got      []string    `json:"got"`
	GotRel   []float64   `json:"got_rel"`
	Calls    int         `json:"calls"`
}

// dumpTrace records a ranking's inputs in *cur (when set).
func dumpTrace(cur **dumpRecord) func(q SearchQuery, cv *coverage, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) {
	return func(q SearchQuery, cv *coverage, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) {
		cur := *cur
		if cur == nil {
			return
		}
		cur.Words, cur.Entries = nil, nil // the typo fallback's search replaces the first
		cur.Calls++
		if cv != nil {
			for i, w := range cv.cover.Words {
				d := -1
				if di, ok := cv.dateOf[i]; ok {
					d = di
				}
				cur.Words = append(cur.Words, dumpWord{Text: w.Text, Weight: w.Weight, Date: d})
			}
		}
		ts := map[string]float64{}
		for _, r := range textRank {
			ts[r.ID] = r.Score
		}
		cs := map[string]float64{}
		for _, r := range vecRank {
			cs[r.ID] = r.Score
		}
		for _, fu := range fused {
			d := docs[fu.ID]
			if d == nil {
				continue
			}
			e := dumpEntry{Session: d.Session, Text: ts[fu.ID], Cos: cs[fu.ID], Match: match[fu.ID], Len: len(strings.Fields(d.Text)), Time: d.Time.Unix()}
			if cv != nil {
				e.Has = cv.cover.Has[fu.ID]
			}
			if dt := os.Getenv("CAIRN_DUMP_TEXT"); dt == "all" || dt != "" && e.Has != 0 {
				e.Body = d.Text
			}
			cur.Entries = append(cur.Entries, e)
		}
	}
}

// startDump creates out, closed at cleanup, and records what the session
// rule sees into *cur while the test runs.
func startDump(t *testing.T, out string, cur **dumpRecord) *json.Encoder {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sessionTrace = nil
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	sessionTrace = dumpTrace(cur)
	return json.NewEncoder(f)
}
