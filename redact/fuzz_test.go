package redact

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzRedact checks the invariants every input must satisfy:
//   - no panic;
//   - findings are sorted, in range, non-overlapping, of a known kind, and
//     the output is exactly the input with each span replaced by its
//     placeholder;
//   - valid UTF-8 stays valid UTF-8;
//   - a second pass finds nothing inside the placeholders of the first;
//   - JSON-encoded input stays valid JSON (spans never split an escape).
//
// Seeds live in testdata/fuzz/FuzzRedact; provider-shaped tokens are added
// here at run time so that none is committed.
func FuzzRedact(f *testing.F) {
	for _, c := range plantedCases() {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out, fs := Redact(text)
		checkFindings(t, text, out, fs)
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 input produced invalid output %q", out)
		}

		// Where the placeholders landed in out.
		type span struct{ start, end int }
		var holes []span
		shift := 0
		for _, f := range fs {
			p := len(Placeholder(f.Kind))
			holes = append(holes, span{f.Start + shift, f.Start + shift + p})
			shift += p - (f.End - f.Start)
		}
		for _, g := range Find(out) {
			for _, h := range holes {
				if g.Start < h.end && h.start < g.End {
					t.Fatalf("second pass found %s %q overlapping placeholder %q in %q",
						g.Kind, out[g.Start:g.End], out[h.start:h.end], out)
				}
			}
		}

		if utf8.ValidString(text) {
			b, err := json.Marshal(text)
			if err != nil {
				t.Fatal(err)
			}
			red, _ := Redact(string(b))
			if !json.Valid([]byte(red)) {
				t.Fatalf("redacting JSON %s broke it: %s", b, red)
			}
		}

	})
}
