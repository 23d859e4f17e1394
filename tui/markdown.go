package tui

// Markdown → styled terminal lines, for Claude's replies in the reader and
// drafts in the drafts pane.
//
// goldmark parses the text to an AST and this file walks it. GFM tables,
// task lists and ~~strikethrough~~ are parsed by the small parsers below
// rather than by goldmark's extension package, whose package init (linkify
// and typographer regexps) costs ~2 ms in every cairn process; glamour, which
// this replaces, cost ~27 ms of init (chroma lexers and styles, bluemonday).
//
// The renderer is a pure function of (text, width, styles). It lays out
// words itself, so every line closes its own styles and no line is wider
// than the width, whatever the input.

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/theme"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdStyles are the SGR sequences that switch each Markdown style on; a span
// is drawn as on + text + sgrOff. With NoColor every sequence is empty and
// Markdown's own markers (**, `, ~~) stay visible instead.
type mdStyles struct {
	noColor bool

	strong, em, strike, code string
	link, url, muted, subtle string
	h1, h2, h3, hmark        string
	bullet, check, uncheck   string
	quote, codeText, lang    string
	thead, html              string
}

const sgrOff = "\x1b[m"

// newMDStyles derives the Markdown styles from the theme.
func newMDStyles(t theme.Theme) *mdStyles {
	if t.NoColor {
		return &mdStyles{noColor: true}
	}
	on := func(s lipgloss.Style) string {
		r := s.Render("x")
		if i := strings.IndexByte(r, 'x'); i > 0 {
			return r[:i]
		}
		return ""
	}
	s := lipgloss.NewStyle
	return &mdStyles{
		strong:   on(s().Bold(true)),
		em:       on(s().Italic(true)),
		strike:   on(s().Strikethrough(true)),
		code:     on(s().Foreground(t.Warn)),
		link:     on(s().Foreground(t.Accent).Underline(true)),
		url:      on(s().Foreground(t.Muted)),
		muted:    on(s().Foreground(t.Muted)),
		subtle:   on(s().Foreground(t.Subtle)),
		h1:       on(s().Foreground(t.Accent).Bold(true).Underline(true)),
		h2:       on(s().Foreground(t.Accent).Bold(true)),
		h3:       on(s().Foreground(t.AccentAlt).Bold(true)),
		hmark:    on(s().Foreground(t.Subtle)),
		bullet:   on(s().Foreground(t.Accent)),
		check:    on(s().Foreground(t.OK).Bold(true)),
		uncheck:  on(s().Foreground(t.Muted)),
		quote:    on(s().Foreground(t.Muted)),
		codeText: on(s().Foreground(t.Text)),
		lang:     on(s().Foreground(t.Muted).Italic(true)),
		thead:    on(s().Bold(true)),
		html:     on(s().Foreground(t.Muted)),
	}
}

// The styles for the two backgrounds and for no colour are built once.
var (
	mdStylesMu    sync.Mutex
	mdStylesCache = map[[2]bool]*mdStyles{}
)

func mdStylesFor(t theme.Theme) *mdStyles {
	k := [2]bool{t.Dark, t.NoColor}
	mdStylesMu.Lock()
	defer mdStylesMu.Unlock()
	if s := mdStylesCache[k]; s != nil {
		return s
	}
	s := newMDStyles(t)
	mdStylesCache[k] = s
	return s
}

// renderMarkdown renders Markdown as lines of at most w cells (w ≥ 1). The
// text is sanitised here too: control sequences never reach the output.
func renderMarkdown(src string, w int, st *mdStyles) []string {
	w = max(1, w)
	src = sanitize(src)
	if strings.TrimSpace(src) == "" {
		return nil
	}
	b := []byte(src)
	doc := mdParser().Parse(text.NewReader(b))
	buf := fragPool.Get().(*[]frag)
	r := mdRenderer{src: b, str: src, st: st, fr: *buf}
	out := r.blocks(doc, w, false)
	clear(r.fr[:cap(r.fr)])
	*buf = r.fr[:0]
	fragPool.Put(buf)
	for i, l := range out {
		if styledWidth(l) > w {
			out[i] = ansi.Truncate(l, w, "…")
		}
	}
	return out
}

var fragPool = sync.Pool{New: func() any { return new([]frag) }}

var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(mdTaskParser{}, 0), util.Prioritized(mdStrikeParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(mdTableTransformer{}, 200))...),
	)
})

type mdRenderer struct {
	src   []byte
	str   string // src
	st    *mdStyles
	depth int    // list nesting
	fr    []frag // layout's buffer
}

// text is the source text of a segment.
func (r *mdRenderer) text(seg text.Segment) string {
	if seg.Padding == 0 && seg.Start >= 0 && seg.Start <= seg.Stop && seg.Stop <= len(r.str) {
		return r.str[seg.Start:seg.Stop]
	}
	return string(seg.Value(r.src))
}

