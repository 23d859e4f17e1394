package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// ptyRun runs cairn in-process with stdout on a pseudo-terminal of the
// given width (and COLUMNS set to it), and returns what the terminal
// received (escapes kept, \r\n made \n), stderr and the exit code.
func ptyRun(t *testing.T, cols int, args ...string) (string, string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: 24}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COLUMNS", strconv.Itoa(cols))
	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&out, ptmx) // until the terminal closes (EIO)
	}()
	var errb bytes.Buffer
	code := Run(&Options{Stdout: tty, Stderr: &errb, Stdin: strings.NewReader("")}, args)
	tty.Close()
	wg.Wait()
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), errb.String(), code
}

// widest is the widest line of out in terminal cells, escapes left out.
func widest(out string) (int, string) {
	w, line := 0, ""
	for _, l := range strings.Split(out, "\n") {
		if n := ansi.StringWidth(l); n > w {
			w, line = n, l
		}
	}
	return w, line
}

// At 80 columns sessions, projects, memories list and search print no
// line wider than the terminal (sessions' rows were 172 cells and
// wrapped); what is cut ends in "…", and --wide prints it whole.
func TestTablesFitTheTerminal(t *testing.T) {
	t.Setenv("CAIRN_PAGER", "") // no pager: the terminal gets the text
	t.Setenv("NO_COLOR", "")
	data := t.TempDir()
	common := []string{"--claude-dir", sample(), "--data", data}
	long := "Deploy the staging cluster with make deploy-staging after the migrations ran; " +
		"never run the production target from a laptop, the VPN drops long SSH sessions and leaves half-applied releases"
	if _, _, code := ptyRun(t, 80, append([]string{"memories", "add", long, "--type", "decision", "--project", "/home/USER/projects/spotter"}, common...)...); code != 0 {
		t.Fatal("memories add failed")
	}
	for _, args := range [][]string{
		{"sessions"}, {"projects"}, {"memories", "list"}, {"search", "websocket"}, {"memories", "search", "deploy staging"},
	} {
		out, stderr, code := ptyRun(t, 80, append(args, common...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if w, line := widest(out); w > 80 {
			t.Errorf("%v: a line %d cells wide at 80 columns:\n%s", args, w, line)
		}
		if !strings.Contains(out, "\x1b[1m") {
			t.Errorf("%v: no bold on a terminal: %q", args, out)
		}
		if strings.Join(args, " ") != "projects" && !strings.Contains(out, "…") {
			t.Errorf("%v: nothing was cut at 80 columns:\n%s", args, out)
		}
		// --wide: every cell whole, wider than the terminal.
		out, _, _ = ptyRun(t, 80, append(append(args, "--wide"), common...)...)
		if w, _ := widest(out); w <= 80 && args[0] != "projects" {
			t.Errorf("%v --wide: widest line %d cells, nothing printed whole:\n%s", args, w, out)
		}
		if args[0] == "memories" && !strings.Contains(ansi.Strip(out), long) {
			t.Errorf("%v --wide: the memory is not whole:\n%s", args, out)
		}
	}
	// sessions at 80 columns: the optional columns went (the model last),
	// the title is cut to what is left (24 cells or more), ids are whole.
	out, _, _ := ptyRun(t, 80, append([]string{"sessions"}, common...)...)
	plain := ansi.Strip(out)
	if strings.Contains(plain, "TOOLS") || strings.Contains(plain, "MODEL") || !strings.Contains(plain, "ae4a77f8  ") ||
		!strings.Contains(plain, "Work on bead spotter-4te") {
		t.Errorf("sessions at 80 columns:\n%s", plain)
	}
	// At 100 the model is back, whole.
	out, _, _ = ptyRun(t, 100, append([]string{"sessions"}, common...)...)
	if plain := ansi.Strip(out); !strings.Contains(plain, "haiku-4-5-20251001") || strings.Contains(plain, "TOOLS") {
		t.Errorf("sessions at 100 columns:\n%s", plain)
	}
	// At 200 columns every column is there and nothing wraps.
	out, _, _ = ptyRun(t, 200, append([]string{"sessions"}, common...)...)
	if w, _ := widest(out); w > 200 || !strings.Contains(out, "TOOLS") {
		t.Errorf("sessions at 200 columns (widest %d):\n%s", w, out)
	}
	// Piped, the table keeps its caps (title 50) and no escapes.
	stdout, _, err := run(t, append([]string{"sessions"}, common...)...)
	if err != nil || strings.Contains(stdout, "\x1b") {
		t.Fatalf("piped sessions: %v %q", err, stdout)
	}
}

// The fitting rule on a table of its own: the widest cuttable column gives
// way first, a path keeps its end, optional columns go when the cuttable
// ones would be cut below a useful width.
func TestTableFitRule(t *testing.T) {
	render := func(width int, wide bool) string {
		var buf bytes.Buffer
		tb := newTable(&buf)
		tb.width, tb.wide = width, wide
		tb.header("ID", "PROJECT", "TITLE", "N")
		tb.cut(1, 10, true)
		tb.cut(2, 20, false)
		tb.optional(3)
		tb.row("abc12345", "/home/me/work/project-alpha", "Explore the Elixir/Phoenix project structure and the channels", "3")
		tb.row("def67890", "/home/me/w/b", "short", "12")
		if err := tb.flush(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := render(66, false)
	if w, l := widest(out); w > 66 {
		t.Errorf("66 columns: %d cells: %s", w, l)
	}
	if !strings.Contains(out, "…/me/work/project-alpha  ") || !strings.Contains(out, "Explore the") || strings.Contains(out, "channels") || !strings.Contains(out, " N") {
		t.Errorf("66 columns:\n%s", out)
	}
	// 40 columns: N goes before the title is cut below 24 cells.
	out = render(40, false)
	if w, l := widest(out); w > 40 || strings.Contains(out, " N") {
		t.Errorf("40 columns (%d: %s):\n%s", w, l, out)
	}
	// Off a terminal: the caps. --wide: nothing cut.
	if out := render(0, false); !strings.Contains(out, "…ect-alpha  ") || !strings.Contains(out, "Explore the Elixir/…  ") {
		t.Errorf("piped:\n%s", out)
	}
	if out := render(40, true); !strings.Contains(out, "/home/me/work/project-alpha") || !strings.Contains(out, "channels") {
		t.Errorf("--wide:\n%s", out)
	}
}

// show (and the other long output) goes through $PAGER on a terminal,
// with colour for less -R; never when piped; --no-pager and an empty
// pager print directly; --color=always colours a pipe, never a terminal.
func TestPagerAndColor(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	data := t.TempDir()
	paged := filepath.Join(t.TempDir(), "paged")
	t.Setenv("CAIRN_PAGER", "cat > "+paged)
	common := []string{"--claude-dir", sample(), "--data", data}
	out, stderr, code := ptyRun(t, 100, append([]string{"show", "ae4a77f8"}, common...)...)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(paged)
	if err != nil {
		t.Fatalf("the pager did not run: %v (terminal got %d bytes)", err, len(out))
	}
	if !strings.Contains(string(b), "Session ae4a77f8") || !strings.Contains(string(b), "\x1b[1;36m▶ You") {
		t.Errorf("the pager got no coloured session: %q", string(b)[:min(300, len(b))])
	}
	if strings.Contains(out, "Session ae4a77f8") {
		t.Error("the session went to the terminal too")
	}
	os.Remove(paged)
	// Piped: no pager, no colour.
	stdout, _, err := run(t, append([]string{"show", "ae4a77f8"}, common...)...)
	if err != nil || !strings.Contains(stdout, "Session ae4a77f8") || strings.Contains(stdout, "\x1b") {
		t.Fatalf("piped show: %v %q", err, stdout[:min(200, len(stdout))])
	}
	if _, err := os.Stat(paged); !errors.Is(err, os.ErrNotExist) {
		t.Error("the pager ran for a pipe")
	}
	// --color=always: a pipe gets colour (for less -R); NO_COLOR yields to it.
	t.Setenv("NO_COLOR", "1")
	stdout, _, _ = run(t, append([]string{"show", "ae4a77f8", "--color=always"}, common...)...)
	if !strings.Contains(stdout, "\x1b[1;36m▶ You") {
		t.Errorf("--color=always: no colour in the pipe")
	}
	// --no-pager on a terminal: printed on it, NO_COLOR: no colour.
	out, _, _ = ptyRun(t, 100, append([]string{"show", "ae4a77f8", "--no-pager"}, common...)...)
	if !strings.Contains(out, "Session ae4a77f8") || strings.Contains(out, "\x1b[1;36m") {
		t.Errorf("--no-pager with NO_COLOR: %q", out[:min(200, len(out))])
	}
	if _, err := os.Stat(paged); !errors.Is(err, os.ErrNotExist) {
		t.Error("the pager ran with --no-pager")
	}
	// --color=never on a terminal.
	t.Setenv("NO_COLOR", "")
	t.Setenv("CAIRN_PAGER", "")
	out, _, _ = ptyRun(t, 100, append([]string{"sessions", "--color=never"}, common...)...)
	if strings.Contains(out, "\x1b[1m") {
		t.Errorf("--color=never: bold header on the terminal")
	}
}
