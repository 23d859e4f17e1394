package hook

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/memories"
)

// PreToolUse: before Claude edits a file or runs a command, cairn gives
// it the approved memories tied to that file or command — once per
// session (as every injection), within ToolTokens.
//
// A memory is tied to a file when its source turns edited that file (its
// provenance: memories.Service.SourceFiles, cached per memory by the
// adapter) or when it names the file (its project-relative path, or a
// distinctive base name such as round.go). It is tied to a command when
// it names the command's program and subcommand ("go test", "make
// deploy") or a distinctive word of the command (a script path, an
// environment variable such as STRIPE_MOCK).

// ToolTokens is the most a PreToolUse injection adds, and toolMemories
// the most memories it names.
const (
	ToolTokens   = 200
	toolMemories = 3
)

// ToolMemory is an approved memory with the files its source turns
// edited (absolute, or relative to the source session's folder) and the
// shell commands its source entries ran.
type ToolMemory struct {
	memories.Memory
	Files    []string
	Commands []string
}

// toolTarget is what a tool call is about to touch.
type toolTarget struct {
	file    string // absolute path of the file to edit
	command string // the Bash command
}

func parseToolTarget(name string, input json.RawMessage, dir string) toolTarget {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Command      string `json:"command"`
	}
	if len(input) == 0 || json.Unmarshal(input, &in) != nil {
		return toolTarget{}
	}
	switch name {
	case "Bash":
		return toolTarget{command: strings.TrimSpace(in.Command)}
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return toolTarget{file: absFile(cmp.Or(in.FilePath, in.NotebookPath), dir)}
	}
	return toolTarget{}
}

// absFile is the clean absolute path of a tool's file p, relative to dir
// when not absolute; "" for no file.
func absFile(p, dir string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// preTool injects the memories tied to the tool call's file or command.
func (h *handler) preTool(ctx context.Context) ([]byte, error) {
	if h.env.Memories == nil || h.cfg.Hooks.PromptTokens <= 0 {
		return nil, nil
	}
	root := h.launchDir()
	target := parseToolTarget(h.in.ToolName, h.in.ToolInput, firstNonEmpty(h.in.CWD, root))
	if target.file == "" && target.command == "" {
		return nil, nil
	}
	return h.withMemories(ctx, func(mem Memories, seen []string) ([]byte, error) {
		ms, err := mem.ToolMemories(ctx, h.project(), seen)
		if err != nil {
			return nil, fmt.Errorf("listing the memories for a tool call: %w", err)
		}
		trace("memories listed")
		b, injected := target.brief(ms, seen, root)
		return h.inject(ctx, mem, PreToolUse, b, injected)
	})
}

// brief is what the tool call is told: the first toolMemories of ms tied
// to the target and not seen yet, within ToolTokens, and their ids.
func (t toolTarget) brief(ms []ToolMemory, seen []string, root string) (*budget, []string) {
	what := "the command it is about to run"
	if t.file != "" {
		what = relOrAbs(t.file, root)
	}
	b := &budget{max: ToolTokens}
	b.add("cairn: approved memories about " + oneLine(what, 120) + " (from earlier sessions):")
	var injected []string
	for _, m := range ms {
		if len(injected) == toolMemories {
			break
		}
		if slices.Contains(seen, m.ID) || !t.matches(m, root) {
			continue
		}
		if b.add(memoryLine(m.Memory, 300)) {
			injected = append(injected, m.ID)
		}
	}
	return b, injected
}

// matches reports whether m is tied to the target.
func (t toolTarget) matches(m ToolMemory, root string) bool {
	if t.file != "" {
		return t.matchesFile(m, root)
	}
	return t.matchesCommand(m)
}

// matchesFile reports whether m's source turns edited the target file, or
// m names it: by its project-relative path, or by a distinctive base name.
func (t toolTarget) matchesFile(m ToolMemory, root string) bool {
	rel := relOrAbs(t.file, root)
	for _, f := range m.Files {
		if sameFile(f, t.file, rel) {
			return true
		}
	}
	if !filepath.IsAbs(rel) && strings.Contains(rel, "/") && mentions(m.Content, filepath.ToSlash(rel)) {
		return true
	}
	base := filepath.Base(t.file)
	return distinctiveName(base) && mentions(m.Content, base)
}

// sameFile reports whether f, a file a memory's source edited (absolute,
// or relative to its session's folder), is the file at abs, rel from the
// launch folder.
func sameFile(f, abs, rel string) bool {
	if filepath.IsAbs(f) {
		return filepath.Clean(f) == abs
	}
	return filepath.ToSlash(filepath.Clean(f)) == filepath.ToSlash(rel)
}

// matchesCommand reports whether m names a phrase of the target command,
// or came from a command that shares one with it: the same program and
// subcommand, or the same script or file, as the one about to run.
func (t toolTarget) matchesCommand(m ToolMemory) bool {
	words := commandWords(t.command)
	for _, w := range words {
		if mentions(m.Content, w) {
			return true
		}
	}
	for _, c := range m.Commands {
		for _, w := range commandWords(c) {
			if slices.Contains(words, w) {
				return true
			}
		}
	}
	return false
}

// distinctiveName is a base name worth matching on its own: with an
// extension and a stem of 3 characters or more (round.go, deploy.sh; not
// a.go or Makefile-like common words).
func distinctiveName(base string) bool {
	ext := filepath.Ext(base)
	return ext != "" && len(base)-len(ext) >= 3
}

// mentions reports whether text names w as a whole word (not inside a
// longer name; a path's folder may precede it).
func mentions(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(w)
		if (s == 0 || !nameByte(text[s-1])) && (e == len(text) || !nameByte(text[e])) {
			return true
		}
		i = s + 1
	}
}

