package memories

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

// patch applies a unified diff d (as lineDiff writes it) to a, checking
// every context and removed line against a, and returns the result.
func patch(t *testing.T, a, d string) string {
	t.Helper()
	if d == "" {
		return a
	}
	lines := strings.SplitAfter(a, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	hdr := regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@$`)
	dl := strings.SplitAfter(d, "\n")
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		t.Fatalf("no --- / +++ header:\n%s", d)
	}
	// "\ No newline at end of file" follows the line it is about.
	var body []string
	for _, l := range dl[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, `\ No newline at end of file`):
			if len(body) == 0 {
				t.Fatalf("stray %q:\n%s", l, d)
			}
			body[len(body)-1] = strings.TrimSuffix(body[len(body)-1], "\n")
		default:
			body = append(body, l)
		}
	}
	var out strings.Builder
	next := 0 // index in lines of the next line not yet copied
	for _, l := range body {
		text := l[1:]
		switch l[0] {
		case '@':
			m := hdr.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
			if m == nil {
				t.Fatalf("bad hunk header %q", l)
			}
			from, _ := strconv.Atoi(m[1])
			if from > 0 {
				from-- // 1-based, but "-0,0" for an empty a
			}
			for ; next < from; next++ {
				out.WriteString(lines[next])
			}
		case ' ', '-':
			if next >= len(lines) || lines[next] != text {
				t.Fatalf("line %d of a is not %q:\n%s", next+1, text, d)
			}
			next++
			if l[0] == ' ' {
				out.WriteString(text)
			}
		case '+':
			out.WriteString(text)
		default:
			t.Fatalf("bad diff line %q:\n%s", l, d)
		}
	}
	for ; next < len(lines); next++ {
		out.WriteString(lines[next])
	}
	return out.String()
}

func TestLineDiffPatchesBack(t *testing.T) {
	for _, c := range []struct{ name, a, b string }{
		{"equal", "x\n", "x\n"},
		{"from empty", "", "a\nb\n"},
		{"to empty", "a\nb\n", ""},
		{"middle", "a\nb\nc\n", "a\nB\nc\n"},
		// A line diff that drops the final newline before comparing sees
		// no change here and prints a header with no hunk.
		{"newline added at end", "x", "x\n"},
		{"newline removed at end", "a\nb\n", "a\nb"},
		{"last line changed, no newline", "a\nb", "a\nc"},
		{"repeated lines", "}\n}\n}\nx\n}\n}\n", "}\nx\n}\n}\n}\n}\n"},
		{"far apart", testutil.NumberedLines(40, nil), testutil.NumberedLines(40, map[int]string{2: "two", 39: ""})},
		{"blank lines", "\n\n\na\n\n", "\n\na\n\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := lineDiff("a", "b", c.a, c.b)
			if (d == "") != (c.a == c.b) {
				t.Fatalf("diff %q for a=%q b=%q", d, c.a, c.b)
			}
			if got := patch(t, c.a, d); got != c.b {
				t.Fatalf("patching a with\n%s\ngives %q, want %q", d, got, c.b)
			}
		})
	}
}

// A long file with one changed line gives one small hunk, not a whole-file
// replace (the old LCS table gave up above 4M cells and replaced everything).
func TestLineDiffLongFileSmallChange(t *testing.T) {
	const n = 5000
	a := testutil.NumberedLines(n, nil)
	b := testutil.NumberedLines(n, map[int]string{2500: "changed"})
	d := lineDiff("CLAUDE.md", "CLAUDE.md (cairn sync)", a, b)
	want := "--- CLAUDE.md\n+++ CLAUDE.md (cairn sync)\n" +
		"@@ -2497,7 +2497,7 @@\n line 2497\n line 2498\n line 2499\n-line 2500\n+changed\n line 2501\n line 2502\n line 2503\n"
	if d != want {
		if len(d) > 2000 {
			d = d[:2000] + "…"
		}
		t.Fatalf("diff:\n%s\nwant:\n%s", d, want)
	}

	// Two files with no line in common: the diff is every line once.
	x := strings.Repeat("x\n", n)
	y := strings.Repeat("y\n", n)
	d = lineDiff("a", "b", x, y)
	if got := strings.Count(d, "\n"); got != 2*n+3 {
		t.Fatalf("disjoint files: %d diff lines, want %d", got, 2*n+3)
	}
	if patch(t, x, d) != y {
		t.Fatal("disjoint files: diff does not patch a into b")
	}

	// Many scattered changes in a long file: each one is its own hunk.
	ch := map[int]string{}
	for i := 50; i <= n; i += 100 {
		ch[i] = fmt.Sprintf("changed %d", i)
	}
	b = testutil.NumberedLines(n, ch)
	d = lineDiff("a", "b", a, b)
	if got := strings.Count(d, "\n@@ "); got != len(ch) {
		t.Fatalf("%d hunks, want %d", got, len(ch))
	}
	if got := strings.Count(d, "\n"); got > len(ch)*9+2 {
		t.Fatalf("%d diff lines for %d one-line changes", got, len(ch))
	}
	if patch(t, a, d) != b {
		t.Fatal("scattered changes: diff does not patch a into b")
	}
}