// blocks renders the block children of parent, a blank line between them
// unless tight (the items of a tight list).
func (r *mdRenderer) blocks(parent ast.Node, w int, tight bool) []string {
	var out []string
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c, w)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

// block renders one block node, dispatching on its kind.
func (r *mdRenderer) block(n ast.Node, w int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		return r.heading(n, w)
	case *ast.Paragraph, *ast.TextBlock:
		return r.layout(r.inline(n, "", nil), w)
	case *ast.ThematicBreak:
		return []string{paint(r.st.subtle, strings.Repeat("─", max(0, min(w, 80))))}
	case *ast.FencedCodeBlock:
		return r.code(n.Lines(), r.fenceLang(n), w)
	case *ast.CodeBlock:
		return r.code(n.Lines(), "", w)
	case *ast.Blockquote:
		return r.blockquote(n, w)
	case *ast.List:
		return r.list(n, w)
	case *ast.HTMLBlock:
		return r.htmlBlock(n, w)
	case *mdTable:
		return r.table(n, w)
	}
	return r.otherBlock(n, w)
}

// otherBlock renders a block of no known kind through its children: its
// inlines laid out, or its blocks.
func (r *mdRenderer) otherBlock(n ast.Node, w int) []string {
	if n.Type() != ast.TypeBlock || n.FirstChild() == nil {
		return nil
	}
	if n.FirstChild().Type() == ast.TypeInline {
		return r.layout(r.inline(n, "", nil), w)
	}
	return r.blocks(n, w, false)
}

// heading renders a heading behind its #s, wrapped lines under the text.
func (r *mdRenderer) heading(n *ast.Heading, w int) []string {
	mark := strings.Repeat("#", n.Level) + " "
	ls := r.layout(r.inline(n, r.st.heading(n.Level), nil), w-len(mark))
	return hang(ls, mark, r.st.hmark, len(mark))
}

// heading is the style of a heading of level (1, 2, then one for the rest).
func (st *mdStyles) heading(level int) string {
	switch level {
	case 1:
		return st.h1
	case 2:
		return st.h2
	}
	return st.h3
}

// fenceLang is a fenced code block's language, "" if it names none.
func (r *mdRenderer) fenceLang(n *ast.FencedCodeBlock) string {
	if n.Info == nil {
		return ""
	}
	return sanitizeLine(string(n.Language(r.src)))
}

// blockquote renders the quoted blocks behind a bar.
func (r *mdRenderer) blockquote(n *ast.Blockquote, w int) []string {
	bar := paint(r.st.subtle, "▎")
	ls := r.blocks(n, w-2, false)
	for i, l := range ls {
		if l == "" {
			ls[i] = bar
		} else {
			ls[i] = bar + " " + l
		}
	}
	return ls
}

// htmlBlock renders an HTML block as its source lines, muted and
// hard-wrapped.
func (r *mdRenderer) htmlBlock(n *ast.HTMLBlock, w int) []string {
	var out []string
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		out = r.htmlLine(ls.At(i), w, out)
	}
	if n.HasClosure() {
		out = r.htmlLine(n.ClosureLine, w, out)
	}
	return trimBlank(out)
}

// htmlLine renders one source line of an HTML block.
func (r *mdRenderer) htmlLine(seg text.Segment, w int, out []string) []string {
	l := strings.TrimRight(r.text(seg), "\n ")
	for _, p := range hardWrap(l, w) {
		out = append(out, paint(r.st.html, p))
	}
	return out
}

// code renders a code block: a bar on the left, the language above, lines
// hard-wrapped (a dotted bar marks the continuation), never word-wrapped.
func (r *mdRenderer) code(segs *text.Segments, lang string, w int) []string {
	st := r.st
	var out []string
	if lang != "" {
		out = append(out, paint(st.subtle, "╭ ")+paint(st.lang, lang))
	}
	bar, cont := paint(st.subtle, "│"), paint(st.subtle, "┆")
	for _, l := range r.codeLines(segs) {
		out = r.codeLine(strings.TrimRight(l, " "), w, bar, cont, out)
	}
	if len(out) == 0 {
		out = append(out, bar)
	}
	return out
}

// codeLines is the text of a code block's lines, without the blank lines
// at its end.
func (r *mdRenderer) codeLines(segs *text.Segments) []string {
	var ls []string
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		ls = append(ls, strings.TrimRight(r.text(seg), "\n"))
	}
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// codeLine renders one line of code hard-wrapped to w-2 cells behind bar,
// its continuations behind cont.
func (r *mdRenderer) codeLine(l string, w int, bar, cont string, out []string) []string {
	if l == "" {
		return append(out, bar)
	}
	for j, p := range hardWrap(l, w-2) {
		b := bar
		if j > 0 {
			b = cont
		}
		if p = strings.TrimRight(p, " "); p == "" {
			out = append(out, b)
		} else {
			out = append(out, b+" "+paint(r.st.codeText, p))
		}
	}
	return out
}

