package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// corpusDir is the shared sample of real Claude Code transcripts; tests and
// benchmarks that need it skip when it is absent. CAIRN_CORPUS overrides it,
// e.g. with a tree grown by ../shared/tools/scale-corpus.
var corpusDir = func() string {
	if d := os.Getenv("CAIRN_CORPUS"); d != "" {
		return d
	}
	return "../../../shared/corpus/claude/projects"
}()

// corpusEntry is one user or assistant message's text.
type corpusEntry struct {
	role string
	text string
}

// loadCorpusIfPresent is loadCorpus without testing.TB; nil when absent.
func loadCorpusIfPresent() []corpusEntry {
	if _, err := os.Stat(corpusDir); err != nil {
		return nil
	}
	entries, err := readCorpus()
	if err != nil {
		return nil
	}
	return entries
}

// loadCorpus reads the text of user/assistant message.content (strings, text
// blocks and tool_result text) from every JSONL file under corpusDir.
func loadCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		tb.Skipf("no corpus at %s", corpusDir)
	}
	out, err := readCorpus()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func readCorpus() ([]corpusEntry, error) {
	var out []corpusEntry
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if e, ok := parseCorpusLine(line); ok {
					out = append(out, e)
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	return out, err
}

func parseCorpusLine(line []byte) (corpusEntry, bool) {
	var e struct {
		Type    string `json:"type"`
		IsMeta  bool   `json:"isMeta"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil || (e.Type != "user" && e.Type != "assistant") || e.IsMeta {
		return corpusEntry{}, false
	}
	var s string
	if json.Unmarshal(e.Message.Content, &s) == nil {
		return corpusEntry{e.Type, s}, strings.TrimSpace(s) != ""
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(e.Message.Content, &blocks) != nil {
		return corpusEntry{}, false
	}
	var b strings.Builder
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "tool_result":
			var rs string
			if json.Unmarshal(bl.Content, &rs) == nil {
				b.WriteString(rs)
			} else {
				var parts []struct {
					Type, Text string
				}
				if json.Unmarshal(bl.Content, &parts) == nil {
					for _, p := range parts {
						b.WriteString(p.Text)
						b.WriteByte('\n')
					}
				}
			}
		}
		b.WriteByte('\n')
	}
	s = strings.TrimSpace(b.String())
	return corpusEntry{e.Type, s}, s != ""
}

func corpusTexts(entries []corpusEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.text
	}
	return out
}

// TestCorpusTrainAndEmbed trains on the real corpus and reports training time
// and single-core embedding throughput.
func TestCorpusTrainAndEmbed(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	entries := loadCorpus(t)
	docs := corpusTexts(entries)
	var bytes int
	for _, d := range docs {
		bytes += len(d)
	}
	start := time.Now()
	m, err := Train(docs, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	trainTime := time.Since(start)
	info := m.Info()
	blob, _ := m.MarshalBinary()
	t.Logf("trained on %d entries (%.1f MB): %v, vocab %d, dims %d, model %.1f MB, id %s",
		len(docs), float64(bytes)/1e6, trainTime.Round(time.Millisecond), info.Vocab, info.Dims, float64(len(blob))/1e6, m.ID())

	mrr, r1 := halfSplitMRR(m, docs)
	pr, n := promptReplyMRR(m, entries)
	t.Logf("self-supervised quality: half-split MRR %.3f (R@1 %.3f); prompt→reply MRR %.3f over %d pairs", mrr, r1, pr, n)

	lstart := time.Now()
	if _, err := LoadModel(blob); err != nil {
		t.Fatal(err)
	}
	t.Logf("LoadModel: %v", time.Since(lstart).Round(time.Microsecond))

	// Single-core throughput on entries of 200–2000 characters.
	var typical []string
	for _, d := range docs {
		if len(d) >= 200 && len(d) <= 2000 {
			typical = append(typical, d)
		}
	}
	s := m.getScratch()
	out := make([]float32, m.Dims())
	zero := 0
	start = time.Now()
	n = 0
	for time.Since(start) < time.Second {
		for _, d := range typical {
			if !s.embed(Document, d, out) {
				zero++
			}
			n++
		}
	}
	el := time.Since(start)
	t.Logf("embed (1 core): %d typical entries in %v = %.0f entries/s; %d had no known term",
		n, el.Round(time.Millisecond), float64(n)/el.Seconds(), zero)

	start = time.Now()
	vs, err := m.Embed(context.Background(), Document, docs)
	if err != nil {
		t.Fatal(err)
	}
	el = time.Since(start)
	zero = 0
	for _, v := range vs {
		if IsZero(v) {
			zero++
		}
	}
	t.Logf("embed all %d entries on %d procs: %v = %.0f entries/s; %d zero vectors",
		len(docs), runtime.GOMAXPROCS(0), el.Round(time.Millisecond), float64(len(docs))/el.Seconds(), zero)
}
