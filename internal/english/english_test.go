package english

import "testing"

func TestCommon(t *testing.T) {
	for w, want := range map[string]bool{"fix": true, "Branch": true, "rewrites": true, "coverage": true,
		"vite": false, "pnpm": false, "hatchling": false, "audioworklet": false, "submodule": false} {
		if got := Common(w); got != want {
			t.Errorf("Common(%q) = %v, want %v", w, got, want)
		}
	}
}