var mdBullets = []string{"•", "◦", "▪", "▫"}

func (r *mdRenderer) list(l *ast.List, w int) []string {
	st := r.st
	bullet := mdBullets[r.depth%len(mdBullets)]
	r.depth++
	defer func() { r.depth-- }()
	markW := 2
	if l.IsOrdered() {
		last := l.Start + l.ChildCount() - 1
		markW = max(len(strconv.Itoa(l.Start)), len(strconv.Itoa(last))) + 2
	}
	var out []string
	i := 0
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		mark := bullet + " "
		if l.IsOrdered() {
			num := strconv.Itoa(l.Start+i) + string(l.Marker)
			mark = strings.Repeat(" ", max(0, markW-1-len(num))) + num + " "
		}
		i++
		body := r.blocks(it, w-markW, l.IsTight)
		if len(body) == 0 {
			body = []string{""}
		}
		if len(out) > 0 && !l.IsTight {
			out = append(out, "")
		}
		out = append(out, hang(body, mark, st.bullet, markW)...)
	}
	return out
}

// hang prefixes the first line with mark (painted with sgr) and indents
// the others by n spaces: wrapped lines align under the text.
func hang(ls []string, mark, sgr string, n int) []string {
	if len(ls) == 0 || ls[0] == "" {
		ls = append([]string{""}, ls[min(1, len(ls)):]...)
		ls[0] = paint(sgr, strings.TrimRight(mark, " "))
	} else {
		ls[0] = paint(sgr, mark) + ls[0]
	}
	pad := spaces(n)
	for i := 1; i < len(ls); i++ {
		if ls[i] != "" {
			ls[i] = pad + ls[i]
		}
	}
	return ls
}

const manySpaces = "                                                                "

func spaces(n int) string {
	if n <= len(manySpaces) {
		return manySpaces[:max(0, n)]
	}
	return strings.Repeat(" ", n)
}

func paint(sgr, s string) string {
	if sgr == "" || s == "" {
		return s
	}
	return sgr + s + sgrOff
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// ---- inlines ----

// span is a run of text in one style; brk is a hard line break.
type span struct {
	s   string
	sgr string
	brk bool
}

// inline renders the inlines under parent as spans in style sgr.
func (r *mdRenderer) inline(parent ast.Node, sgr string, out []span) []span {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inlineNode(c, sgr, out)
	}
	return out
}

// inlineNode renders one inline node, dispatching on its kind; a node of
// no known kind is rendered through its children.
func (r *mdRenderer) inlineNode(c ast.Node, sgr string, out []span) []span {
	st := r.st
	switch n := c.(type) {
	case *ast.Text:
		return r.textSpans(n, sgr, out)
	case *ast.String:
		return append(out, span{s: stringText(n), sgr: sgr})
	case *ast.CodeSpan:
		return r.codeSpan(n, sgr, out)
	case *ast.Emphasis:
		return r.emphasis(n, sgr, out)
	case *mdStrike:
		return r.marked(n, sgr, st.strike, "~~", out)
	case *ast.Link:
		return r.link(n, sgr, out)
	case *ast.Image:
		return r.image(n, sgr, out)
	case *ast.AutoLink:
		return append(out, span{s: sanitizeLine(string(n.Label(r.src))), sgr: sgr + st.link})
	case *ast.RawHTML:
		return r.rawHTML(n, sgr, out)
	case *mdTask:
		return r.taskBox(n, out)
	}
	return r.inline(c, sgr, out)
}

// textSpans renders text, unescaped unless raw, and the line break after
// it: a hard break, or a space for a soft one.
func (r *mdRenderer) textSpans(n *ast.Text, sgr string, out []span) []span {
	s := r.text(n.Segment)
	if !n.IsRaw() {
		s = mdUnescape(s)
	}
	out = append(out, span{s: s, sgr: sgr})
	if n.HardLineBreak() {
		out = append(out, span{brk: true})
	} else if n.SoftLineBreak() {
		out = append(out, span{s: " ", sgr: sgr})
	}
	return out
}

// stringText is the text of a String node, unescaped unless raw or code.
func stringText(n *ast.String) string {
	s := string(n.Value)
	if !n.IsRaw() && !n.IsCode() {
		s = mdUnescape(s)
	}
	return s
}

// codeSpan renders `code`: in the code style, or between backticks without
// colour.
func (r *mdRenderer) codeSpan(n *ast.CodeSpan, sgr string, out []span) []span {
	s := sanitizeLine(r.codeSpanText(n))
	if r.st.noColor {
		s = "`" + s + "`"
	}
	return append(out, span{s: s, sgr: sgr + r.st.code})
}

