package memories

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// SummarySections are the sections of a session summary, in order.
var SummarySections = []string{"Request", "User said", "Investigated", "Learned", "Completed", "Next steps", "Files read", "Files edited", "Notes"}

// sectionAliases maps heading words (lower case) to summary sections; draft
// sections that are not listed keep their own heading.
var sectionAliases = map[string]string{
	"request": "Request", "requests": "Request", "goal": "Request", "task": "Request", "ask": "Request",
	"investigated": "Investigated", "investigation": "Investigated", "explored": "Investigated", "research": "Investigated",
	"learned": "Learned", "learnings": "Learned", "lessons": "Learned", "lessons learned": "Learned", "discoveries": "Discoveries",
	"discovery": "Discoveries", "findings": "Discoveries", "decisions": "Decisions", "decision": "Decisions", "key decisions": "Decisions",
	"completed": "Completed", "done": "Completed", "accomplished": "Completed", "changes": "Completed", "what changed": "Completed",
	"next steps": "Next steps", "next": "Next steps", "todo": "Next steps", "to do": "Next steps", "open questions": "Next steps",
	"remaining": "Next steps", "follow-ups": "Next steps", "follow ups": "Next steps",
	"files read": "Files read", "files edited": "Files edited", "files changed": "Files edited", "files modified": "Files edited",
	"notes": "Notes", "note": "Notes", "summary": "Notes", "context": "Notes",
}

// MaxDraftBytes is the largest draft accepted.
const MaxDraftBytes = 64 << 10

// ErrBadDraft is wrapped by drafts that cannot be accepted.
var ErrBadDraft = errors.New("bad draft")

// ParseSections reads a summary in Markdown: "#"-headings open sections,
// list items and paragraph lines become the section's lines. Text before
// the first heading goes to Notes. Section names are normalised through
// their usual synonyms (Decisions, Discoveries, Learned, Next steps, ...).
func ParseSections(md string) (map[string][]string, []string) {
	p := sectionParse{sec: map[string][]string{}}
	inFence := false
	for _, raw := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(strings.TrimRight(raw, " \t\r"))
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || trim == "" {
			continue
		}
		if h, ok := heading(trim); ok {
			p.open(sectionName(h))
			continue
		}
		if item := listItem(trim); item != "" {
			p.add(item)
		}
	}
	return p.sec, p.order
}

// sectionParse is ParseSections' state: the sections, their order, and
// the one being read.
type sectionParse struct {
	sec   map[string][]string
	order []string
	cur   string
}

// open starts section name ("" for a heading it cannot name).
func (p *sectionParse) open(name string) {
	p.cur = name
	if _, seen := p.sec[name]; !seen && name != "" {
		p.sec[name] = nil
		p.order = append(p.order, name)
	}
}

// add appends item to the current section, or to Notes before any.
func (p *sectionParse) add(item string) {
	name := p.cur
	if name == "" {
		name = "Notes"
		if _, seen := p.sec[name]; !seen {
			p.order = append(p.order, name)
		}
	}
	p.sec[name] = append(p.sec[name], item)
}

func heading(line string) (string, bool) {
	if strings.HasPrefix(line, "#") {
		h := strings.TrimLeft(line, "#")
		if h == "" || h[0] == ' ' || h[0] == '\t' {
			return strings.TrimSpace(h), true
		}
	}
	// "**Learned:**" and "Learned:" lines on their own act as headings.
	t := strings.TrimSpace(strings.Trim(line, "*_"))
	if strings.HasSuffix(t, ":") {
		t = strings.TrimSuffix(t, ":")
		t = strings.TrimSpace(strings.Trim(t, "*_"))
		if _, ok := sectionAliases[strings.ToLower(t)]; ok {
			return t, true
		}
	}
	return "", false
}

func sectionName(h string) string {
	h = strings.TrimSpace(strings.Trim(h, "*_:` "))
	if h == "" {
		return ""
	}
	if s, ok := sectionAliases[strings.ToLower(h)]; ok {
		return s
	}
	if len(h) > 60 {
		h = cut(h, 60)
	}
	return h
}

func listItem(line string) string {
	for _, p := range []string{"- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(line, p) {
			return strings.TrimSpace(line[len(p):])
		}
	}
	if item, ok := numberedItem(line); ok {
		return item
	}
	if strings.HasPrefix(line, ">") {
		return strings.TrimSpace(strings.TrimLeft(line, "> "))
	}
	return line
}

// numberedItem is the text of a numbered item: "1. item" or "1) item".
func numberedItem(line string) (string, bool) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line)-1 && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return strings.TrimSpace(line[i+2:]), true
	}
	return "", false
}

// checkDraft rejects input that is not a usable summary draft.
func checkDraft(md string) error {
	if strings.TrimSpace(md) == "" {
		return fmt.Errorf("%w: the draft is empty: pipe the summary's Markdown on stdin", ErrBadDraft)
	}
	if len(md) > MaxDraftBytes {
		return fmt.Errorf("%w: the draft is %d KB, more than the %d KB a summary may have: shorten it", ErrBadDraft, len(md)>>10, MaxDraftBytes>>10)
	}
	if !utf8.ValidString(md) || strings.ContainsRune(md, 0) {
		return fmt.Errorf("%w: the draft is not text (invalid UTF-8 or NUL bytes): pipe the summary's Markdown", ErrBadDraft)
	}
	if mostlyControl(md) {
		return fmt.Errorf("%w: the draft is mostly control characters, not Markdown", ErrBadDraft)
	}
	sec, _ := ParseSections(md)
	for _, v := range sec {
		if len(v) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: the draft has headings but no content", ErrBadDraft)
}

// mostlyControl reports text more than 2% control characters (other than
// line breaks and tabs).
func mostlyControl(md string) bool {
	ctrl := 0
	for _, r := range md {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			ctrl++
		}
	}
	return ctrl > 0 && ctrl*50 > len(md)
}

// renderSummary writes sections as Markdown in the standard order, then
// any other sections in the order given.
func renderSummary(title string, sec map[string][]string, order []string) string {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "# %s\n\n", title)
	}
	done := map[string]bool{}
	write := func(name string) {
		lines := sec[name]
		if done[name] || len(lines) == 0 {
			return
		}
		done[name] = true
		fmt.Fprintf(&b, "## %s\n\n", name)
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		b.WriteString("\n")
	}
	for _, n := range SummarySections {
		write(n)
	}
	for _, n := range order {
		write(n)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
