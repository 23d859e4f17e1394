package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

// currentProject is the project the slash commands act on: the git
// repository (index.ProjectOf) of Claude Code's launch root
// ($CLAUDE_PROJECT_DIR), else of the working directory.
func currentProject() string {
	if p := os.Getenv("CLAUDE_PROJECT_DIR"); p != "" && filepath.IsAbs(p) {
		return index.ProjectOf(p)
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return index.ProjectOf(wd)
}

// memoryProject is the project a new memory is filed under: none with
// --global, else --project by the store's rule, else the current project.
// `cairn remember` (/remember) and `cairn memories add` share it.
func memoryProject(ctx context.Context, st *index.Store, project string, global bool) (string, error) {
	switch {
	case global:
		return "", nil
	case project != "":
		return resolveProject(ctx, st, project)
	}
	return currentProject(), nil
}

// addMemory files n under the project --project and --global name (see
// memoryProject), adds it and reports the result: as JSON with --json,
// else with print. memories add and remember both end here.
func addMemory(ctx context.Context, o *Options, svc *memories.Service, n memories.NewMemory, project string, global bool,
	print func(io.Writer, memories.AddResult)) error {
	var err error
	if n.Project, err = memoryProject(ctx, svc.Store(), project, global); err != nil {
		return err
	}
	r, err := svc.Curator.Add(ctx, n)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Stdout, r)
	}
	print(o.Stdout, r)
	return nil
}

func newRememberCmd(o *Options) *cobra.Command {
	var typ, tags, project string
	var importance int
	var global bool
	cmd := &cobra.Command{
		Use:   "remember [TEXT...]",
		Short: "Remember something for future sessions (what /remember runs; pending review unless configured)",
		Long: `remember adds a memory for the current project (or --global) from its
arguments, or from stdin when there are none. It lands pending review unless
memories.remember_status = "approved" in the config. Near-duplicates bump
the existing memory instead of adding another; secrets are redacted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			content, err := rememberContent(args, o.Stdin)
			if err != nil {
				return err
			}
			t, err := memories.ParseType(typ)
			if err != nil {
				return usageError{err}
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				n := memories.NewMemory{Type: t, Content: content, Tags: splitList(tags), Importance: importance,
					Origin: memories.OriginRemember, SourceSession: os.Getenv("CLAUDE_CODE_SESSION_ID")}
				return addMemory(cmd.Context(), o, svc, n, project, global, printRemembered)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "fact", memories.TypeChoice())
	f.StringVar(&tags, "tags", "", "tags, comma-separated")
	f.IntVar(&importance, "importance", 3, "1 (minor) to 5 (critical)")
	f.StringVar(&project, "project", "", "the project (default: $CLAUDE_PROJECT_DIR or the current directory)")
	f.BoolVar(&global, "global", false, "a memory for every project")
	flagCheck(cmd, "type", checkType)
	flagRange(cmd, "importance", 1, 5, "1 minor to 5 critical")
	addJSONFlag(cmd, o)
	return cmd
}

// rememberContent is what /remember was given: the arguments, or stdin
// when there are none or the only one is "-".
func rememberContent(args []string, stdin io.Reader) (string, error) {
	content := strings.Join(args, " ")
	if len(args) == 0 || content == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return "", err
		}
		content = string(b)
	}
	if strings.TrimSpace(content) == "" {
		return "", usageError{fmt.Errorf("nothing to remember: pass the text as arguments or on stdin")}
	}
	return content, nil
}

// printRemembered says what became of the memory and which memories it
// may contradict.
func printRemembered(w io.Writer, r memories.AddResult) {
	m := r.Memory
	switch {
	case r.Action == memories.ActionSkippedRejected:
		fmt.Fprintf(w, "not saved: you rejected this memory before (%s)\n", m.ID)
	case r.Action != memories.ActionAdded:
		fmt.Fprintf(w, "%s %s: a similar memory exists (%s)\n", r.Action, m.ID, m.Status)
	case m.Status == memories.Pending:
		fmt.Fprintf(w, "remembered %s (%s), pending review: run `cairn` or `cairn memories approve %s`\n", m.ID, m.Type, m.ID)
	default:
		fmt.Fprintf(w, "remembered %s (%s, %s)\n", m.ID, m.Type, m.Status)
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "  may contradict %s: review both (cairn memories show %s)\n", c, c)
	}
}

// recallChars bounds what /recall puts into the conversation.
const recallChars = 12000

func newRecallCmd(o *Options) *cobra.Command {
	var project string
	var stdin bool
	cmd := &cobra.Command{
		Use:   "recall [QUERY...]",
		Short: "Print the project's memory, or memories and past sessions matching a query, as Markdown (what /recall runs)",
		Long: `recall prints, as Markdown for Claude to read: with no query, the current
project's approved memories (best first) and its latest session summaries;
with a query, the approved memories and the past sessions that match it.
Output is bounded (about 3,000 tokens). --stdin reads the query from
stdin instead, so no shell interprets it. (/recall hands the user's text to
the MCP tools memory_search and memory_recall instead: the same search.)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			query := strings.TrimSpace(strings.Join(args, " "))
			if stdin {
				b, err := io.ReadAll(io.LimitReader(o.Stdin, maxStdinQuery+1))
				if err != nil {
					return fmt.Errorf("reading the query from stdin: %w", err)
				}
				if len(b) > maxStdinQuery {
					return usageError{fmt.Errorf("the query on stdin is over %d bytes: pass a shorter one", maxStdinQuery)}
				}
				query = strings.TrimSpace(strings.Join(append(args, strings.Join(strings.Fields(string(b)), " ")), " "))
			}
			ctx := cmd.Context()
			proj := currentProject()
			return withApp(ctx, o, false, func(a *app.App) error {
				if project != "" {
					var err error
					if proj, err = resolveProject(ctx, a.Store, project); err != nil {
						return err
					}
				}
				if _, err := syncStore(ctx, o, a, false); err != nil {
					fmt.Fprintln(o.Stderr, "cairn: warning: could not refresh the index:", err)
				}
				var b recallOutput
				var err error
				if query == "" {
					err = b.brief(ctx, a.Memories, proj)
				} else {
					err = b.matches(ctx, a.Memories, a.Store, proj, query)
				}
				if err != nil {
					return err
				}
				b.pendingReview(ctx, a.Memories)
				_, err = io.WriteString(o.Stdout, b.String())
				return err
			})
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "the project (default: $CLAUDE_PROJECT_DIR or the current directory)")
	cmd.Flags().BoolVar(&stdin, "stdin", false, "read the query from stdin (what /recall does, so no shell sees it)")
	return cmd
}