// codeSpanText is the source of a code span, its lines joined by spaces.
func (r *mdRenderer) codeSpanText(n *ast.CodeSpan) string {
	var sb strings.Builder
	for t := n.FirstChild(); t != nil; t = t.NextSibling() {
		if t, ok := t.(*ast.Text); ok {
			v := t.Segment.Value(r.src)
			sb.Write(bytes.TrimSuffix(v, []byte("\n")))
			if t.SoftLineBreak() || bytes.HasSuffix(v, []byte("\n")) {
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String()
}

// emphasis renders *em* (level 1) or **strong** (level 2 and more).
func (r *mdRenderer) emphasis(n *ast.Emphasis, sgr string, out []span) []span {
	if n.Level >= 2 {
		return r.marked(n, sgr, r.st.strong, "**", out)
	}
	return r.marked(n, sgr, r.st.em, "*", out)
}

// link renders a link's text, then its destination in parentheses unless
// the text already says it (a bare URL or e-mail address).
func (r *mdRenderer) link(n *ast.Link, sgr string, out []span) []span {
	k := len(out)
	out = r.inline(n, sgr+r.st.link, out)
	dest := sanitizeLine(string(n.Destination))
	if dest != "" && dest != spansText(out[k:]) && "mailto:"+spansText(out[k:]) != dest {
		out = r.dest(dest, sgr, out)
	}
	return out
}

// image renders an image as [image: alt] and its destination.
func (r *mdRenderer) image(n *ast.Image, sgr string, out []span) []span {
	alt := "image"
	if s := spansText(r.inline(n, "", nil)); s != "" {
		alt = "image: " + s
	}
	out = append(out, span{s: "[" + alt + "]", sgr: sgr + r.st.muted})
	if dest := sanitizeLine(string(n.Destination)); dest != "" {
		out = r.dest(dest, sgr, out)
	}
	return out
}

// dest renders the " (destination)" after a link or image.
func (r *mdRenderer) dest(dest, sgr string, out []span) []span {
	return append(out, span{s: " ", sgr: sgr}, span{s: "(" + dest + ")", sgr: r.st.url})
}

// rawHTML renders inline HTML as its source, muted.
func (r *mdRenderer) rawHTML(n *ast.RawHTML, sgr string, out []span) []span {
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		out = append(out, span{s: sanitizeLine(r.text(seg)), sgr: sgr + r.st.html})
	}
	return out
}

// taskBox renders a task list item's box, [x] or [ ], and a space.
func (r *mdRenderer) taskBox(n *mdTask, out []span) []span {
	if n.checked {
		return append(out, span{s: "[x]", sgr: r.st.check}, span{s: " "})
	}
	return append(out, span{s: "[ ]", sgr: r.st.uncheck}, span{s: " "})
}

// marked renders emphasis: styled, or between its Markdown markers without
// colour.
func (r *mdRenderer) marked(n ast.Node, sgr, add, mark string, out []span) []span {
	if r.st.noColor {
		out = append(out, span{s: mark})
		out = r.inline(n, sgr, out)
		return append(out, span{s: mark})
	}
	return r.inline(n, sgr+add, out)
}

func spansText(sp []span) string {
	var sb strings.Builder
	for _, s := range sp {
		sb.WriteString(s.s)
	}
	return sb.String()
}

// mdUnescape resolves backslash escapes and entities; an entity that names
// a control character is neutralised again.
func mdUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '&') < 0 {
		return s
	}
	b := []byte(s)
	if bytes.IndexByte(b, '\\') >= 0 {
		b = util.UnescapePunctuations(b)
	}
	if bytes.IndexByte(b, '&') >= 0 {
		b = util.ResolveEntityNames(util.ResolveNumericReferences(b))
	}
	return sanitizeLine(string(b))
}

// ---- layout ----

// frag is text without spaces in one style; a word is a frag and the frags
// that continue it (next).
type frag struct {
	s, sgr string
	w      int
	sp     string // style of the space before the word
	lead   bool   // a space came before the word
	next   bool   // continues the previous frag's word
	brk    bool   // a hard break
}

// frags splits spans into words at spaces (runs of spaces collapse).
func frags(sp []span, out []frag) []frag {
	space, spaceSgr, inWord := false, "", false
	for _, s := range sp {
		if s.brk {
			out = append(out, frag{brk: true})
			space, inWord = false, false
			continue
		}
		t := s.s
		for t != "" {
			i := strings.IndexAny(t, " \n")
			if i != 0 {
				if i < 0 {
					i = len(t)
				}
				out = append(out, frag{s: t[:i], sgr: s.sgr, w: textWidth(t[:i]), sp: spaceSgr, lead: space, next: inWord})
				space, inWord = false, true
				if i == len(t) {
					break
				}
			}
			space, spaceSgr, inWord = true, s.sgr, false
			t = t[i+1:]
		}
	}
	return out
}

