// Package tui is cairn's terminal UI: projects, a timeline of sessions, a
// session reader, search, the memory review inbox and summary drafts, over
// one store. The root model is small: it owns layout, focus, the status bar
// and background work; each pane owns its own state and keys.
package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/theme"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Config is what the TUI runs over.
type Config struct {
	Store     *index.Store
	Memories  MemoryService // nil: the memory panes say why they are empty
	ClaudeDir string        // transcripts to index in the background; "" = none

	Now      func() time.Time // clock (tests pin it)
	Location *time.Location   // time zone of displayed times
	NoColor  bool             // NO_COLOR: no colours at all
	Dark     *bool            // background; nil = ask the terminal

	NoIndex  bool          // do not index in the background (tests)
	Poll     time.Duration // how often to look for entries written by hooks (default 1s; <0 never)
	Resync   time.Duration // how often to re-read transcripts (default 20s; <0 never)
	LookPath func(string) (string, error)
	// ExportDir is where sessions are exported to (default: the current folder).
	ExportDir string
	// Banner is shown in the tab bar (e.g. "demo").
	Banner string
	// OnIndexed runs in the background after the first indexing; its
	// message is shown in the status bar (the demo extracts memories).
	OnIndexed func(ctx context.Context) (string, error)
}

// Pane indexes.
const (
	paneProjects = iota
	paneTimeline
	paneReader
	paneSearch
	paneMemories
	paneDrafts
	numPanes
)

var paneNames = [numPanes]string{"Projects", "Timeline", "Reader", "Search", "Memories", "Drafts"}

// pane is one screen of the TUI.
type pane interface {
	// key handles a key press; handled=false lets the root apply its
	// global meaning (esc goes back, q quits, …).
	key(m *Model, k tea.KeyPressMsg) (handled bool, cmd tea.Cmd)
	view(m *Model, w, h int) string
	help(k *KeyMap) []key.Binding
	// typing reports that a text input has the keyboard: letters, digits
	// and q are text, not commands.
	typing() bool
	scroll(m *Model, lines int)
}

// Model is the root of the TUI.
type Model struct {
	cfg   Config
	keys  KeyMap
	sty   theme.Styles
	dark  bool
	w, h  int
	focus int
	back  []int

	showHelp bool
	helpOff  int
	editor   *editor

	projects *projectsPane
	timeline *timelinePane
	reader   *readerPane
	search   *searchPane
	mems     *memoriesPane
	drafts   *draftsPane
	panes    [numPanes]pane

	hub    *searchHub
	ctx    context.Context
	cancel context.CancelFunc

	// status bar
	stats      index.StoreStats
	statsOK    bool
	embedder   string
	lastSync   string
	memSig     string
	lastReload time.Time // projects re-read while a first index runs
	indexing   *indexMsg
	indexStart time.Time
	indexBusy  bool
	pending    int // memories awaiting review
	draftsN    int // drafts awaiting review

	flash      string
	flashErr   bool
	flashUntil time.Time

	firstFrame time.Time // when the first frame with content was drawn (bench)
}

// New builds the root model.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.Poll == 0 {
		cfg.Poll = time.Second
	}
	if cfg.Resync == 0 {
		cfg.Resync = 20 * time.Second
	}
	if cfg.LookPath == nil {
		cfg.LookPath = exec.LookPath
	}
	m := &Model{cfg: cfg, keys: DefaultKeyMap(), w: 80, h: 24}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	dark := true
	if cfg.Dark != nil {
		dark = *cfg.Dark
	}
	m.setTheme(dark)
	m.hub = newSearchHub(cfg.Store, 3*time.Second)
	m.projects = newProjectsPane()
	m.timeline = newTimelinePane()
	m.reader = newReaderPane()
	m.search = newSearchPane(m)
	m.mems = newMemoriesPane()
	m.drafts = newDraftsPane()
	m.panes = [numPanes]pane{m.projects, m.timeline, m.reader, m.search, m.mems, m.drafts}
	return m
}

func (m *Model) setTheme(dark bool) {
	m.dark = dark
	m.sty = theme.New(dark, m.cfg.NoColor).Styles()
	if m.reader != nil {
		m.reader.invalidate()
	}
}

// Close stops background work and releases the index.
func (m *Model) Close() {
	m.cancel()
	m.hub.Close()
	if m.cfg.Store != nil {
		m.saveProjectsCache()
	}
}

