package memories

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/index"

	json "github.com/go-json-experiment/json"
)

// A session built from steps: "$ cmd" a Bash call, "ok: out" / "err: out"
// its result, "> text" Claude's text, "user: text" a prompt.
func discoverySession(side bool, steps ...string) []index.MemEntry {
	var es []index.MemEntry
	call := ""
	for i, s := range steps {
		id := "e" + string(rune('a'+i))
		e := index.MemEntry{UUID: id, Sidechain: side}
		switch {
		case strings.HasPrefix(s, "$ "):
			call = "tu" + id
			in, err := json.Marshal(map[string]string{"command": s[2:]})
			if err != nil {
				panic(err)
			}
			e.Role, e.Block, e.ToolName, e.ToolUse, e.Input = "assistant", "tool_use", "Bash", call, in
		case strings.HasPrefix(s, "ok: "), strings.HasPrefix(s, "err: "):
			k, out, _ := strings.Cut(s, ": ")
			e.Role, e.Block, e.ToolUse, e.Text, e.IsError = "tool", "tool_result", call, out, k == "err"
		case strings.HasPrefix(s, "> "):
			e.Role, e.Block, e.Text = "assistant", "text", s[2:]
		case strings.HasPrefix(s, "user: "):
			e.Role, e.Block, e.Text, e.Sidechain = "user", "text", s[6:], false
		}
		es = append(es, e)
	}
	return es
}

func contents(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.content)
	}
	return out
}

const hyphenExplained = "I see the issue - Python can't import a module with hyphens in the filename. Let me rename the module reference."

func TestDiscoveryConfirmedByTheRetry(t *testing.T) {
	got := discoveryCandidates(discoverySession(false,
		"user: make it installable",
		"$ tool-x --help", "err: Traceback (most recent call last):\nModuleNotFoundError: No module named 'tool_x'",
		"> "+hyphenExplained,
		"$ tool-x --help", "ok: usage: tool-x [-h]",
		"user: thanks, now add a README"), nil)
	want := "Python can't import a module with hyphens in the filename (found when `tool-x --help` failed: ModuleNotFoundError: No module named 'tool_x')"
	if len(got) != 1 || got[0].content != want || got[0].rule != "claude:discovery" {
		t.Fatalf("got %q, want %q", contents(got), want)
	}
	// Its sources: Claude's words, the failed call and the call that worked.
	if !slices.Equal(got[0].uuids, []string{"ed", "eb", "ee"}) {
		t.Errorf("uuids %v", got[0].uuids)
	}
}

func TestDiscoveryNeedsEvidence(t *testing.T) {
	for name, steps := range map[string][]string{
		// Never retried: a guess.
		"no retry": {"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> " + hyphenExplained, "user: ok"},
		// The retry failed again: the explanation was not the answer
		// (the next one, if any, is judged on its own).
		"retry fails": {"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> " + hyphenExplained,
			"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> Let me try reinstalling.",
			"$ tool-x --help", "ok: usage: tool-x"},
		// The person says it still fails.
		"still failing": {"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> " + hyphenExplained,
			"$ tool-x --help", "ok: usage: tool-x", "user: it still doesn't work when I run it from my shell"},
		// A harness refusal is not a tool's behaviour.
		"harness": {"$ tool-x --help", "err: <tool_use_error>Sibling tool call errored</tool_use_error>", "> " + hyphenExplained,
			"$ tool-x --help", "ok: usage: tool-x"},
		// Narration, plans, guesses and progress are not findings.
		"narration": {"$ mix test", "err: Exit code 2\n1) test fails\nAssertion with == failed",
			"> Let me check the `config/test.exs` file. I need to use `:auto` mode. The issue might be that `Repo` doesn't start. 10 of 12 pass now. The only issue is the exact match — the HTML has whitespace around `agent`.",
			"$ mix test", "ok: 12 tests, 0 failures"},
	} {
		if got := discoveryCandidates(discoverySession(false, steps...), nil); len(got) != 0 {
			t.Errorf("%s: proposed %q", name, contents(got))
		}
	}
}