// line accumulates styled runs.
type line struct {
	sb  strings.Builder
	sgr string // style of the open run
	w   int
}

func (l *line) add(s, sgr string) {
	if s == "" {
		return
	}
	if l.sb.Cap() == 0 {
		l.sb.Grow(128)
	}
	if sgr != l.sgr {
		if l.sgr != "" {
			l.sb.WriteString(sgrOff)
		}
		l.sb.WriteString(sgr)
		l.sgr = sgr
	}
	l.sb.WriteString(s)
}

func (l *line) String() string {
	if l.sgr != "" {
		l.sb.WriteString(sgrOff)
		l.sgr = ""
	}
	s := l.sb.String()
	l.sb.Reset()
	l.w = 0
	return s
}

// layout word-wraps spans to w cells.
func (r *mdRenderer) layout(sp []span, w int) []string {
	fr := frags(sp, r.fr[:0])
	r.fr = fr
	wr := wrapper{w: max(1, w)}
	for i := 0; i < len(fr); {
		if fr[i].brk {
			wr.newline()
			i++
			continue
		}
		j, ww := wordEnd(fr, i)
		wr.word(fr[i:j], ww)
		i = j
	}
	return wr.lines()
}

// wordEnd is the end of the word that starts at fr[i] (the frags that
// continue it) and its width.
func wordEnd(fr []frag, i int) (int, int) {
	j, ww := i+1, fr[i].w
	for j < len(fr) && fr[j].next {
		ww += fr[j].w
		j++
	}
	return j, ww
}

// wrapper fills lines of at most w cells word by word.
type wrapper struct {
	ln  line
	out []string
	w   int
}

// newline ends the current line.
func (wr *wrapper) newline() { wr.out = append(wr.out, wr.ln.String()) }

// lines ends the last line, unless empty, and returns them all.
func (wr *wrapper) lines() []string {
	if wr.ln.w > 0 || wr.ln.sb.Len() > 0 {
		wr.newline()
	}
	return wr.out
}

// word adds a word of ww cells: on this line if it fits, else on the next,
// cut by cells if it is longer than a line.
func (wr *wrapper) word(wd []frag, ww int) {
	if wr.ln.w > 0 && wr.ln.w+1+ww > wr.w {
		wr.newline()
	}
	if wr.ln.w > 0 && wd[0].lead {
		wr.space(wd[0])
	}
	if wr.ln.w+ww <= wr.w {
		for _, p := range wd {
			wr.ln.add(p.s, p.sgr)
		}
		wr.ln.w += ww
		return
	}
	for _, p := range wd {
		wr.cut(p)
	}
}

// space adds the space before word f: styled only if the text on both
// sides is (no underline reaching past a link).
func (wr *wrapper) space(f frag) {
	sgr := f.sp
	if f.sgr != sgr {
		sgr = ""
	}
	wr.ln.add(" ", sgr)
	wr.ln.w++
}

// cut adds a frag of a word longer than the line, cut by cells across as
// many lines as it takes (at least a grapheme cluster a line).
func (wr *wrapper) cut(p frag) {
	s := p.s
	for s != "" {
		head, hw := cutCells(s, wr.w-wr.ln.w)
		if head == "" && wr.ln.w == 0 {
			head, hw = firstCluster(s)
		}
		if head != "" {
			wr.ln.add(head, p.sgr)
			wr.ln.w += hw
			s = s[len(head):]
		}
		if s != "" {
			wr.newline()
		}
	}
}

// hardWrap cuts plain text into pieces of at most w cells.
func hardWrap(s string, w int) []string {
	w = max(1, w)
	var out []string
	for s != "" {
		head, _ := cutCells(s, w)
		if head == "" {
			head, _ = firstCluster(s)
		}
		out = append(out, head)
		s = s[len(head):]
	}
	return out
}

// cutCells returns the longest head of s that fits in room cells, and its
// width, in one pass over s's grapheme clusters.
func cutCells(s string, room int) (string, int) {
	i, w := 0, 0
	for i < len(s) {
		if c := s[i]; c >= 0x20 && c < 0x7f && (i+1 == len(s) || s[i+1] < 0x80) {
			if w+1 > room {
				break
			}
			i++
			w++
			continue
		}
		cl, cw := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
		if cl == "" || w+cw > room {
			break
		}
		i += len(cl)
		w += cw
	}
	return s[:i], w
}