// Init starts loading and background indexing.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadCachedProjects(), m.loadProjects(), m.loadStats(), m.loadMemories(), m.loadDrafts()}
	if m.cfg.Poll > 0 {
		cmds = append(cmds, m.pollTick())
	}
	if m.cfg.Dark == nil {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if !m.cfg.NoIndex && m.cfg.ClaudeDir != "" {
		// Indexing waits for the first frame: it competes for the cores.
		cmds = append(cmds, tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return startIndexMsg{} }))
	}
	if m.cfg.Resync > 0 && !m.cfg.NoIndex && m.cfg.ClaudeDir != "" {
		cmds = append(cmds, tea.Tick(m.cfg.Resync, func(time.Time) tea.Msg { return resyncMsg{} }))
	}
	return tea.Batch(cmds...)
}

// Messages of the root.
type (
	statsMsg struct {
		stats    index.StoreStats
		embedder string
		err      error
	}
	pollMsg struct {
		lastSync string
		memSig   string // memory and draft counts: another process changed them
	}
	resyncMsg  struct{}
	resumedMsg struct {
		cmd string
		err error
	}
	flashMsg struct {
		text string
		err  bool
	}
	onIndexedMsg  struct{ text string }
	startIndexMsg struct{}
)

func (m *Model) loadStats() tea.Cmd {
	st := m.cfg.Store
	return func() tea.Msg {
		s, err := st.Stats()
		emb := ""
		if v, ok, _ := st.Setting("embed.active"); ok {
			emb = string(v)
		}
		return statsMsg{stats: s, embedder: emb, err: err}
	}
}

func (m *Model) pollTick() tea.Cmd {
	st := m.cfg.Store
	svc := m.cfg.Memories
	return tea.Tick(m.cfg.Poll, func(time.Time) tea.Msg {
		v, _, _ := st.Setting("last_sync")
		msg := pollMsg{lastSync: string(v)}
		if svc != nil {
			if c, err := svc.Counts(context.Background()); err == nil {
				msg.memSig = fmt.Sprint(c.PendingMemories, c.PendingDrafts, c.ByStatus)
			}
		}
		return msg
	})
}

func (m *Model) startIndex(quiet bool) tea.Cmd {
	if m.indexBusy || m.cfg.NoIndex || m.cfg.ClaudeDir == "" {
		return nil
	}
	m.indexBusy = true
	if !quiet {
		m.indexStart = time.Now()
		m.indexing = &indexMsg{stage: "reading transcripts"}
	}
	ch := make(chan indexMsg, 8)
	go runIndex(m.ctx, m.cfg.Store, m.hub, m.cfg.ClaudeDir, quiet, true, ch)
	return waitIndex(ch)
}

