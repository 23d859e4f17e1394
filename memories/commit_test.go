package memories

import "testing"

func TestCommitSubject(t *testing.T) {
	for cmd, want := range map[string]string{
		`git commit -m "fix: the parser"`:                          "fix: the parser",
		`git add . && git commit -m 'single quoted' && git push`:   "single quoted",
		`git commit -m "unclosed message`:                          "unclosed message",
		`git commit -am plain words here`:                          "",
		`git commit -q -m plain words here`:                        "plain words here",
		`git commit -m "first line` + "\n\nbody\"":                 "first line",
		`git commit -m ""`:                                         "",
		`git commit -m `:                                           "",
		`git commit`:                                               "",
		`go test ./...`:                                            "",
		"git commit -F- <<'EOF'\n\n  heredoc subject  \nbody\nEOF": "heredoc subject",
		"git commit -F- <<EOF\n\n\nEOF":                            "EOF",
		"git commit -F- <<EOF":                                     "",
	} {
		if got := commitSubject(cmd); got != want {
			t.Errorf("commitSubject(%q) = %q, want %q", cmd, got, want)
		}
	}
}
