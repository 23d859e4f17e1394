package install

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/testutil"
)

func numberedLines(n int, change map[int]string) []byte {
	return []byte(testutil.NumberedLines(n, change))
}

func TestDiffFormat(t *testing.T) {
	for _, c := range []struct{ name, a, b, want string }{
		{"equal", "x\n", "x\n", ""},
		{"small", "a\nb\nc\n", "a\nB\nc\nd\n",
			"--- f\n+++ f (new)\n  a\n- b\n+ B\n  c\n+ d\n"},
		{"new file", "", "{\n}\n", "--- f\n+++ f (new)\n+ {\n+ }\n"},
		{"emptied", "{\n}\n", "", "--- f\n+++ f (new)\n- {\n- }\n"},
		// Dropping the final newline before comparing would see no change.
		{"final newline", "{}", "{}\n",
			"--- f\n+++ f (new)\n- {}  (no newline at end of file)\n+ {}\n"},
		{"gaps", string(numberedLines(20, nil)), string(numberedLines(20, map[int]string{3: "three", 15: ""})),
			"--- f\n+++ f (new)\n  line 1\n  line 2\n- line 3\n+ three\n  line 4\n  line 5\n  …\n" +
				"  line 13\n  line 14\n- line 15\n  line 16\n  line 17\n  …\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Diff("f", []byte(c.a), []byte(c.b)); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// A long settings file with one change shows that change with its context,
// not "too large to show a diff" (the old LCS table gave up above 4M cells).
func TestDiffLongFileSmallChange(t *testing.T) {
	const n = 5000
	a := numberedLines(n, nil)
	b := numberedLines(n, map[int]string{2500: "changed"})
	want := "--- f\n+++ f (new)\n  …\n  line 2498\n  line 2499\n- line 2500\n+ changed\n  line 2501\n  line 2502\n  …\n"
	if got := Diff("f", a, b); got != want {
		if len(got) > 2000 {
			got = got[:2000] + "…"
		}
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}

	// Every 100th line changed: one small block per change.
	ch := map[int]string{}
	for i := 50; i <= n; i += 100 {
		ch[i] = fmt.Sprintf("changed %d", i)
	}
	d := Diff("f", a, numberedLines(n, ch))
	if got := strings.Count(d, "\n+ "); got != len(ch) {
		t.Fatalf("%d added lines, want %d", got, len(ch))
	}
	if got := strings.Count(d, "\n"); got > 2+len(ch)*7+1 {
		t.Fatalf("%d diff lines for %d one-line changes", got, len(ch))
	}
}
