// Package tui is cairn's terminal UI: projects, a timeline of sessions, a
// session reader, search, the memory review inbox and summary drafts, over
// one store. The root model is small: it owns layout, focus, the status bar
// and background work; each pane owns its own state and keys.
package tui

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/theme"
	"github.com/cairn-dev/cairn/transcripts"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Config is what the TUI runs over.
type Config struct {
	Store    *index.Store
	Memories MemoryService // nil: the memory panes say why they are empty
	// Index runs cairn's indexing pipeline (app.App.Index) in the
	// background; nil: no background indexing.
	Index func(ctx context.Context, o app.IndexOptions) (app.IndexResult, error)

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

	// Folder is the folder the TUI started in, and Here its project by
	// the CLI's rule (the one recall and remember use): the TUI opens
	// scoped to Here when it has sessions, or to the scope last chosen in
	// Folder (scope.go). Both "": every project, nothing remembered.
	Folder, Here string
	// StateFile keeps the scope chosen per folder (default: tui-state.json
	// in the store's folder; "-": not kept).
	StateFile string
}

// pane is one screen of the TUI. Panes are built over the shared common
// and never see the root model: they ask for other panes with navigation
// messages (nav.go). Each declares itself once, in a paneSpec (panes.go).
type pane interface {
	// key handles a key press; handled=false lets the root apply its
	// global meaning (esc goes back, q quits, …).
	key(k tea.KeyPressMsg) (handled bool, cmd tea.Cmd)
	// view draws the pane in the body of the layout.
	view() string
	help() []key.Binding
	// typing reports that a text input has the keyboard: letters, digits
	// and q are text, not commands.
	typing() bool
	scroll(lines int)
}

// Model is the root of the TUI.
type Model struct {
	cfg   Config
	keys  KeyMap
	c     *common // shared with every pane
	focus int
	// parent is each pane's parent (noParent: a root), for esc (nav.go).
	parent []int
	// scopeSel is the project every pane is limited to (nil: all);
	// lastScope the last one chosen, for p to go back to.
	scopeSel, lastScope *transcripts.ProjectSummary
	// scopeDecided: the start scope is settled (scope.go); saved is the
	// state file's scope per folder.
	scopeDecided bool
	saved        map[string]string

	showHelp bool
	helpOff  int
	editor   *editor

	projects *projectsPane
	timeline *timelinePane
	reader   *readerPane
	search   *searchPane
	mems     *memoriesPane
	drafts   *draftsPane
	panes    []pane // paneRegistry's, built

	status *statusBar
	index  *indexProgress

	hub    *searchHub
	ctx    context.Context
	cancel context.CancelFunc
	// bg counts the background work that writes to the store (indexing,
	// OnIndexed): Close waits for it, so the store is closed (and a demo's
	// temporary folder removed) only once nothing writes to it any more.
	bg bgWork

	lastSync string
	memSig   string
	polls    int // poll ticks seen
	pending  int // memories awaiting review
	draftsN  int // drafts awaiting review

	firstFrame time.Time // when the first frame with content was drawn (bench)
}

// setDefaults fills in what cfg leaves zero: the clock and time zone, the
// poll and resync periods, the PATH lookup.
func (cfg *Config) setDefaults() {
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
}