func waitIndex(ch chan indexMsg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		msg.ch = ch
		return msg
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 6)
		if m.editor != nil {
			m.editor.resize(m)
		}
		return m, nil
	case tea.BackgroundColorMsg:
		if m.cfg.Dark == nil {
			m.setTheme(msg.IsDark())
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.PasteMsg:
		if m.editor != nil {
			return m, m.editor.update(m, msg)
		}
		if p := m.panes[m.focus]; p.typing() {
			if tp, ok := p.(interface {
				paste(*Model, tea.PasteMsg) tea.Cmd
			}); ok {
				return m, tp.paste(m, msg)
			}
		}
		return m, nil
	case tea.MouseWheelMsg:
		if m.showHelp || m.editor != nil {
			return m, nil
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			m.panes[m.focus].scroll(m, -3)
		case tea.MouseWheelDown:
			m.panes[m.focus].scroll(m, 3)
		}
		return m, nil
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft || m.editor != nil || m.showHelp {
			return m, nil
		}
		if msg.Y == 0 {
			if i := m.tabAt(msg.X); i >= 0 {
				return m, m.focusPane(i, true)
			}
			return m, nil
		}
		if c, ok := m.panes[m.focus].(interface {
			click(m *Model, y int) tea.Cmd
		}); ok && msg.Y < m.h-2 {
			return m, c.click(m, msg.Y)
		}
		return m, nil
	case statsMsg:
		if msg.err == nil {
			m.stats, m.statsOK = msg.stats, true
			if msg.embedder != "" {
				m.embedder = msg.embedder
			}
		} else {
			m.flashError(msg.err)
		}
		return m, nil
	case pollMsg:
		cmds := []tea.Cmd{m.pollTick()}
		if m.cfg.Poll < 0 {
			cmds = nil
		}
		if m.lastSync != "" && msg.lastSync != m.lastSync {
			cmds = append(cmds, m.refreshAll())
		} else if m.memSig != "" && msg.memSig != m.memSig {
			cmds = append(cmds, m.loadMemories(), m.loadDrafts())
		}
		m.lastSync, m.memSig = msg.lastSync, msg.memSig
		if m.flash != "" && m.cfg.Now().After(m.flashUntil) {
			m.flash = ""
		}
		return m, tea.Batch(cmds...)
	case startIndexMsg:
		return m, m.startIndex(false)
	case resyncMsg:
		return m, tea.Batch(m.startIndex(true),
			tea.Tick(m.cfg.Resync, func(time.Time) tea.Msg { return resyncMsg{} }))
	case indexMsg:
		var cmd tea.Cmd
		if msg.finished {
			m.indexBusy = false
			if !msg.quiet {
				m.indexing = nil
				if msg.err != nil {
					m.flashError(fmt.Errorf("indexing stopped: %w (the store still has what was indexed before; press ctrl+r to try again)", msg.err))
				} else if n := msg.stats.EntriesAdded; n > 0 {
					m.flashf("indexed %d new entries in %s", n, time.Since(m.indexStart).Round(100*time.Millisecond))
				}
			}
			if msg.err == nil && (msg.stats.EntriesAdded > 0 || msg.stats.Sessions > 0 || !msg.quiet) {
				cmd = m.refreshAll()
			}
			if f := m.cfg.OnIndexed; f != nil && !msg.quiet {
				m.cfg.OnIndexed = nil
				ctx := m.ctx
				cmd = tea.Batch(cmd, func() tea.Msg {
					text, err := f(ctx)
					if err != nil {
						return flashMsg{text: err.Error(), err: true}
					}
					return onIndexedMsg{text: text}
				})
			}
			return m, cmd
		}
		if !msg.quiet {
			cp := msg
			m.indexing = &cp
			// Projects appear while a long first index runs.
			if time.Since(m.lastReload) > 2*time.Second && msg.stage == "reading transcripts" {
				m.lastReload = time.Now()
				return m, tea.Batch(waitIndex(msg.ch), m.loadProjects())
			}
		}
		return m, waitIndex(msg.ch)
	case resumedMsg:
		if msg.err != nil {
			m.flashError(fmt.Errorf("claude exited: %v (the command was: %s)", msg.err, msg.cmd))
		} else {
			m.flashf("back from claude; re-indexing the session")
		}
		return m, m.startIndex(true)
	case onIndexedMsg:
		m.flashf("%s", msg.text)
		return m, m.refreshAll()
	case flashMsg:
		if msg.err {
			m.flashError(fmt.Errorf("%s", msg.text))
		} else {
			m.flashf("%s", msg.text)
		}
		return m, nil
	}
	// Pane data.
	return m, m.routeData(msg)
}

