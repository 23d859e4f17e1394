package memories

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
)

func userEntry(uuid, text string) index.MemEntry {
	return index.MemEntry{UUID: uuid, Role: "user", Block: "text", Text: text}
}

func claudeEntry(uuid, text string) index.MemEntry {
	return index.MemEntry{UUID: uuid, Role: "assistant", Block: "text", Text: text}
}

// TestExtractorRules checks each rule on what it must find and on what it
// must leave alone.
func TestExtractorRules(t *testing.T) {
	cases := []struct {
		name string
		e    index.MemEntry
		typ  Type   // "" = nothing expected
		want string // substring of the content
	}{
		{"always", userEntry("u1", "Always use table-driven tests for the parser package."), Preference, "table-driven tests"},
		{"never", userEntry("u2", "never commit generated files in dist/ to git"), Preference, "generated files"},
		{"remember", userEntry("u3", "Remember that the staging DB needs the VPN to be up."), Preference, "staging DB needs the VPN"},
		{"prefer", userEntry("u4", "I prefer small focused commits over big ones."), Preference, "small focused commits"},
		{"dont rule", userEntry("u5", "Don't use mocks for the database layer in integration tests."), Preference, "mocks for the database"},
		{"dont one-off", userEntry("u6", "don't run that yet, wait for me"), "", ""},
		{"from now on", userEntry("u7", "From now on run go vet before every commit please."), Preference, "go vet"},
		{"lets go with", userEntry("u8", "OK let's go with Postgres for the event store."), Decision, "Postgres"},
		{"use instead of", userEntry("u9", "Use pnpm instead of npm in this repo."), Decision, "pnpm instead of npm"},
		{"we use x not y", userEntry("u12", "We use Stripe Checkout, not custom payment forms."), Decision, "Stripe Checkout, not custom"},
		{"in this repo always", userEntry("u13", "In this repo, always squash-merge pull requests."), Preference, "squash-merge"},
		{"we dont use", userEntry("u14", "We don't use ORMs in this codebase, plain SQL only."), Preference, "ORMs"},
		{"use instead", userEntry("u15", "No, use `errors.Join` instead of wrapping twice."), Decision, "errors.Join"},
		{"correction", userEntry("u17", "No, we deploy with `fly deploy --remote-only`, never from a laptop build."), Decision, "We deploy with `fly deploy --remote-only`"},
		{"correction of a fact", userEntry("u18", "Actually, the billing API returns amounts in cents as `int64`, not floats."), Decision, "billing API returns amounts in cents"},
		{"no, a request", userEntry("u19", "No, can you run `make test` again first"), "", ""},
		{"no, about the moment", userEntry("u20", "no, that's the wrong file, look at `main.go`"), "", ""},
		{"no, a state report", userEntry("u22", "No, the tests in `foo_test.go` still fail with the same error."), "", ""},
		{"no, a state report without still", userEntry("u23", "No, `make build` prints the warning about `cgo` on every run."), "", ""},
		{"no, with a question", userEntry("u21", "No, why did `go vet` fail on the CI runner?"), "", ""},
		{"pasted docs' note", userEntry("u24", strings.Repeat("The uv tool interface installs console entry points. ", 30)+"\n\nNote that --with-executables-from differs from --with in that:\n\n--with adds dependencies only"), "", ""},
		{"request to remember in a long prompt", userEntry("u25", strings.Repeat("The uv tool interface installs console entry points. ", 30)+"\n\nPlease remember that `uv tool install --force` is how we reinstall the CLI."), Preference, "uv tool install --force"},
		{"question", userEntry("u10", "Should we always use tabs?"), "", ""},
		{"plain request", userEntry("u11", "fix the failing test in parser_test.go"), "", ""},
		{"root cause and fix", claudeEntry("a1", "The root cause was a race in `reconnect()` when the socket closed before the open event; fixed by waiting for `onopen` before sending."), Bugfix, "race in `reconnect()`"},
		{"cause without fix", claudeEntry("a1b", "The root cause was a race in `reconnect()` when the socket closed before the open event."), "", ""},
		{"fixed by with context", claudeEntry("a2", "The websocket test was flaky under load because it sent before the socket opened. Fixed by awaiting the `open` event before sending."), Bugfix, "socket opened. Fixed by awaiting"},
		{"symptom and fix", claudeEntry("a2b", "The websocket test was flaky under load. Fixed by awaiting the `open` event before sending."), "", ""},
		{"list item problem and fix", claudeEntry("a2c", "4. Errors and fixes:\n   - **LiveView test: sandbox isolation**: the LiveView process can't access the test's sandbox checkout. Fixed by using `Sandbox.mode(Repo, {:shared, self()})` instead of `Sandbox.checkout`."), Bugfix, "LiveView test: sandbox isolation: the LiveView process can't access"},
		{"lint complaint", claudeEntry("a2d", "- **Credo nesting depth (max 2, was 3)**: `find_file` had `case > Enum.find_value > if`, too deep. Fixed by extracting `list_dirs/1`."), "", ""},
		{"dangling start", claudeEntry("a2e", "So the gitignore prevents accidental `git add .` from including it, but since it's already tracked, changes must be staged explicitly."), "", ""},
		{"issue is clear", claudeEntry("a2f", "The issue is clear — the LiveView process can't access the SQL sandbox from the test process, fixed by `Sandbox.mode/2`."), "", ""},
		{"named limit", claudeEntry("a2g", "The issue is that `index.html` files under `public/` don't get served by Next.js the way a web server would."), Gotcha, "`index.html` files under `public/` don't get served"},
		{"state, not a limit", claudeEntry("a2h", "The issue is that the HTML doesn't contain the expected `combined_transcript_link`."), "", ""},
		{"aside is not the rule", claudeEntry("a2i", "- Graceful degradation (OTEL failures must never crash the app or hooks)"), "", ""},
		{"fixed by alone", claudeEntry("a3", "Fixed by adding it."), "", ""},
		{"caused by, fixed with", claudeEntry("a4", "The 502s were caused by `nginx` buffering the SSE stream, fixed with `X-Accel-Buffering: no` on the response."), Bugfix, "nginx"},
		{"gotcha", claudeEntry("a5", "Note: `mix ash.codegen` migrations must always be reviewed for SQLite compatibility."), Gotcha, "ash.codegen"},
		{"doesnt work with", claudeEntry("a6", "The `--race` flag doesn't work with CGO_ENABLED=0 builds on this runner."), Gotcha, "--race"},
		{"decision is the user's", claudeEntry("a7", "We decided to use `sqlc` instead of an ORM for the billing service queries."), "", ""},
		{"advice is not a decision", claudeEntry("a7b", "- **Natural archival path**: The `work/` subdirectories give completed items a place to go rather than cluttering the project root."), "", ""},
		{"fails because, no fix", claudeEntry("a14", "The subagent tests fail because `load_session_messages` drops the `agent_id` field."), "", ""},
		{"a decision said as a request", userEntry("u16", "now we have cache so we should change TUI that it launches the session HTML page rather than regenerating it. also we don't need to check for the existence of the file, let's just launch it."), Decision, "rather than regenerating"},
		{"not supported", claudeEntry("a15", "The generated migration uses `ALTER TABLE ... MODIFY`, which SQLite doesn't support for nullability changes."), Gotcha, "SQLite doesn't support"},
		{"must be forced", claudeEntry("a16", "`priv/static/assets/` is gitignored, so files there must be force-added."), Gotcha, "force-added"},
		{"i.e. is not first person", claudeEntry("a20", "- **Stale `_build` after renaming a module**: tests failed because the compiler kept the old beam files, i.e. `Foo.Bar` was still defined. Fixed by running `mix compile --force`."), Bugfix, "mix compile --force"},
		{"first person", claudeEntry("a21", "- **Slow tests**: I couldn't make them faster because my fixture loads everything. Fixed by caching `load_all/0`."), "", ""},
		{"update plan, not a gotcha", claudeEntry("a18", "`config.yaml` needs to be updated with the new `API_URL` key."), "", ""},
		{"needs to be, with when", claudeEntry("a19", "The `assets/` bundle needs to be rebuilt after every change to `tailwind.config.js`."), Gotcha, "rebuilt after every change"},
		{"plan, not a gotcha", claudeEntry("a17", "Since we're using a shared `panel` component, the selection code needs to be merged into `Highlighter`."), "", ""},
		{"narration", claudeEntry("a8", "Let me check the root cause in `server.go` first."), "", ""},
		{"hedge", claudeEntry("a9", "The issue might be caused by `Tracer.current_span_ctx()` returning nil."), "", ""},
		{"vague", claudeEntry("a10", "The problem was caused by something in the setup of the tests here."), "", ""},
		{"first person issue", claudeEntry("a11", "The issue is that I need to make `with_span` work with do blocks in every test module."), "", ""},
		{"code fence", claudeEntry("a12", "```\n// the root cause was `x` being nil\n```"), "", ""},
		{"next steps", claudeEntry("a13", "Done for now.\n\n## Next steps\n- Add retries to `fetchInvoices`\n- Document the `BILLING_URL` setting"), Progress, "retries to `fetchInvoices`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := extractCandidates([]index.MemEntry{c.e})
			if c.typ == "" {
				if len(got) != 0 {
					t.Fatalf("proposed %+v", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("nothing proposed from %q", c.e.Text)
			}
			g := got[0]
			if g.typ != c.typ || !strings.Contains(g.content, c.want) {
				t.Fatalf("got %s %q, want %s containing %q", g.typ, g.content, c.typ, c.want)
			}
			if !slices.Contains(g.uuids, c.e.UUID) {
				t.Fatalf("source uuids %v miss %s", g.uuids, c.e.UUID)
			}
			// Quotes its source: every word of the memory is in the entry
			// (a sentence's first word may have gained its capital).
			for _, w := range strings.Fields(g.content) {
				if !strings.Contains(strings.ReplaceAll(c.e.Text, "**", ""), strings.Trim(w, "*")) && !strings.Contains(strings.ToLower(c.e.Text), strings.ToLower(strings.Trim(w, "*"))) {
					t.Fatalf("memory word %q is not in the source %q", w, c.e.Text)
				}
			}
		})
	}
}

// TestExtractorIgnoresChatter: everyday prompts and Claude's narration
// propose nothing.
func TestExtractorIgnoresChatter(t *testing.T) {
	var es []index.MemEntry
	for i, txt := range []string{
		"can you fix the failing test?", "run the build", "Never mind, let's do the other thing first",
		"Always the same error with this command", "Don't worry about it, just continue", "thanks, looks good",
		"ok let's continue with the next task", "why does the parser hang on empty input?",
	} {
		es = append(es, userEntry(fmt.Sprint("u", i), txt))
	}
	for i, txt := range []string{
		"Let me check the file first.", "I'll now update the config in `app.toml`.", "Great, all 42 tests pass.",
		"Now let me look at the root cause in `server.go`.", "I need to fix the import in `main.go`.",
		"The build is failing on `make test`.", "Here is the updated `Parser` struct with the new field.",
		"I think the problem is caused by `cache.go` but I am not sure.",
	} {
		es = append(es, claudeEntry(fmt.Sprint("a", i), txt))
	}
	if got := extractCandidates(es); len(got) != 0 {
		for _, c := range got {
			t.Errorf("proposed %s %q (%s)", c.typ, c.content, c.rule)
		}
	}
}

func TestCommandAfterFailureAndTodos(t *testing.T) {
	s, tr, claude := transcriptService(t, "11111111-2222-4333-8444-555555555555")
	tr.user("run the tests")
	failed := tr.bash("go test ./... -run TestX -racey", "flag provided but not defined: -racey\nusage: go test [build/test flags]", true)
	ok := tr.bash("go test ./... -run TestX -race", "ok  proj 0.1s", false)
	tr.bash("ls nowhere", "ls: nowhere: No such file or directory", true)
	tr.bash("ls .", "a b", false)
	tr.todos(map[string]string{"Write the migration for invoices": "pending", "Read the code": "completed"})
	tr.write(t, s, claude)
	res, err := s.Curator.ExtractSession(context.Background(), tr.sid, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cmd, todo *Memory
	for _, r := range res.Proposed {
		switch r.Memory.Type {
		case Pattern:
			cmd = r.Memory
		case Progress:
			todo = r.Memory
		}
	}
	if cmd == nil || !strings.Contains(cmd.Content, "-race`") || !strings.Contains(cmd.Content, "-racey") ||
		!slices.Contains(cmd.SourceUUIDs, failed) || !slices.Contains(cmd.SourceUUIDs, ok) {
		t.Fatalf("command memory: %+v (all: %+v)", cmd, res.Proposed)
	}
	if todo == nil || !strings.Contains(todo.Content, "migration for invoices") {
		t.Fatalf("todo memory: %+v", todo)
	}
	if len(res.Proposed) != 2 {
		t.Fatalf("ls retry must not be proposed: %d proposals", len(res.Proposed))
	}
	// The item done: its memory is archived by the next extraction.
	tr.todos(map[string]string{"Write the migration for invoices": "completed", "Read the code": "completed"})
	tr.write(t, s, claude)
	if _, err := s.Curator.ExtractSession(context.Background(), tr.sid, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Get(context.Background(), todo.ID); m.Status != Archived {
		t.Fatalf("done to-do is %s", m.Status)
	}
	if todo.SourceSession != tr.sid || todo.Project != "/work/proj" || todo.Origin != OriginExtractor || todo.Status != Pending {
		t.Fatalf("source fields: %+v", todo)
	}
}

func TestExtractCursorAndDryRun(t *testing.T) {
	ctx := context.Background()
	s, tr, claude := transcriptService(t, "21111111-2222-4333-8444-555555555555")
	tr.user("Always run gofmt before committing Go code.")
	tr.assistant("Sure.")
	tr.write(t, s, claude)
	dry, err := s.Curator.Extract(ctx, ExtractOptions{DryRun: true})
	if err != nil || len(dry.Proposed) != 1 {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if n, _ := s.List(ctx, Filter{}); len(n) != 0 {
		t.Fatal("dry run stored memories")
	}
	first, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil || len(first.Proposed) != 1 || first.Entries != 2 {
		t.Fatalf("first: %v %+v", err, first)
	}
	again, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil || again.Entries != 0 || len(again.Proposed) != 0 {
		t.Fatalf("second run re-read entries: %+v", again)
	}
	// New entries: only they are read.
	tr.user("Never push directly to the main branch.")
	tr.write(t, s, claude)
	third, err := s.Curator.ExtractSession(ctx, tr.sid[:8], ExtractOptions{})
	if err != nil || third.Entries != 1 || len(third.Proposed) != 1 || !strings.Contains(third.Proposed[0].Memory.Content, "main branch") {
		t.Fatalf("increment: %v %+v", err, third)
	}
	if _, err := s.Curator.ExtractSession(ctx, "99999999-0000", ExtractOptions{}); err == nil || !strings.Contains(err.Error(), "99999999") {
		t.Fatalf("unknown session: %v", err)
	}
}

// TestExtractSample runs the extractor over the bundled sample: it must
// propose something, and every proposal must quote a source entry.
func TestExtractSample(t *testing.T) {
	ctx := context.Background()
	s := sampleService(t)
	res, err := s.Curator.Extract(ctx, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions == 0 || res.Entries == 0 || len(res.Proposed) == 0 {
		t.Fatalf("nothing extracted from the sample: %+v", res)
	}
	for _, r := range res.Proposed {
		m := r.Memory
		if m.SourceSession == "" || len(m.SourceUUIDs) == 0 {
			t.Errorf("%s has no source: %+v", m.ID, m)
		}
	}
}

// TestCommandErrorSaysFix: a command that worked after an error printing
// it (git's advice on a push without upstream) is not proposed: the tool
// teaches it every time. Without the advice it is.
func TestCommandErrorSaysFix(t *testing.T) {
	failed := shellCall{cmd: "git push", out: "fatal: The current branch feature has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature\n"}
	worked := shellCall{cmd: "git push --set-upstream origin feature"}
	if c, ok := commandLesson(failed, worked); ok {
		t.Errorf("proposed %q: the error prints the fix", c)
	}
	failed.out = "fatal: The current branch feature has no upstream branch.\n"
	if _, ok := commandLesson(failed, worked); !ok {
		t.Error("not proposed without the advice")
	}
	// An option the error names only inside another word is not named.
	failed = shellCall{cmd: "go test -racey", out: "flag provided but not defined: -racey\nusage: go test"}
	if _, ok := commandLesson(failed, shellCall{cmd: "go test -race"}); !ok {
		t.Error("-race is not in -racey's error")
	}
}

// TestCommandLessonOncePerRepository: the same lesson learned on two
// branches in two sessions is one memory with the sources of both; the
// branch names, the home directory and a leading cd are not part of it.
func TestCommandLessonOncePerRepository(t *testing.T) {
	ctx := context.Background()
	s, _, claude := transcriptService(t, "")
	var sources []string
	for i, branch := range []string{"feature-login", "fix-9f3a2c1"} {
		tr := newTranscript(fmt.Sprintf("3111111%d-2222-4333-8444-555555555555", i), "/work/proj")
		tr.user("push it")
		sources = append(sources, tr.bash("cd /home/ana/src/proj && git push 2>&1",
			"fatal: The current branch "+branch+" has no upstream branch.\n", true)) // git's advice (the command to run) turned off

		sources = append(sources, tr.bash("cd /home/ana/src/proj && git push --set-upstream origin "+branch+" 2>&1 | tail -3", "branch '"+branch+"' set up to track 'origin/"+branch+"'.", false))
		tr.write(t, s, claude)
	}
	if _, err := s.Curator.Extract(ctx, ExtractOptions{}); err != nil {
		t.Fatal(err)
	}
	ms, err := s.List(ctx, Filter{Types: []Type{Pattern}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("want one memory, got %d: %+v", len(ms), ms)
	}
	want := "`git push --set-upstream origin <branch>` works where `git push` fails (fatal: The current branch <branch> has no upstream branch.)"
	if ms[0].Content != want {
		t.Fatalf("content %q, want %q", ms[0].Content, want)
	}
	for _, u := range sources {
		if !slices.Contains(ms[0].SourceUUIDs, u) {
			t.Fatalf("sources %v miss %s", ms[0].SourceUUIDs, u)
		}
	}
}

// TestCommandRetriesAreNotLessons: a retry with an absolute path, with an
// option dropped, or of another program teaches nothing.
func TestCommandRetriesAreNotLessons(t *testing.T) {
	for _, c := range [][2]string{
		{"ruff check claude_code_log/renderer.py", "ruff check /Users/dain/workspace/claude-code-log/claude_code_log/renderer.py"},
		{"cd /tmp && coderabbit-extract --help", "cd /tmp && coderabbit-extract"},
		{"uv run python -c 'import x'", "uv run pytest test/test_x.py -v"},
	} {
		if l, ok := commandLesson(shellCall{cmd: c[0], out: "error: unknown option"}, shellCall{cmd: c[1]}); ok {
			t.Errorf("%q after %q proposed %q", c[1], c[0], l)
		}
	}
}