func TestDiscoverySaysTheFix(t *testing.T) {
	got := discoveryCandidates(discoverySession(false,
		"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'",
		"> "+hyphenExplained+" We need to tell Hatchling to rename the file during packaging.",
		"$ tool-x --help", "ok: usage: tool-x [-h]"), nil)
	want := "Python can't import a module with hyphens in the filename: tell Hatchling to rename the file during packaging (found when"
	if len(got) != 1 || !strings.HasPrefix(got[0].content, want) {
		t.Fatalf("got %q, want %q…", contents(got), want)
	}
	// Plans to look, or to change the test, are not the fix.
	for _, s := range []string{"I need to check the `pyproject.toml` config.", "I need to update the test to match `tool_x`.", "We need to fix both of them."} {
		if how, ok := fixOf(s); ok {
			t.Errorf("%q: fix %q", s, how)
		}
	}
}

func TestDiscoveryKindIsTheChainsLastCommand(t *testing.T) {
	// The commit fails in its pre-commit hook; Claude says why; a later
	// `git add … && git commit …` works: the commit is what was retried.
	got := discoveryCandidates(discoverySession(false,
		"$ git commit -m 'feat: x'", "err: Pre-commit validation failed:\\n\\n[DIALYZER]",
		"> Dialyzer says `LLMChain.run` returns a 3-tuple `{:error, chain, reason}` on errors.",
		"$ git add lib/x.ex && git commit -m 'feat: x'", "ok: [main 1234567] feat: x"), nil)
	if len(got) != 1 || !strings.HasSuffix(got[0].content, "failed: Pre-commit validation failed: [DIALYZER])") {
		t.Fatalf("got %q", contents(got))
	}
	// A `git add` alone is not the commit.
	if got := discoveryCandidates(discoverySession(false,
		"$ git add -A && git commit -m 'feat: x'", "err: Pre-commit validation failed: [DIALYZER]",
		"> Dialyzer says `LLMChain.run` returns a 3-tuple `{:error, chain, reason}` on errors.",
		"$ git add lib/x.ex", "ok: "), nil); len(got) != 0 {
		t.Errorf("confirmed by `git add`: %q", contents(got))
	}
}

func TestDiscoveryLeadIns(t *testing.T) {
	for _, s := range []string{
		"Turns out `gh api` returns only the first 30 items unless called with `--paginate`.",
		"The problem was that `gh api` returns only the first 30 items unless called with `--paginate`.",
		"Apparently, `gh api` returns only the first 30 items unless called with `--paginate`.",
	} {
		if got := withoutLeadIn(s); !strings.HasPrefix(got, "`gh api` returns") || !discoveryFinding(got) {
			t.Errorf("%q: %q", s, got)
		}
	}
}

