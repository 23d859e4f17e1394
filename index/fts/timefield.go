package fts

import (
	"context"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/numeric"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Doc.Time is indexed as Unix seconds in a 32-bit domain (1970–2106) using
// bleve's numeric trie encoding, but only the 8 trie levels that domain
// needs. bleve's own datetime field writes 17 terms per document (64-bit
// nanoseconds, precision step 4), most of them unique per document; that
// cost about 15% of the index size and 25% of the indexing time here.
// bleve's numeric range searcher decomposes a range with the same step (4)
// and skips terms that are not in the dictionary, so a range inside the
// 32-bit domain only ever uses the levels indexed here.
const (
	timePrecisionStep = 4
	timeBits          = 32
	analyzerTime      = "cairn_unix_seconds"
)

func init() {
	must(registry.RegisterAnalyzer(analyzerTime, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return timeAnalyzer{}, nil
	}))
}

// timeGrain is the resolution of indexed times, in seconds. Second-level
// terms were nearly unique per document and made up a fifth of the index on
// disk; hour-level terms are shared by every entry of the hour. Filters are
// exact all the same: the range covers whole hours and callers (index.
// Searcher) check each hit's exact time from the store.
const timeGrain = 3600

func floorGrain(secs int64) int64 { return secs - secs%timeGrain }

// unixSeconds maps t into the indexed domain; ok is false outside it.
func unixSeconds(t time.Time) (int64, bool) {
	s := t.Unix()
	return s, !t.IsZero() && s >= 0 && s < 1<<timeBits
}

// timeAnalyzer turns a decimal Unix-seconds value into its trie terms.
type timeAnalyzer struct{}

func (timeAnalyzer) Analyze(b []byte) analysis.TokenStream {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || v < 0 || v >= 1<<timeBits {
		return nil
	}
	out := make(analysis.TokenStream, 0, timeBits/timePrecisionStep)
	for shift := uint(0); shift < timeBits; shift += timePrecisionStep {
		term, err := numeric.NewPrefixCodedInt64(v, shift)
		if err != nil {
			return nil
		}
		out = append(out, &analysis.Token{Term: term, End: len(b), Position: 1, Type: analysis.Numeric})
	}
	return out
}

// timeRangeQuery matches documents whose time lies in [lo, hi] (inclusive
// Unix seconds). It implements query.Query directly because the range must
// be expressed in the field's own domain, not as a datetime.
type timeRangeQuery struct{ lo, hi int64 }

// newTimeRange converts Filter bounds (zero = open) to a query, clamped to
// the indexed domain so no decomposition term falls outside it. Precision
// is one second: both document times and bounds are truncated to seconds.
func newTimeRange(since, until time.Time) timeRangeQuery {
	q := timeRangeQuery{lo: 0, hi: 1<<timeBits - 1}
	// Documents carry the hour they fall in (see timeGrain): widen the
	// bounds to whole hours so the range is a superset of the exact one.
	if !since.IsZero() {
		q.lo = max(floorGrain(since.Unix()), q.lo)
	}
	if !until.IsZero() {
		q.hi = min(floorGrain(until.Unix())+timeGrain-1, q.hi)
	}
	return q // lo > hi (an empty or out-of-domain range) matches nothing
}

func (q timeRangeQuery) Searcher(ctx context.Context, i index.IndexReader, _ mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	if q.lo > q.hi {
		return searcher.NewMatchNoneSearcher(i)
	}
	lo, hi := numeric.Int64ToFloat64(q.lo), numeric.Int64ToFloat64(q.hi)
	yes := true
	return searcher.NewNumericRangeSearcher(ctx, i, &lo, &hi, &yes, &yes, fieldTime, 1, options)
}
