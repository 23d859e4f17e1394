package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
)

// enablePlugin makes h look as `claude plugin install cairn@cairn` leaves
// it: the registry entry and enabledPlugins in the user's settings.
func enablePlugin(t *testing.T, h home) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(h.claude, "plugins"), 0o755))
	must(t, os.WriteFile(filepath.Join(h.claude, "plugins", "installed_plugins.json"),
		[]byte(`{"version":2,"plugins":{"cairn@cairn":[{"scope":"user","installPath":"/x","version":"0.1.0"}]}}`), 0o600))
	root, err := ParseObject([]byte(readString(t, filepath.Join(h.claude, "settings.json"))))
	must(t, err)
	ep, err := root.Child("enabledPlugins")
	must(t, err)
	ep.Set("cairn@cairn", true)
	must(t, os.WriteFile(filepath.Join(h.claude, "settings.json"), root.Marshal(), 0o600))
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	return string(b)
}

// With the plugin enabled, install refuses (both would run every hook
// twice) and changes nothing; --replace-plugin disables the plugin and
// installs.
func TestInstallRefusesBesideThePlugin(t *testing.T) {
	h := newHome(t)
	enablePlugin(t, h)
	settings := filepath.Join(h.claude, "settings.json")
	before := readString(t, settings)
	o := h.opts()
	_, err := Install(o)
	if !errors.Is(err, ErrPluginEnabled) || !strings.Contains(err.Error(), "--replace-plugin") || !strings.Contains(err.Error(), "cairn@cairn") {
		t.Fatalf("install beside the plugin: %v", err)
	}
	if readString(t, settings) != before {
		t.Fatal("a refused install changed the settings")
	}
	o.ReplacePlugin = true
	changes, err := Install(o)
	must(t, err)
	after := readString(t, settings)
	if !strings.Contains(after, `"cairn@cairn": false`) || !strings.Contains(after, "hook SessionStart") {
		t.Fatalf("settings after --replace-plugin:\n%s", after)
	}
	noted := false
	for _, c := range changes {
		noted = noted || strings.Contains(c.Note, "disabled")
	}
	if !noted {
		t.Errorf("the changes do not say the plugin was disabled: %+v", changes)
	}
}

// doctor flags cairn installed twice, and a plugin whose binaries PATH
// does not find.
func TestDoctorFlagsPluginProblems(t *testing.T) {
	h := newHome(t)
	exe := filepath.Join(t.TempDir(), "cairn")
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	o := h.opts()
	o.Exe = exe
	_, err := Install(o)
	must(t, err)
	enablePlugin(t, h)
	find := func(r *Report) Check {
		for _, c := range r.Checks {
			if c.Name == "plugin" {
				return c
			}
		}
		return Check{}
	}
	r := Doctor(context.Background(), DoctorOptions{User: o, DataDir: t.TempDir(), Version: "test", Config: config.Default()})
	if c := find(r); c.Status != Warn || !strings.Contains(c.Detail, "installed twice") || !strings.Contains(c.Fix, "cairn uninstall") {
		t.Fatalf("plugin and install: %+v", c)
	}
	_, err = Uninstall(o)
	must(t, err)
	t.Setenv("PATH", t.TempDir())
	r = Doctor(context.Background(), DoctorOptions{User: o, DataDir: t.TempDir(), Version: "test", Config: config.Default()})
	if c := find(r); c.Status != Warn || !strings.Contains(c.Detail, "finds neither") || !strings.Contains(c.Fix, "go install") {
		t.Fatalf("plugin without binaries on PATH: %+v", c)
	}
}

// With only the plugin, doctor never advises `cairn install` (which
// refuses beside the plugin): the plugin brings the MCP server and the
// commands.
func TestDoctorPluginUserNotToldToInstall(t *testing.T) {
	h := newHome(t)
	enablePlugin(t, h)
	o := h.opts()
	o.Exe = filepath.Join(t.TempDir(), "cairn") // no cairn-hook beside it
	r := Doctor(context.Background(), DoctorOptions{User: o, DataDir: t.TempDir(), Version: "test", Config: config.Default()})
	for _, c := range r.Checks {
		if strings.Contains(c.Fix, "cairn install") {
			t.Errorf("%s: %s (fix: %s): a plugin user is told to run cairn install", c.Name, c.Detail, c.Fix)
		}
	}
}
