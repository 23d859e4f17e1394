package index

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// Relevance on a fixed scale (issue 24.1): a result's relevance is how
// much of the query's information it holds — the share of the query's
// informative words it has, each weighted by its rarity (inverse document
// frequency), so a result holding the query's rare words scores high and
// one holding only its common words scores low, whatever else the page
// holds. It is not normalised to the page: the same relevance means the
// same for every query. docs/search-relevance.md has the figures.
//
// The minimum-should-match rule, as search engines apply it (Elasticsearch's
// minimum_should_match, "2<75%"): a result matches fully when it holds
// every informative word of a query of one or two, and three quarters of
// a longer one's (rounded down) — or, whatever their number, words
// carrying FullCoverage of the query's information. Below that a result is
// partial: hidden by default (CLI, TUI), flagged "partial" where it is
// returned (MCP). Below PartialFloor it is no match at all: one
// incidental common word ("fix" in "how do I fix a flat bicycle tire")
// is not evidence.

// MatchTypo: the query as typed found nothing; the result holds the
// query's words once its unseen words were replaced by near spellings
// (SearchResponse.Corrected says which).
const MatchTypo = "typo"

// MatchPartial: the result holds some of the query's words, fewer than
// the minimum-should-match rule asks; its Relevance says how much.
const MatchPartial = "partial"

const (
	// FullCoverage is the share of a query's information (its words'
	// summed rarity) that makes a full match whatever the word count.
	FullCoverage = 0.8
	// PartialFloor is the least share of a query's information a partial
	// match must hold.
	PartialFloor = 0.4
)

// MinShouldMatch is how many of n informative query words a full match
// holds: all of one or two, three quarters (rounded down) of more.
func MinShouldMatch(n int) int {
	if n <= 2 {
		return n
	}
	return n * 3 / 4
}

// Grade says how a result holding matched of n informative words, with
// the share coverage (0..1) of their summed rarity, matches: MatchWords
// (fully), MatchPartial, or "" (not at all). The one rule every search
// applies: Searcher.Search for messages, summaries and memories in the
// full-text index, memories.Service for memory ranking.
func Grade(matched, n int, coverage float64) string {
	switch {
	case n == 0 || matched == 0:
		return ""
	case matched >= MinShouldMatch(n) || coverage >= FullCoverage-1e-9:
		return MatchWords
	case coverage >= PartialFloor:
		return MatchPartial
	}
	return ""
}

// coverage is the words of a query and which each candidate holds.
type coverage struct {
	cover ftsapi.Cover
	total float64 // the summed weight of every word
	// dateOf: the words of a date the query names (holdDates), by word
	// index: a date counts as one word towards MinShouldMatch ("on March
	// 3, 2025" is one thing asked, not three).
	dateOf map[int]int
}

// count is how many of the query's words has holds, and how many there
// are, a date counting as one (held when all its words are).
func (cv *coverage) count(has uint64) (matched, n int) {
	dates := map[int]bool{} // date → all its words held
	for i := range cv.cover.Words {
		held := has&(1<<i) != 0
		if d, ok := cv.dateOf[i]; ok {
			if all, seen := dates[d]; seen {
				held = held && all
			}
			dates[d] = held
			continue
		}
		n++
		if held {
			matched++
		}
	}
	for _, held := range dates {
		n++
		if held {
			matched++
		}
	}
	return matched, n
}

// newCoverage asks the full-text index which query words the documents of
// ids hold, checking the words' Roots against the documents' text.
func (sr *Searcher) newCoverage(text string, ids []string, docs map[string]*hit) (*coverage, error) {
	c, err := sr.FTS.Cover(text, ids)
	if err != nil {
		return nil, err
	}
	cv := &coverage{cover: c}
	for _, w := range c.Words {
		cv.total += w.Weight
	}
	for id, has := range c.Has {
		if d := docs[id]; d != nil {
			c.Has[id] = rootsHeld(c.Words, has, d)
		}
	}
	cv.holdDates(text, ids, docs)
	return cv, nil
}