// firstCluster is the first grapheme cluster of s and its width.
func firstCluster(s string) (string, int) {
	cl, cw := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	if cl == "" {
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], textWidth(s[:n])
	}
	return cl, cw
}

// textWidth is the width of plain text in cells: fast for ASCII and the
// punctuation, arrows and box drawing replies are full of, exact (grapheme
// clusters, wide and zero-width characters) otherwise.
func textWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return ansi.StringWidth(s)
			}
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !oneCellRune(r) {
			return ansi.StringWidth(s)
		}
		i += size
		n++
	}
	return n
}

// oneCellRune reports whether r is a non-ASCII character known to take
// one cell, among those replies are full of.
func oneCellRune(r rune) bool {
	for _, rg := range oneCellRanges {
		if r >= rg.lo && r < rg.hi {
			return true
		}
	}
	return false
}

// oneCellRanges are the ranges [lo, hi) of oneCellRune.
var oneCellRanges = [...]struct{ lo, hi rune }{
	{0xa0, 0x300},    // Latin-1, Latin Extended
	{0x2010, 0x2028}, // dashes, quotes, bullets, ellipsis
	{0x2030, 0x205f},
	{0x2190, 0x2200}, // arrows
	{0x2500, 0x25a0}, // box drawing, blocks
}

// styledWidth is the width of a rendered line: its only escape sequences
// are the renderer's own SGR (the input is sanitised).
func styledWidth(l string) int {
	n := 0
	for l != "" {
		i := strings.IndexByte(l, 0x1b)
		if i < 0 {
			return n + textWidth(l)
		}
		n += textWidth(l[:i])
		j := strings.IndexByte(l[i:], 'm')
		if j < 0 {
			return ansi.StringWidth(l) + n
		}
		l = l[i+j+1:]
	}
	return n
}

// ---- tables ----

// table lays out a GFM table: columns as wide as their text, narrowed
// (widest first) to fit the width, cells word-wrapped within them.
func (r *mdRenderer) table(t *mdTable, w int) []string {
	const sepW = 3
	nc := len(t.align)
	rows := r.tableSpans(t, nc)
	widths := fitColumns(r.naturalWidths(rows, nc), max(nc, w-sepW*(nc-1)))
	sep := paint(r.st.subtle, " │ ")
	var out []string
	for i, row := range rows {
		out = r.rowLines(row, widths, t.align, sep, out)
		if i == 0 {
			out = append(out, paint(r.st.subtle, tableRule(widths)))
		}
	}
	return out
}

// tableSpans renders the cells of every row, nc a row.
func (r *mdRenderer) tableSpans(t *mdTable, nc int) [][][]span {
	var rows [][][]span
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		rows = append(rows, r.rowSpans(row.(*mdRow), nc))
	}
	return rows
}

// rowSpans renders a row's cells (bold in the header), cut or padded with
// empty cells to nc.
func (r *mdRenderer) rowSpans(row *mdRow, nc int) [][]span {
	sgr := ""
	if row.header {
		sgr = r.st.thead
	}
	var cells [][]span
	for c := row.FirstChild(); c != nil && len(cells) < nc; c = c.NextSibling() {
		cells = append(cells, r.inline(c, sgr, nil))
	}
	for len(cells) < nc {
		cells = append(cells, nil)
	}
	return cells
}

// naturalWidths is the width of each column unwrapped (at least 1).
func (r *mdRenderer) naturalWidths(rows [][][]span, nc int) []int {
	nat := make([]int, nc)
	for _, row := range rows {
		for j, c := range row {
			for _, l := range r.layout(c, 1<<30) {
				nat[j] = max(nat[j], ansi.StringWidth(l))
			}
		}
	}
	for j := range nat {
		nat[j] = max(1, nat[j])
	}
	return nat
}

// rowLines lays out a row: each cell wrapped to its column, the row as
// tall as its tallest cell.
func (r *mdRenderer) rowLines(row [][]span, widths []int, al []byte, sep string, out []string) []string {
	cl := make([][]string, len(row))
	h := 1
	for j, c := range row {
		cl[j] = r.layout(c, widths[j])
		h = max(h, len(cl[j]))
	}
	for k := 0; k < h; k++ {
		out = append(out, tableLine(cl, k, widths, al, sep))
	}
	return out
}

// tableLine is line k of a row's wrapped cells, each aligned in its column.
func tableLine(cl [][]string, k int, widths []int, al []byte, sep string) string {
	var sb strings.Builder
	for j := range cl {
		if j > 0 {
			sb.WriteString(sep)
		}
		var s string
		if k < len(cl[j]) {
			s = cl[j][k]
		}
		sb.WriteString(align(s, widths[j], al[j]))
	}
	return strings.TrimRight(sb.String(), " ")
}

