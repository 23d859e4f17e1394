package memories

import "testing"

// A choice says a verb-led option as what was done, and quotes the
// person's words for what they are: the question the options answer, a
// request said before they were offered, or the reason given with the
// choice.
func TestChoiceWordsAndQuote(t *testing.T) {
	offer := "Options:\n1. **Keep ScriptProcessor** (still works, just deprecated)\n2. **Migrate to AudioWorklet** - proper modern solution, better performance, but more work\n\nWhich would you prefer?"
	base := "Chose to migrate to AudioWorklet (proper modern solution, better performance, but more work) rather than keep ScriptProcessor (still works, just deprecated)"
	for _, tc := range []struct{ said, asked, want string }{
		{"Let's also Migrate to AudioWorklet", "yes please, and let's make it cross-browser", base + " (offered when the user said: “let's make it cross-browser”)"},
		{"Let's also Migrate to AudioWorklet", "Would there be a way that works in Firefox and Safari too?", base + " (asked: “Would there be a way that works in Firefox and Safari too?”)"},
		{"migrate to AudioWorklet, Safari drops the old API soon", "yes please, and let's make it cross-browser", base + " (the user said: “migrate to AudioWorklet, Safari drops the old API soon”)"},
		{"Let's also Migrate to AudioWorklet", "", base},
	} {
		got, _, ok := choiceContent(tc.said, []string{offer}, []string{tc.asked})
		if !ok || got != tc.want {
			t.Errorf("%q after %q:\n got %q\nwant %q", tc.said, tc.asked, got, tc.want)
		}
	}
	// Named options stay names.
	names := "**Option 1: Vite** (modern)\n**Option 2: `serve`** (dead simple)\nWhich?"
	if got, _, _ := choiceContent("let's do vite", []string{names}, nil); got != "Chose Vite (modern) over `serve` (dead simple)" {
		t.Errorf("names: %q", got)
	}
}
