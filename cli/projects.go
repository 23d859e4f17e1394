package cli

import (
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"

	"github.com/spf13/cobra"
)

// ProjectJSON is the stable --json shape of a project.
type ProjectJSON struct {
	Path      string     `json:"path"`
	Dir       string     `json:"dir"`
	Sessions  int        `json:"sessions"`
	LastUsed  *time.Time `json:"last_used"`
	SizeBytes int64      `json:"size_bytes"`
	// Folders are the other folders its sessions ran in: worktrees and
	// subfolders of the repository Path names.
	Folders []string `json:"folders"`
}

func newProjectsCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "projects",
		Short: "List projects with their session counts, last use and size on disk",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), o, func(st *index.Store) error {
				ps, err := st.Projects(cmd.Context())
				if err != nil {
					return err
				}
				return printProjects(o, ps)
			})
		},
	}
	addJSONFlag(cmd, o)
	addWideFlag(cmd, o)
	return cmd
}

func printProjects(o *Options, ps []transcripts.ProjectSummary) error {
	if o.JSON {
		out := make([]ProjectJSON, 0, len(ps))
		for _, p := range ps {
			out = append(out, ProjectJSON{Path: p.Path, Dir: p.Name, Sessions: p.Sessions, LastUsed: timePtr(p.LastUsed), SizeBytes: p.Size, Folders: nonNil(p.Folders)})
		}
		return writeJSON(o.Stdout, out)
	}
	if len(ps) == 0 {
		fmt.Fprintln(o.Stdout, "No projects found.")
		return nil
	}
	t := o.newTable()
	t.header("PROJECT", "SESSIONS", "LAST USED", "SIZE", "FOLDERS")
	t.cut(0, 0, true)
	t.optional(4, 3)
	now := time.Now()
	for _, p := range ps {
		t.row(human.Path(p.Path), fmt.Sprint(p.Sessions), human.Ago(p.LastUsed, now, nil), human.Bytes(p.Size), folderCount(p.Folders))
	}
	return t.flush()
}

// folderCount says how many worktrees and subfolders a project's sessions
// ran in besides the project folder ("-" for none); --json lists them.
func folderCount(f []string) string {
	if len(f) == 0 {
		return "-"
	}
	return fmt.Sprint(len(f))
}
