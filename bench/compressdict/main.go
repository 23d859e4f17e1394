// Command compressdict writes the dictionaries cairn compresses short
// entry values with (index/compress.go): one for entries' searchable text,
// one for their render data (JSON).
//
// Usage: go run ./bench/compressdict DATA_DIR OUT_DIR (writes compress_text1.dict and compress_data1.dict)
//
// DATA_DIR is a cairn store indexed from transcripts that are not private
// (the dictionaries ship in every binary: cairn's are made from
// ../shared/corpus/claude-code-log, public under the MIT license, indexed
// with `cairn index --claude-dir ../shared/corpus/claude-code-log --data
// DATA_DIR` by the build of session 36). The files written are new
// dictionaries: a released one is never replaced (index/compress.go). A
// dictionary holds only fragments that occur in the values of at least
// minProjects different projects — Claude Code's and cairn's own
// boilerplate (JSON keys, tool names and parameters, tool-result
// preambles, common words), never one project's paths, ids or text — the
// most frequent last (nearest to the data, the cheapest to refer to), up
// to S2's 64 KB. The output is deterministic for a given store.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"sort"

	_ "github.com/cairn-dev/cairn/index" // cairn_unz and the SQLite driver
)

const (
	gram        = 12      // fragments are runs of common 12-byte grams
	minProjects = 3       // a gram is common when this many projects have it
	minLen      = 16      // shorter fragments are not worth a dictionary's room
	dictSize    = 65_000  // under S2's 64 KB limit, with room for the header
	shortBelow  = 2048    // the values S2 compresses (compress.go's s2Below)
	longAtLeast = 96      // compress.go's zMin
	maxFragment = 1 << 10 // a longer run is cut
)

type value struct {
	b       []byte
	project int
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: compressdict DATA_DIR OUT_DIR")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(os.Args[1], "cairn.db")+"?mode=ro")
	if err != nil {
		fail(err)
	}
	for _, col := range []string{"text", "data"} {
		vals, err := load(db, col)
		if err != nil {
			fail(err)
		}
		d := build(vals)
		out := filepath.Join(os.Args[2], "compress_"+col+"1.dict")
		if err := os.WriteFile(out, d, 0o644); err != nil {
			fail(err)
		}
		fmt.Printf("%s: %d values, dictionary of %d bytes\n", out, len(vals), len(d))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// load reads the short values of one column with their project, in row order.
func load(db *sql.DB, col string) ([]value, error) {
	rows, err := db.QueryContext(context.Background(), `SELECT e.`+col+`, s.project FROM entries e JOIN sessions s ON s.id = e.session WHERE e.`+col+` IS NOT NULL ORDER BY e.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []value
	for rows.Next() {
		var v value
		if err := rows.Scan(&v.b, &v.project); err != nil {
			return nil, err
		}
		if len(v.b) >= longAtLeast && len(v.b) < shortBelow {
			out = append(out, v)
		}
	}
	return out, rows.Err()
}

// build picks the fragments and lays them out, most valuable last.
func build(vals []value) []byte {
	return layout(rank(fragments(vals, commonGrams(vals))))
}

// commonGrams says whether a gram occurs in minProjects projects' values.
func commonGrams(vals []value) func([]byte) bool {
	projects := map[string]uint64{} // gram -> bit set of projects
	for _, v := range vals {
		for i := 0; i+gram <= len(v.b); i++ {
			projects[string(v.b[i:i+gram])] |= 1 << (v.project % 64)
		}
	}
	return func(g []byte) bool { return bits.OnesCount64(projects[string(g)]) >= minProjects }
}

// fragments counts the maximal runs of common grams in the values.
func fragments(vals []value, common func([]byte) bool) map[string]int {
	count := map[string]int{}
	for _, v := range vals {
		for i := 0; i+gram <= len(v.b); {
			if !common(v.b[i : i+gram]) {
				i++
				continue
			}
			j := i
			for j+gram < len(v.b) && j-i < maxFragment && common(v.b[j+1:j+1+gram]) {
				j++
			}
			if f := v.b[i : j+gram]; len(f) >= minLen {
				count[string(f)]++
			}
			i = j + gram
		}
	}
	return count
}

type frag struct {
	s     string
	score int
}

// rank orders the fragments seen twice or more by the bytes they would
// save, ties by their text.
func rank(count map[string]int) []frag {
	var frags []frag
	for s, n := range count {
		if n >= 2 {
			frags = append(frags, frag{s, n * (len(s) - 3)})
		}
	}
	sort.Slice(frags, func(i, j int) bool {
		if frags[i].score != frags[j].score {
			return frags[i].score > frags[j].score
		}
		return frags[i].s < frags[j].s
	})
	return frags
}

// layout takes the best fragments not already inside a better one, up to
// dictSize, and writes them most valuable last.
func layout(frags []frag) []byte {
	var picked []string
	size := 0
	var all bytes.Buffer
	for _, f := range frags {
		if size+len(f.s) > dictSize || bytes.Contains(all.Bytes(), []byte(f.s)) {
			continue
		}
		picked = append(picked, f.s)
		all.WriteString(f.s)
		size += len(f.s)
	}
	var d []byte
	for i := len(picked) - 1; i >= 0; i-- {
		d = append(d, picked[i]...)
	}
	return d
}
