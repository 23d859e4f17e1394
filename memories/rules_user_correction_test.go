package memories

import (
	"testing"
)

// TestInstructionShapes: a correction or standing instruction put as a
// task to Claude is proposed in the person's words without the request;
// a step of the task at hand, a question, a report or a guess is not.
func TestInstructionShapes(t *testing.T) {
	cases := []struct{ s, want string }{
		{"Can you please put the permission check in the middleware rather than in each handler?", "Put the permission check in the middleware rather than in each handler."},
		{"I want you to always run the linter before you commit.", "Always run the linter before you commit."},
		{"Please don't write a new date parser, reuse the one in `internal/timeutil`.", "Don't write a new date parser, reuse the one in `internal/timeutil`."},
		{"Could you reuse the existing retry helper instead of writing another loop?", "Reuse the existing retry helper instead of writing another loop."},
		{"Make sure every new endpoint has an integration test.", "Every new endpoint has an integration test."},
		{"Tests should cover the error paths too, not just the happy path.", "Tests should cover the error paths too, not just the happy path."},
		{"Squash the commits before you open the PR, because the changelog is built from commit titles.", "Squash the commits before you open the PR, because the changelog is built from commit titles."},
		{"Fix the failing assertions instead of marking the tests as skipped.", "Fix the failing assertions instead of marking the tests as skipped."},
		// Left alone.
		{"Can you make the button blue instead of red?", ""},
		{"Can you fix the typo on line 3 instead?", ""},
		{"For now, skip the flaky test instead of fixing it.", ""},
		{"Could we reuse the session nav template instead?", ""},
		{"The parser should always return a list but it returns None.", ""},
		{"I think we should always mock the clock in tests.", ""},
		{"The issue is that `get_id` always returns an error.", ""},
		{"Why did you add a new helper instead of using the existing one?", ""},
		{"I'd like your help with refactoring the filtering so that we hide the group instead of all items.", ""},
	}
	for _, c := range cases {
		got, _ := instructionIn([]string{c.s}, 0, false)
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.s, got, c.want)
		}
	}
	// After a rejected call the call names the subject.
	if got, _ := instructionIn([]string{"I'd actually love that test to be saved as a permanent unit test"}, 0, true); got == "" {
		t.Error("after a rejection: not proposed")
	}
	if got, _ := instructionIn([]string{"I'd actually love that test to be saved as a permanent unit test"}, 0, false); got != "" {
		t.Errorf("without a rejection: %q", got)
	}
}

// TestFixNotSuppress: a request to fix what Claude's last reply let pass
// is the rule, said with Claude's words; without a suppression it is a
// task.
func TestFixNotSuppress(t *testing.T) {
	claude := "The workflow passes now. Type checking runs but continues on error since there are existing type issues."
	got, ok := fixNotSuppress("Also, would you mind fixing the type issues?", claude)
	want := "Fix the type issues rather than letting the check pass: asked “Would you mind fixing the type issues?” after Claude said “Type checking runs but continues on error since there are existing type issues.”"
	if !ok || got != want {
		t.Errorf("got %q", got)
	}
	if _, ok := fixNotSuppress("Please fix the lint errors.", "I added the `--json` flag and updated the README."); ok {
		t.Error("no suppression: proposed")
	}
	if _, ok := fixNotSuppress("Please fix the lint errors.", "I skipped the flaky browser test."); ok {
		t.Error("another check suppressed: proposed")
	}
}
