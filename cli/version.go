package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/cairn-dev/cairn/cli.Version=v1.2.3".
var Version = "dev"

// VersionString describes this binary.
func VersionString() string {
	v := Version
	if v == "dev" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v = "dev-" + s.Value[:12]
				}
			}
		}
	}
	return fmt.Sprintf("cairn %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print cairn's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.JSON {
				return writeJSON(o.Stdout, map[string]string{"version": Version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH})
			}
			_, err := fmt.Fprintln(o.Stdout, VersionString())
			return err
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}

func userHome() (string, error) { return os.UserHomeDir() }