// tableRule is the rule under the header: ─ across each column, ─┼─
// between them.
func tableRule(widths []int) string {
	var sb strings.Builder
	for j := range widths {
		if j > 0 {
			sb.WriteString("─┼─")
		}
		sb.WriteString(strings.Repeat("─", widths[j]))
	}
	return sb.String()
}

// fitColumns narrows the widest columns until they fit in avail cells.
func fitColumns(nat []int, avail int) []int {
	ws := append([]int(nil), nat...)
	if cappedSum(nat, math.MaxInt) <= avail {
		return ws
	}
	c := widthCap(nat, avail)
	// The cells left under the cap go one each to the first capped columns.
	left := avail - cappedSum(nat, c)
	for j, n := range nat {
		ws[j] = min(n, c)
		if n > c && left > 0 {
			ws[j]++
			left--
		}
	}
	return ws
}

// widthCap is the largest cap c (at least 1) with Σ min(nat, c) ≤ avail.
func widthCap(nat []int, avail int) int {
	lo, hi := 1, 1
	for _, n := range nat {
		hi = max(hi, n)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cappedSum(nat, mid) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// cappedSum is Σ min(nat, c): the width of the columns capped at c.
func cappedSum(nat []int, c int) int {
	s := 0
	for _, n := range nat {
		s += min(n, c)
	}
	return s
}

func align(s string, w int, a byte) string {
	n := w - ansi.StringWidth(s)
	if n <= 0 {
		return s
	}
	switch a {
	case 'r':
		return spaces(n) + s
	case 'c':
		return spaces(n/2) + s + spaces(n-n/2)
	}
	return s + spaces(n)
}

// ---- parsers for GFM tables, task lists and strikethrough ----

var (
	kindMDTable  = ast.NewNodeKind("CairnTable")
	kindMDRow    = ast.NewNodeKind("CairnTableRow")
	kindMDCell   = ast.NewNodeKind("CairnTableCell")
	kindMDTask   = ast.NewNodeKind("CairnTask")
	kindMDStrike = ast.NewNodeKind("CairnStrike")
)

type mdTable struct {
	ast.BaseBlock
	align []byte // 'l', 'r', 'c' or 0 per column
}

func (n *mdTable) Kind() ast.NodeKind         { return kindMDTable }
func (n *mdTable) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type mdRow struct {
	ast.BaseBlock
	header bool
}

func (n *mdRow) Kind() ast.NodeKind         { return kindMDRow }
func (n *mdRow) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type mdCell struct{ ast.BaseBlock }

func (n *mdCell) Kind() ast.NodeKind         { return kindMDCell }
func (n *mdCell) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type mdTask struct {
	ast.BaseInline
	checked bool
}

func (n *mdTask) Kind() ast.NodeKind         { return kindMDTask }
func (n *mdTask) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type mdStrike struct{ ast.BaseInline }

func (n *mdStrike) Kind() ast.NodeKind         { return kindMDStrike }
func (n *mdStrike) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// mdTableTransformer turns a paragraph holding a header row, a delimiter
// row (|---|:--:|) and body rows into a table, as GFM does.
type mdTableTransformer struct{}

func (mdTableTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		dl := lines.At(i)
		al := tableDelim(dl.Value(src))
		if al == nil {
			continue
		}
		hdr := tableCells(lines.At(i-1), src)
		if len(hdr) != len(al) {
			return
		}
		t := &mdTable{align: al}
		t.AppendChild(t, tableRow(hdr, len(al), true))
		for j := i + 1; j < lines.Len(); j++ {
			t.AppendChild(t, tableRow(tableCells(lines.At(j), src), len(al), false))
		}
		node.Parent().InsertAfter(node.Parent(), node, t)
		if i-1 == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			node.Lines().SetSliced(0, i-1)
			last := node.Lines().At(i - 2)
			last.Stop = max(last.Start, last.Stop-1) // the newline
			node.Lines().Set(i-2, last)
		}
		return
	}
}

func tableRow(cells []text.Segment, n int, header bool) *mdRow {
	row := &mdRow{header: header}
	for j := 0; j < n; j++ {
		c := &mdCell{}
		if j < len(cells) {
			c.Lines().Append(cells[j])
		}
		row.AppendChild(row, c)
	}
	return row
}

// tableCells splits a row at unescaped pipes into trimmed cell segments.
func tableCells(seg text.Segment, src []byte) []text.Segment {
	seg = seg.TrimLeftSpace(src)
	seg = seg.TrimRightSpace(src)
	line := seg.Value(src)
	pos, limit := outerPipes(line)
	var out []text.Segment
	for pos <= limit {
		end := nextPipe(line, pos, limit)
		c := text.NewSegment(seg.Start+pos, seg.Start+end)
		c = c.TrimLeftSpace(src)
		c = c.TrimRightSpace(src)
		out = append(out, c)
		pos = end + 1
		if end == limit {
			break
		}
	}
	return out
}