// maxStdinQuery bounds a query read with recall --stdin.
const maxStdinQuery = 64 << 10

// recallOutput is the Markdown /recall prints, bounded: once it holds
// recallChars, further lines are dropped.
type recallOutput struct {
	strings.Builder
}

// line adds one line (format is fmt.Printf's, without the newline).
func (b *recallOutput) line(format string, a ...any) {
	if b.Len() < recallChars {
		fmt.Fprintf(&b.Builder, format+"\n", a...)
	}
}

// brief is /recall without a query: the project's approved memories, best
// first, and its latest session summaries.
func (b *recallOutput) brief(ctx context.Context, svc *memories.Service, proj string) error {
	b.line("# cairn: memory of %s", oneLineMD(proj, 200))
	brief, err := svc.Recall.Brief(ctx, proj, memories.BriefOptions{Memories: 40, Summaries: 3})
	if err != nil {
		return err
	}
	b.line("\n## Approved memories (best first)")
	if len(brief.Memories) == 0 {
		b.line("None yet. Memories are extracted when sessions end and approved in `cairn`; /remember adds one.")
	}
	for _, m := range brief.Memories {
		b.line("- [%s] %s (%s)", m.Type, oneLineMD(m.Content, 400), m.ID)
	}
	if len(brief.Summaries) > 0 {
		b.line("\n## Latest session summaries")
		for _, s := range brief.Summaries {
			b.line("\n### Session %s (%s)", oneLineMD(s.SessionID, 80), s.Created.Local().Format("2006-01-02"))
			b.line("%s", truncate(termtext.Safe(s.Markdown), 1500))
		}
	}
	return nil
}

// matches is /recall with a query: the approved memories and the past
// sessions that match it.
func (b *recallOutput) matches(ctx context.Context, svc *memories.Service, st *index.Store, proj, query string) error {
	b.line("# cairn: recall %q in %s", oneLineMD(query, 200), oneLineMD(proj, 200))
	rs, err := svc.Recall.Rank(ctx, query, memories.RankOptions{Project: proj, Limit: 10, Touch: true})
	if err != nil {
		return err
	}
	b.line("\n## Matching approved memories")
	if len(rs) == 0 {
		b.line("None match by words or meaning.")
	}
	for _, m := range rs {
		b.line("- [%s] %s (%s, relevance %.2f%s)", m.Type, oneLineMD(m.Content, 400), m.ID, m.Score, byMeaning(m.Match))
	}
	b.line("\n## Matching past sessions")
	b.sessions(ctx, st, query)
	return nil
}

// sessions lists the past sessions that match query. A search that fails
// is a line in the output, not an error.
func (b *recallOutput) sessions(ctx context.Context, st *index.Store, query string) {
	sr, err := st.OpenSearcher(ctx, 3e9)
	if err != nil {
		b.line("(search unavailable: %v)", err)
		return
	}
	found, _, err := sr.RecallSessions(ctx, []string{query}, nil, 5)
	sr.Close()
	switch {
	case err != nil:
		b.line("(search failed: %v)", err)
	case len(found) == 0:
		b.line("None match by words or meaning.")
	default:
		for _, r := range found {
			b.line("- %s · %s · session %s%s: %s\n  > %s", r.Timestamp.Local().Format("2006-01-02"), oneLineMD(r.Project, 200), oneLineMD(r.SessionID, 80),
				matchNote(r.SearchResult), oneLineMD(r.Title, 120), oneLineMD(r.Snippet, 300))
		}
	}
}

// matchNote marks a session that holds only some of the query's words
// (with its relevance) or none of them (found by meaning).
func matchNote(r index.SearchResult) string {
	switch r.Match {
	case index.MatchPartial:
		return fmt.Sprintf(", partial: only some of the words, relevance %.2f", r.Relevance)
	case index.MatchTypo:
		return ", near spelling of the words"
	}
	return byMeaning(r.Match)
}

// byMeaning marks a match found by meaning alone (none of the words).
func byMeaning(match string) string {
	if match == index.MatchMeaning {
		return ", by meaning only"
	}
	return ""
}

// pendingReview says how much awaits the user's review, if anything.
func (b *recallOutput) pendingReview(ctx context.Context, svc *memories.Service) {
	if c, err := svc.Counts(ctx); err == nil && c.PendingMemories+c.PendingDrafts > 0 {
		b.line("\n%d memories and %d summary drafts await the user's review in `cairn`.", c.PendingMemories, c.PendingDrafts)
	}
}

// oneLineMD flattens untrusted text to one safe line.
func oneLineMD(s string, n int) string {
	return truncate(strings.Join(strings.Fields(termtext.Line(s)), " "), n)
}