// rootsHeld is has without the words whose Root document d's title and
// text do not contain.
func rootsHeld(words []ftsapi.QueryWord, has uint64, d *hit) uint64 {
	var lower string
	for i, w := range words {
		if w.Root == "" || has&(1<<i) == 0 {
			continue
		}
		if lower == "" {
			lower = strings.ToLower(d.Title + "\n" + d.Text)
		}
		if !strings.Contains(lower, w.Root) {
			has &^= 1 << i
		}
	}
	return has
}

// holdDates: a document holds the words of a date the query names ("on
// October 13, 2023", "in June", "May 2023") when its time falls on that
// date (local time), as it holds a word its text has: a session is one
// of its dates as much as its words. The date's words are rarely in the
// text (a transcript's lines carry their time, not a date), so without
// this a question naming the day it asks about is one its own session
// cannot answer.
func (cv *coverage) holdDates(text string, ids []string, docs map[string]*hit) {
	dates := queryDates(text)
	if len(dates) == 0 {
		return
	}
	of := cv.dateWords(dates)
	if len(of) == 0 {
		return
	}
	cv.dateOf = of
	if cv.cover.Has == nil {
		cv.cover.Has = map[string]uint64{}
	}
	for _, id := range ids {
		d := docs[id]
		if d == nil || d.Time.IsZero() {
			continue
		}
		t := d.Time.Local()
		for i, di := range of {
			if dates[di].holds(t) {
				cv.cover.Has[id] |= 1 << i
			}
		}
	}
}

// dateWords maps each query word that is part of one of the dates to the
// date's index (the last such date).
func (cv *coverage) dateWords(dates []queryDate) map[int]int {
	of := map[int]int{}
	for i, w := range cv.cover.Words {
		bare := strings.ToLower(strings.TrimFunc(w.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		for di, d := range dates {
			if slices.Contains(d.words, bare) {
				of[i] = di
			}
		}
	}
	return of
}

// queryDate is a date a query names: its year, month and day (0 when not
// named), and its words as the query has them (lowercased).
type queryDate struct {
	year, day int
	month     time.Month
	words     []string
}

func (d queryDate) holds(t time.Time) bool {
	return (d.year == 0 || t.Year() == d.year) && (d.month == 0 || t.Month() == d.month) && (d.day == 0 || t.Day() == d.day)
}

const monthRe = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// datePatterns are the forms of a date queryDates reads, most precise
// first; a month alone or a year alone only after "in", "on", "during"…
// ("in June", "in 2023"), so "may" and a bare number stay words.
var datePatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b` + monthRe + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`),
	regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `\b\.?(?:,?\s+(\d{4})\b)?`),
	regexp.MustCompile(`(?i)\b` + monthRe + `\.?,?\s+(\d{4})\b`),
	regexp.MustCompile(`(?i)\b(?:in|on|during|since|of|early|late|mid)\s+(january|february|march|april|june|july|august|september|october|november|december)\b`),
	regexp.MustCompile(`(?i)\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b`),
}

// dateReaders read a match of the datePattern of the same index, given
// its groups (lowercased, "" when not matched), into a date.
var dateReaders = []func(group func(int) string) queryDate{
	func(g func(int) string) queryDate {
		return queryDate{month: monthOf(g(1)), day: atoi(g(2)), year: atoi(g(3)), words: []string{g(1), g(2), g(3)}}
	},
	func(g func(int) string) queryDate {
		return queryDate{day: atoi(g(1)), month: monthOf(g(2)), year: atoi(g(3)), words: []string{g(1), g(2), g(3)}}
	},
	func(g func(int) string) queryDate {
		return queryDate{month: monthOf(g(1)), year: atoi(g(2)), words: []string{g(1), g(2)}}
	},
	func(g func(int) string) queryDate {
		return queryDate{month: monthOf(g(1)), words: []string{g(1)}}
	},
	func(g func(int) string) queryDate {
		return queryDate{year: atoi(g(1)), words: []string{g(1)}}
	},
}

