package redact

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// benchText is ~1 MiB of secret-free transcript-like text: code, logs,
// paths, hashes, JSON and prose from cleanSamples, plus the same
// JSON-escaped as in raw transcript lines.
func benchText() string {
	names := make([]string, 0, len(cleanSamples))
	for name := range cleanSamples {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	for b.Len() < 1<<20 {
		for _, name := range names {
			b.WriteString(cleanSamples[name])
			b.WriteString("\n")
			b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"`)
			b.WriteString(esc.Replace(cleanSamples[name]))
			b.WriteString("\"}]}}\n")
		}
	}
	return b.String()
}

func benchRedact(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Redact(text)
	}
}

// BenchmarkRedact measures the common case: realistic text with no
// secrets.
func BenchmarkRedact(b *testing.B) {
	benchRedact(b, benchText())
}

// BenchmarkRedactSecrets measures text dense with secrets (one every
// ~150 bytes), the slow path.
func BenchmarkRedactSecrets(b *testing.B) {
	var parts []string
	for _, c := range plantedCases() {
		parts = append(parts, c.text)
	}
	text := strings.Join(parts, "\n")
	benchRedact(b, strings.Repeat(text, max(1, (1<<20)/len(text))))
}

// BenchmarkRedactCorpus runs over real Claude Code transcripts when the
// shared corpus is present (raw JSONL, so every line is JSON-escaped).
func BenchmarkRedactCorpus(b *testing.B) {
	var files []string
	for _, dir := range []string{"../../shared/corpus/claude/projects", "/work/shared/corpus/claude/projects"} {
		files, _ = filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
		if len(files) > 0 {
			break
		}
	}
	if len(files) == 0 {
		b.Skip("no corpus at ../shared/corpus/claude/projects")
	}
	var sb strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		sb.Write(data)
		if sb.Len() > 8<<20 {
			break
		}
	}
	benchRedact(b, sb.String())
}
