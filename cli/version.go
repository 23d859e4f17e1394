package cli

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/cairn-dev/cairn/cli.Version=v1.2.3".
var Version = "dev"

// BuildInfo is what this binary knows of itself: the version it was given
// (or the module version `go install …@v1.2.3` stamps), and the commit it
// was built from (Go stamps vcs.revision into a build made in a clone).
type BuildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	Time     string `json:"commit_time,omitempty"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// pseudoVersion matches the end of a Go pseudo-version
// (v0.0.0-20260101120000-0123456789ab, +dirty).
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// readBuildInfo reads the binary's version and commit.
func readBuildInfo() BuildInfo {
	b := BuildInfo{Version: Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	// A tagged install (go install …@v1.2.3) gives its version; a build
	// in a clone gives a pseudo-version of its commit, said as dev and
	// the commit.
	if b.Version == "dev" && released(bi.Main.Version) {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		b.setVCS(s.Key, s.Value)
	}
	return b
}

// released says v is a module version of a release: not a pseudo-version
// nor a build without one.
func released(v string) bool {
	return v != "" && v != "(devel)" && !pseudoVersion.MatchString(v)
}

// setVCS takes the build setting key of the commit built, whether its
// work tree had changes, and the commit's time.
func (b *BuildInfo) setVCS(key, value string) {
	switch key {
	case "vcs.revision":
		b.Commit = value
	case "vcs.modified":
		b.Modified = value == "true"
	case "vcs.time":
		b.Time = value
	}
}

// VersionString describes this binary: "cairn v1.2.3 (commit 0123456789ab,
// go1.25.0, linux/amd64)"; a build from a clone without a version says
// "dev" and its commit, "modified" when the work tree had changes.
func VersionString() string { return "cairn " + versionLine() }

// versionLine is VersionString without the program's name.
func versionLine() string {
	b := readBuildInfo()
	var parts []string
	if b.Commit != "" {
		c := "commit " + b.Commit[:min(12, len(b.Commit))]
		if b.Modified {
			c += " modified"
		}
		parts = append(parts, c)
	} else if b.Version == "dev" {
		parts = append(parts, "no commit recorded: build with -buildvcs=true in a clone")
	}
	parts = append(parts, b.Go, b.OS+"/"+b.Arch)
	return fmt.Sprintf("%s (%s)", b.Version, strings.Join(parts, ", "))
}

func newVersionCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print cairn's version and the commit it was built from (also cairn --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.JSON {
				return writeJSON(o.Stdout, readBuildInfo())
			}
			_, err := fmt.Fprintln(o.Stdout, VersionString())
			return err
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}
