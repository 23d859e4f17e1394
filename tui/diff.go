package tui

import (
	"encoding/json"
	"fmt"
	"github.com/cairn-dev/cairn/theme"
	"strings"

	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"
)

// fileInput is the input of the tools that change files: Edit, MultiEdit,
// Write and NotebookEdit.
type fileInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	ReplaceAll   bool   `json:"replace_all"`
	Edits        []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
	Content   string `json:"content"`
	NewSource string `json:"new_source"`
	CellID    string `json:"cell_id"`
	CellType  string `json:"cell_type"`
	EditMode  string `json:"edit_mode"`
}

// redact removes secrets from every text of the input, as the store does
// for what it keeps: the whole input read from the transcript is redacted
// as raw JSON (loadFullInputs), and its decoded strings once more here, so a
// secret whose shape shows only once JSON escapes are decoded (a private
// key block's real line breaks) is caught too.
func (in *fileInput) redact() {
	for _, s := range []*string{&in.FilePath, &in.NotebookPath, &in.OldString, &in.NewString, &in.Content, &in.NewSource} {
		*s, _ = redact.Redact(*s)
	}
	for i := range in.Edits {
		in.Edits[i].OldString, _ = redact.Redact(in.Edits[i].OldString)
		in.Edits[i].NewString, _ = redact.Redact(in.Edits[i].NewString)
	}
}

// fileChange draws what a file-changing tool did: edits as unified diffs
// (go-udiff, the library the rest of cairn diffs with), written files and
// notebook cells as numbered lines. ok is false for any other tool, or an
// input it cannot read (the JSON is shown instead).
func (p *readerPane) fileChange(tool *transcripts.Block, cw int) (out []string, ok bool) {
	draw, ok := fileChangeDrawers[tool.ToolName]
	if !ok {
		return nil, false
	}
	raw, full := p.fullInputs[tool.ToolID]
	if !full {
		raw = tool.ToolInput
	}
	var in fileInput
	if json.Unmarshal(raw, &in) != nil {
		return nil, false
	}
	in.redact()
	out = draw(p, &in, cw)
	if len(out) > maxToolLines {
		out = append(out[:maxToolLines], p.c.sty.Muted.Render(fmt.Sprintf("%s… %d more lines", fileLead, len(out)-maxToolLines)))
	}
	if !full {
		out = append(out, p.partialInputNote(cw))
	}
	return out, true
}

// fileLead indents a file change under its tool call.
const fileLead = "      "

// fileChangeDrawers draws each file-changing tool's input.
var fileChangeDrawers = map[string]func(p *readerPane, in *fileInput, cw int) []string{
	"Edit":         (*readerPane).editChange,
	"MultiEdit":    (*readerPane).multiEditChange,
	"Write":        (*readerPane).writeChange,
	"NotebookEdit": (*readerPane).notebookChange,
}

// fileHead is the muted title line above a change.
func (p *readerPane) fileHead(text string, cw int) string {
	return p.c.sty.Muted.Render(trunc(fileLead+sanitizeLine(text), cw))
}

// editChange is an Edit: its file, then the diff.
func (p *readerPane) editChange(in *fileInput, cw int) []string {
	out := []string{p.fileHead(editTitle(in.FilePath, in.ReplaceAll), cw)}
	return append(out, p.diffLines(in.OldString, in.NewString, fileLead, cw)...)
}

// multiEditChange is a MultiEdit: each edit under its own title.
func (p *readerPane) multiEditChange(in *fileInput, cw int) []string {
	var out []string
	for i, e := range in.Edits {
		out = append(out, p.fileHead(fmt.Sprintf("%s · edit %d of %d", editTitle(in.FilePath, e.ReplaceAll), i+1, len(in.Edits)), cw))
		out = append(out, p.diffLines(e.OldString, e.NewString, fileLead, cw)...)
	}
	return out
}

