package index

import (
	"math"
	"strings"
)

// How a search result matches its query (SearchResult.Match). Every front
// end shows only results that match (the relevance floor, applied once in
// Searcher.Search) and marks those found by meaning alone.
const (
	// MatchWords: the result holds the query's words (BM25 found it).
	MatchWords = "words"
	// MatchPrefix: the result holds only longer words starting as the
	// last, still-typed query word does (SearchQuery.Prefix); it ranks
	// below every whole-word hit.
	MatchPrefix = "prefix"
	// MatchMeaning: none of the words, but its vector is at least
	// MeaningFloor close to the query's.
	MatchMeaning = "meaning"
)

// The meaning floor: the least cosine similarity at which a result that
// shares no word with the query is still shown. Below it a vector
// neighbour is noise: every query has nearest neighbours, so without a
// floor a query matching nothing ("zzzzqqqq-nothing-matches") still
// returned a page of them.
//
// BuiltinMeaningFloor is calibrated on labelled queries (TestRelevanceFloor
// on index/testdata/eval, TestMemoryFloor on memories/testdata/floor;
// CAIRN_EVAL_SWEEP=floor prints the sweeps): no relevant answer that the
// built-in vectors found alone scores above 0.27 (messages) or 0.16
// (memories), so the vectors alone never surfaced a right answer; the
// nearest neighbours of nonsense queries reach 0.59 through the real
// words they carry ("nothing matches"), unrelated memories 0.49, and
// random-word memories 0.65. 0.7 is above all of those with a margin: only
// near-paraphrases in the model's own vocabulary pass.
// OllamaMeaningFloor is not calibrated here (no Ollama model is available
// to the tests); it is the usual "related" band of sentence-embedding
// models such as nomic-embed-text, where unrelated texts score 0.3–0.5.
const (
	BuiltinMeaningFloor = 0.7
	OllamaMeaningFloor  = 0.6
)

// MeaningFloor is the floor for the vectors of embedder (its ID).
func MeaningFloor(embedder string) float64 {
	if strings.HasPrefix(embedder, "ollama:") {
		return OllamaMeaningFloor
	}
	return BuiltinMeaningFloor
}

// MeaningAlone reports whether the vectors of embedder may find results
// for a query none of whose words match anything. Not the built-in ones:
// an LSA model trained on the transcripts knows only the words they hold,
// so for a query whose words match nothing its vector comes from typo
// guesses ("orchestra" → "orchestrator", "lorem" → "remove"), and the
// short texts it lands on score highest of all (cosine 0.77–0.91 for
// nonsense on the shared corpus, against 0.2–0.5 for real queries' own
// vector-only neighbours). Its meaning matches only join word matches.
// A sentence-embedding model (Ollama) knows language beyond the
// transcripts, so its matches may stand alone.
func MeaningAlone(embedder string) bool {
	return strings.HasPrefix(embedder, "ollama:")
}

// meaningFloor is the floor this searcher applies.
func (sr *Searcher) meaningFloor(embedder string) float64 {
	if sr.floor != nil {
		return *sr.floor
	}
	return MeaningFloor(embedder)
}

// meaningAlone reports whether this search may show meaning matches with
// no word match at all: with an embedder that allows it, or in vector
// mode, which asks for meaning alone.
func (sr *Searcher) meaningAlone(resp *SearchResponse) bool {
	return resp.Mode == ModeVector || MeaningAlone(resp.Embedder)
}

// aboveFloor keeps the fused results that may be shown: those the words
// found (vectors only add to their score) and those whose vector is at
// least floor close to the query's — when the words found something or
// alone allows meaning matches by themselves (MeaningAlone).
func aboveFloor(fused, vec []Scored, byWords map[string]bool, floor float64, alone bool) []Scored {
	if len(byWords) == 0 && !alone {
		floor = math.Inf(1)
	}
	cos := make(map[string]float64, len(vec))
	for _, v := range vec {
		cos[v.ID] = v.Score
	}
	kept := fused[:0]
	for _, f := range fused {
		if c, ok := cos[f.ID]; byWords[f.ID] || ok && c >= floor {
			kept = append(kept, f)
		}
	}
	return kept
}

// MatchCounts counts results by how they match: "12 matched by words · 3
// by meaning" (prefix hits count as words).
func MatchCounts(rs []SearchResult) (words, meaning int) {
	for _, r := range rs {
		if r.Match == MatchMeaning {
			meaning++
		} else {
			words++
		}
	}
	return words, meaning
}

// NoMatchesHint is what every front end says when a search finds nothing
// above the floor, with the ways out that fit the query.
func NoMatchesHint(q SearchQuery) string {
	tries := []string{"other or fewer words"}
	if !q.Prefix {
		tries = append(tries, "the start of a word with * (websock*)")
	}
	if q.Mode == ModeText {
		tries = append(tries, "hybrid mode to match by meaning too")
	}
	if len(q.Projects) > 0 || q.Session != "" {
		tries = append(tries, "every project")
	}
	if q.Machine != "" {
		tries = append(tries, "every machine")
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		tries = append(tries, "a wider time range")
	}
	return "no matches; try " + joinOr(tries)
}

// joinOr joins "a", "b" and "c" as "a, b or c".
func joinOr(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