// refreshAll reloads what every pane shows (new entries arrived).
func (m *Model) refreshAll() tea.Cmd {
	m.hub.Reopen()
	cmds := []tea.Cmd{m.loadProjects(), m.loadStats(), m.loadMemories(), m.loadDrafts()}
	if m.timeline.project != nil || m.timeline.loaded {
		cmds = append(cmds, m.loadSessions())
	}
	if c := m.reader.refresh(m); c != nil {
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

func (m *Model) routeData(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case projectsMsg:
		return m.projects.loaded(m, msg)
	case sessionsMsg:
		return m.timeline.loadedSessions(m, msg)
	case convMsg:
		return m.reader.loaded(m, msg)
	case searchDebounceMsg, searchResultMsg:
		return m.search.data(m, msg)
	case memoriesMsg, memActionMsg, sourceMsg:
		return m.mems.data(m, msg)
	case draftsMsg, draftActionMsg:
		return m.drafts.data(m, msg)
	case editorDoneMsg:
		return m.editorDone(msg)
	}
	return nil
}

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if key.Matches(k, m.keys.ForceQuit) {
		return m.quit()
	}
	if m.editor != nil {
		return m.editor.update(m, k)
	}
	if m.showHelp {
		switch {
		case key.Matches(k, m.keys.Help, m.keys.Back, m.keys.Quit):
			m.showHelp = false
			return nil
		case key.Matches(k, m.keys.Down):
			m.helpOff++
			return nil
		case key.Matches(k, m.keys.Up):
			m.helpOff--
			return nil
		}
		m.showHelp = false // any other key closes the help and acts
	}
	p := m.panes[m.focus]
	if p.typing() {
		// Only keys that cannot be text act globally.
		switch {
		case key.Matches(k, m.keys.NextPane):
			return m.focusPane((m.focus+1)%numPanes, false)
		case key.Matches(k, m.keys.PrevPane):
			return m.focusPane((m.focus+numPanes-1)%numPanes, false)
		}
		handled, cmd := p.key(m, k)
		if !handled && key.Matches(k, m.keys.Back) {
			return m.goBack()
		}
		return cmd
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
		return nil
	case key.Matches(k, m.keys.Search):
		return m.focusPane(paneSearch, true)
	case key.Matches(k, m.keys.NextPane):
		return m.focusPane((m.focus+1)%numPanes, true)
	case key.Matches(k, m.keys.PrevPane):
		return m.focusPane((m.focus+numPanes-1)%numPanes, true)
	case key.Matches(k, m.keys.Refresh):
		if m.cfg.ClaudeDir == "" {
			return m.refreshAll()
		}
		return tea.Batch(m.startIndex(false), m.refreshAll())
	}
	for i, b := range m.keys.Panes {
		if key.Matches(k, b) {
			return m.focusPane(i, true)
		}
	}
	handled, cmd := p.key(m, k)
	if !handled && key.Matches(k, m.keys.Back) {
		return m.goBack()
	}
	return cmd
}

func (m *Model) quit() tea.Cmd {
	m.cancel()
	return tea.Quit
}

// focusPane shows pane i; push records where we came from for esc.
func (m *Model) focusPane(i int, push bool) tea.Cmd {
	if i == m.focus {
		if i == paneSearch {
			return m.search.focusInput()
		}
		return nil
	}
	if push {
		m.back = append(m.back, m.focus)
		if len(m.back) > 50 {
			m.back = m.back[1:]
		}
	}
	m.focus = i
	switch i {
	case paneSearch:
		return m.search.focusInput()
	case paneTimeline:
		if !m.timeline.loaded {
			return m.loadSessions()
		}
	}
	return nil
}

func (m *Model) goBack() tea.Cmd {
	if n := len(m.back); n > 0 {
		prev := m.back[n-1]
		m.back = m.back[:n-1]
		m.focus = prev
		if prev == paneSearch {
			return nil
		}
		return nil
	}
	if m.focus != paneProjects {
		m.focus = paneProjects
	}
	return nil
}

// openSession opens a session in the reader at an entry (uuid may be "").
func (m *Model) openSession(id, uuid string) tea.Cmd {
	if m.focus != paneReader {
		m.back = append(m.back, m.focus)
	}
	m.focus = paneReader
	return m.reader.open(m, id, uuid)
}

// resume runs `claude --resume ID` in the session's project folder and
// comes back; without claude on PATH it shows the command instead.
func (m *Model) resume(s *transcripts.Session) tea.Cmd {
	if s == nil {
		return nil
	}
	dir := s.ProjectPath
	line := fmt.Sprintf("cd %s && claude --resume %s", shellQuote(dir), s.ID)
	path, err := m.cfg.LookPath("claude")
	if err != nil {
		m.flashf("claude is not on PATH; to resume, run: %s", line)
		return tea.SetClipboard(line)
	}
	c := exec.Command(path, "--resume", s.ID)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		c.Dir = dir
	}
	return tea.ExecProcess(c, func(err error) tea.Msg { return resumedMsg{cmd: line, err: err} })
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (m *Model) flashf(format string, a ...any) {
	m.flash = fmt.Sprintf(format, a...)
	m.flashErr = false
	m.flashUntil = m.cfg.Now().Add(6 * time.Second)
}