func nameByte(c byte) bool {
	return strings.IndexByte(idChars, c) >= 0
}

// shellSplit separates a command line's commands.
var shellSplit = regexp.MustCompile(`&&|\|\||[;|\n]`)

// commandWords are the phrases that tie a memory to a command: each
// command's program and subcommand ("go test", "npm run build" as "npm
// run"), and its distinctive words: paths and script names with a '/' or
// an extension, and NAMES_IN_CAPS of 5 characters or more.
func commandWords(cmd string) []string {
	var w phrases
	for _, part := range shellSplit.Split(cmd, -1) {
		w.command(strings.Fields(part))
	}
	return w
}

// command adds the phrases of one command, split into fields.
func (w *phrases) command(fields []string) {
	fields = w.environment(fields)
	if len(fields) == 0 || fields[0] == "cd" || fields[0] == "echo" {
		return
	}
	prog := filepath.Base(fields[0])
	if len(fields) > 1 && !strings.HasPrefix(fields[1], "-") && plainWord(fields[1]) {
		w.add(prog + " " + fields[1])
	}
	for _, f := range fields {
		w.argument(strings.Trim(f, `"'`))
	}
}

// environment adds the names a command's leading VAR=value assignments
// set, and returns the fields after them.
func (w *phrases) environment(fields []string) []string {
	for len(fields) > 0 && strings.Contains(fields[0], "=") && !strings.HasPrefix(fields[0], "-") {
		w.add(envName(fields[0]))
		fields = fields[1:]
	}
	return fields
}

// phrases is a list of distinct phrases, in the order first added.
type phrases []string

func (w *phrases) add(s string) {
	if s != "" && !slices.Contains(*w, s) {
		*w = append(*w, s)
	}
}

// argument adds a command argument's distinctive words: a path (and its
// file name), a script or file name, a NAME_IN_CAPS.
func (w *phrases) argument(f string) {
	switch {
	case strings.Contains(f, "/") && !strings.HasPrefix(f, "-"):
		w.path(f)
	case distinctiveName(f) && plainWord(strings.ReplaceAll(f, ".", "")):
		w.add(f)
	case capsName(f):
		w.add(f)
	}
}

// path adds a path argument (without ./ and /...) when it has a folder
// and 5 characters or more, and its file name when distinctive.
func (w *phrases) path(f string) {
	p := strings.TrimPrefix(strings.TrimSuffix(f, "/..."), "./")
	if strings.Contains(p, "/") && len(p) >= 5 {
		w.add(p)
	}
	if base := filepath.Base(p); distinctiveName(base) {
		w.add(base)
	}
}

func envName(assign string) string {
	n, _, _ := strings.Cut(assign, "=")
	if capsName(n) {
		return n
	}
	return ""
}

// capsName is an environment-variable-like NAME (5+ characters, capitals,
// digits and '_', with a '_' or all capitals).
func capsName(s string) bool {
	return len(s) >= 5 && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// plainWord is a word of letters, digits, '-' and '_'.
func plainWord(s string) bool {
	return s != "" && strings.Trim(s, idChars) == ""
}

// relOrAbs is p relative to root when inside it, else p.
func relOrAbs(p, root string) string {
	if root != "" {
		if rel, ok := within(root, p); ok {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
