package memories

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/fakeclaude"
	"github.com/cairn-dev/cairn/internal/testutil/teststore"

	json "github.com/go-json-experiment/json"
)

// The Claude extractor's replay set (issue 23 item 5): for real sessions
// of the shared corpora, an answer written the way Claude answers cairn's
// schema — good memories, one that does not stand alone, one whose source
// is no line of the transcript, one that repeats an approved memory — is
// replayed through the real Claude Code CLI (a fake Messages API returns
// it) and the real parsing, filtering and dedup. Each memory says what
// must become of it.

type replayMemory struct {
	Type       string   `json:"type"`
	Content    string   `json:"content"`
	Importance int      `json:"importance,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	// Source is text of the line the memory comes from; the answer names
	// that line's #n in the request (none when no line holds it).
	Source string `json:"source"`
	// Expect: kept (a new pending memory), duplicate (folded into the
	// approved memory it repeats), not-alone or no-source (dropped).
	Expect string `json:"expect"`
}

type replayAnswer struct {
	Corpus   string         `json:"corpus"`
	Session  string         `json:"session"`
	Note     string         `json:"note"`
	Memories []replayMemory `json:"memories"`
	Summary  map[string]any `json:"summary"`
}

var condensedRef = regexp.MustCompile(`(?m)^#\d+ [a-z ]+: `)

// refFor is the #n of the first condensed entry of text holding source
// (an entry runs to the next "#n role: ").
func refFor(text, source string) string {
	locs := condensedRef.FindAllStringIndex(text, -1)
	for i, l := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if strings.Contains(text[l[1]:end], source) {
			return strings.Fields(text[l[0]:l[1]])[0]
		}
	}
	return "#0"
}

func TestClaudeExtractorReplay(t *testing.T) {
	cli := fakeclaude.RequireCLI(t)
	b, err := os.ReadFile(filepath.Join("testdata", "claude-replay", "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var answers []replayAnswer
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var a replayAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answers.jsonl:%d: %v", n+1, err)
		}
		answers = append(answers, a)
	}
	ctx := context.Background()
	dir := untarCorpus(t, filepath.Join(keeprateDir, "claude-code-log.tar.gz"))
	cfg := config.Default()
	cfg.Memories.Extractor = "claude"
	cfg.Claude.Command = cli.Path
	cfg.Claude.Timeout = config.Duration{Duration: time.Minute}
	cfg.Claude.MaxInput = 400000
	s := New(teststore.Open(t), cfg)
	if _, err := s.st.Update(ctx, dir, index.UpdateOptions{Sync: index.SyncOptions{Workers: 1}, DeferFTS: true}); err != nil {
		t.Fatal(err)
	}
	var current *replayAnswer
	api := fakeclaude.NewServer(t, func(_ int, r *fakeclaude.Request) fakeclaude.Reply {
		text := r.AllText()
		var mems []any
		for _, m := range current.Memories {
			if m.Importance == 0 {
				m.Importance = 3
			}
			if m.Tags == nil {
				m.Tags = []string{}
			}
			mems = append(mems, map[string]any{"type": m.Type, "content": m.Content, "importance": m.Importance,
				"tags": m.Tags, "sources": []string{refFor(text, m.Source)}})
		}
		return fakeclaude.ToolUse("StructuredOutput", map[string]any{"memories": mems, "summary": current.Summary})
	})
	home := t.TempDir()
	s.model = &claudeModel{s: s.core, env: fakeclaude.Env(home, api, "ANTHROPIC_AUTH_TOKEN=", "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))}

	for i := range answers {
		a := &answers[i]
		t.Run(a.Session, func(t *testing.T) {
			current = a
			sid, project, err := s.session(ctx, a.Session)
			if err != nil {
				t.Fatal(err)
			}
			// What the answer repeats was approved before.
			for _, m := range a.Memories {
				if m.Expect != "duplicate" {
					continue
				}
				r, err := s.Curator.Add(ctx, NewMemory{Project: project, Type: Type(m.Type), Content: "Use pnpm, not npm, to install packages here.", Importance: 3, Origin: OriginManual})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Curator.SetStatus(ctx, r.Memory.ID, Approved); err != nil {
					t.Fatal(err)
				}
			}
			res, err := s.Curator.ExtractSession(ctx, sid, ExtractOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Extractor != "claude" || res.Notice != "" {
				t.Fatalf("extractor %q, notice %q", res.Extractor, res.Notice)
			}
			mems, err := s.List(ctx, Filter{Statuses: []Status{Pending, Approved}})
			if err != nil {
				t.Fatal(err)
			}
			var fromClaude []string
			for _, m := range mems {
				if m.Origin == OriginClaude && m.SourceSession == sid {
					fromClaude = append(fromClaude, m.Content)
				}
			}
			for _, m := range a.Memories {
				got := slices.Contains(fromClaude, m.Content)
				if got != (m.Expect == "kept") {
					t.Errorf("%s: %q stored as a new memory: %v", m.Expect, m.Content, got)
				}
			}
			sum, err := s.Drafts.Summary(ctx, sid)
			if err != nil || sum.Source != OriginClaude {
				t.Fatalf("summary %+v, %v", sum, err)
			}
		})
	}
}