func (m *Model) flashError(err error) {
	m.flash = sanitizeLine(err.Error())
	m.flashErr = true
	m.flashUntil = m.cfg.Now().Add(12 * time.Second)
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "cairn"
	if m.firstFrame.IsZero() && m.projects.ready {
		m.firstFrame = time.Now()
		trace("first-frame-ms %.1f projects %d", float64(m.firstFrame.Sub(processStart).Microseconds())/1000, len(m.projects.all))
	}
	return v
}

// render is the whole screen as a string, exactly w×h cells.
func (m *Model) render() string {
	w, h := m.w, m.h
	bodyH := h - 3
	var body string
	switch {
	case m.editor != nil:
		body = m.editor.view(m, w, bodyH)
	case m.showHelp:
		body = m.helpView(w, bodyH)
	default:
		body = m.panes[m.focus].view(m, w, bodyH)
	}
	body = fitLines(strings.Split(body, "\n"), w, bodyH)
	return strings.Join([]string{m.tabBar(w), body, m.helpLine(w), m.statusBar(w)}, "\n")
}

var shortPaneNames = [numPanes]string{"Proj", "Time", "Read", "Find", "Mem", "Drafts"}

// tabLabels are the tab titles, shortened when they do not fit.
func (m *Model) tabLabels() []string {
	out := m.labels(paneNames)
	total := lipgloss.Width(m.brand())
	for _, l := range out {
		total += lipgloss.Width(l) + 2
	}
	if total > m.w {
		out = m.labels(shortPaneNames)
	}
	return out
}

func (m *Model) labels(names [numPanes]string) []string {
	out := make([]string, numPanes)
	for i, n := range names {
		l := fmt.Sprintf("%d %s", i+1, n)
		switch {
		case i == paneMemories && m.pending > 0:
			l += fmt.Sprintf(" %d", m.pending)
		case i == paneDrafts && m.draftsN > 0:
			l += fmt.Sprintf(" %d", m.draftsN)
		}
		out[i] = l
	}
	return out
}

func (m *Model) brand() string {
	if m.cfg.Banner != "" {
		return " cairn " + m.cfg.Banner + " "
	}
	return " cairn "
}

func (m *Model) tabBar(w int) string {
	var b strings.Builder
	brand := m.brand()
	b.WriteString(m.sty.Title.Render(brand))
	for i, l := range m.tabLabels() {
		if i == m.focus {
			b.WriteString(m.sty.TabActive.Render("[" + l + "]"))
		} else {
			b.WriteString(m.sty.Tab.Render(" " + l + " "))
		}
	}
	return pad(b.String(), w)
}

// tabAt maps a column of the tab bar to a pane (-1: none).
func (m *Model) tabAt(x int) int {
	pos := lipgloss.Width(m.brand())
	for i, l := range m.tabLabels() {
		wl := lipgloss.Width(l) + 2
		if x >= pos && x < pos+wl {
			return i
		}
		pos += wl
	}
	return -1
}

func (m *Model) helpLine(w int) string {
	var bs []key.Binding
	switch {
	case m.editor != nil:
		bs = []key.Binding{m.keys.Save, m.keys.Cancel}
	case m.showHelp:
		bs = []key.Binding{m.keys.Help, m.keys.Back}
	default:
		bs = m.panes[m.focus].help(&m.keys)
		if m.panes[m.focus].typing() {
			bs = append(bs, m.keys.Back, m.keys.NextPane)
		} else {
			bs = append(bs, m.keys.Search, m.keys.Help, m.keys.Quit)
		}
	}
	var parts []string
	used := 0
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		hp := b.Help()
		item := m.sty.HelpKey.Render(hp.Key) + " " + m.sty.HelpDesc.Render(hp.Desc)
		iw := lipgloss.Width(hp.Key) + 1 + lipgloss.Width(hp.Desc)
		if used+iw+3 > w-1 {
			break
		}
		parts = append(parts, item)
		used += iw + 3
	}
	return pad(" "+strings.Join(parts, m.sty.Subtle.Render(" · ")), w)
}