// New builds the root model.
func New(cfg Config) *Model {
	cfg.setDefaults()
	m := &Model{cfg: cfg, keys: DefaultKeyMap(), parent: make([]int, numPanes)}
	for i := range m.parent {
		m.parent[i] = noParent
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.hub = newSearchHub(cfg.Store, 3*time.Second)
	m.c = &common{cfg: &m.cfg, hub: m.hub, keys: &m.keys, lay: newLayout(80, 24), ctx: m.ctx,
		scopeProject: m.scopeProject}
	m.index = &indexProgress{}
	m.status = newStatusBar(m.c, m.index)
	m.c.flash = m.status.setFlash
	m.c.indexing = func() bool { return m.index.shown != nil }
	dark := true
	if cfg.Dark != nil {
		dark = *cfg.Dark
	}
	m.setTheme(dark)
	for _, s := range paneRegistry {
		m.panes = append(m.panes, s.build(m.c))
	}
	m.projects = m.panes[paneProjects].(*projectsPane)
	m.timeline = m.panes[paneTimeline].(*timelinePane)
	m.reader = m.panes[paneReader].(*readerPane)
	m.search = m.panes[paneSearch].(*searchPane)
	m.mems = m.panes[paneMemories].(*memoriesPane)
	m.drafts = m.panes[paneDrafts].(*draftsPane)
	m.saved = readScopeState(m.stateFile()).Folders
	return m
}

func (m *Model) setTheme(dark bool) {
	m.c.dark = dark
	m.c.sty = theme.New(dark, m.cfg.NoColor).Styles()
	if m.reader != nil {
		m.reader.invalidate()
	}
}

// closeWait bounds how long Close waits for background work to stop
// after its context was cancelled: a full-text batch being written does
// not look at the context, and cairn must end within a second of a
// signal.
const closeWait = 300 * time.Millisecond

// Close stops background work, waits for it (at most closeWait) and
// releases the index. When the work is still running it returns at once:
// the process is ending, the full-text index recovers from an unfinished
// batch (and the documents stay queued), and closing it would wait for
// the batch.
func (m *Model) Close() {
	t0 := time.Now()
	m.cancel()
	if !m.bg.stop(closeWait) {
		trace("close: background work still running after %v: leaving it", closeWait)
		return
	}
	t1 := time.Now()
	m.hub.Close()
	t2 := time.Now()
	if m.cfg.Store != nil {
		m.projects.saveCache()
	}
	trace("close-ms bg %.1f hub %.1f cache %.1f", ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(time.Since(t2)))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Init starts loading and background indexing.
func (m *Model) Init() tea.Cmd {
	cmds := append([]tea.Cmd{m.projects.loadCached(), m.projects.load(), m.loadStats()}, m.reloadPanes()...)
	if m.cfg.Poll > 0 {
		cmds = append(cmds, m.pollTick())
	}
	if m.cfg.Dark == nil {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if !m.cfg.NoIndex && m.cfg.Index != nil {
		// Indexing waits for the first frame: it competes for the cores.
		cmds = append(cmds, tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return startIndexMsg{} }))
	}
	if m.cfg.Resync > 0 && !m.cfg.NoIndex && m.cfg.Index != nil {
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
		sync     syncStatus // the last cairn remote sync
	}
	pollMsg struct {
		lastSync string
		memSig   string     // memory and draft counts: another process changed them
		sync     syncStatus // the last cairn remote sync (statusbar.go)
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
	st, ctx := m.cfg.Store, m.ctx
	return func() tea.Msg {
		if ctx.Err() != nil {
			return nil
		}
		s, err := st.Stats(ctx)
		emb := ""
		if v, ok, _ := st.Setting(ctx, "embed.active"); ok {
			emb = string(v)
		}
		return statsMsg{stats: s, embedder: emb, err: err, sync: readSyncStatus(st.Dir())}
	}
}

func (m *Model) pollTick() tea.Cmd {
	st, ctx := m.cfg.Store, m.ctx
	svc := m.cfg.Memories
	return tea.Tick(m.cfg.Poll, func(time.Time) tea.Msg {
		if ctx.Err() != nil {
			return nil
		}
		v, _, _ := st.Setting(ctx, "last_sync")
		msg := pollMsg{lastSync: string(v), sync: readSyncStatus(st.Dir())}
		if svc != nil {
			if c, err := svc.Counts(ctx); err == nil {
				msg.memSig = fmt.Sprint(c.PendingMemories, c.PendingDrafts, c.ByStatus)
			}
		}
		return msg
	})
}

func (m *Model) startIndex(quiet bool) tea.Cmd {
	if m.index.busy || m.cfg.NoIndex || m.cfg.Index == nil {
		return nil
	}
	m.index.start(quiet)
	ch := make(chan indexMsg, 8)
	if !m.bg.add() {
		return nil
	}
	go func() {
		defer m.bg.done()
		runIndex(m.ctx, m.cfg.Index, m.hub, quiet, ch)
	}()
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

// Update handles a message: input, navigation, background work, then the
// panes' data.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.updateInput(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.updateNav(msg); ok {
		return m, cmd
	}
	if cmd, ok := m.updateBackground(msg); ok {
		return m, cmd
	}
	return m, m.routeData(msg)
}

// updateInput handles the terminal: size, colours, keys, paste, mouse.
func (m *Model) updateInput(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.lay = newLayout(msg.Width, msg.Height)
		if m.editor != nil {
			m.editor.resize()
		}
		return nil, true
	case tea.BackgroundColorMsg:
		if m.cfg.Dark == nil {
			m.setTheme(msg.IsDark())
		}
		return nil, true
	case tea.KeyPressMsg:
		return m.handleKey(msg), true
	case tea.PasteMsg:
		return m.paste(msg), true
	case tea.MouseWheelMsg:
		m.wheel(msg)
		return nil, true
	case tea.MouseClickMsg:
		return m.click(msg), true
	}
	return nil, false
}

