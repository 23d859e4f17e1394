package codesplit

import (
	"slices"
	"testing"
)

func TestPartsAndLeaves(t *testing.T) {
	w := ":opentelemetry.set_text_map_propagators/1"
	for _, want := range []string{"opentelemetry.set_text_map_propagators", "set_text_map_propagators", "opentelemetry", "set", "text", "map", "propagators", "settextmappropagators"} {
		if !slices.Contains(Parts(w), want) {
			t.Errorf("Parts(%q) = %q, want %q among them", w, Parts(w), want)
		}
	}
	if got := Leaves(w); !slices.Equal(got, []string{"opentelemetry", "set", "text", "map", "propagators"}) {
		t.Errorf("Leaves(%q) = %q", w, got)
	}
	if got := Leaves("parseTranscript"); !slices.Equal(got, []string{"parse", "transcript"}) {
		t.Errorf("Leaves(parseTranscript) = %q", got)
	}
	if Parts("plain") != nil || Leaves("plain") != nil || Leaves("550e8400-e29b-41d4-a716-446655440000") != nil {
		t.Error("a plain word or a UUID has no parts")
	}
}
