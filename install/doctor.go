package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/ftsapi"
	"github.com/cairn-dev/cairn/internal/hookspec"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/ollama"
	"github.com/cairn-dev/cairn/plugin"
	"github.com/cairn-dev/cairn/redact"
)

// Check statuses.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
	Info = "info"
)

// Check is one line of `cairn doctor`.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail, info
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is what `cairn doctor` found.
type Report struct {
	Binary  string   `json:"binary"`
	Version string   `json:"version"`
	DataDir string   `json:"data_dir"`
	Claude  string   `json:"claude_dir"`
	Checks  []Check  `json:"checks"`
	HookLog []string `json:"hook_log_errors"`
}

// Healthy reports whether nothing failed.
func (r *Report) Healthy() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return false
		}
	}
	return true
}

// DoctorOptions are the inputs of Doctor.
type DoctorOptions struct {
	User    Options // user scope (ClaudeDir, ClaudeJSON, Exe)
	Project Options // project scope (ProjectDir); skipped when ProjectDir is ""
	DataDir string
	Version string
	Config  config.Config
	// ConfigErr is the error loading config.toml, if any.
	ConfigErr error
	// Pending counts memories and drafts awaiting review (nil: skipped).
	Pending func(ctx context.Context, st *index.Store) (memories, drafts int, err error)
	// Full runs SQLite's integrity_check (every row against every index)
	// instead of quick_check.
	Full bool
	// OllamaTimeout bounds the reachability probe (0: 500 ms).
	OllamaTimeout time.Duration
	Now           func() time.Time
}

// Doctor checks cairn's installation and store. It never changes anything.
func Doctor(ctx context.Context, o DoctorOptions) *Report {
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Report{Binary: o.User.Exe, Version: o.Version, DataDir: o.DataDir, Claude: o.User.ClaudeDir, HookLog: []string{}}
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	viaPlugin := pluginEnabled(&o)
	checkBinaries(&o, viaPlugin, add)
	if o.ConfigErr != nil {
		add(Check{Name: "config", Status: Fail, Detail: o.ConfigErr.Error(), Fix: "fix the file (cairn config prints every setting)"})
	}
	checkInstalls(&o, viaPlugin, add)
	checkStoreFile(ctx, &o, add)
	add(checkOllama(ctx, o.Config, o.OllamaTimeout))
	r.HookLog = hookErrors(o.DataDir, 5)
	add(checkHookLog(&o, r.HookLog))
	return r
}

// checkBinaries reports the cairn binary and whether cairn-hook is beside
// it.
func checkBinaries(o *DoctorOptions, viaPlugin bool, add func(Check)) {
	add(Check{Name: "binary", Status: OK, Detail: fmt.Sprintf("%s (%s)", o.User.Exe, o.Version)})
	if hp := filepath.Join(filepath.Dir(o.User.Exe), HookProgram); fileExists(hp) {
		add(Check{Name: "hook binary", Status: OK, Detail: hp})
	} else {
		fix := "go install ./... (installs cairn-hook), then cairn install"
		if viaPlugin {
			fix = "go install ./... (installs cairn-hook onto PATH, where the plugin's hooks look first)"
		}
		add(Check{Name: "hook binary", Status: Info, Detail: "cairn-hook is not installed beside cairn: hooks run `cairn hook` (slower start)", Fix: fix})
	}
}

// pluginEnabled reports whether the cairn plugin is installed and enabled:
// it brings the hooks, the MCP server and the commands, and `cairn
// install` refuses beside it, so doctor never advises running it then.
func pluginEnabled(o *DoctorOptions) bool {
	if pluginInstalled(o.User.ClaudeDir) == "" {
		return false
	}
	file, _ := plugin.Enabled(plugin.SettingsFiles(o.User.ClaudeDir, o.Project.ProjectDir)...)
	return file != ""
}

