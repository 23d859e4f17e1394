package memories

import (
	"slices"
	"testing"
)

func TestMatchedWords(t *testing.T) {
	content := "`:opentelemetry.set_text_map_propagators/1` does not exist; configure propagators in the application env"
	for q, want := range map[string][]string{
		"how do I set text map propagators":     {"set", "text", "map", "propagators"},
		"set_text_map_propagators is undefined": {"set_text_map_propagators"},
		"the application env for opentelemetry": {"application", "env", "opentelemetry"},
		"how do I fix a flat bicycle tire":      nil,
	} {
		if got := MatchedWords(q, content); !slices.Equal(got, want) {
			t.Errorf("MatchedWords(%q) = %q, want %q", q, got, want)
		}
	}
}
