package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairn-dev/cairn/transcripts"

	tea "charm.land/bubbletea/v2"
)

// The scope the TUI opens with follows the folder it starts in, as
// `cairn recall`, `sync` and `remember` do: the project of that folder
// (Config.Here, by the CLI's rule) when it has sessions, every project
// otherwise; and the scope chosen last time in that folder wins over both.
// The choice is kept per folder in a small JSON file in the data dir
// (Config.StateFile).

// scopeState is the state file: the last scope chosen in each folder.
type scopeState struct {
	// Folders maps a folder to the project chosen there ("" = every
	// project).
	Folders map[string]string `json:"folders"`
}

// maxStateFolders bounds the state file: past it the file starts again
// (it holds preferences only).
const maxStateFolders = 500

// stateFileName is the state file's name in the data dir.
const stateFileName = "tui-state.json"

// stateMu serialises writes of the state file by this process.
var stateMu sync.Mutex

func readScopeState(path string) scopeState {
	st := scopeState{Folders: map[string]string{}}
	if path == "" {
		return st
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return st
	}
	if json.Unmarshal(b, &st) != nil || st.Folders == nil {
		// A damaged file is replaced by the next choice: it only holds
		// preferences.
		st.Folders = map[string]string{}
	}
	return st
}

// saveScope records project ("" = every project) as the scope chosen in
// folder; written through a temporary file and a rename, so a crash leaves
// the old file or the new one.
func saveScope(path, folder, project string) error {
	if path == "" || folder == "" {
		return nil
	}
	stateMu.Lock()
	defer stateMu.Unlock()
	st := readScopeState(path)
	if _, ok := st.Folders[folder]; !ok && len(st.Folders) >= maxStateFolders {
		st.Folders = map[string]string{}
	}
	st.Folders[folder] = project
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return replaceFile(path, b)
}

// replaceFile writes b to path through a temporary file beside it and a
// rename; on an error the temporary file is removed.
func replaceFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tui-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// stateFile is where the scope choices are kept ("" = nowhere).
func (m *Model) stateFile() string {
	switch {
	case m.cfg.StateFile == "-":
		return ""
	case m.cfg.StateFile != "":
		return m.cfg.StateFile
	case m.cfg.Store != nil && m.cfg.Folder != "":
		return filepath.Join(m.cfg.Store.Dir(), stateFileName)
	}
	return ""
}

// startScope is the scope to open with once the projects are known: the
// folder's last choice, else the folder's project; decided reports that
// the question is settled (a choice was found or applied).
func (m *Model) startScope() (ps *transcripts.ProjectSummary, decided bool) {
	if m.cfg.Folder != "" {
		if p, ok := m.saved[m.cfg.Folder]; ok {
			if p == "" {
				return nil, true
			}
			if ps := m.projects.byPath(p); ps != nil {
				return ps, true
			}
		}
	}
	if m.cfg.Here == "" {
		return nil, true
	}
	if ps := m.projects.byPath(m.cfg.Here); ps != nil {
		return ps, true
	}
	// Not (yet) a project with sessions: every project, until indexing
	// finds some there.
	return nil, false
}

// applyStartScope sets the start scope once the projects are listed.
func (m *Model) applyStartScope() tea.Cmd {
	if m.scopeDecided {
		return nil
	}
	ps, decided := m.startScope()
	m.scopeDecided = decided
	if ps == nil {
		return nil
	}
	m.scopeSel, m.lastScope = ps, ps
	m.timeline.setProject(ps)
	return tea.Batch(m.timeline.load(), m.mems.load(), m.search.rerun())
}

// rememberScope keeps the scope chosen (by a person) for the folder the
// TUI started in.
func (m *Model) rememberScope() tea.Cmd {
	path, folder := m.stateFile(), m.cfg.Folder
	if path == "" || folder == "" {
		return nil
	}
	m.scopeDecided = true
	project := m.scopeProject()
	m.saved[folder] = project
	return func() tea.Msg {
		if err := saveScope(path, folder, project); err != nil {
			return flashMsg{err: true, text: fmt.Sprintf("could not keep the scope for next time (%s): %v", path, err)}
		}
		return nil
	}
}

// scopeLabel names the scope for the tab bar.
func (m *Model) scopeLabel() string {
	if s := m.scopeSel; s != nil {
		return "⌂ " + lastElem(sanitizeLine(s.Path))
	}
	return "all projects"
}
