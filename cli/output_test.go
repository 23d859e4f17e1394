package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/index"

	"github.com/charmbracelet/x/ansi"
)

// assertInert fails when out holds anything that could drive a terminal
// besides newlines: invalid UTF-8 (a raw 0x9b byte is an 8-bit CSI), a
// control character (ESC, BEL, U+009B, ...), a line separator or a bidi
// control. With sgrOK, SGR sequences (the CLI's own bold and colour) are
// taken out first.
func assertInert(t *testing.T, what, out string, sgrOK bool) {
	t.Helper()
	if sgrOK {
		out = ansi.Strip(out)
	}
	if !utf8.ValidString(out) {
		t.Fatalf("%s: invalid UTF-8 reached the terminal: %q", what, out)
	}
	for _, r := range out {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029') {
			t.Fatalf("%s: %U reached the terminal: %q", what, r, out)
		}
	}
}

// A raw 0x9b byte, U+009B, U+2028 and U+202E in table cells (the sanitiser
// the CLI had let the byte, U+2028 and U+202E through).
func TestTableCellsAreInert(t *testing.T) {
	var buf bytes.Buffer
	tb := newTable(&buf)
	tb.header("A", "B", "C")
	tb.row("x\x9b2Jy", "line\u2028sep", "\u202eevil")
	tb.row("\u009b31m", "\x1b]52;c;ZXZpbA==\x07", "tab\there")
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	assertInert(t, "table", buf.String(), false)
	for _, want := range []string{`\x9b31m`, `\x1b]52;c;ZXZpbA==\x07`, `\u202eevil`, "line sep"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("want %q visible in\n%s", want, buf.String())
		}
	}
}

// startColumns returns the terminal column at which each of cells begins in
// line, escapes left out.
func startColumns(t *testing.T, line string, cells []string) []int {
	t.Helper()
	line = ansi.Strip(line)
	var cols []int
	from := 0
	for _, c := range cells {
		i := strings.Index(line[from:], c)
		if i < 0 {
			t.Fatalf("%q not in %q", c, line[from:])
		}
		cols = append(cols, ansi.StringWidth(line[:from+i]))
		from += i + len(c)
	}
	return cols
}

var tableRows = [][]string{
	{"ID", "PROJECT", "TITLE", "N"},
	{"abc12345", "~/w/app", "plain title", "3"},
	{"def67890", "~/w/日本語", "タイトル… wide", "12"},
	{"0123", "~/w/é", "naïve", "7"},
}

func renderTable(t *testing.T, tty bool) string {
	t.Helper()
	var buf bytes.Buffer
	tb := newTable(&buf)
	tb.tty, tb.color = tty, colorOn(colorAuto, tty)
	tb.header(slices.Clone(tableRows[0])...)
	for _, r := range tableRows[1:] {
		tb.row(slices.Clone(r)...)
	}
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// On a terminal the header is bold and still lines up with the data, wide
// characters included (tabwriter counted the escape bytes as width, and a
// CJK character as one column).
func TestTableAlignsOnTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	out := renderTable(t, true)
	if !strings.Contains(out, "\x1b[1mID\x1b[0m") {
		t.Fatalf("header not bold on a terminal:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := startColumns(t, lines[0], tableRows[0])
	for i, l := range lines[1:] {
		if got := startColumns(t, l, tableRows[i+1]); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("row %d starts its cells at columns %v, the header at %v:\n%s", i+1, got, want, ansi.Strip(out))
		}
	}
	// Without a terminal, the same layout and no escape at all.
	if plain := renderTable(t, false); plain != ansi.Strip(out) {
		t.Errorf("piped table differs from the terminal's:\n%s\n%s", plain, ansi.Strip(out))
	}
}

func TestNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if out := renderTable(t, true); strings.Contains(out, "\x1b") {
		t.Errorf("NO_COLOR table carries escapes: %q", out)
	}
	var out bytes.Buffer
	o := &Options{Stdout: &out, Stderr: &out}
	if err := printSearch(o, index.SearchQuery{Text: "q"}, searchResponse(), true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("NO_COLOR search output carries escapes: %q", out.String())
	}
	if s := sgr(colorOn(colorAuto, true), "32", "ok"); s != "ok" {
		t.Errorf("NO_COLOR sgr = %q", s)
	}
}

func searchResponse() *index.SearchResponse {
	return &index.SearchResponse{Mode: "text", Took: time.Millisecond, Results: []index.SearchResult{{
		Kind: "message", SessionID: "11111111-2222", Project: "/w/\u202eapp", Role: "user",
		Title:   "evil\x1b[2J title\x9b",
		Snippet: "before " + "\uE000" + "hit\x1b]52;c;ZXZpbA==\x07" + "\uE001" + " after\u2028more",
	}}}
}

// Search output on a terminal: the program's bold, dim and highlight
// survive, nothing from the transcript does.
func TestSearchOutputIsInert(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, tty := range []bool{false, true} {
		var out bytes.Buffer
		o := &Options{Stdout: &out, Stderr: &out}
		if err := printSearch(o, index.SearchQuery{Text: "q"}, searchResponse(), tty); err != nil {
			t.Fatal(err)
		}
		assertInert(t, "search", out.String(), tty)
		if tty != strings.Contains(out.String(), "\x1b[1;33mhit") {
			t.Errorf("tty %v: highlight wrong in %q", tty, out.String())
		}
		if !strings.Contains(out.String(), `hit\x1b]52;c;ZXZpbA==\x07`) {
			t.Errorf("escape not shown as text in %q", out.String())
		}
	}
}

// For text without wide characters the layout is exactly text/tabwriter's,
// so piped output and scripts reading it see no change; ragged rows
// included.
func TestTableMatchesTabwriter(t *testing.T) {
	rows := [][]string{
		{"ID", "STATUS", "CONTENT"},
		{"m-1", "pending", "Use Stripe Checkout, not custom forms…"},
		{"m-22222", "", "empty cell before"},
		{"short"},
		{"a", "b"},
		{"ccc", "dddddddd", "e", ""},
		{"naïve", "x", "y"},
	}
	var want, got bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
	tb := newTable(&got)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
		tb.row(r...)
	}
	tw.Flush()
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("table:\n%s\ntabwriter:\n%s", got.String(), want.String())
	}
}

// sync --dry-run prints the CLAUDE.md diff through termtext: a bidi
// override in a memory shows as text instead of reversing the line.
func TestSyncDiffIsInert(t *testing.T) {
	data, proj := t.TempDir(), t.TempDir()
	if _, _, err := runIn(t, data, "", "memories", "add", "Deploy with make \u202eevil\u202c ship", "--type", "decision",
		"--project", proj, "--status", "approved"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Mine\n"), 0o644)
	out, _, err := runIn(t, data, "", "sync", "--project", proj, "--dry-run")
	if err != nil || !strings.Contains(out, "Deploy with make") {
		t.Fatalf("sync dry run: %v %s", err, out)
	}
	assertInert(t, "sync --dry-run", out, false)
	if !strings.Contains(out, `\u202eevil\u202c`) {
		t.Errorf("bidi override not shown as text: %q", out)
	}
}
