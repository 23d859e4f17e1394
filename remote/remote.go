// Package remote syncs cairn between machines through a git repository
// the user owns (`cairn remote init <url>`, `cairn remote sync`). Each
// machine pushes what it has — its sessions as immutable, compressed,
// content-addressed bundles, its reviewed memories and its forgets as
// small per-item files, each machine under its own folder so two pushes
// never touch the same file — and pulls and indexes the others'. The
// local store is the source of truth: the repository's working tree is
// rebuilt from the remote and the store on every sync, so a diverged,
// half-written or rewritten history is never merged, only replaced.
//
// The repository (docs/remote.md):
//
//	machines/<name>/manifest.json       the sessions it pushed: id -> bundle, folder, project
//	machines/<name>/memories/<id>.json  a reviewed memory, or its deletion
//	machines/<name>/tombstones.json     what `cairn forget` removed there
//	sessions/<ab>/<sha256>.tar.gz       one session's files (bundle.go)
//
// Locally, under the data dir's remote/ folder: remote.json (the URL and
// this machine's name), state.json (what was imported, the memories' last
// synced versions), status.json (how the last sync ended), repo/ (the clone) and imports/<name>/
// (other machines' sessions laid out like a Claude config dir and indexed
// like one; index.ImportsDir).
package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Config is remote.json: what `cairn remote init` set.
type Config struct {
	URL     string `json:"url"`
	Machine string `json:"machine"`
	Branch  string `json:"branch"`
}

// ErrNotConfigured is returned when no remote was set up: nothing leaves
// the machine until `cairn remote init <url>`.
var ErrNotConfigured = errors.New("no remote is set up: nothing leaves this machine until you run `cairn remote init <git-url>`")

// Dir is the remote folder of a data dir.
func Dir(dataDir string) string { return filepath.Join(dataDir, "remote") }

func configPath(dataDir string) string { return filepath.Join(Dir(dataDir), "remote.json") }
func statePath(dataDir string) string  { return filepath.Join(Dir(dataDir), "state.json") }
func repoDir(dataDir string) string    { return filepath.Join(Dir(dataDir), "repo") }
func lockPath(dataDir string) string   { return filepath.Join(Dir(dataDir), "sync.lock") }

// LoadConfig reads remote.json; ErrNotConfigured when there is none.
func LoadConfig(dataDir string) (Config, error) {
	var c Config
	b, err := os.ReadFile(configPath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return c, ErrNotConfigured
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil || c.URL == "" || !validMachine(c.Machine) {
		return c, fmt.Errorf("%s is damaged (%v): run `cairn remote init <git-url>` again to rewrite it (your store and the remote are not touched)", configPath(dataDir), cmpErr(err, "no url or machine name"))
	}
	if c.Branch == "" {
		c.Branch = "main"
	}
	return c, nil
}

func cmpErr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

var machineRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// validMachine reports whether s can name a machine (a folder in the
// repository on every OS).
func validMachine(s string) bool { return machineRe.MatchString(s) && validName(s) }

// MachineName is the default name of this machine: $CAIRN_MACHINE, else
// its host name, lower-cased, reduced to letters, digits, '.', '_', '-'.
func MachineName() string {
	n := os.Getenv("CAIRN_MACHINE")
	if n == "" {
		n, _ = os.Hostname()
		n, _, _ = strings.Cut(n, ".")
	}
	n = strings.ToLower(n)
	n = regexp.MustCompile(`[^a-z0-9._-]+`).ReplaceAllString(n, "-")
	n = strings.Trim(n, "-.")
	if n == "" {
		n = "machine"
	}
	return n[:min(len(n), 63)]
}

// state is state.json: what this machine did in earlier syncs.
type state struct {
	// Imported: machine -> session id -> the bundle imported and the
	// files it was unpacked to (relative to imports/<machine>).
	Imported map[string]map[string]imported `json:"imported"`
	// MemBase: memory id -> the hash of its local version at the end of
	// the last sync (an edit since then is an edit of this machine's).
	MemBase map[string]string `json:"mem_base"`
	// MemSeen: machine -> memory id -> the hash of its version last
	// handled (the same version is never applied twice).
	MemSeen map[string]map[string]string `json:"mem_seen"`
	// Quiet: sessions removed because their machine stopped pushing them
	// (opted out or forgotten there); their tombstones are not published.
	Quiet map[string]bool `json:"quiet,omitempty"`
}

type imported struct {
	Bundle  string   `json:"bundle"`
	Folder  string   `json:"folder"`
	Project string   `json:"project"`
	Files   []string `json:"files"`
}

// loadState reads the sync state of dataDir; none yet is an empty one.
func loadState(dataDir string) (*state, error) {
	st := &state{}
	b, err := os.ReadFile(statePath(dataDir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case json.Unmarshal(b, st) != nil:
		// Derived: rebuilt by the next sync (imports are compared by
		// content, memories by value), so a damaged file is set aside,
		// not fatal.
		_ = os.Rename(statePath(dataDir), statePath(dataDir)+".damaged")
		st = &state{}
	}
	st.fill()
	return st, nil
}

// fill makes the maps a state file left out (or that there was none).
func (st *state) fill() {
	if st.Imported == nil {
		st.Imported = map[string]map[string]imported{}
	}
	if st.MemBase == nil {
		st.MemBase = map[string]string{}
	}
	if st.MemSeen == nil {
		st.MemSeen = map[string]map[string]string{}
	}
}

func (st *state) save(dataDir string) error {
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	return writeAtomic(statePath(dataDir), b)
}

// writeAtomic writes b to path through a temporary file renamed into place.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// Status is what `cairn remote status` shows.
type Status struct {
	Config Config `json:"config"`
	Outcome
	// Machines are the other machines imported from, and their sessions.
	Machines map[string]int `json:"machines"`
}

// ReadStatus reads the remote's configuration and the last sync's result
// without touching the network or the store.
func ReadStatus(dataDir string) (Status, error) {
	c, err := LoadConfig(dataDir)
	if err != nil {
		return Status{}, err
	}
	st, err := loadState(dataDir)
	if err != nil {
		return Status{}, err
	}
	o, _, err := ReadOutcome(dataDir)
	if err != nil {
		return Status{}, err
	}
	s := Status{Config: c, Outcome: o, Machines: map[string]int{}}
	for m, ss := range st.Imported {
		s.Machines[m] = len(ss)
	}
	return s, nil
}
