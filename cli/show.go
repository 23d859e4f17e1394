package cli

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
	"github.com/cairn-dev/cairn/transcripts/render"

	"github.com/spf13/cobra"
)

func newShowCmd(o *Options) *cobra.Command {
	so := render.Options{ToolLines: 6}
	cmd := &cobra.Command{
		Use:   "show SESSION_ID",
		Short: "Print a session as readable text (an id prefix of 8+ characters is enough)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.JSON && so.Markdown {
				return usageError{fmt.Errorf("--json and --markdown do not go together: pick one")}
			}
			if len(strings.TrimSpace(args[0])) < transcripts.MinIDPrefix {
				_, err := transcripts.ResolveSessionID(args[0], nil) // the too-short error, before a store is opened
				return err
			}
			var c *transcripts.Conversation
			err := withStore(cmd.Context(), o, func(st *index.Store) error {
				var err error
				c, err = st.Conversation(cmd.Context(), args[0])
				return err
			})
			if err != nil {
				return err
			}
			if c.Unreadable > 0 {
				fmt.Fprintf(o.Stderr, "cairn: %d entr%s of this session could not be read from the damaged store and %s left out; run `cairn doctor --full`\n",
					c.Unreadable, plural(c.Unreadable, "y", "ies"), plural(c.Unreadable, "is", "are"))
			}
			if o.JSON {
				return writeJSON(o.Stdout, sessionJSON(c.Session))
			}
			return o.page(func() error {
				so.Color = o.colorFor(o.Stdout)
				return render.Conversation(o.Stdout, c, so)
			})
		},
	}
	cmd.Flags().BoolVar(&so.Thinking, "thinking", false, "include Claude's thinking")
	cmd.Flags().BoolVar(&so.Full, "full", false, "print tool output in full")
	cmd.Flags().IntVar(&so.ToolLines, "tool-lines", 6, "lines of tool output to keep when shortening")
	cmd.Flags().BoolVar(&so.Markdown, "markdown", false, "print Markdown (what the TUI's export writes)")
	addJSONFlag(cmd, o)
	return cmd
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
