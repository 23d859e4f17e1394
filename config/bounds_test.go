package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Absurd values used to be accepted silently (issue 19): each is refused
// with the setting, its range and its default.
func TestAbsurdValuesRefused(t *testing.T) {
	for src, want := range map[string]string{
		"[index]\ntool_output_head = 99999999999999": "index.tool_output_head = 99999999999999 is out of range: use 0–1048576",
		"[memories]\nsync_lines = 0":                 "memories.sync_lines = 0 is out of range: use 10–5000 (the default is 150)",
		"[hooks]\nprompt_threshold = 7.5":            "hooks.prompt_threshold = 7.5 is out of range: use 0–1",
		"[ollama]\nbatch_size = 0":                   "ollama.batch_size = 0 is out of range",
		"[claude]\ntimeout = '100h'":                 "claude.timeout = 100h0m0s is out of range: use 0–3600 seconds",
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		os.WriteFile(path, []byte(src+"\n"), 0o600)
		_, err := LoadFile(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v, want an error naming %s and %q", src, err, path, want)
		}
	}
	// Every bound names a real numeric setting, and the defaults are inside.
	keys := map[string]bool{}
	for _, s := range Reference() {
		keys[s.Key] = true
	}
	for k := range bounds {
		if !keys[k] {
			t.Errorf("bound for %s, which is not a setting", k)
		}
	}
	d := Default()
	if err := d.checkBounds(); err != nil {
		t.Errorf("the defaults are out of bounds: %v", err)
	}
}