// writeChange is a Write: the file and its line count, then the lines.
func (p *readerPane) writeChange(in *fileInput, cw int) []string {
	out := []string{p.fileHead(fmt.Sprintf("%s · %d lines written", in.FilePath, countLines(in.Content)), cw)}
	return append(out, p.numbered(in.Content, fileLead, cw)...)
}

// notebookChange is a NotebookEdit: notebook, mode, cell type and cell,
// then the new source unless the cell was deleted.
func (p *readerPane) notebookChange(in *fileInput, cw int) []string {
	what := strings.Join(nonEmpty(in.EditMode, in.CellType, cellName(in.CellID)), " · ")
	out := []string{p.fileHead(strings.Join(nonEmpty(in.NotebookPath, what), " · "), cw)}
	if in.EditMode != "delete" {
		out = append(out, p.numbered(in.NewSource, fileLead, cw)...)
	}
	return out
}

// partialInputNote says why only the start of an edit is shown: the
// transcript is gone, or the whole edit is being read from it.
func (p *readerPane) partialInputNote(cw int) string {
	why := "the transcript is gone: cairn keeps only the start of edits"
	if p.conv != nil && p.conv.Session.SourceExists {
		why = "reading the whole edit from the transcript…"
	}
	return p.c.sty.Muted.Render(trunc(fileLead+"("+why+")", cw))
}

func editTitle(path string, all bool) string {
	if all {
		return path + " · every occurrence"
	}
	return path
}

func cellName(id string) string {
	if id == "" {
		return ""
	}
	return "cell " + id
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// diffLines is the unified diff from old to new (3 lines of context),
// hunk headers muted, removed lines red, added lines green; the --- and
// +++ lines are left out (the file is named above).
func (p *readerPane) diffLines(old, new, lead string, cw int) []string {
	s := p.c.sty
	if old == new {
		return []string{s.Muted.Render(lead + "(no change)")}
	}
	// Both end in a newline: a last line without one is not a change.
	if !strings.HasSuffix(old, "\n") {
		old += "\n"
	}
	if !strings.HasSuffix(new, "\n") {
		new += "\n"
	}
	return styledDiff(s, udiff.Unified("a", "b", old, new), lead, cw)
}

// styledDiff renders a unified diff: hunk headers muted, removed lines
// red, added lines green, each wrapped at cw under lead; the --- and +++
// lines are left out (the file is named above).
func styledDiff(s theme.Styles, diff, lead string, cw int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		st := s.Text
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			continue
		case strings.HasPrefix(l, "@@"):
			st = s.Muted
		case strings.HasPrefix(l, "-"):
			st = s.Error
		case strings.HasPrefix(l, "+"):
			st = s.OK
		}
		for _, wl := range wrapIndent(sanitize(l), cw, lead, 1) {
			out = append(out, st.Render(wl))
		}
	}
	return out
}

// numbered is text with its line numbers, as written to a file.
func (p *readerPane) numbered(text, lead string, cw int) []string {
	s := p.c.sty
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return []string{s.Muted.Render(lead + "(empty)")}
	}
	ls := strings.Split(sanitize(text), "\n")
	nw := len(fmt.Sprint(len(ls)))
	var out []string
	for i, l := range ls {
		if len(out) > maxToolLines {
			break
		}
		num := s.Subtle.Render(fmt.Sprintf("%*d │ ", nw, i+1))
		cont := s.Subtle.Render(strings.Repeat(" ", nw) + " │ ")
		for j, wl := range wrapIndent(l, cw-nw-3, "", 0) {
			n := num
			if j > 0 {
				n = cont
			}
			out = append(out, lead+n+wl)
		}
	}
	return out
}