func TestShellKind(t *testing.T) {
	for cmd, want := range map[string]string{
		"git add -A && git commit -m 'x'":          "Bash git commit",
		"mix test 2>&1 && echo ok":                 "Bash mix test",
		"cd assets && node build.js 2>&1":          "Bash node",
		"FOO=1 uv run pytest -x":                   "Bash uv run",
		"git add lib/x.ex":                         "Bash git add",
		"cat > types/README.md << 'EOF'\n# x\nEOF": "Bash cat",
		"  ": "",
	} {
		if got := shellKind(cmd); got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
}

func TestDiscoveryDroppedWhenItsErrorComesBack(t *testing.T) {
	// It worked once, then the same error again before the next prompt:
	// the explanation was not why.
	got := discoveryCandidates(discoverySession(false,
		"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> "+hyphenExplained,
		"$ tool-x --help", "ok: usage: tool-x [-h]",
		"$ tool-x run", "err: ModuleNotFoundError: No module named 'tool_x'",
		"user: thanks"), nil)
	if len(got) != 1 || !strings.HasPrefix(got[0].content, "Python can't") {
		t.Fatalf("another kind's failure dropped it: %q", contents(got))
	}
	got = discoveryCandidates(discoverySession(false,
		"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> "+hyphenExplained,
		"$ tool-x --help", "ok: usage: tool-x [-h]",
		"$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'",
		"user: thanks"), nil)
	if len(got) != 0 {
		t.Errorf("the error came back: %q", contents(got))
	}
}

func TestDiscoveryInSidechain(t *testing.T) {
	// A subagent's thread is read on its own: the main thread's calls
	// neither confirm nor cancel it.
	es := discoverySession(true, "$ tool-x --help", "err: ModuleNotFoundError: No module named 'tool_x'", "> "+hyphenExplained, "$ tool-x --help", "ok: usage: tool-x")
	if got := discoveryCandidates(es, nil); len(got) != 1 || !strings.HasPrefix(got[0].content, "Python can't import a module with hyphens") {
		t.Errorf("sidechain: %q", contents(got))
	}
}

// On the real transcripts: the confirmed discoveries are proposed, and
// the diagnoses the session went on to contradict are not.
func TestDiscoveryOnCorpus(t *testing.T) {
	if withoutRace.RanAlone(t) {
		return
	}
	ctx := context.Background()
	props := map[string][]string{} // session prefix -> contents
	for _, corpus := range []string{"claude", "claude-code-log"} {
		dir := untarCorpus(t, filepath.Join(keeprateDir, corpus+".tar.gz"))
		s := newService(t)
		if _, err := s.st.Update(ctx, dir, index.UpdateOptions{Sync: index.SyncOptions{Workers: 1}, DeferFTS: true}); err != nil {
			t.Fatal(err)
		}
		refs, err := s.st.Mem().Sessions(ctx, time.Time{}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			es, err := s.st.Mem().Entries(ctx, r.ID, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var have []candidate // the other rules' proposals
			for _, c := range extractCandidates(es) {
				if c.rule != "claude:discovery" {
					have = append(have, c)
				}
			}
			props[r.ID[:8]] = append(props[r.ID[:8]], contents(discoveryCandidates(es, have))...)
		}
	}
	has := func(session, prefix string) bool {
		return slices.ContainsFunc(props[session], func(c string) bool { return strings.HasPrefix(c, prefix) })
	}
	for _, w := range []struct{ session, prefix string }{
		{"cb2e607c", "Hatchling needs to be told explicitly which file to include"},
		{"cb2e607c", "Python can't import a module with hyphens in the filename: tell Hatchling to rename the file during packaging (found when `cd /tmp && coderabbit-extract --help` failed: ModuleNotFoundError"},
		// The call that worked commits at the end of an `&&` chain.
		{"4d5611e5", "Dialyzer says `LLMChain.run` returns `{:error, %LLMChain{}, ...}` — the error is a 3-tuple with the chain (found when"},
		{"12a546d1", "`SystemTranscriptEntry` has a `content` field, not `message` (found when"},
	} {
		if !has(w.session, w.prefix) {
			t.Errorf("%s: no %q in %q", w.session, w.prefix, props[w.session])
		}
	}
	// Credo's alias "conflict" in `rescue` (a hook ran between the
	// edits), the `.dialyzerignore` guess and the "false positive" were
	// each followed by another failure of the same check.
	for _, session := range []string{"fa812bfe", "ae4a77f8"} {
		for _, c := range props[session] {
			if low := strings.ToLower(c); strings.Contains(low, "rescue") || strings.Contains(low, "dialyzer") || strings.Contains(low, "false positive") {
				t.Errorf("%s: unconfirmed diagnosis proposed: %q", session, c)
			}
		}
	}
	n := 0
	for _, cs := range props {
		n += len(cs)
	}
	// What a compaction summary of the session already says (the
	// LiveView sandbox, the esbuild entry relative to `assets/`) is not
	// proposed again.
	for _, session := range []string{"258c7280", "8463c716"} {
		if len(props[session]) != 0 {
			t.Errorf("%s: proposed again: %q", session, props[session])
		}
	}
	if n > 10 {
		t.Errorf("%d discoveries on 56 sessions: the rule fires on narration", n)
	}
}

// The error head is the error, without the test runner's progress or
// timing after the verdict.
func TestErrorHeadDropsRunnerNoise(t *testing.T) {
	for out, want := range map[string]string{
		"============ test session starts ============\ntest/test_a.py::TestA::test_msgs[chromium] FAILED [ 50%]\n": "test/test_a.py::TestA::test_msgs[chromium] FAILED",
		"--- FAIL: TestParse (0.00s)\nFAIL": "--- FAIL: TestParse",
		"test_b.py::test_x FAILED [100%]":   "test_b.py::test_x FAILED",
	} {
		if got := errorHead(out); got != want {
			t.Errorf("errorHead(%q) = %q, want %q", out, got, want)
		}
	}
}
