package plugin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// frontmatter returns a command file's frontmatter lines as key → raw value.
func frontmatter(t *testing.T, c Command) map[string]string {
	t.Helper()
	s := string(c.Content)
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		t.Fatalf("%s: no frontmatter", c.Name)
	}
	head, _, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("%s: frontmatter not closed", c.Name)
	}
	out := map[string]string{}
	for _, l := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("%s: frontmatter line %q is not key: value", c.Name, l)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// Claude Code parses the frontmatter as YAML: an unquoted `[query]` is a
// list and Claude Code shows `query`; `<a, b>` stays text but `[a, b]` or
// `{…}` do not. Every argument-hint must be a YAML string: quoted (as
// JSON-compatible double quotes) and shown exactly as written.
func TestArgumentHintsAreYAMLStrings(t *testing.T) {
	want := map[string]string{"recall": "[query]", "remember": "<what to remember>", "summarize": "[what to stress, optional]"}
	for _, c := range Commands() {
		raw, ok := frontmatter(t, c)["argument-hint"]
		if !ok {
			if _, needs := want[c.Name]; needs {
				t.Errorf("/%s has no argument-hint", c.Name)
			}
			continue
		}
		var v string
		if !strings.HasPrefix(raw, `"`) || json.Unmarshal([]byte(raw), &v) != nil {
			t.Errorf("/%s: argument-hint %s is not a quoted string: YAML reads [..] as a list and {..} as a map", c.Name, raw)
			continue
		}
		if v != want[c.Name] {
			t.Errorf("/%s: argument-hint %q, want %q", c.Name, v, want[c.Name])
		}
	}
}

// Claude Code parses the frontmatter as YAML and drops all of it (the
// allowed-tools too) when it does not parse: an unquoted value must not
// hold ": " or " #", nor start with a character YAML reads as syntax.
func TestFrontmatterPlainYAML(t *testing.T) {
	for _, c := range Commands() {
		for k, v := range frontmatter(t, c) {
			if strings.HasPrefix(v, `"`) {
				continue
			}
			if strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.ContainsAny(v[:1], "[]{}&*!|>'%@`") {
				t.Errorf("/%s: %s: %q is not a plain YAML string: quote it or reword it", c.Name, k, v)
			}
		}
	}
}

// shellSnippets returns what Claude Code runs in a command body: inline
// !`cmd` (at line start or after whitespace) and ```! blocks.
func shellSnippets(body string) []string {
	var out []string
	block := regexp.MustCompile("(?s)```!\n(.*?)\n```")
	for _, m := range block.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	body = block.ReplaceAllString(body, "")
	inline := regexp.MustCompile("(?:^|\\s)!`([^`]*)`")
	for _, m := range inline.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// Claude Code pastes the user's text for $ARGUMENTS into a command's
// shell lines unescaped, and its Bash check refuses text holding a brace
// followed by a quote even inside a quoted heredoc. So no command puts the
// user's text (or text Claude writes from it) anywhere near a shell: none
// has a shell step that mentions $ARGUMENTS, and the commands that take
// text allow no Bash at all; they hand it to cairn's MCP tools, which they
// name and allow under both of the names Claude Code gives them (cairn
// install's server and the plugin's).
func TestNoUserTextThroughAShell(t *testing.T) {
	takesText := 0
	for _, c := range Commands() {
		_, body, _ := strings.Cut(strings.TrimPrefix(string(c.Content), "---\n"), "\n---\n")
		for _, sn := range shellSnippets(body) {
			if strings.Contains(sn, "$ARGUMENTS") || strings.Contains(sn, "$1") || strings.Contains(sn, "$0") {
				t.Errorf("/%s passes the user's text to a shell: %q", c.Name, sn)
			}
		}
		if !strings.Contains(body, "$ARGUMENTS") {
			continue
		}
		takesText++
		allowed := frontmatter(t, c)["allowed-tools"]
		if strings.Contains(allowed, "Bash") || strings.Contains(body, "<<") {
			t.Errorf("/%s takes text and allows a shell: %s", c.Name, allowed)
		}
		tools := regexp.MustCompile("`((?:memory|session)_[a-z_]+)`").FindAllStringSubmatch(body, -1)
		if len(tools) == 0 {
			t.Errorf("/%s names no cairn MCP tool", c.Name)
		}
		for _, m := range tools {
			if m[1] == "session_read" || m[1] == "session_id" {
				continue // a tool for later, an argument: not called by the command
			}
			for _, prefix := range []string{"mcp__cairn__", "mcp__plugin_cairn_cairn__"} {
				if !strings.Contains(allowed, prefix+m[1]) {
					t.Errorf("/%s calls %s but does not allow %s%s", c.Name, m[1], prefix, m[1])
				}
			}
		}
		if !strings.HasPrefix(body, "# cairn /"+c.Name+"\n") {
			t.Errorf("/%s does not open with the line that marks cairn's expansions", c.Name)
		}
	}
	if takesText != 3 {
		t.Errorf("%d commands take the user's text, want 3 (recall, remember, summarize)", takesText)
	}
}

// The plugin's hooks exit 0 when neither binary is on PATH (Claude Code
// shows a failing hook to the user), and SessionStart says what to do.
func TestHooksExitZeroWithoutBinaries(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(HooksJSON(), &v); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for ev, groups := range v.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				cmd := exec.CommandContext(context.Background(), bash, "-c", h.Command)
				cmd.Env = []string{"PATH=" + empty}
				cmd.Stdin = strings.NewReader(`{"hook_event_name":"` + ev + `"}`)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("%s: %q exits with %v", ev, h.Command, err)
				}
				if stderr.Len() > 0 {
					t.Errorf("%s: stderr %q", ev, stderr.String())
				}
				if ev == "SessionStart" && !strings.Contains(string(out), "is on PATH") {
					t.Errorf("SessionStart says %q, want a hint", out)
				}
				if ev != "SessionStart" && len(out) > 0 {
					t.Errorf("%s prints %q", ev, out)
				}
				if !strings.Contains(h.Command, "--plugin") {
					t.Errorf("%s: %q does not tell cairn it runs from the plugin", ev, h.Command)
				}
			}
		}
	}
}

func TestDoubledDetection(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	installed := write("installed.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"'/opt/my tools/cairn' hook Stop --data /d"}]}]}}`)
	pluginOnly := write("plugin.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn-hook Stop --plugin 2>/dev/null || true"}]}]}}`)
	other := write("other.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send cairn hook"}]}]},"enabledPlugins":{"cairn@cairn":false,"x@y":true}}`)
	enabled := write("enabled.json", `{"enabledPlugins":{"cairn@my-market":true}}`)
	if got := InstalledHooks(installed, pluginOnly, other, filepath.Join(dir, "missing.json")); len(got) != 1 || got[0] != installed {
		t.Errorf("InstalledHooks: %v", got)
	}
	if f, k := Enabled(other, enabled); f != enabled || k != "cairn@my-market" {
		t.Errorf("Enabled: %q %q", f, k)
	}
	if f, _ := Enabled(other, installed); f != "" {
		t.Errorf("Enabled found %q", f)
	}
	user := write("claude.json", `{"mcpServers":{"cairn":{"command":"cairn","args":["mcp"]}}}`)
	local := write("local.json", `{"projects":{"/w/p":{"mcpServers":{"cairn":{"command":"cairn"}}}}}`)
	if got := InstalledMCP("/w/p", user, local, other); len(got) != 2 {
		t.Errorf("InstalledMCP: %v", got)
	}
	if got := InstalledMCP("/w/q", local); len(got) != 0 {
		t.Errorf("InstalledMCP for another project: %v", got)
	}
}
