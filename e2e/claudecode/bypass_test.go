package claudecode_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeclaude"
)

// unprivileged is the user asUnprivileged runs as (nobody).
const unprivileged = 65534

// asUnprivileged moves the world to a HOME owned by an unprivileged user
// and runs every process as that user: Claude Code refuses
// --dangerously-skip-permissions as root. It skips the test where that is
// not possible (not root, not Linux, no setpriv).
func (w *world) asUnprivileged() {
	w.t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if runtime.GOOS != "linux" || os.Geteuid() != 0 || err != nil {
		w.t.Skip("runs Claude Code as another user: needs root on Linux and setpriv")
	}
	base, err := os.MkdirTemp("", "cairn-e2e-user")
	must(w.t, err)
	w.t.Cleanup(func() { os.RemoveAll(base) })
	must(w.t, os.Chmod(base, 0o755))
	// The CLI may sit under a folder the user cannot enter: a link to it
	// in a folder they can.
	cliPath, err := filepath.EvalSymlinks(w.cli.Path)
	must(w.t, err)
	bin := filepath.Join(base, "claude")
	if os.Link(cliPath, bin) != nil {
		w.t.Skipf("cannot link %s where %d can run it", cliPath, unprivileged)
	}
	must(w.t, os.Chmod(binDir, 0o755))
	home := filepath.Join(base, "home")
	must(w.t, os.MkdirAll(filepath.Join(home, "work", "demo"), 0o755))
	must(w.t, filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, unprivileged, unprivileged)
	}))
	cli := *w.cli
	cli.Path = bin
	w.cli = &cli
	w.home, w.proj = home, filepath.Join(home, "work", "demo")
	w.claude, w.data = filepath.Join(home, ".claude"), filepath.Join(home, ".local", "share", "cairn")
	w.runAs = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"}
}

// Under --dangerously-skip-permissions, run by a normal user (where any
// Bash command would run unasked), hostile text through /remember,
// /summarize and /recall executes nothing, and what is stored is byte for
// byte what the model sent.
func TestHostileTextUnderBypassPermissions(t *testing.T) {
	w := newWorld(t, nil)
	w.asUnprivileged()
	pwned := filepath.Join(w.home, "pwned")
	bypass := "--dangerously-skip-permissions"
	w.mustCairn("install")

	sentence := "Parse webhooks with express.raw({type: \"application/json\"}), never $(touch " + pwned + "1) or `touch " + pwned + "2`"
	remember := &commandModel{marker: "# cairn /remember", calls: func(*fakeclaude.Request) []fakeclaude.Block {
		return []fakeclaude.Block{toolCall("mcp__cairn__memory_remember", map[string]any{"content": sentence, "type": "gotcha"})}
	}}
	w.api = fakeclaude.NewServer(t, remember.respond)
	w.ask("/remember "+bigText(pwned), bypass)
	remember.check(t, w)

	summary := "## Request\n- e2e under bypassPermissions\n" + hostileText(pwned)
	summarize := &commandModel{marker: "# cairn /summarize", calls: func(r *fakeclaude.Request) []fakeclaude.Block {
		sid := ""
		if s := sessionArg.FindStringSubmatch(r.AllText()); s != nil {
			sid = s[1]
		}
		return []fakeclaude.Block{toolCall("mcp__cairn__session_save_summary", map[string]any{"summary": summary, "session_id": sid})}
	}}
	w.api = fakeclaude.NewServer(t, summarize.respond)
	w.ask("/summarize "+hostileText(pwned), bypass)
	summarize.check(t, w)

	recall := &commandModel{marker: "# cairn /recall", calls: func(r *fakeclaude.Request) []fakeclaude.Block {
		q, _ := between(r.AllText(), "<query>\n", "\n</query>")
		return []fakeclaude.Block{toolCall("mcp__cairn__memory_search", map[string]any{"query": q}), toolCall("mcp__cairn__memory_recall", map[string]any{"query": q})}
	}}
	w.api = fakeclaude.NewServer(t, recall.respond)
	w.ask("/recall "+hostileText(pwned), bypass)
	recall.check(t, w)

	noPwned(t, pwned)
	var list []struct {
		Content string `json:"content"`
	}
	must(t, json.Unmarshal([]byte(w.mustCairn("memories", "list", "--status", "pending", "--json")), &list))
	if len(list) != 1 || list[0].Content != sentence {
		t.Errorf("pending memories %+v, want the sentence verbatim", list)
	}
	var drafts []struct {
		Markdown string `json:"markdown"`
	}
	must(t, json.Unmarshal([]byte(w.mustCairn("drafts", "list", "--json")), &drafts))
	if len(drafts) != 1 || drafts[0].Markdown != summary+"\n" {
		t.Errorf("drafts %+v, want the summary verbatim", drafts)
	}
}