func (m *Model) paste(msg tea.PasteMsg) tea.Cmd {
	if m.editor != nil {
		return m.editorUpdate(msg)
	}
	if p, ok := m.panes[m.focus].(paster); ok && m.panes[m.focus].typing() {
		return p.paste(msg)
	}
	return nil
}

func (m *Model) wheel(msg tea.MouseWheelMsg) {
	if m.showHelp || m.editor != nil {
		return
	}
	switch msg.Button {
	case tea.MouseWheelUp:
		m.panes[m.focus].scroll(-3)
	case tea.MouseWheelDown:
		m.panes[m.focus].scroll(3)
	}
}

// click switches tabs in the tab bar, and passes clicks in the body to
// the pane.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || m.editor != nil || m.showHelp {
		return nil
	}
	lay := m.c.lay
	if msg.Y < lay.tabs.y+lay.tabs.h {
		if i := m.tabAt(msg.X); i >= 0 {
			return m.focusPane(i)
		}
		return nil
	}
	if c, ok := m.panes[m.focus].(clicker); ok && msg.Y < lay.body.y+lay.body.h {
		return c.click(msg.Y)
	}
	return nil
}

// updateBackground handles stats, polling, indexing and messages for the
// status bar.
func (m *Model) updateBackground(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case statsMsg:
		m.status.setStats(msg)
		return nil, true
	case pollMsg:
		return m.polled(msg), true
	case startIndexMsg:
		return m.startIndex(false), true
	case resyncMsg:
		return tea.Batch(m.startIndex(true),
			tea.Tick(m.cfg.Resync, func(time.Time) tea.Msg { return resyncMsg{} })), true
	case indexMsg:
		return m.indexed(msg), true
	case resumedMsg:
		return m.resumed(msg), true
	case onIndexedMsg:
		m.c.flashf("%s", msg.text)
		return m.refreshAll(), true
	case flashMsg:
		m.c.flash(msg.text, msg.err)
		return nil, true
	}
	return nil, false
}

// resumed reports how claude ended and re-indexes the session it added to.
func (m *Model) resumed(msg resumedMsg) tea.Cmd {
	if msg.err != nil {
		m.c.flashError(fmt.Errorf("claude exited: %w (the command was: %s)", msg.err, msg.cmd))
	} else {
		m.c.flashf("back from claude; re-indexing the session")
	}
	return m.startIndex(true)
}

// statsEveryPolls is how often (in polls) a non-zero index lag is re-read.
const statsEveryPolls = 5

