package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// cairn can reach Claude Code two ways: this plugin, or `cairn install`
// (hooks in a settings.json, the MCP server in ~/.claude.json or .mcp.json,
// the commands in a commands folder). Both at once inject every context
// twice, run every hook twice and offer every tool twice. These functions
// tell the two apart: install refuses (or switches) when the plugin is
// enabled, the plugin's hooks and server stand down when an install is
// there, and doctor reports both.

// Name is the plugin's name; it is enabled as Name@<marketplace>.
const Name = "cairn"

// PluginFlag is the flag the plugin's hook commands pass to cairn.
const PluginFlag = "--plugin"

// EnvViaPlugin is set (to 1) in the environment of the plugin's MCP server.
const EnvViaPlugin = "CAIRN_VIA_PLUGIN"

// IsHookCommand reports whether a hook command runs cairn's hook handler
// by its program name: `cairn-hook EVENT` or `cairn hook EVENT` (either
// possibly a path, quoted or not, with .exe on Windows).
func IsHookCommand(cmd string) bool {
	prog, rest := FirstWord(strings.TrimSpace(cmd))
	base := strings.TrimSuffix(filepath.Base(prog), ".exe")
	if base == "cairn-hook" {
		return true
	}
	next, _ := FirstWord(strings.TrimSpace(rest))
	return base == "cairn" && next == "hook"
}

// FirstWord splits off the first shell word ("quoted" or 'quoted' or bare).
func FirstWord(s string) (string, string) {
	if s == "" {
		return "", ""
	}
	if q := s[0]; q == '"' || q == '\'' {
		if i := strings.IndexByte(s[1:], q); i >= 0 {
			return s[1 : i+1], s[i+2:]
		}
		return s[1:], ""
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

func readJSON(path string, v any) bool {
	b, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(b, v) == nil
}

// InstalledHooks returns the settings files among paths whose hooks run
// cairn outside the plugin (`cairn install`'s hooks).
func InstalledHooks(paths ...string) []string {
	var out []string
	for _, p := range paths {
		var v struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string `json:"command"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		if !readJSON(p, &v) {
			continue
		}
	found:
		for _, groups := range v.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					if IsHookCommand(h.Command) && !strings.Contains(h.Command, PluginFlag) {
						out = append(out, p)
						break found
					}
				}
			}
		}
	}
	return out
}

// InstalledMCP returns the MCP files among paths that register a server
// named cairn: .mcp.json, or ~/.claude.json (user scope, and local scope
// under projects[project] when project is given).
func InstalledMCP(project string, paths ...string) []string {
	type servers struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	var out []string
	for _, p := range paths {
		var v struct {
			servers
			Projects map[string]servers `json:"projects"`
		}
		if !readJSON(p, &v) {
			continue
		}
		_, user := v.MCPServers[Name]
		_, local := v.Projects[project].MCPServers[Name]
		if user || (project != "" && local) {
			out = append(out, p)
		}
	}
	return out
}

// Enabled returns the first settings file among paths that enables the
// plugin, and the key it enables (cairn@<marketplace>).
func Enabled(paths ...string) (file, key string) {
	for _, p := range paths {
		var v struct {
			EnabledPlugins map[string]any `json:"enabledPlugins"`
		}
		if !readJSON(p, &v) {
			continue
		}
		for k, on := range v.EnabledPlugins {
			if strings.HasPrefix(k, Name+"@") && on == true {
				return p, k
			}
		}
	}
	return "", ""
}

// SettingsFiles are the settings files Claude Code merges for a project:
// the user's (in claudeDir) and, when projectDir is set, the project's
// shared and local ones.
func SettingsFiles(claudeDir, projectDir string) []string {
	out := []string{filepath.Join(claudeDir, "settings.json")}
	if projectDir != "" {
		out = append(out, filepath.Join(projectDir, ".claude", "settings.json"), filepath.Join(projectDir, ".claude", "settings.local.json"))
	}
	return out
}