// yearPattern is the index of the datePattern of a year alone.
const yearPattern = 4

// queryDates are the dates text names (see datePatterns).
func queryDates(text string) []queryDate {
	var out []queryDate
	used := make([]bool, len(text))
	for pi, re := range datePatterns {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if slices.Contains(used[m[0]:m[1]], true) {
				continue
			}
			d := dateReaders[pi](func(g int) string {
				if m[2*g] < 0 {
					return ""
				}
				return strings.ToLower(text[m[2*g]:m[2*g+1]])
			})
			if d.month == 0 && pi != yearPattern || d.day > 31 {
				continue
			}
			for i := m[0]; i < m[1]; i++ {
				used[i] = true
			}
			out = append(out, d)
		}
	}
	return out
}

func monthOf(s string) time.Month {
	for m := time.January; m <= time.December; m++ {
		if len(s) >= 3 && strings.HasPrefix(strings.ToLower(m.String()), s) {
			return m
		}
	}
	return 0
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// grade is how document id matches (Grade) and its relevance: the share
// of the query's information it holds, rounded to three places.
func (cv *coverage) grade(id string) (string, float64) {
	if cv == nil {
		return "", 0
	}
	has := cv.cover.Has[id]
	matched, n := cv.count(has)
	rel := cv.relevance(has)
	return Grade(matched, n, rel), rel
}

// relevance is the share of the query's information (its words' weight)
// the words in has hold, rounded to three places; 0 when the query
// weighs nothing.
func (cv *coverage) relevance(has uint64) float64 {
	if cv.total <= 0 {
		return 0
	}
	w := 0.0
	for i, word := range cv.cover.Words {
		if has&(1<<i) != 0 {
			w += word.Weight
		}
	}
	return math.Round(w/cv.total*1000) / 1000
}

// queryCoverage is which of the query's words each text hit holds; nil
// without text hits.
func (sr *Searcher) queryCoverage(q SearchQuery, textRank []Scored, docs map[string]*hit) (*coverage, error) {
	if len(textRank) == 0 {
		return nil, nil
	}
	text := q.Text
	if q.Prefix {
		text, _ = ftsapi.PrefixLast(text)
	}
	return sr.newCoverage(text, idsOf(textRank), docs)
}

// grade applies the relevance rule to the fused ranking: each word hit
// gets its relevance and is marked partial or left out (Grade); a match by
// meaning alone stays only beside a full word match (or where meaning may
// stand alone, MeaningAlone), with its cosine as relevance.
func (sr *Searcher) grade(q SearchQuery, resp *SearchResponse, fused, textRank, vecRank []Scored, docs map[string]*hit, match map[string]string) ([]Scored, map[string]float64, error) {
	rel := make(map[string]float64, len(fused))
	cos := make(map[string]float64, len(vecRank))
	for _, v := range vecRank {
		cos[v.ID] = v.Score
	}
	cv, err := sr.queryCoverage(q, textRank, docs)
	if err != nil {
		return nil, nil, err
	}
	kept, full := gradeWords(cv, fused, match, rel)
	alone := sr.meaningAlone(resp)
	out := kept[:0]
	for _, f := range kept {
		if match[f.ID] == "" {
			if !full && !alone {
				continue
			}
			rel[f.ID] = math.Round(cos[f.ID]*1000) / 1000
		}
		out = append(out, f)
	}
	return out, rel, nil
}

// gradeWords grades the word hits of fused (in place): those left out
// are dropped, the partial ones marked so in match, and each kept one's
// relevance set in rel; matches by meaning alone are kept as they are.
// full reports whether some hit matched fully.
func gradeWords(cv *coverage, fused []Scored, match map[string]string, rel map[string]float64) (kept []Scored, full bool) {
	kept = fused[:0]
	for _, f := range fused {
		m := match[f.ID]
		if m == "" { // by meaning alone
			kept = append(kept, f)
			continue
		}
		g, r := cv.grade(f.ID)
		switch g {
		case "":
			continue
		case MatchPartial:
			match[f.ID] = MatchPartial
		default:
			full = true
		}
		rel[f.ID] = r
		kept = append(kept, f)
	}
	return kept, full
}

// monotone lowers scores so none is above one before it, as wordsFirst
// does: front ends that re-sort by score (to break ties) keep the order.
// Hits of equal relevance and match may tie; a hit of another kind than
// the one before it goes just below it.
func monotone(fused []Scored, match map[string]string, rel map[string]float64) []Scored {
	for i := 1; i < len(fused); i++ {
		a, b := fused[i-1], fused[i]
		same := rel[a.ID] == rel[b.ID] && (match[a.ID] == MatchPartial) == (match[b.ID] == MatchPartial)
		switch {
		case same && b.Score > a.Score:
			fused[i].Score = a.Score
		case !same && b.Score >= a.Score:
			fused[i].Score = a.Score * 0.999
		}
	}
	return fused
}

// fullFirst puts the full matches (by words, prefix or meaning), by
// relevance, before the partial ones, in their order, or without q.Partial leaves the
// partial ones out and counts them (their sessions, when grouping).
func (q *SearchQuery) fullFirst(fused []Scored, docs map[string]*hit, match map[string]string, rel map[string]float64) ([]Scored, int) {
	var full, partial []Scored
	for _, f := range fused {
		if match[f.ID] == MatchPartial {
			partial = append(partial, f)
		} else {
			full = append(full, f)
		}
	}
	// The more of the query's information a hit holds, the higher it
	// ranks; among equals the fused order (BM25, vectors, recency) stands.
	sort.SliceStable(full, func(i, j int) bool { return rel[full[i].ID] > rel[full[j].ID] })
	if q.Partial {
		return monotone(append(full, partial...), match, rel), 0
	}
	full = monotone(full, match, rel)
	if !q.GroupBySession {
		return full, len(partial)
	}
	return full, hiddenSessions(full, partial, docs)
}

// hiddenSessions is how many sessions only the partial matches left out
// would have shown.
func hiddenSessions(full, partial []Scored, docs map[string]*hit) int {
	shown, hidden := map[string]bool{}, map[string]bool{}
	for _, f := range full {
		if d := docs[f.ID]; d != nil {
			shown[d.Session] = true
		}
	}
	for _, f := range partial {
		if d := docs[f.ID]; d != nil && !shown[d.Session] {
			hidden[d.Session] = true
		}
	}
	return len(hidden)
}

// fullMatch says grade g is a match of all the query's words, as typed
// or as prefixes.
func fullMatch(g string) bool { return g == MatchWords || g == MatchPrefix }

// typoFallback searches again with the query's unseen words replaced by
// their near spellings (ftsapi.Index.Correct) when the query as typed
// found nothing; nil when no word had one. Its full matches are marked
// MatchTypo, and the notice says what was corrected.
func (sr *Searcher) typoFallback(ctx context.Context, q SearchQuery, resp *SearchResponse) (*SearchResponse, error) {
	text, fixes, err := sr.FTS.Correct(q.Text)
	if err != nil || len(fixes) == 0 {
		return nil, err
	}
	q.Text, q.corrected = text, true
	typo, err := sr.Search(ctx, q)
	if err != nil || len(typo.Results) == 0 && typo.Partial == 0 {
		return nil, err
	}
	for i := range typo.Results {
		if r := &typo.Results[i]; fullMatch(r.Match) {
			r.Match = MatchTypo
		}
	}
	typo.Corrected = fixes
	typo.Notice = joinNotice(resp.Notice, "nothing matched as typed: showing near spellings ("+strings.Join(fixes, ", ")+")")
	return typo, nil
}