// polled reloads what another process changed: everything after a sync,
// the memories and drafts when their counts moved.
func (m *Model) polled(msg pollMsg) tea.Cmd {
	var cmds []tea.Cmd
	if m.cfg.Poll > 0 {
		cmds = append(cmds, m.pollTick())
	}
	if m.lastSync != "" && msg.lastSync != m.lastSync {
		cmds = append(cmds, m.refreshAll())
	} else if m.memSig != "" && msg.memSig != m.memSig {
		cmds = append(cmds, m.mems.load(), m.drafts.load())
	}
	m.lastSync, m.memSig = msg.lastSync, msg.memSig
	m.status.sync = msg.sync
	// A lag shown must go down by itself as the queues drain (here or in
	// another process): re-read the stats every few polls while it shows.
	m.polls++
	if m.status.lag() > 0 && m.polls%statsEveryPolls == 0 {
		cmds = append(cmds, m.loadStats())
	}
	m.status.expire()
	return tea.Batch(cmds...)
}

// refreshAll reloads what every pane shows (new entries arrived).
func (m *Model) refreshAll() tea.Cmd {
	m.hub.Reopen()
	cmds := append([]tea.Cmd{m.projects.load(), m.loadStats()}, m.reloadPanes()...)
	if m.timeline.project != nil || m.timeline.loaded {
		cmds = append(cmds, m.timeline.load())
	}
	if c := m.reader.refresh(); c != nil {
		cmds = append(cmds, c)
	}
	// The query shown searches the new entries too.
	cmds = append(cmds, m.search.rerun())
	return tea.Batch(cmds...)
}

// reloadPanes loads what each dataLoader pane shows.
func (m *Model) reloadPanes() []tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		if r, ok := p.(dataLoader); ok {
			cmds = append(cmds, r.loadData())
		}
	}
	return cmds
}

// routeData gives loaded data to the pane that asked for it: the root's
// own panes by message type, any other message to every receiver.
func (m *Model) routeData(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case projectsMsg:
		return tea.Batch(m.projects.loaded(msg), m.applyStartScope())
	case sessionsMsg:
		return m.timeline.loadedSessions(msg)
	case convMsg:
		return m.reader.loaded(msg)
	case fullInputsMsg:
		m.reader.fullLoaded(msg)
		return nil
	case editorDoneMsg:
		return m.editorDone(msg)
	}
	return m.routeLoaded(msg)
}

// routeLoaded gives what search, memories and drafts loaded to their
// pane (the counts of what awaits review to the root too), and any other
// message to every receiver.
func (m *Model) routeLoaded(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchDebounceMsg, searchResultMsg, previewMsg:
		return m.search.data(msg)
	case memoriesMsg:
		if msg.err == nil {
			m.pending, m.draftsN = msg.counts.PendingMemories, msg.counts.PendingDrafts
		}
		return m.mems.data(msg)
	case memActionMsg, sourceMsg, memStatsMsg:
		return m.mems.data(msg)
	case draftsMsg, draftActionMsg:
		return m.drafts.data(msg)
	}
	return m.broadcast(msg)
}

// broadcast gives msg to every pane that receives messages.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.panes {
		if r, ok := p.(receiver); ok {
			cmds = append(cmds, r.receive(msg))
		}
	}
	return tea.Batch(cmds...)
}

// bgWork counts running background work; once stopped it starts no more.
type bgWork struct {
	mu      sync.Mutex
	stopped bool
	wg      sync.WaitGroup
}

// add records that work starts; false once stopped (do not start it).
func (b *bgWork) add() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return false
	}
	b.wg.Add(1)
	return true
}

func (b *bgWork) done() { b.wg.Done() }

// stop starts no more work and waits at most d for what runs; false when
// some still runs.
func (b *bgWork) stop(d time.Duration) bool {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	finished := make(chan struct{})
	go func() {
		b.wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return true
	case <-time.After(d):
		return false
	}
}

func (m *Model) quit() tea.Cmd {
	m.cancel()
	return tea.Quit
}
