package memories

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/embed"
)

type floorSet struct {
	Memories []string `json:"memories"`
	Queries  []struct {
		Type     string `json:"type"`
		Query    string `json:"query"`
		Relevant []int  `json:"relevant"`
	} `json:"queries"`
}

// floorService stores the labelled memories (approved) over the bundled
// sample, so the built-in embedder is trained on real text.
func floorService(t *testing.T) (*Service, floorSet, []string) {
	t.Helper()
	var set floorSet
	b, err := os.ReadFile(filepath.Join("testdata", "floor", "memories.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := sampleService(t)
	if _, err := s.st.Derived().BuiltinEmbedder(ctx, false); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(set.Memories))
	for i, c := range set.Memories {
		r, err := s.Curator.Add(ctx, NewMemory{Project: "/p", Type: Gotcha, Content: c, Status: Approved, Importance: 3})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r.Memory.ID
	}
	return s, set, ids
}

// TestMemoryFloor (issue 15.4) holds memory search to the relevance floor
// on labelled memories written from the bundled sample: nonsense finds
// nothing, and every query that finds its memory by words still does.
// CAIRN_EVAL_SWEEP=floor prints each query's closeness in meaning to its
// memory and the nonsense queries' nearest one (the calibration).
func TestMemoryFloor(t *testing.T) {
	ctx := context.Background()
	s, set, ids := floorService(t)
	found := map[string][2]int{}
	for _, q := range set.Queries {
		rs, err := s.Recall.Search(ctx, q.Query, nil, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		c := found[q.Type]
		for _, r := range rs {
			for _, i := range q.Relevant {
				if r.ID == ids[i] {
					c[0]++
				}
			}
		}
		c[1] += len(q.Relevant)
		found[q.Type] = c
		if q.Type == "nonsense" && len(rs) > 0 {
			t.Errorf("nonsense %q found %q (%s, similarity %.3f)", q.Query, rs[0].Content, rs[0].Match, rs[0].Similarity)
		}
		if (q.Type == "keyword" || q.Type == "identifier") && !slices.ContainsFunc(rs, func(r Ranked) bool { return r.ID == ids[q.Relevant[0]] }) {
			t.Errorf("%s %q lost its memory", q.Type, q.Query)
		}
	}
	for _, k := range []string{"keyword", "identifier", "question", "paraphrase", "nonsense"} {
		t.Logf("%-10s found %d/%d", k, found[k][0], found[k][1])
	}
	if os.Getenv("CAIRN_EVAL_SWEEP") == "floor" {
		memorySweep(t, s, set, ids)
	}
}

// memorySweep logs the cosine of each query to its memory and to its
// nearest other memory.
func memorySweep(t *testing.T, s *Service, set floorSet, ids []string) {
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()
	mc, err := s.memories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, q := range set.Queries {
		qv := s.queryVector(ctx, mc, q.Query)
		rel, other := -1.0, -1.0
		for i, id := range ids {
			c := mc.byID[id]
			v := mc.vecOf(c)
			if qv == nil || v == nil {
				continue
			}
			d := float64(embed.Dot(qv, v))
			if slices.Contains(q.Relevant, i) {
				rel = max(rel, d)
			} else {
				other = max(other, d)
			}
		}
		lines = append(lines, fmt.Sprintf("%-10s relevant %6.3f  best other %6.3f  %q", q.Type, rel, other, q.Query))
	}
	sort.Strings(lines)
	t.Logf("cosine to the query (floor %.2f):\n%s", index.BuiltinMeaningFloor, strings.Join(lines, "\n"))
}