// checkInstalls checks the hooks, MCP server and commands in every place
// Claude Code reads them, and the plugin, and warns when no hooks are
// installed anywhere.
func checkInstalls(o *DoctorOptions, viaPlugin bool, add func(Check)) {
	scoped := add
	if viaPlugin {
		// The plugin's MCP server and commands are there: a scope without
		// cairn install's is as it should be.
		scoped = func(c Check) {
			if c.Status != Info || c.Fix != "cairn install" {
				add(c)
			}
		}
	}
	hooksFound := checkScope(&o.User, "user", scoped)
	if o.Project.ProjectDir != "" {
		hooksFound = checkScope(&o.Project, "project", scoped) || hooksFound
	}
	installed := hooksFound
	if p := pluginInstalled(o.User.ClaudeDir); p != "" {
		hooksFound = true
		add(checkPlugin(o, p, installed))
	}
	if !hooksFound {
		add(Check{Name: "hooks", Status: Warn, Detail: "cairn's hooks are not installed anywhere: Claude Code gets no memories",
			Fix: "cairn install (or /plugin install cairn@cairn inside Claude Code)"})
	}
}

// checkPlugin reports the installed plugin: enabled or not, installed a
// second time by cairn install, or unable to find the binaries it runs.
func checkPlugin(o *DoctorOptions, key string, installed bool) Check {
	file, enabledKey := plugin.Enabled(plugin.SettingsFiles(o.User.ClaudeDir, o.Project.ProjectDir)...)
	if file == "" {
		return Check{Name: "plugin", Status: Info, Detail: "cairn plugin installed (" + key + ") but not enabled"}
	}
	var mcp []string
	if p, err := o.User.Paths(); err == nil {
		mcp = plugin.InstalledMCP(o.Project.ProjectDir, p.MCP)
	}
	if o.Project.ProjectDir != "" {
		mcp = append(mcp, plugin.InstalledMCP("", filepath.Join(o.Project.ProjectDir, ".mcp.json"))...)
	}
	if installed || len(mcp) > 0 {
		return Check{Name: "plugin", Status: Warn,
			Detail: fmt.Sprintf("cairn is installed twice: the plugin %s (enabled in %s) and cairn install: every hook would run twice and every tool be offered twice; the plugin's hooks and MCP server stand down meanwhile", enabledKey, file),
			Fix:    "keep one: cairn uninstall (keep the plugin), or claude plugin disable " + enabledKey + " (keep the install)"}
	}
	_, e1 := exec.LookPath(HookProgram)
	_, e2 := exec.LookPath("cairn")
	if e1 != nil && e2 != nil {
		return Check{Name: "plugin", Status: Warn,
			Detail: "the cairn plugin (" + enabledKey + ") runs cairn-hook and cairn from PATH, which finds neither: its hooks do nothing (they exit 0) and its MCP server cannot start",
			Fix:    "install the binaries onto PATH: go install ./... (puts cairn and cairn-hook in $(go env GOPATH)/bin)"}
	}
	return Check{Name: "plugin", Status: OK, Detail: "cairn plugin installed and enabled (" + enabledKey + ")"}
}

