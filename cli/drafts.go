package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newDraftsCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "drafts",
		Aliases: []string{"draft"},
		Short:   "Session summary drafts (from /summarize): add, list, show, approve, reject, edit",
		Long: `Drafts are session summaries written by Claude (the /summarize command
saves them with the MCP tool session_save_summary; ` + "`cairn drafts add --session ID`" + `
takes one on stdin). They wait as pending until you
approve them: approving stores the draft as the session's summary and
proposes pending memories from its Decisions, Discoveries and Learned lines.`,
	}
	cmd.AddCommand(newDraftAddCmd(o), newDraftListCmd(o), newDraftShowCmd(o), newDraftApproveCmd(o),
		newDraftRejectCmd(o), newDraftEditCmd(o))
	return cmd
}

func newDraftAddCmd(o *Options) *cobra.Command {
	var session string
	cmd := &cobra.Command{
		Use:   "add --session ID",
		Short: "Store a summary draft (Markdown on stdin) as pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if session == "" {
				return usageError{fmt.Errorf("--session is required (the session the summary is about; see `cairn sessions`)")}
			}
			b, err := io.ReadAll(io.LimitReader(o.Stdin, memories.MaxDraftBytes+1))
			if err != nil {
				return fmt.Errorf("reading the draft from stdin: %w", err)
			}
			return withMemories(cmd.Context(), o, true, func(svc *memories.Service) error {
				d, err := svc.Drafts.AddDraft(cmd.Context(), session, string(b))
				if err != nil {
					return err
				}
				return reply(o, d, "draft %s stored for session %s (pending: cairn drafts show %s)", d.ID, d.SessionID, d.ID)
			})
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the session the summary is about (id or 8+ characters)")
	addJSONFlag(cmd, o)
	return cmd
}

func newDraftListCmd(o *Options) *cobra.Command {
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List drafts (newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				ds, err := svc.Drafts.Drafts(cmd.Context(), status)
				if err != nil {
					return usageError{err}
				}
				if o.JSON {
					return writeJSON(o.Stdout, ds)
				}
				if len(ds) == 0 {
					fmt.Fprintln(o.Stdout, "no drafts")
					return nil
				}
				t := o.newTable()
				t.header("ID", "STATUS", "SESSION", "CREATED", "FIRST LINE")
				now := time.Now()
				for _, d := range ds {
					t.row(d.ID, d.Status, d.SessionID[:min(8, len(d.SessionID))], human.Ago(d.Created, now, nil), truncate(firstLine(d.Markdown), 60))
				}
				return t.flush()
			})
		},
	}
	cmd.Flags().StringVar(&status, "status", "pending", "pending, approved, rejected or all")
	flagChoices(cmd, "status", false, "pending", "approved", "rejected", "all")
	addJSONFlag(cmd, o)
	return cmd
}

func firstLine(md string) string {
	for _, l := range strings.Split(md, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "#-* ")); l != "" {
			return l
		}
	}
	return ""
}

func newDraftShowCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "show ID", Short: "Print a draft", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) (*memories.Draft, error) {
			return svc.Drafts.Draft(ctx, args[0])
		},
		func(d *memories.Draft) {
			fmt.Fprintf(o.Stdout, "%s  %s  session %s  %s\n\n", d.ID, d.Status, d.SessionID, fmtTime(d.Created))
			for _, l := range strings.Split(strings.TrimRight(d.Markdown, "\n"), "\n") {
				fmt.Fprintln(o.Stdout, termtext.Safe(l))
			}
		})
}

// approval is what approving a draft did.
type approval struct {
	Draft    *memories.Draft      `json:"draft"`
	Proposed []memories.AddResult `json:"proposed"`
}

func newDraftApproveCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "approve ID", Short: "Store the draft as its session's summary and propose memories from it", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) (approval, error) {
			d, rs, err := svc.Drafts.ApproveDraft(ctx, args[0])
			return approval{d, nonNilResults(rs)}, err
		},
		func(a approval) {
			fmt.Fprintf(o.Stdout, "draft %s approved: stored as the summary of session %s\n", a.Draft.ID, a.Draft.SessionID)
			printProposed(o, a.Proposed, false)
		})
}

func nonNilResults(rs []memories.AddResult) []memories.AddResult {
	if rs == nil {
		return []memories.AddResult{}
	}
	return rs
}

func newDraftRejectCmd(o *Options) *cobra.Command {
	return serviceCmd(o, &cobra.Command{Use: "reject ID", Short: "Reject a draft (it is kept, marked rejected)", Args: cobra.ExactArgs(1)},
		func(ctx context.Context, svc *memories.Service, args []string) (*memories.Draft, error) {
			if err := svc.Drafts.RejectDraft(ctx, args[0]); err != nil {
				return nil, err
			}
			return svc.Drafts.Draft(ctx, args[0])
		},
		func(d *memories.Draft) { fmt.Fprintf(o.Stdout, "draft %s rejected\n", d.ID) })
}

func newDraftEditCmd(o *Options) *cobra.Command {
	var stdin bool
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Edit a draft in $EDITOR (or replace it with Markdown on stdin: --stdin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				d, err := svc.Drafts.Draft(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				var md string
				if stdin {
					b, err := io.ReadAll(io.LimitReader(o.Stdin, memories.MaxDraftBytes+1))
					if err != nil {
						return err
					}
					md = string(b)
				} else {
					md, err = editText(cmd.Context(), o, d.Markdown, "cairn-draft-*.md")
					if err != nil {
						return err
					}
					if md == d.Markdown {
						fmt.Fprintln(o.Stderr, "cairn: nothing changed")
						return nil
					}
				}
				d, err = svc.Drafts.EditDraft(cmd.Context(), d.ID, md)
				if err != nil {
					return err
				}
				return reply(o, d, "draft %s updated", d.ID)
			})
		},
	}
	cmd.Flags().BoolVar(&stdin, "stdin", false, "read the new Markdown from stdin instead of opening an editor")
	addJSONFlag(cmd, o)
	return cmd
}

// editText opens text in $VISUAL/$EDITOR (else vi) and returns what was
// saved.
func editText(ctx context.Context, o *Options, text, pattern string) (string, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	// A short write (a full disk) would open an empty or cut file whose
	// save then replaces the whole text: refuse before the editor opens.
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("writing the text to edit to %s: %w; nothing was changed", f.Name(), werr)
	}
	parts := strings.Fields(editor)
	c := exec.CommandContext(ctx, parts[0], append(parts[1:], f.Name())...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, o.Stdout, o.Stderr
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("editor %q failed: %w (set $VISUAL or $EDITOR)", editor, err)
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}