// outerPipes is the span of a row's cells: inside its leading pipe and
// its trailing unescaped pipe, when it has them.
func outerPipes(line []byte) (pos, limit int) {
	pos, limit = 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > pos && line[limit-1] == '|' && (limit < 2 || line[limit-2] != '\\') {
		limit--
	}
	return pos, limit
}

// nextPipe is the index of the first unescaped pipe at or after pos, or
// limit if there is none before it.
func nextPipe(line []byte, pos, limit int) int {
	end := pos
	for end < limit && !(line[end] == '|' && (end == 0 || line[end-1] != '\\')) {
		end++
	}
	return end
}

// tableDelim parses a delimiter row into column alignments (nil if it is
// not one).
func tableDelim(line []byte) []byte {
	cols := delimCols(line)
	if cols == nil {
		return nil
	}
	al := make([]byte, 0, len(cols))
	for _, c := range cols {
		a, ok := delimAlign(c)
		if !ok {
			return nil
		}
		al = append(al, a)
	}
	return al
}

// delimCols splits a candidate delimiter row at its pipes, without the
// empty cells outside the outer pipes (nil if it cannot be one).
func delimCols(line []byte) [][]byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || bytes.IndexByte(line, '-') < 0 {
		return nil
	}
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return nil
	}
	cols := trimOuterCells(bytes.Split(line, []byte{'|'}))
	if len(cols) == 0 || (len(cols) == 1 && bytes.IndexByte(line, '|') < 0) {
		return nil
	}
	return cols
}

// trimOuterCells drops the blank first and last cells: what lies outside
// a row's leading and trailing pipes.
func trimOuterCells(cols [][]byte) [][]byte {
	if len(cols) > 0 && len(bytes.TrimSpace(cols[0])) == 0 {
		cols = cols[1:]
	}
	if len(cols) > 0 && len(bytes.TrimSpace(cols[len(cols)-1])) == 0 {
		cols = cols[:len(cols)-1]
	}
	return cols
}

// delimAlign is the alignment a delimiter cell sets: 'c' for :-:, 'r' for
// -:, 'l' for :- and 0 for -; ok is false if c is not a delimiter cell.
func delimAlign(c []byte) (a byte, ok bool) {
	c = bytes.TrimSpace(c)
	l, r := bytes.HasPrefix(c, []byte(":")), bytes.HasSuffix(c, []byte(":"))
	d := bytes.Trim(c, ":")
	if len(d) == 0 || len(bytes.Trim(d, "-")) != 0 {
		return 0, false
	}
	switch {
	case l && r && len(c) > 1:
		return 'c', true
	case r:
		return 'r', true
	case l:
		return 'l', true
	}
	return 0, true
}

// mdTaskParser reads [ ] and [x] at the start of a list item.
type mdTaskParser struct{}

func (mdTaskParser) Trigger() []byte { return []byte{'['} }

func (mdTaskParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if !startsListItem(parent) {
		return nil
	}
	line, _ := block.PeekLine()
	checked, ok := taskBox(line)
	if !ok {
		return nil
	}
	block.Advance(3)
	// The space after the box.
	if l, _ := block.PeekLine(); len(l) > 0 && l[0] == ' ' {
		block.Advance(1)
	}
	return &mdTask{checked: checked}
}

// startsListItem reports whether the inline about to be read is the very
// start of a list item: parent, still empty, is the item's first child.
func startsListItem(parent ast.Node) bool {
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return false
	}
	_, ok := item.(*ast.ListItem)
	return ok
}

// taskBox reads a task box, "[ ]" or "[x]" (or "[X]") followed by a
// space or the line's end, at the start of line.
func taskBox(line []byte) (checked, ok bool) {
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || (line[3] != ' ' && line[3] != '\n') {
		return false, false
	}
	switch line[1] {
	case ' ':
		return false, true
	case 'x', 'X':
		return true, true
	}
	return false, false
}

func (mdTaskParser) CloseBlock(parent ast.Node, pc parser.Context) {}

// mdStrikeParser reads ~~strikethrough~~ (and ~single~) as GFM does.
type mdStrikeParser struct{}

type mdStrikeDelim struct{}

func (mdStrikeDelim) IsDelimiter(b byte) bool { return b == '~' }
func (mdStrikeDelim) CanOpenCloser(o, c *parser.Delimiter) bool {
	return o.Char == c.Char
}
func (mdStrikeDelim) OnMatch(consumes int) ast.Node { return &mdStrike{} }

func (mdStrikeParser) Trigger() []byte { return []byte{'~'} }

func (mdStrikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, mdStrikeDelim{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (mdStrikeParser) CloseBlock(parent ast.Node, pc parser.Context) {}