func (m *Model) statusBar(w int) string {
	var left []string
	if ix := m.indexing; ix != nil {
		left = append(left, m.sty.Warn.Render("● "+indexLine(ix)))
	} else if m.statsOK {
		left = append(left, fmt.Sprintf("store %s", fmtBytes(m.stats.DBBytes)),
			fmt.Sprintf("%s sessions", fmtCount(int64(m.stats.Sessions))))
	} else {
		left = append(left, "store …")
	}
	if m.statsOK {
		lag := m.stats.FTSQueue + m.stats.EmbedQueue
		if lag == 0 {
			left = append(left, "lag 0")
		} else {
			left = append(left, m.sty.Warn.Render(fmt.Sprintf("lag %s docs", fmtCount(int64(lag)))))
		}
	}
	emb := m.embedder
	if emb == "" {
		emb = "text only"
	}
	left = append(left, "embedder "+shortEmbedder(emb))
	status := " " + strings.Join(left, m.sty.Subtle.Render(" │ "))
	if m.flash != "" {
		st := m.sty.OK
		if m.flashErr {
			st = m.sty.Error
		}
		room := w - lipgloss.Width(status) - 3
		if room < 30 {
			// The message matters more than the counters.
			return pad(" "+st.Render(trunc(m.flash, w-2)), w)
		}
		return pad(status+m.sty.Subtle.Render(" │ ")+st.Render(trunc(m.flash, room)), w)
	}
	return m.sty.StatusBar.Render(pad(status, w))
}

func shortEmbedder(s string) string {
	// cairn-lsa:v1:256:abcdef… → cairn-lsa 256d
	parts := strings.Split(s, ":")
	if len(parts) >= 3 && parts[0] == "cairn-lsa" {
		return "built-in LSA " + parts[2] + "d"
	}
	return trunc(s, 28)
}

func indexLine(ix *indexMsg) string {
	switch ix.stage {
	case "reading transcripts":
		if ix.p.BytesTotal > 0 {
			pct := int(100 * ix.p.BytesDone / max(ix.p.BytesTotal, 1))
			return fmt.Sprintf("indexing %d%% (%d/%d files, %s entries)", pct, ix.p.FilesDone, ix.p.FilesTotal, fmtCount(int64(ix.p.Entries)))
		}
		return "indexing: looking for transcripts…"
	case "full-text":
		return fmt.Sprintf("full-text index: %s docs", fmtCount(int64(ix.done)))
	case "embeddings":
		return fmt.Sprintf("embedding: %s docs", fmtCount(int64(ix.done)))
	}
	return "indexing…"
}

func (m *Model) helpView(w, h int) string {
	groups := m.keys.FullHelp()
	keyW := 12
	colW := max(24, min(40, w/3))
	cols := max(1, w/colW)
	avail := max(3, h-1)
	// Pack groups into columns top to bottom, left to right.
	var columns [][]string
	var cur []string
	for _, g := range groups {
		lines := []string{m.sty.Title.Render(g.Title)}
		keyW = 0
		for _, b := range g.Keys {
			keyW = max(keyW, lipgloss.Width(b.Help().Key))
		}
		for _, b := range g.Keys {
			hp := b.Help()
			lines = append(lines, trunc(m.sty.HelpKey.Render(padLeft(hp.Key, keyW))+" "+m.sty.HelpDesc.Render(hp.Desc), colW-1))
		}
		if len(cur) > 0 && len(cur)+1+len(lines) > avail {
			columns = append(columns, cur)
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, "")
		}
		cur = append(cur, lines...)
	}
	columns = append(columns, cur)
	// Bands of as many columns as fit side by side.
	var out []string
	for i := 0; i < len(columns); i += cols {
		band := columns[i:min(len(columns), i+cols)]
		height := 0
		for _, c := range band {
			height = max(height, len(c))
		}
		for r := 0; r < height; r++ {
			var row strings.Builder
			for _, c := range band {
				cell := ""
				if r < len(c) {
					cell = c[r]
				}
				row.WriteString(pad(cell, colW))
			}
			out = append(out, row.String())
		}
	}
	hint := " All keys — ? or esc closes"
	if len(out) > avail {
		m.helpOff = min(max(0, m.helpOff), len(out)-avail)
		out = out[m.helpOff : m.helpOff+avail]
		hint += " · j/k scroll"
	}
	return strings.Join(append([]string{m.sty.Muted.Render(hint)}, out...), "\n")
}

// exportPath is where a session export is written.
func (m *Model) exportPath(id string) string {
	dir := m.cfg.ExportDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	return filepath.Join(dir, "cairn-session-"+short+".md")
}

// workers is how many goroutines parse transcripts in the background.
func workers() int { return max(1, runtime.NumCPU()-1) }