// checkScope checks the hooks, MCP server and commands of one scope
// ("user" or "project") and reports whether it found cairn's hooks.
func checkScope(o *Options, scope string, add func(Check)) (hooksFound bool) {
	p, err := o.Paths()
	if err != nil {
		return false
	}
	files := []string{p.Settings}
	if scope == "project" {
		files = append(files, filepath.Join(o.ProjectDir, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		c, found := checkHooks(o, f)
		if c != nil {
			add(*c)
		}
		hooksFound = hooksFound || found
	}
	if c := checkMCP(o, p.MCP, scope); c != nil {
		add(*c)
	}
	if c := checkCommands(o, p.Commands, scope); c != nil {
		add(*c)
	}
	return hooksFound
}

// checkStoreFile opens the store read-only, when there is one, and checks
// it.
func checkStoreFile(ctx context.Context, o *DoctorOptions, add func(Check)) {
	if err := index.CheckWritable(o.DataDir); err != nil {
		add(Check{Name: "data dir", Status: Fail, Detail: err.Error(), Fix: "cairn --data DIR …, or export CAIRN_HOME=DIR, with a folder you can write"})
	}
	st, err := index.OpenWith(o.DataDir, index.OpenOptions{ReadOnly: true, BusyTimeout: time.Second})
	switch {
	case err != nil && len(index.AsideStores(o.DataDir)) > 0 && !fileExists(filepath.Join(o.DataDir, index.DBName)):
		// A restore kept the store aside and none is in its place.
		add(Check{Name: "store", Status: Fail, Detail: err.Error(), Fix: "put the store kept aside back, as the detail says"})
	case !fileExists(filepath.Join(o.DataDir, index.DBName)):
		add(Check{Name: "store", Status: Warn, Detail: "no store yet in " + o.DataDir, Fix: "cairn index (the hooks also fill it as you use Claude Code)"})
	case err != nil:
		add(Check{Name: "store", Status: Fail, Detail: err.Error(), Fix: "cairn index"})
	default:
		defer st.Close()
		checkStore(ctx, o, st, add)
	}
}

// checkHookLog reports the recent problems in the hook log, a warning when
// the latest is less than a day old.
func checkHookLog(o *DoctorOptions, lines []string) Check {
	if len(lines) == 0 {
		return Check{Name: "hook log", Status: OK, Detail: "no hook problems logged"}
	}
	st := Info
	if t, err := time.Parse(time.RFC3339, strings.SplitN(lines[len(lines)-1], " ", 2)[0]); err == nil && o.Now().Sub(t) < 24*time.Hour {
		st = Warn
	}
	return Check{Name: "hook log", Status: st, Detail: fmt.Sprintf("%d recent problem(s) in %s (latest below)", len(lines), filepath.Join(o.DataDir, hookspec.LogName))}
}

func checkHooks(o *Options, path string) (*Check, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	root, err := ParseObject(b)
	if err != nil {
		return &Check{Name: "hooks", Status: Fail, Detail: fmt.Sprintf("%s is not valid JSON: %v", path, err), Fix: "fix the file; Claude Code ignores it too"}, false
	}
	have, progs := o.ourHooks(root)
	if len(have) == 0 {
		return nil, false
	}
	c := &Check{Name: "hooks", Status: OK, Detail: fmt.Sprintf("%d/%d events in %s", len(have), len(hookspec.Events), path)}
	if len(have) < len(hookspec.Events) {
		c.Status, c.Fix = Warn, "cairn install (adds the missing events)"
	}
	if p := missingProgram(progs); p != "" {
		c.Status, c.Detail, c.Fix = Fail, fmt.Sprintf("the hooks in %s run %s, which does not exist", path, p), "cairn install (points them at this binary)"
	}
	if v, ok := root.Get("disableAllHooks"); ok && v == true {
		c.Status, c.Detail = Warn, c.Detail+" — but disableAllHooks is true there"
	}
	return c, true
}

// missingProgram is the first of progs given by an absolute path that
// does not exist ("" when none): a hook that can only fail.
func missingProgram(progs []string) string {
	for _, p := range progs {
		if filepath.IsAbs(p) && !fileExists(p) {
			return p
		}
	}
	return ""
}

// ourHooks lists, for each of cairn's hooks in a settings file, its event
// and the program it runs.
func (o *Options) ourHooks(root *Object) (events, progs []string) {
	hv, _ := root.Get("hooks")
	hooks, ok := hv.(*Object)
	if !ok {
		return nil, nil
	}
	for _, ev := range hookspec.Events {
		list, _ := mustList(hooks, ev)
		for _, g := range list {
			group, ok := g.(*Object)
			if !ok {
				continue
			}
			hl, _ := mustList(group, "hooks")
			for _, h := range hl {
				if o.isOurs(h) {
					events = append(events, ev)
					cmd, _ := commandOf(h)
					prog, _ := plugin.FirstWord(strings.TrimSpace(cmd))
					progs = append(progs, prog)
				}
			}
		}
	}
	return events, progs
}

func checkMCP(o *Options, path, scope string) *Check {
	b, err := os.ReadFile(path)
	if err != nil {
		if scope == "user" {
			return &Check{Name: "mcp", Status: Info, Detail: "MCP server not registered for the user (" + path + " absent)", Fix: "cairn install"}
		}
		return nil
	}
	root, err := ParseObject(b)
	if err != nil {
		return &Check{Name: "mcp", Status: Fail, Detail: fmt.Sprintf("%s is not valid JSON: %v", path, err)}
	}
	if e, ok := o.ourMCPEntry(root); ok {
		cmd, _ := commandOf(e)
		if filepath.IsAbs(cmd) && !fileExists(cmd) {
			return &Check{Name: "mcp", Status: Fail, Detail: fmt.Sprintf("%s registers %s, which does not exist", path, cmd), Fix: "cairn install"}
		}
		return &Check{Name: "mcp", Status: OK, Detail: "registered in " + path}
	}
	if scope == "user" {
		return &Check{Name: "mcp", Status: Info, Detail: "MCP server not registered in " + path, Fix: "cairn install"}
	}
	return nil
}

// ourMCPEntry returns cairn's entry under mcpServers, if it is there.
func (o *Options) ourMCPEntry(root *Object) (any, bool) {
	sv, _ := root.Get("mcpServers")
	servers, ok := sv.(*Object)
	if !ok {
		return nil, false
	}
	e, ok := servers.Get(MCPName)
	if !ok || !o.isOurMCP(e) {
		return nil, false
	}
	return e, true
}

func checkCommands(o *Options, dir, scope string) *Check {
	n := 0
	var names []string
	for name := range o.CommandFiles() {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && o.isOurCommandFile(b) {
			n++
			names = append(names, "/"+strings.TrimSuffix(name, ".md"))
		}
	}
	if n == 0 {
		return nil
	}
	return &Check{Name: "slash commands", Status: OK, Detail: fmt.Sprintf("%s in %s (%s scope)", strings.Join(sortedStrings(names), " "), dir, scope)}
}

// pluginInstalled reports the cairn plugin entry of Claude Code's plugin
// registry, if any.
func pluginInstalled(claudeDir string) string {
	b, err := os.ReadFile(filepath.Join(claudeDir, "plugins", "installed_plugins.json"))
	if err != nil {
		return ""
	}
	var v struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	for k := range v.Plugins {
		if strings.HasPrefix(k, "cairn@") {
			return k
		}
	}
	return ""
}

func checkStore(ctx context.Context, o *DoctorOptions, st *index.Store, add func(Check)) {
	s, err := st.Stats(ctx)
	if err != nil {
		add(Check{Name: "store", Status: Fail, Detail: err.Error(), Fix: "cairn index (or move the damaged store aside and re-index)"})
		// What is damaged, and what to do, even when the counts cannot be
		// read.
		add(checkIntegrity(ctx, o, st))
		return
	}
	size := s.DBBytes + dirSize(filepath.Join(o.DataDir, "bleve")) + fileSize(filepath.Join(o.DataDir, "vectors.bin"))
	add(Check{Name: "store", Status: OK, Detail: fmt.Sprintf("%s: %d sessions (%d archived), %d entries, %d projects, %s on disk, schema v%d",
		st.Path(), s.Sessions, s.ArchivedSessions, s.Entries, s.Projects, human.Bytes(size), s.SchemaVersion)})
	if c := checkEmptied(ctx, o, st, &s); c != nil {
		add(*c)
	}
	if unfinished, _ := st.ForgetUnfinished(ctx); unfinished {
		add(Check{Name: "forget", Status: Fail, Detail: "a `cairn forget` was interrupted: the search indexes and copies of the store may still hold what it removed",
			Fix: "cairn index --rebuild (any cairn command finishes it)"})
	}
	add(checkIntegrity(ctx, o, st))
	add(checkFullText(ctx, st, &s))
	add(checkLag(o, &s))
	add(checkEmbedder(ctx, o, st, s.Embeddings))
	if o.Pending != nil {
		add(checkReviews(ctx, o, st))
	}
}

// checkEmptied fails when the store holds no session and no memory while
// a store a restore kept aside, or the newest automatic backup, holds some:
// the store was emptied (a restore interrupted by an older cairn, a
// cairn.db deleted and made again), and every command would go on
// answering from the empty one without a word.
func checkEmptied(ctx context.Context, o *DoctorOptions, st *index.Store, s *index.StoreStats) *Check {
	if s.Sessions > 0 {
		return nil
	}
	if _, mems, err := index.StoreCounts(ctx, st.Path()); err != nil || mems > 0 {
		return nil
	}
	for _, p := range o.earlierStores() {
		sessions, mems, err := index.StoreCounts(ctx, p)
		if err != nil || sessions+mems == 0 {
			continue
		}
		return &Check{Name: "store emptied", Status: Fail,
			Detail: fmt.Sprintf("the store %s holds no sessions and no memories, but %s holds %d sessions and %d memories", st.Path(), p, sessions, mems),
			Fix:    fmt.Sprintf("cairn restore --force %s (the empty store is kept aside), then cairn index", p)}
	}
	return nil
}

// earlierStores is where the sessions and memories of an emptied store
// may still be: the first three stores a restore kept aside, and the
// newest automatic backup.
func (o *DoctorOptions) earlierStores() []string {
	stores := index.AsideStores(o.DataDir)
	if len(stores) > 3 {
		stores = stores[:3]
	}
	if b := index.BackupFiles(o.Config.Backup.Folder(o.DataDir)); len(b) > 0 {
		stores = append(stores, b[len(b)-1])
	}
	return stores
}

// checkIntegrity runs SQLite's own check of the store and says what is
// damaged and what to do.
func checkIntegrity(ctx context.Context, o *DoctorOptions, st *index.Store) Check {
	name := "integrity"
	ic, err := st.CheckIntegrity(ctx, o.Full)
	switch {
	case err != nil:
		return Check{Name: name, Status: Warn, Detail: "could not check the store: " + err.Error(), Fix: "run `cairn doctor --full` again when no other cairn is writing"}
	case ic.OK() && o.Full:
		return Check{Name: name, Status: OK, Detail: "integrity_check: every page, row and index is intact"}
	case ic.OK():
		return Check{Name: name, Status: OK, Detail: "quick_check: ok (`cairn doctor --full` also compares every index with its table)"}
	}
	more := ""
	if len(ic.Problems) > 1 {
		more = fmt.Sprintf(" (and %d more problem(s))", len(ic.Problems)-1)
	}
	c := Check{Name: name, Status: Fail, Detail: fmt.Sprintf("the store %s is damaged: %s%s", st.Path(), ic.Problems[0], more)}
	if ic.IndexesOnly {
		c.Fix = "cairn index --rebuild (only the store's indexes are damaged: it rebuilds them and the full-text index; nothing is lost)"
		return c
	}
	c.Fix = "`cairn backup` now (while most of it can be read), then `cairn index --rebuild`: it keeps search working over every row it can read. " +
		index.RebuildAdvice(st.Path())
	return c
}

// checkFullText opens the full-text index (when this binary has the
// engine and no other process holds it) and fails when it cannot be used
// or is empty while the store has documents: text search would find
// nothing without saying why.
func checkFullText(ctx context.Context, st *index.Store, s *index.StoreStats) Check {
	name := "full-text"
	if !ftsapi.Available() {
		return Check{Name: name, Status: Info, Detail: "not checked (this binary has no full-text engine)"}
	}
	ix, err := st.Derived().OpenFTS(500 * time.Millisecond)
	switch {
	case errors.Is(err, ftsapi.ErrLocked):
		return Check{Name: name, Status: Info, Detail: "in use by another cairn process: not checked"}
	case err != nil:
		return Check{Name: name, Status: Fail, Detail: err.Error(), Fix: "cairn index --rebuild (the old index stays until the new one is complete)"}
	}
	defer ix.Close()
	n, err := ix.Count()
	if err != nil {
		return Check{Name: name, Status: Fail, Detail: err.Error(), Fix: "cairn index --rebuild"}
	}
	want, err := st.Derived().FTSDocCount(ctx)
	if err != nil {
		return Check{Name: name, Status: Warn, Detail: fmt.Sprintf("%d documents; cannot count the store's: %v", n, err)}
	}
	return ftsCounted(int(n), want, s.FTSQueue)
}

// ftsCounted judges a full-text index of n documents for a store of want,
// queued of them not indexed yet: empty while the store's are not all
// queued, text search finds nothing; far fewer than the store's, it
// misses some.
func ftsCounted(n, want, queued int) Check {
	c := Check{Name: "full-text", Status: OK, Detail: fmt.Sprintf("%d documents (the store has %d, %d queued)", n, want, queued)}
	switch {
	case n == 0 && want > 0 && queued < want:
		c.Status, c.Fix = Fail, "cairn index --rebuild (text search finds nothing until then)"
		c.Detail = fmt.Sprintf("the full-text index is empty while the store has %d documents: text search finds nothing", want)
	case want-queued > 2*n+100:
		c.Status, c.Fix = Warn, "cairn index --rebuild"
		c.Detail = fmt.Sprintf("the full-text index has %d documents, far fewer than the store's %d (%d queued): text search misses some", n, want, queued)
	}
	return c
}

// checkLag reports the index queues and the last sync, warning when the
// store was never synced, not for a week, or the queues are long.
func checkLag(o *DoctorOptions, s *index.StoreStats) Check {
	lag := Check{Name: "index lag", Status: OK}
	lag.Detail = fmt.Sprintf("%d documents waiting for the full-text index, %d for embeddings", s.FTSQueue, s.EmbedQueue)
	if s.LastSync.IsZero() {
		lag.Detail += "; never synced"
		lag.Status, lag.Fix = Warn, "cairn index"
	} else {
		age := o.Now().Sub(s.LastSync)
		lag.Detail += "; last sync " + human.Ago(time.Now().Add(-age), time.Now(), nil)
		if age > 7*24*time.Hour {
			lag.Status, lag.Fix = Warn, "cairn index (hooks keep it fresh once installed)"
		}
	}
	if s.FTSQueue > 20000 || s.EmbedQueue > 50000 {
		lag.Status, lag.Fix = Warn, "cairn index (drains the queues)"
	}
	return lag
}

// checkEmbedder reports the configured embedder and the vectors stored.
func checkEmbedder(ctx context.Context, o *DoctorOptions, st *index.Store, vectors int) Check {
	emb := Check{Name: "embedder", Status: OK}
	switch o.Config.Embedder.Kind {
	case "none":
		emb.Status, emb.Detail = Info, "none configured: search is text-only"
	case "ollama":
		emb.Detail = fmt.Sprintf("ollama (%s)", o.Config.Ollama.EmbedModel)
	default:
		if m, ok, err := st.Derived().LoadBuiltinEmbedder(ctx); err == nil && ok {
			emb.Detail = "built-in " + m.ID()
		} else {
			emb.Status, emb.Detail, emb.Fix = Warn, "built-in, not trained yet: search is text-only until then", "cairn index"
		}
	}
	emb.Detail += fmt.Sprintf("; %d vectors", vectors)
	return emb
}

// checkReviews reports the memories and drafts awaiting review.
func checkReviews(ctx context.Context, o *DoctorOptions, st *index.Store) Check {
	m, d, err := o.Pending(ctx, st)
	switch {
	case err != nil:
		return Check{Name: "reviews", Status: Warn, Detail: "cannot count pending reviews: " + err.Error()}
	case m+d > 0:
		return Check{Name: "reviews", Status: Info, Detail: fmt.Sprintf("%d memories and %d summary drafts await review", m, d), Fix: "cairn (or cairn memories list --status pending)"}
	default:
		return Check{Name: "reviews", Status: OK, Detail: "nothing awaits review"}
	}
}

// checkOllama probes the Ollama server with a short timeout and, when the
// config uses it, checks that the models it names are pulled.
func checkOllama(ctx context.Context, cfg config.Config, timeout time.Duration) Check {
	if timeout <= 0 {
		timeout = 500 * time.Millisecond
	}
	needed := cfg.Embedder.Kind == index.EmbedOllama || memories.ModelFor(cfg, nil).Policy().OllamaModel != ""
	base, err := ollama.ResolveHost(cfg.Ollama.Host)
	if err != nil {
		c := Check{Name: "ollama", Status: Info, Detail: err.Error() + "; not needed with the built-in embedder and extractor", Fix: "fix ollama.host in the config or $OLLAMA_HOST"}
		if needed {
			c.Status, c.Detail = Warn, err.Error()+", but the config uses it (cairn falls back to built-in)"
		}
		return c
	}
	client := ollama.New(base, nil)
	host := client.Host()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	version, err := client.Version(ctx)
	if err == nil {
		c := Check{Name: "ollama", Status: OK, Detail: fmt.Sprintf("reachable at %s (version %s)", host, human.OrDash(version))}
		if needed {
			checkOllamaModels(ctx, client, cfg, &c)
		}
		return c
	}
	c := Check{Name: "ollama", Status: Info, Detail: fmt.Sprintf("not reachable at %s (%s); not needed with the built-in embedder and extractor", host, ollamaReason(err))}
	if needed {
		c.Status, c.Fix = Warn, "start Ollama (ollama serve) or set embedder.kind / memories.extractor back to builtin"
		c.Detail = fmt.Sprintf("not reachable at %s (%s), but the config uses it (cairn falls back to built-in)", host, ollamaReason(err))
	}
	return c
}

// checkOllamaModels warns in c when the reachable server cannot list its
// models or lacks one the config uses.
func checkOllamaModels(ctx context.Context, client *ollama.Client, cfg config.Config, c *Check) {
	list, err := client.List(ctx)
	if err != nil {
		c.Status, c.Detail = Warn, c.Detail+fmt.Sprintf("; cannot list its models (%s)", ollamaReason(err))
		return
	}
	var missing []string
	for _, m := range ollamaModelsUsed(cfg) {
		if m != "" && list.Find(m) == nil && !slices.Contains(missing, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		c.Status = Warn
		c.Detail += fmt.Sprintf("; model %s not pulled (cairn falls back to built-in)", strings.Join(missing, ", "))
		c.Fix = "ollama pull " + strings.Join(missing, " && ollama pull ")
	}
}

// ollamaModelsUsed lists the Ollama models the config uses.
func ollamaModelsUsed(cfg config.Config) []string {
	var want []string
	if cfg.Embedder.Kind == index.EmbedOllama {
		want = append(want, cfg.Ollama.EmbedModel)
	}
	if chat := memories.ModelFor(cfg, nil).Policy().OllamaModel; chat != "" {
		want = append(want, chat)
	}
	return want
}

// ollamaReason is a few words on why an Ollama request failed.
func ollamaReason(err error) string {
	var ue *ollama.UnreachableError
	var se *ollama.StatusError
	switch {
	case errors.As(err, &ue):
		return ue.Reason
	case errors.As(err, &se):
		return fmt.Sprintf("HTTP %d: %s", se.StatusCode, se.Message)
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	return shortErr(err)
}

// hookErrors returns the last n problem lines of the hook log (background
// starts are not problems).
func hookErrors(dataDir string, n int) []string {
	var out []string
	for _, l := range hookspec.LastLines(dataDir, 500) {
		if strings.Contains(l, "background") && strings.Contains(l, "started") {
			continue
		}
		l, _ = redact.Redact(l) // lines written before the log redacted them
		l = hookspec.ScrubTranscriptPaths(l)
		out = append(out, l)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func shortErr(err error) string {
	if err == nil {
		return "no answer"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s) > 80 {
		s = s[i+2:]
	}
	return s
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
