package termtext

import (
	"encoding/json"
	"testing"
)

// EscapeJSON spells C1 and bidi controls as \u escapes: the JSON means the
// same, and no raw control reaches a terminal that shows it.
func TestEscapeJSON(t *testing.T) {
	in := map[string]string{"model": "x\u009b31m file\u202etxt.exe \u2066y\u2069 é ✓ zw\u200bsp tag\U000E0041 👩\u200d💻"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := EscapeJSON(b)
	for _, r := range string(out) {
		if isControl(r) || isBidi(r) || r == '\u200b' || r == 0xe0041 {
			t.Fatalf("raw U+%04X left in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["model"] != in["model"] {
		t.Fatalf("the data changed: %q (%v)", back["model"], err)
	}
	clean := []byte(`{"a":"plain é"}`)
	if got := EscapeJSON(clean); &got[0] != &clean[0] {
		t.Error("clean JSON should be returned as is")
	}
}
