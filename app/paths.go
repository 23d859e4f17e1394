package app

import (
	"fmt"
	"os"
	"path/filepath"
)

// Paths are the two folders cairn works with.
type Paths struct {
	// DataDir holds cairn's store, indexes, config and logs.
	DataDir string
	// ClaudeDir is Claude Code's config dir, whose projects/ holds the
	// transcripts.
	ClaudeDir string
}

// ResolvePaths fills the folders the flags leave empty, by one rule for
// every front end (CLI, TUI, hooks, MCP server):
//
//   - data:   --data, else $CAIRN_HOME, else $XDG_DATA_HOME/cairn (when
//     absolute), else ~/.local/share/cairn;
//   - Claude: --claude-dir, else $CLAUDE_CONFIG_DIR, else ~/.claude.
//
// Relative paths are made absolute.
func ResolvePaths(flags Paths) (Paths, error) {
	data, err := DataDir(flags.DataDir)
	if err != nil {
		return Paths{}, err
	}
	claude, err := ClaudeDir(flags.ClaudeDir)
	if err != nil {
		return Paths{}, err
	}
	return Paths{DataDir: data, ClaudeDir: claude}, nil
}

// DataDir resolves the data dir alone (see ResolvePaths).
func DataDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := os.Getenv("CAIRN_HOME"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cairn"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home folder (%w): pass --data or set CAIRN_HOME", err)
	}
	return filepath.Join(home, ".local", "share", "cairn"), nil
}

// ClaudeDir resolves Claude Code's config dir alone (see ResolvePaths).
func ClaudeDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home folder (%w): pass --claude-dir or set CLAUDE_CONFIG_DIR", err)
	}
	return filepath.Join(home, ".claude"), nil
}
