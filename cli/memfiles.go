// `cairn memories files`: the review of Claude Code's own auto-memory
// files (projects/<P>/memory/*.md), whose changes the index run records
// as pending diffs (memories/memfiles.go).

package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newMemFilesCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "files",
		Short: "Review the changes Claude makes to its own auto-memory files (list, show, approve, reject, undo, history, restore)",
		Long: `Claude Code keeps an auto memory per project (<claude-dir>/projects/<P>/memory/
MEMORY.md and topic files beside it) that Claude writes itself and that loads
into every session. cairn reviews it: each ` + "`cairn index`" + ` (and the hooks'
index runs) reads these files, and a text that differs from the last reviewed
one waits here as a diff. The first text cairn sees of a file is its baseline:
trusted as it is, not a change to review.

  approve   keeps the change: its text becomes the reviewed text
  reject    writes the reviewed text back to the file (atomically, same mode)
  undo      takes the latest approve, reject or restore back (an undone
            reject puts Claude's text back in the file)
  history   every text kept of a file; restore puts any of them back

Versions are numbers (v12 or 12).`,
		Args: cobra.NoArgs,
	}
	list := newMemFilesListCmd(o)
	cmd.RunE = list.RunE
	cmd.Flags().AddFlagSet(list.Flags())
	cmd.AddCommand(list, newMemFilesShowCmd(o), newMemFilesReviewCmd(o, "approve"), newMemFilesReviewCmd(o, "reject"),
		newMemFilesUndoCmd(o), newMemFilesHistoryCmd(o), newMemFilesRestoreCmd(o))
	return cmd
}

func newMemFilesListCmd(o *Options) *cobra.Command {
	var project string
	var diff bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the pending changes to auto-memory files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				p, err := resolveProject(cmd.Context(), svc.Store(), project)
				if err != nil {
					return err
				}
				cs, err := svc.Sync.MemoryFileChanges(cmd.Context(), p)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, cs)
				}
				if len(cs) == 0 {
					fmt.Fprintln(o.Stdout, "no changes to auto-memory files wait for review (`cairn index` reads the files again)")
					return nil
				}
				printFileChanges(o, cs)
				if diff {
					for _, c := range cs {
						fmt.Fprintln(o.Stdout)
						printFileChange(o, &c)
					}
					return nil
				}
				fmt.Fprintf(o.Stdout, "see a diff: cairn memories files show v%d · then approve or reject it\n", cs[0].Version)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project's files; a path, part of one, or .")
	cmd.Flags().BoolVar(&diff, "diff", false, "print each change's diff too")
	addJSONFlag(cmd, o)
	return cmd
}

func printFileChanges(o *Options, cs []memories.FileChange) {
	t := o.newTable()
	t.header("VERSION", "PROJECT", "FILE", "CHANGE", "SEEN")
	now := time.Now()
	for _, c := range cs {
		t.row(fmt.Sprintf("v%d", c.Version), truncate(termtext.Line(fileProjectLabel(c.Project)), 24), termtext.Line(c.Name), changeLabel(c),
			human.Ago(c.Seen, now, nil))
	}
	t.flush()
}

func fileProjectLabel(p string) string {
	if p == "" {
		return "global"
	}
	return filepath.Base(p)
}

func changeLabel(c memories.FileChange) string {
	s := fmt.Sprintf("+%d -%d", c.Added, c.Removed)
	if c.Deleted {
		s += " (deleted)"
	}
	return s
}

func newMemFilesShowCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "show VERSION", Short: "Show a version of an auto-memory file: its diff against the reviewed text", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) (*memories.FileChange, error) {
			id, err := memories.ParseFileVersion(args[0])
			if err != nil {
				return nil, usageError{err}
			}
			return svc.Sync.MemoryFileChange(ctx, id)
		},
		func(c *memories.FileChange) {
			printFileChange(o, c)
			if c.Status == memories.FilePending {
				fmt.Fprintf(o.Stdout, "\nkeep it: cairn memories files approve v%d · give the file its reviewed text back: cairn memories files reject v%d\n", c.Version, c.Version)
			}
		})
}

