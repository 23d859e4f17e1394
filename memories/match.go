package memories

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/codesplit"
)

// Memory matching (issue 23.8). Ranking matches words as dedup does
// (tokens: lower-case, a plural or verb ending dropped), and also:
//
//   - identifiers by their parts, split as the full-text index splits
//     them (internal/codesplit): the memory text
//     `:opentelemetry.set_text_map_propagators/1` holds
//     `set_text_map_propagators`, `opentelemetry.set_text_map_propagators`
//     and the words `set`, `text`, `map`, `propagators`; a query
//     identifier is held whole or by all of its words;
//   - without the common English function words (functionWords, beyond
//     dedup's stop words): "because", "while", "about" say nothing about
//     what a memory is about.
//
// A query's words are then graded by index.Grade (the search rule: all of
// one or two words, most of more, or most of the information), and a
// prompt's memories (the UserPromptSubmit hook) need more than one word in
// common (InjectWords).

// functionWords are common English function words that ranking ignores
// on top of dedup's stop words: conjunctions, prepositions, pronouns,
// auxiliaries and fillers.
var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`because since while although though unless until whether either neither nor
		yet however therefore thus hence also too anyway instead otherwise meanwhile
		above across after against along among around before behind below beneath beside besides between beyond
		during except inside near off onto outside past per than through throughout toward towards upon via within without
		am isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't can't couldn't shouldn't
		i'm i've i'd i'll you're you've you'd you'll he's she's it's we're we've they're they've that's there's what's let's
		dont doesnt didnt cant wont isnt im ive thats theres whats
		him his her hers mine yours ours theirs itself myself yourself ourselves themselves himself herself
		one ones anyone anything everyone everything someone something nobody nothing none
		many much lot lots little less least several every another either
		really quite rather almost already always never often sometimes usually maybe perhaps
		like well way ways thing things stuff kind sort bit
		make makes made take takes took give gives gave put puts want wants need needs know knows think thinks
		see sees seen say says said tell tells told use uses using used try tries tried
		new old good bad big small first last next same different sure`) {
		m[w] = true
	}
	return m
}()

// InjectWords is how many words a memory must share with a prompt to be
// injected into it (an identifier counts as two): one common word in
// common is a coincidence, not a reason.
const InjectWords = 2

// rawWords splits text into words as words does, keeping their case (an
// identifier's case boundaries split it) and the colons inside Elixir and
// C++ names (`:otel_span.hex_trace_id/1`, `std::vector`).
func rawWords(s string) []string { return splitWords(s, true) }

// matchTerm is the hashed term of a lower-case word or part, and false
// when it carries nothing (too short, a stop or function word).
func matchTerm(w string) (uint32, bool) {
	if len(w) < 2 || stopwords[w] || functionWords[w] || negations[w] {
		return 0, false
	}
	return fnv32a(stemWord(w)), true
}

// matchTokens are the sorted, unique terms ranking matches a memory by:
// its words, and the parts of its identifiers.
func matchTokens(s string) []uint32 {
	var out []uint32
	for _, w := range rawWords(s) {
		if t, ok := matchTerm(strings.ToLower(w)); ok {
			out = append(out, t)
		}
		for _, p := range codesplit.Parts(w) {
			if t, ok := matchTerm(p); ok {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// queryWord is one informative word of a query: its term, and for an
// identifier the terms of the words it is made of (held all together, they
// hold it).
type queryWord struct {
	whole  uint32
	leaves []uint32
}

// queryWords are the informative words of a query, each once.
func queryWords(q string) []queryWord {
	var out []queryWord
	seen := map[uint32]bool{}
	for _, w := range rawWords(q) {
		t, ok := matchTerm(strings.ToLower(w))
		if !ok || seen[t] {
			continue
		}
		seen[t] = true
		qw := queryWord{whole: t}
		for _, l := range codesplit.Leaves(w) {
			if lt, ok := matchTerm(l); ok {
				qw.leaves = append(qw.leaves, lt)
			}
		}
		out = append(out, qw)
	}
	return out
}

// holders are the memories (items of mc) holding w: its term, or every
// one of its leaves.
func (mc *memCache) holders(w queryWord) []int32 {
	out := slices.Clone(mc.rpost[w.whole])
	if len(w.leaves) < 2 {
		return out
	}
	rarest := w.leaves[0]
	for _, l := range w.leaves[1:] {
		if len(mc.rpost[l]) < len(mc.rpost[rarest]) {
			rarest = l
		}
	}
	for _, i := range mc.rpost[rarest] {
		all := true
		for _, l := range w.leaves {
			if _, ok := slices.BinarySearch(mc.items[i].rtoks, l); !ok {
				all = false
				break
			}
		}
		if all && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// MatchedWords are the words of query that content holds, as the query
// wrote them (an identifier counts when it or all its parts are there):
// why a memory was chosen, for the person or model it is shown to.
func MatchedWords(query, content string) []string {
	held := matchTokens(content)
	has := func(t uint32) bool { _, ok := slices.BinarySearch(held, t); return ok }
	var out []string
	seen := map[uint32]bool{}
	for _, w := range rawWords(query) {
		t, ok := matchTerm(strings.ToLower(w))
		if !ok || seen[t] {
			continue
		}
		seen[t] = true
		match := has(t)
		if !match {
			var leaves []uint32
			for _, l := range codesplit.Leaves(w) {
				if lt, ok := matchTerm(l); ok {
					leaves = append(leaves, lt)
				}
			}
			match = len(leaves) > 1 && !slices.ContainsFunc(leaves, func(l uint32) bool { return !has(l) })
		}
		if match {
			out = append(out, w)
		}
	}
	return out
}
