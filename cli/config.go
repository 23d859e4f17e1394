package cli

import (
	"fmt"

	"github.com/cairn-dev/cairn/config"

	"github.com/spf13/cobra"
)

func newConfigCmd(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the settings in effect (defaults merged with config.toml) and where the file is",
		Long: `config prints every setting cairn reads, with the values in effect, as
TOML. Save the parts you want to change to the file it names (by default
config.toml in the data dir, or $CAIRN_CONFIG).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.ResolveDataDir()
			if err != nil {
				return err
			}
			c, err := config.Load(dir)
			if err != nil {
				return err
			}
			b, err := config.Marshal(c)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.Stdout, "# %s\n%s", config.Path(dir), b)
			return nil
		},
	}
}