// printFileChange prints a version's header and its diff (its text when
// it has nothing to be compared with: a baseline).
func printFileChange(o *Options, c *memories.FileChange) {
	w := o.Stdout
	fmt.Fprintf(w, "v%d  %s  %s  %s\n", c.Version, c.Status, termtext.Line(c.Name), changeLabel(*c))
	fmt.Fprintf(w, "project:  %s\n", termtext.Line(fileProjectLabel(c.Project)))
	fmt.Fprintf(w, "file:     %s\n", termtext.Line(c.Path))
	fmt.Fprintf(w, "seen:     %s", fmtTime(c.Seen))
	if !c.Reviewed.IsZero() {
		fmt.Fprintf(w, "  reviewed %s", fmtTime(c.Reviewed))
	}
	fmt.Fprintln(w)
	var notes []string
	if c.Current {
		notes = append(notes, "the reviewed text")
	}
	if c.OnDisk {
		notes = append(notes, "the file holds it")
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "now:      %s\n", strings.Join(notes, ", "))
	}
	fmt.Fprintln(w)
	if c.Diff == "" {
		for _, line := range strings.Split(strings.TrimSuffix(c.New, "\n"), "\n") {
			fmt.Fprintln(w, "  "+termtext.Line(line))
		}
		return
	}
	printDiff(w, o.colorFor(w), c.Diff)
}

// printDiff prints a unified diff, terminal-safe, added lines green and
// removed ones red when colour is on.
func printDiff(w io.Writer, color bool, diff string) {
	for _, line := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		safe := termtext.Line(line)
		switch {
		case strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---"):
			safe = sgr(color, "1", safe)
		case strings.HasPrefix(line, "@@"):
			safe = sgr(color, "36", safe)
		case strings.HasPrefix(line, "+"):
			safe = sgr(color, "32", safe)
		case strings.HasPrefix(line, "-"):
			safe = sgr(color, "31", safe)
		}
		fmt.Fprintln(w, safe)
	}
}

func newMemFilesReviewCmd(o *Options, verb string) *cobra.Command {
	short := "Approve changes to auto-memory files: their text becomes the reviewed text (the files are not touched)"
	call := memories.Sync.ApproveMemoryFile
	if verb == "reject" {
		short = "Reject changes to auto-memory files: each file gets its reviewed text back"
		call = memories.Sync.RejectMemoryFile
	}
	cmd := &cobra.Command{
		Use:   verb + " VERSION...",
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ids []int64
			for _, a := range args {
				id, err := memories.ParseFileVersion(a)
				if err != nil {
					return usageError{err}
				}
				ids = append(ids, id)
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				out := []*memories.FileChange{}
				for _, id := range ids {
					c, err := call(svc.Sync, cmd.Context(), id)
					if err != nil {
						return err
					}
					out = append(out, c)
					if o.JSON {
						continue
					}
					if verb == "reject" {
						fmt.Fprintf(o.Stdout, "v%d rejected: %s has its reviewed text back (undo: cairn memories files undo)\n", c.Version, termtext.Line(c.Path))
					} else {
						fmt.Fprintf(o.Stdout, "v%d approved: %s (undo: cairn memories files undo)\n", c.Version, termtext.Line(c.Path))
					}
				}
				if o.JSON {
					return writeJSON(o.Stdout, out)
				}
				return nil
			})
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}

func newMemFilesUndoCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "undo", Short: "Take back the latest approve, reject or restore of an auto-memory file", Args: cobra.NoArgs},
		func(ctx context.Context, svc *memories.Service, _ []string) (*memories.FileUndo, error) {
			return svc.Sync.UndoMemoryFileReview(ctx)
		},
		func(u *memories.FileUndo) {
			c := u.Change
			switch u.Undid {
			case "reject":
				fmt.Fprintf(o.Stdout, "undid the reject of v%d: %s has Claude's text back; the change is pending again\n", c.Version, termtext.Line(c.Path))
			case "approve":
				fmt.Fprintf(o.Stdout, "undid the approve of v%d (%s): the change is pending again\n", c.Version, termtext.Line(c.Path))
			default:
				fmt.Fprintf(o.Stdout, "undid the restore v%d: %s has the text it replaced back\n", c.Version, termtext.Line(c.Path))
			}
		})
}

func newMemFilesHistoryCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "history FILE|VERSION", Short: "List every kept text of an auto-memory file (restore any with `restore VERSION`)",
		Long: `history lists the texts cairn kept of one auto-memory file, oldest first:
its baseline, the changes Claude made (pending, approved, rejected or
withdrawn: changed back before review) and the texts restored. FILE is the
file's path or its end (MEMORY.md, or <folder>/memory/MEMORY.md when several
projects have one); a version names its file too.`, Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) ([]memories.FileChange, error) {
			return svc.Sync.MemoryFileHistory(ctx, args[0])
		},
		func(cs []memories.FileChange) {
			if len(cs) == 0 {
				return
			}
			fmt.Fprintf(o.Stdout, "%s\n", termtext.Line(cs[0].Path))
			t := o.newTable()
			t.header("VERSION", "STATUS", "SEEN", "REVIEWED", "LINES", "CHANGE", "NOW")
			for _, c := range cs {
				var now []string
				if c.Current {
					now = append(now, "reviewed")
				}
				if c.OnDisk {
					now = append(now, "on disk")
				}
				change := "-"
				if c.Base != 0 {
					change = changeLabel(c) + fmt.Sprintf(" vs v%d", c.Base)
				}
				lines := strings.Count(c.New, "\n")
				if c.New != "" && !strings.HasSuffix(c.New, "\n") {
					lines++
				}
				t.row(fmt.Sprintf("v%d", c.Version), c.Status, fmtTime(c.Seen), fmtTime(c.Reviewed), fmt.Sprint(lines), change, strings.Join(now, ", "))
			}
			t.flush()
			fmt.Fprintln(o.Stdout, "see one: cairn memories files show VERSION · put one back: cairn memories files restore VERSION")
		})
}

func newMemFilesRestoreCmd(o *Options) *cobra.Command {
	var from int64
	return serviceCmd(o, &cobra.Command{Use: "restore VERSION", Short: "Write a kept text back to its auto-memory file; it becomes the reviewed text", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) (*memories.FileChange, error) {
			id, err := memories.ParseFileVersion(args[0])
			if err != nil {
				return nil, usageError{err}
			}
			from = id
			return svc.Sync.RestoreMemoryFile(ctx, id)
		},
		func(c *memories.FileChange) {
			fmt.Fprintf(o.Stdout, "restored the text of v%d to %s, now the reviewed text (v%d; undo: cairn memories files undo)\n", from, termtext.Line(c.Path), c.Version)
		})
}

// noteMemoryFiles says, under a listing of memories, how many changes to
// auto-memory files wait for review (of project; "": all).
func noteMemoryFiles(ctx context.Context, o *Options, svc *memories.Service, project string) {
	if n, err := svc.Sync.PendingMemoryFiles(ctx, project); err == nil && n > 0 {
		fmt.Fprintf(o.Stdout, "%d change(s) Claude made to its auto-memory files wait for review: cairn memories files\n", n)
	}
}

// reportMemoryFiles says what an index run could not read of the
// auto-memory files, and (changes) how many changes wait for review.
func reportMemoryFiles(o *Options, res app.IndexResult, changes bool) {
	for _, p := range res.MemoryFiles.Problems {
		fmt.Fprintln(o.Stderr, "cairn: warning:", termtext.Line(p))
	}
	if res.MemoryFilesErr != nil {
		fmt.Fprintln(o.Stderr, "cairn: warning: auto-memory files not read:", termtext.Line(res.MemoryFilesErr.Error()))
	}
	if n := len(res.MemoryFiles.Changes); changes && n > 0 {
		fmt.Fprintf(o.Stdout, "%d new change(s) Claude made to its auto-memory files wait for review: cairn memories files\n", n)
	}
}