// wrapIndent wraps one line of text at word boundaries to w cells after
// lead, continuing under its own indentation (the leading spaces and tabs
// after skip cells of prefix, such as a diff's +/-); a word longer than
// the room is broken. Continuation lines start with spaces as wide as
// lead.
func wrapIndent(line string, w int, lead string, skip int) []string {
	room := w - lipgloss.Width(lead)
	if ansi.StringWidth(line) <= room || room < 10 {
		return []string{lead + line}
	}
	rest := line[min(skip, len(line)):]
	indent := line[:len(line)-len(rest)] + rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
	iw := ansi.StringWidth(strings.ReplaceAll(indent, "\t", "    "))
	if iw > room/2 {
		iw = skip // deeply indented: keep the room for the text
	}
	first := wordWrap(line, room)[0]
	out := []string{lead + first}
	rest = strings.TrimLeft(strings.TrimPrefix(line, first), " ")
	if rest == "" {
		return out
	}
	cont := strings.Repeat(" ", lipgloss.Width(lead)+iw)
	for _, l := range wordWrap(rest, room-iw) {
		out = append(out, cont+strings.TrimLeft(l, " "))
	}
	return out
}

// fullInputsMsg carries the whole inputs of a session's file-changing
// calls, by tool id, read from its transcript files.
type fullInputsMsg struct {
	session string
	inputs  map[string]json.RawMessage
}

// isFileTool reports a tool whose input holds file text.
func isFileTool(name string) bool {
	_, ok := fileChangeDrawers[name]
	return ok
}

// loadFullInputs reads the inputs of c's file-changing calls from its
// transcript files. The store keeps only the start of edit strings and
// file bodies (what a one-line label needs: index/prepare.go); the diff
// needs all of it, and the transcript still has it while it exists.
func (p *readerPane) loadFullInputs(c *transcripts.Conversation) tea.Cmd {
	if c == nil || c.Session == nil || !c.Session.SourceExists || !hasFileTool(c) {
		return nil
	}
	files, id, ctx := c.Session.SourceFiles, c.Session.ID, p.c.ctx
	return func() tea.Msg {
		out := map[string]json.RawMessage{}
		for _, f := range files {
			if ctx.Err() != nil {
				return nil
			}
			_, _, _ = transcripts.ReadFile(f, transcripts.Cursor{}, func(e *transcripts.Entry) error {
				addFileInputs(e, out)
				return ctx.Err()
			})
		}
		return fullInputsMsg{session: id, inputs: out}
	}
}

// addFileInputs adds the inputs of e's file-changing calls to out, by
// tool id, redacted as the store redacts inputs (index/prepare.go): the
// raw JSON, whose spans never cut an escape.
func addFileInputs(e *transcripts.Entry, out map[string]json.RawMessage) {
	for _, b := range e.Blocks {
		if b.Type == transcripts.BlockToolUse && isFileTool(b.ToolName) && b.ToolID != "" {
			red, _ := redact.Redact(string(b.ToolInput))
			out[b.ToolID] = json.RawMessage(red)
		}
	}
}

func hasFileTool(c *transcripts.Conversation) bool {
	check := func(es []transcripts.Entry) bool {
		for i := range es {
			for _, b := range es[i].Blocks {
				if b.Type == transcripts.BlockToolUse && isFileTool(b.ToolName) {
					return true
				}
			}
		}
		return false
	}
	if check(c.Entries) {
		return true
	}
	for _, es := range c.Agents {
		if check(es) {
			return true
		}
	}
	return false
}

// wordWrap wraps s at spaces only (ids, paths and code keep their
// hyphens), to w cells; a word longer than w is broken.
func wordWrap(s string, w int) []string {
	w = max(w, 1)
	var out []string
	var cur strings.Builder
	cw := 0
	flush := func() {
		out = append(out, cur.String())
		cur.Reset()
		cw = 0
	}
	for i, word := range strings.Split(s, " ") {
		ww := ansi.StringWidth(word)
		if i > 0 {
			if cw+1+ww <= w {
				cur.WriteByte(' ')
				cw++
			} else {
				flush()
			}
		}
		for ww > w-cw && ww > w {
			// A word longer than a line: as much as fits, then the rest.
			head := ansi.Truncate(word, w-cw, "")
			cur.WriteString(head)
			flush()
			word = strings.TrimPrefix(word, head)
			ww = ansi.StringWidth(word)
		}
		cur.WriteString(word)
		cw += ww
	}
	return append(out, cur.String())
}
