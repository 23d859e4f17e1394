// Package plugin is cairn's Claude Code plugin: the files in this folder
// (.claude-plugin/plugin.json, hooks/hooks.json, .mcp.json, commands/) are
// what `/plugin install cairn@cairn` copies, and the slash commands are
// embedded here so `cairn install` can install the same files without the
// plugin system. The plugin keeps no state: everything lives in cairn's
// data dir.
package plugin

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed commands/*.md hooks/hooks.json .mcp.json .claude-plugin/plugin.json
var files embed.FS

// Files is the plugin's file tree.
func Files() fs.FS { return files }

// Command is one slash command file.
type Command struct {
	Name    string // without .md: /Name
	Content []byte
}

// Commands returns the slash commands, by name.
func Commands() []Command {
	entries, _ := fs.ReadDir(files, "commands")
	var out []Command
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		b, _ := fs.ReadFile(files, path.Join("commands", e.Name()))
		out = append(out, Command{Name: strings.TrimSuffix(e.Name(), ".md"), Content: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HooksJSON is hooks/hooks.json.
func HooksJSON() []byte {
	b, _ := fs.ReadFile(files, "hooks/hooks.json")
	return b
}
