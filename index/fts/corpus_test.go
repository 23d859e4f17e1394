package fts

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// corpusDir is the shared sample of real Claude Code transcripts, relative
// to this package. Benchmarks use it for realistic text when present.
const corpusDir = "../../../shared/corpus/claude/projects"

// corpusLines returns non-trivial lines of user/assistant/tool text from the
// shared corpus, or nil when it is absent.
var corpusLines = sync.OnceValue(func() []string {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.jsonl"))
	var lines []string
	for _, f := range files {
		for _, text := range transcriptTexts(f) {
			for _, l := range strings.Split(text, "\n") {
				if l = strings.TrimSpace(l); len(l) >= 20 && len(l) <= 1500 {
					lines = append(lines, l)
				}
			}
		}
	}
	return lines
})

// transcriptTexts pulls text, thinking and string tool results out of one
// JSONL transcript. Just enough parsing for test data.
func transcriptTexts(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	r := bufio.NewReader(f) // lines can be far longer than Scanner's limit
	for {
		line, err := r.ReadBytes('\n')
		var e struct {
			Type    string
			Message struct{ Content json.RawMessage }
		}
		if json.Unmarshal(line, &e) == nil && (e.Type == "user" || e.Type == "assistant") {
			var s string
			var blocks []struct {
				Type, Text, Thinking string
				Content              json.RawMessage
			}
			if json.Unmarshal(e.Message.Content, &s) == nil {
				out = append(out, s)
			} else if json.Unmarshal(e.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					out = append(out, b.Text, b.Thinking)
					if json.Unmarshal(b.Content, &s) == nil {
						out = append(out, s)
					}
				}
			}
		}
		if err != nil { // io.EOF included
			return out
		}
	}
}

// synthDocs makes n documents of 300–1500 characters by stitching corpus
// lines together (or generated code-ish prose when the corpus is absent),
// spread over 40 projects, 2000 sessions, four roles and blocks, and a year.
func synthDocs(n int, seed uint64) []Doc {
	rng := rand.New(rand.NewPCG(seed, 7))
	lines := corpusLines()
	if len(lines) == 0 {
		lines = generatedLines(rng, 5000)
	}
	roles := []string{"user", "assistant", "assistant", "tool"}
	blocks := []string{"text", "text", "thinking", "tool_result"}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]Doc, n)
	var sb strings.Builder
	for i := range docs {
		target := 300 + rng.IntN(1200)
		sb.Reset()
		for sb.Len() < target {
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(lines[rng.IntN(len(lines))])
		}
		text := sb.String()
		if len(text) > 1500 {
			text = strings.ToValidUTF8(text[:1500], "")
		}
		r := rng.IntN(len(roles))
		docs[i] = Doc{
			ID:       fmt.Sprintf("m:%08d#0", i),
			Kind:     "message",
			Text:     text,
			Project:  fmt.Sprintf("/home/u/projects/p%02d", rng.IntN(40)),
			Session:  fmt.Sprintf("s-%04d", rng.IntN(2000)),
			Role:     roles[r],
			Block:    blocks[r],
			Subagent: rng.IntN(10) == 0,
			Time:     base.Add(time.Duration(rng.IntN(365*24)) * time.Hour),
		}
	}
	return docs
}

// generatedLines is the fallback vocabulary: English-ish words mixed with
// identifiers and paths, Zipf-distributed like real text.
func generatedLines(rng *rand.Rand, n int) []string {
	words := strings.Fields(`the a to of and in is it that for on with this be as we
		file function error test index search query parse transcript session memory
		project hook lock open close write read build run fix change update value
		config bleve sqlite token analyzer result batch commit branch review`)
	code := []string{"parseTranscript", "index/fts/open.go", "ErrLocked", "root.bolt",
		"snake_case_name", "kebab-case-flag", "os.Args", "HTTPServer", "go test ./...",
		"internal/tui/model.go:42", "sessionID", "json.Unmarshal"}
	zipf := rand.NewZipf(rng, 1.2, 1, uint64(len(words)-1))
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for k := 0; k < 8+rng.IntN(30); k++ {
			if rng.IntN(8) == 0 {
				sb.WriteString(code[rng.IntN(len(code))])
			} else {
				sb.WriteString(words[zipf.Uint64()])
			}
			sb.WriteByte(' ')
		}
		out[i] = sb.String()
	}
	return out
}

// textBytes is the total size of the documents' text.
func textBytes(docs []Doc) int64 {
	var n int64
	for _, d := range docs {
		n += int64(len(d.Text) + len(d.Title))
	}
	return n
}

// dirSize is the bytes on disk under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
