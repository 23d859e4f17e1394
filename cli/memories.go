package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parseTypes reads a comma-separated list of memory types (a usage error
// names the bad one and the valid ones).
func parseTypes(list string) ([]memories.Type, error) {
	var out []memories.Type
	for _, s := range splitList(list) {
		t, err := memories.ParseType(s)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, t)
	}
	return out, nil
}

// parseStatuses reads a comma-separated list of memory statuses; "all"
// is every status (nil).
func parseStatuses(list string) ([]memories.Status, error) {
	var out []memories.Status
	for _, s := range splitList(list) {
		if s == "all" {
			return nil, nil
		}
		st, err := memories.ParseStatus(s)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, st)
	}
	return out, nil
}

// scoped narrows f to the --type list and the --project (whose global
// memories come along).
func scoped(ctx context.Context, st *index.Store, f memories.Filter, types, project string) (memories.Filter, error) {
	var err error
	if f.Types, err = parseTypes(types); err != nil {
		return f, err
	}
	p, err := resolveProject(ctx, st, project)
	if err != nil {
		return f, err
	}
	f.Project, f.IncludeGlobal = p, p != ""
	return f, nil
}

// resolveProject turns --project into one stored project path, by the
// store's one rule (index.Store.MatchProjects).
func resolveProject(ctx context.Context, st *index.Store, p string) (string, error) {
	r, err := st.ResolveProject(ctx, p)
	if errors.Is(err, index.ErrAmbiguousProject) || errors.Is(err, index.ErrNoProject) {
		return "", usageError{err}
	}
	return r, err
}

func newMemoriesCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "memories",
		Aliases: []string{"memory", "mem"},
		Short:   "Review and curate memories: list, show, approve, reject, edit, rm, merge, add, undo, import-claude, files",
		Long: `Memories are the distilled facts cairn extracts from your sessions (see
` + "`cairn extract`" + `) or that you add. They land pending; approved memories are
recalled, injected by the hooks and synced into CLAUDE.md (` + "`cairn sync`" + `).

Ids are "m-" and 8 hex characters; any 4+ characters of one will do.`,
	}
	cmd.AddCommand(newMemListCmd(o), newMemShowCmd(o), newMemStatusCmd(o, "approve", memories.Approved),
		newMemStatusCmd(o, "reject", memories.Rejected), newMemStatusCmd(o, "archive", memories.Archived),
		newMemEditCmd(o), newMemRmCmd(o), newMemMergeCmd(o), newMemAddCmd(o), newMemUndoCmd(o), newMemImportClaudeCmd(o),
		newMemSearchCmd(o), newMemConsolidateCmd(o), newMemFilesCmd(o))
	return cmd
}

// printMemList shows the memories listed, through the pager.
func printMemList(o *Options, ms []memories.Memory) {
	if len(ms) == 0 {
		fmt.Fprintln(o.Stdout, "no memories (run `cairn extract` to propose some from your sessions)")
		return
	}
	o.page(func() error { printMemories(o, ms); return nil })
}

// firstN is the first n of list (all of it when n is 0 or less).
func firstN[T any](list []T, n int) []T {
	if n > 0 && len(list) > n {
		return list[:n]
	}
	return list
}

func newMemListCmd(o *Options) *cobra.Command {
	var status, typ, project, tag string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories (pending first, then newest)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				st := svc.Store()
				statuses, err := parseStatuses(status)
				if err != nil {
					return err
				}
				f, err := scoped(cmd.Context(), st, memories.Filter{Limit: limit, Statuses: statuses}, typ, project)
				if err != nil {
					return err
				}
				if tag != "" {
					f.Limit = 0 // filtered below
				}
				ms, err := svc.List(cmd.Context(), f)
				if err != nil {
					return err
				}
				if tags := splitList(tag); len(tags) > 0 {
					ms = firstN(withTags(ms, tags), limit)
				}
				if o.JSON {
					return writeJSON(o.Stdout, ms)
				}
				printMemList(o, ms)
				noteMemoryFiles(cmd.Context(), o, svc, f.Project)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&status, "status", "pending,approved", "statuses to list (comma-separated): pending, approved, rejected, superseded, archived or all")
	f.StringVar(&typ, "type", "", "types to list (comma-separated): "+memories.TypeList(", "))
	f.StringVar(&project, "project", "", "only this project's memories (and global ones); a path, part of one, or .")
	f.IntVar(&limit, "limit", 0, "at most this many")
	f.StringVar(&tag, "tag", "", "only memories carrying all these tags (comma-separated)")
	flagCheck(cmd, "type", checkTypes)
	flagCheck(cmd, "status", checkStatuses)
	addJSONFlag(cmd, o)
	addWideFlag(cmd, o)
	return cmd
}

// checkTypes is the flag check of a comma-separated list of memory types
// (memories.ParseType's rule).
func checkTypes(list string) error {
	_, err := parseTypes(list)
	return err
}

// checkType is the flag check of one memory type.
func checkType(s string) error {
	_, err := memories.ParseType(s)
	return err
}

// checkStatuses is the flag check of a comma-separated list of memory
// statuses or "all" (memories.ParseStatus's rule).
func checkStatuses(list string) error {
	for _, s := range splitList(list) {
		if s == "all" {
			continue
		}
		if _, err := memories.ParseStatus(s); err != nil {
			return err
		}
	}
	return nil
}

// withTags keeps the memories that carry every tag.
func withTags(ms []memories.Memory, tags []string) []memories.Memory {
	out := ms[:0]
	for _, m := range ms {
		ok := true
		for _, t := range tags {
			ok = ok && slices.Contains(m.Tags, strings.ToLower(t))
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// dropPartial takes the partial matches (only some of the words) out of
// rs, in place, and says how many it took.
func dropPartial(rs []memories.Ranked) (kept []memories.Ranked, hidden int) {
	kept = rs[:0]
	for _, r := range rs {
		if r.Match == index.MatchPartial {
			hidden++
		} else {
			kept = append(kept, r)
		}
	}
	return kept, hidden
}

// markMatches is the memories of rs as printMemories shows them, each
// matched by meaning led by "≈ " and each matched in part by "½ ", with
// how many of each.
func markMatches(rs []memories.Ranked) (ms []memories.Memory, meaning, part int) {
	ms = make([]memories.Memory, len(rs))
	for i, r := range rs {
		ms[i] = r.Memory
		switch r.Match {
		case index.MatchMeaning:
			ms[i].Content = "≈ " + ms[i].Content
			meaning++
		case index.MatchPartial:
			ms[i].Content = "½ " + ms[i].Content
			part++
		}
	}
	return ms, meaning, part
}

func newMemSearchCmd(o *Options) *cobra.Command {
	var typ, tag string
	var limit int
	var partial bool
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find memories (any status but rejected) by words and meaning",
		Long: `search ranks memories of every status but rejected by how well they match
QUERY (shared words, and the built-in vectors when trained), without the
full-text index: fast, and it works while another cairn holds the index.
` + "`cairn search --kind memories`" + ` searches them with the hybrid search.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			types, err := parseTypes(typ)
			if err != nil {
				return err
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				rs, err := svc.Recall.Search(cmd.Context(), strings.Join(args, " "), types, splitList(tag), limit)
				if err != nil {
					return err
				}
				// Partial matches (only some of the words) are shown
				// on request, as `cairn search` shows them.
				hidden := 0
				if !partial {
					rs, hidden = dropPartial(rs)
				}
				if o.JSON {
					if rs == nil {
						rs = []memories.Ranked{}
					}
					return writeJSON(o.Stdout, rs)
				}
				printMemSearch(o, rs, hidden)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "only these types (comma-separated)")
	f.StringVar(&tag, "tag", "", "only memories carrying all these tags (comma-separated)")
	f.IntVar(&limit, "limit", 10, "at most this many")
	f.BoolVar(&partial, "partial", false, "also show memories holding only some of the query's words, marked ½")
	flagCheck(cmd, "type", checkTypes)
	addJSONFlag(cmd, o)
	addWideFlag(cmd, o)
	return cmd
}

// printMemSearch shows the memories rs found, and how: by words, by
// meaning, in part, with the partial matches hidden counted.
func printMemSearch(o *Options, rs []memories.Ranked, hidden int) {
	if len(rs) == 0 {
		fmt.Fprintln(o.Stdout, "no matches by words or meaning; try other or fewer words, drop --type or --tag, or `cairn search` for past sessions")
		if hidden > 0 {
			fmt.Fprintf(o.Stdout, "%d memories hold only some of its words: --partial shows them\n", hidden)
		}
		return
	}
	ms, meaning, part := markMatches(rs)
	printMemories(o, ms)
	line := fmt.Sprintf("%d matched by words · %d by meaning (≈: none of the words)", len(rs)-meaning-part, meaning)
	if part > 0 {
		line += fmt.Sprintf(" · %d in part (½: some of the words)", part)
	}
	if hidden > 0 {
		line += fmt.Sprintf(" · %d partial hidden (--partial)", hidden)
	}
	fmt.Fprintln(o.Stdout, o.fitLine(o.Stdout, line))
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func printMemories(o *Options, ms []memories.Memory) {
	t := o.newTable()
	t.header("ID", "STATUS", "TYPE", "IMP", "PROJECT", "UPDATED", "CONTENT")
	t.cut(4, 18, false)
	t.cut(6, 70, false)
	t.keep(6, 40)
	t.optional(2, 5, 3) // on a narrow terminal: importance, updated, type go first
	now := time.Now()
	for _, m := range ms {
		proj := "global"
		if m.Project != "" {
			proj = filepath.Base(m.Project)
		}
		t.row(m.ID, string(m.Status), string(m.Type), strconv.Itoa(m.Importance), proj, human.Ago(m.Updated, now, nil),
			strings.Join(strings.Fields(m.Content), " "))
	}
	t.flush()
}

func newMemShowCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a memory with its source and links",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				m, err := svc.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				files, err := svc.Recall.SourceFiles(cmd.Context(), m)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, struct {
						*memories.Memory
						Files []memories.SourceFile `json:"files"`
					}{m, files})
				}
				printMemory(o.Stdout, m)
				printSourceFiles(o.Stdout, files)
				for _, l := range m.Links {
					if x, err := svc.Get(cmd.Context(), l.Target); err == nil {
						fmt.Fprintf(o.Stdout, "\n%s %s (%s, %s): %s", l.Kind, x.ID, x.Type, x.Status, truncate(termtext.Line(oneLineText(x.Content)), 100))
					}
				}
				if len(m.Links) > 0 {
					fmt.Fprintln(o.Stdout)
				}
				return nil
			})
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}

// printSourceFiles lists the files a memory's source turns edited, marked
// when they changed since or are gone: the memory may no longer hold.
func printSourceFiles(w io.Writer, files []memories.SourceFile) {
	if len(files) == 0 {
		return
	}
	const shown = 5
	stale := 0
	for i, f := range files {
		mark := ""
		if st := f.State(); st != "" {
			mark, stale = "  ("+st+")", stale+1
		}
		if i < shown {
			fmt.Fprintf(w, "file:     %s%s\n", termtext.Line(f.Path), mark)
		}
	}
	if len(files) > shown {
		fmt.Fprintf(w, "          … and %d more (--json lists them all)\n", len(files)-shown)
	}
	if stale > 0 {
		fmt.Fprintf(w, "stale:    %d of %d files changed or gone since this was learned: check it still holds\n", stale, len(files))
	}
}

func printMemory(w io.Writer, m *memories.Memory) {
	proj := m.Project
	if proj == "" {
		proj = "(global)"
	}
	fmt.Fprintf(w, "%s  %s %s  importance %d  confidence %.2f\n", m.ID, m.Status, m.Type, m.Importance, m.Confidence)
	fmt.Fprintf(w, "project:  %s\n", termtext.Line(proj))
	if len(m.Tags) > 0 {
		fmt.Fprintf(w, "tags:     %s\n", termtext.Line(strings.Join(m.Tags, ", ")))
	}
	fmt.Fprintf(w, "origin:   %s", m.Origin)
	if m.SourceSession != "" {
		fmt.Fprintf(w, "  session %s", m.SourceSession)
	}
	fmt.Fprintln(w)
	if len(m.SourceUUIDs) > 0 {
		fmt.Fprintf(w, "entries:  %s\n", strings.Join(m.SourceUUIDs, ", "))
	}
	fmt.Fprintf(w, "created:  %s  updated %s\n", fmtTime(m.Created), fmtTime(m.Updated))
	fmt.Fprintf(w, "used:     accessed %d, injected %d, used %d\n", m.AccessCount, m.Injected, m.Used)
	for _, l := range m.Links {
		fmt.Fprintf(w, "link:     %s %s\n", l.Kind, l.Target)
	}
	fmt.Fprintln(w)
	for _, line := range strings.Split(m.Content, "\n") {
		fmt.Fprintln(w, "  "+termtext.Line(line))
	}
}

func newMemStatusCmd(o *Options, verb string, st memories.Status) *cobra.Command {
	var all bool
	var typ, project string
	cmd := &cobra.Command{
		Use:   verb + " ID... | " + verb + " --all [--type T] [--project P]",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " memories",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usageError{fmt.Errorf("give memory ids, or --all (with --type/--project) for every pending one")}
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				ids := args
				if all {
					var err error
					if ids, err = pendingIDs(cmd.Context(), svc, typ, project); err != nil {
						return err
					}
				}
				out, err := setStatuses(cmd.Context(), o, svc, verb, st, ids)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, out)
				}
				if all {
					fmt.Fprintf(o.Stdout, "%d memories %s\n", len(out), st)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&all, "all", false, "every pending memory (narrowed by --type and --project)")
	f.StringVar(&typ, "type", "", "with --all: only these types (comma-separated)")
	f.StringVar(&project, "project", "", "with --all: only this project's memories")
	flagCheck(cmd, "type", checkTypes)
	cmd.Long = memStatusLong[verb]
	addJSONFlag(cmd, o)
	return cmd
}

// memStatusLong is the help of the status commands that have more to say.
var memStatusLong = map[string]string{
	"approve": "Approve memories: they are recalled, injected and synced. A memory that supersedes others marks them superseded.",
	"reject":  "Reject memories: they are kept (so extraction never proposes them again) but never used.",
}

// pendingIDs are the ids of every pending memory of the types typ names
// (comma-separated, all when empty) in project (all when empty).
func pendingIDs(ctx context.Context, svc *memories.Service, typ, project string) ([]string, error) {
	f := memories.Filter{Statuses: []memories.Status{memories.Pending}}
	types, err := parseTypes(typ)
	if err != nil {
		return nil, err
	}
	f.Types = types
	p, err := resolveProject(ctx, svc.Store(), project)
	if err != nil {
		return nil, err
	}
	f.Project = p
	ms, err := svc.List(ctx, f)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// setStatuses gives the memories ids (full or short) the status st as one
// entry of the journal, so `cairn memories undo` takes the whole command
// back, and prints each one changed unless the output is JSON.
func setStatuses(ctx context.Context, o *Options, svc *memories.Service, verb string, st memories.Status, ids []string) ([]*memories.Memory, error) {
	full := make([]string, 0, len(ids))
	for _, id := range ids {
		m, err := svc.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		full = append(full, m.ID)
	}
	what := fmt.Sprintf("%s %s", verb, strings.Join(full, " "))
	if len(full) > 3 {
		what = fmt.Sprintf("%s %d memories", verb, len(full))
	}
	out := []*memories.Memory{}
	err := svc.Curator.Record(ctx, what, full, func(ctx context.Context) error {
		for _, id := range full {
			m, err := svc.Curator.SetStatus(ctx, id, st)
			if err != nil {
				return err
			}
			out = append(out, m)
			if !o.JSON {
				fmt.Fprintf(o.Stdout, "%s %s: %s\n", m.ID, st, truncate(termtext.Line(oneLineText(m.Content)), 80))
			}
		}
		return nil
	})
	return out, err
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func newMemEditCmd(o *Options) *cobra.Command {
	var ef editFlags
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Edit a memory in $EDITOR, or with --content/--type/--importance/--tags",
		Long: `edit changes a memory. With --content, --type, --importance, --tags or
--project it changes those fields; with none of them it opens the memory in
$VISUAL or $EDITOR (vi when unset): header lines "# type:", "# importance:"
and "# tags:" can be changed too, other lines starting with # are ignored,
and an empty file leaves the memory unchanged.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				m, err := svc.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				u, err := ef.update(cmd.Flags())
				if err != nil {
					return err
				}
				if u == (memories.Update{}) {
					u, err = editInEditor(cmd.Context(), o, m)
					if err != nil {
						return err
					}
					if u == (memories.Update{}) {
						fmt.Fprintln(o.Stderr, "cairn: nothing changed")
						return nil
					}
				}
				id := m.ID
				err = svc.Curator.Record(cmd.Context(), "edit "+id, []string{id}, func(ctx context.Context) error {
					m, err = svc.Curator.Update(ctx, id, u)
					return err
				})
				if err != nil {
					return err
				}
				return reply(o, m, "%s updated", m.ID)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&ef.content, "content", "", "new content")
	f.StringVar(&ef.typ, "type", "", "new type")
	f.IntVar(&ef.importance, "importance", 3, "new importance, 1 (minor) to 5 (critical)")
	f.StringVar(&ef.tags, "tags", "", "new tags, comma-separated (empty: none)")
	f.StringVar(&ef.project, "project", "", "new project path (empty: global)")
	flagCheck(cmd, "type", checkType)
	flagRange(cmd, "importance", 1, 5, "1 minor to 5 critical")
	addJSONFlag(cmd, o)
	return cmd
}

// editFlags are the fields `memories edit` sets from its flags.
type editFlags struct {
	content, typ, tags, project string
	importance                  int
}

// update is the change the flags given in f make (none when none is).
func (ef *editFlags) update(f *pflag.FlagSet) (memories.Update, error) {
	var u memories.Update
	if f.Changed("content") {
		u.Content = &ef.content
	}
	if f.Changed("type") {
		t, err := memories.ParseType(ef.typ)
		if err != nil {
			return u, usageError{err}
		}
		u.Type = &t
	}
	if f.Changed("importance") {
		u.Importance = &ef.importance
	}
	if f.Changed("tags") {
		tl := splitList(ef.tags)
		u.Tags = &tl
	}
	if f.Changed("project") {
		u.Project = &ef.project
	}
	return u, nil
}

// editInEditor opens the memory in the user's editor and returns what changed.
func editInEditor(ctx context.Context, o *Options, m *memories.Memory) (memories.Update, error) {
	text := fmt.Sprintf("# type: %s\n# importance: %d\n# tags: %s\n# Edit the memory below. Lines starting with # are ignored; an empty file changes nothing.\n%s\n",
		m.Type, m.Importance, strings.Join(m.Tags, ", "), m.Content)
	edited, err := editText(ctx, o, text, "cairn-memory-*.md")
	if err != nil {
		return memories.Update{}, err
	}
	return parseEdited(edited, m)
}

// parseEdited reads the edited file back into an update of what changed.
func parseEdited(text string, m *memories.Memory) (memories.Update, error) {
	var u memories.Update
	var body []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			body = append(body, line)
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
		if !ok {
			continue
		}
		if set := editedFields[strings.TrimSpace(k)]; set != nil {
			if err := set(&u, m, strings.TrimSpace(v)); err != nil {
				return u, err
			}
		}
	}
	content := strings.TrimSpace(strings.Join(body, "\n"))
	if content == "" {
		return memories.Update{}, nil
	}
	if content != m.Content {
		u.Content = &content
	}
	return u, nil
}

// editedFields are the "# key: value" header lines parseEdited reads:
// each sets its field of u to v when v differs from m's.
var editedFields = map[string]func(u *memories.Update, m *memories.Memory, v string) error{
	"type": func(u *memories.Update, m *memories.Memory, v string) error {
		t, err := memories.ParseType(v)
		if err != nil {
			return err
		}
		if t != m.Type {
			u.Type = &t
		}
		return nil
	},
	"importance": func(u *memories.Update, m *memories.Memory, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("importance %q is not a number", v)
		}
		if n != m.Importance {
			u.Importance = &n
		}
		return nil
	},
	"tags": func(u *memories.Update, m *memories.Memory, v string) error {
		tl := splitList(v)
		if strings.Join(tl, ",") != strings.Join(m.Tags, ",") {
			u.Tags = &tl
		}
		return nil
	},
}

func newMemRmCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete memories (undo with `cairn memories undo`)",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				var ids []string
				for _, id := range args {
					m, err := svc.Get(cmd.Context(), id)
					if err != nil {
						return err
					}
					id := m.ID
					if err := svc.Curator.Record(cmd.Context(), "delete "+id, []string{id}, func(ctx context.Context) error {
						return svc.Curator.Delete(ctx, id)
					}); err != nil {
						return err
					}
					ids = append(ids, m.ID)
					if !o.JSON {
						fmt.Fprintf(o.Stdout, "deleted %s (undo: cairn memories undo)\n", m.ID)
					}
				}
				if o.JSON {
					return writeJSON(o.Stdout, map[string]any{"deleted": ids})
				}
				return nil
			})
		},
	}
	addJSONFlag(cmd, o)
	return cmd
}

func newMemUndoCmd(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Undo the last action on memories (approve, reject, archive, edit, rm, merge; from here or the TUI), newest first",
		Long: `undo takes back the newest action recorded in the memory journal, from
this command line or the TUI (u there is the same undo): the memories it
changed are put back as they were and those it deleted are restored. Run it
again to undo the action before, and so on. With nothing recorded it
restores the most recently deleted memory, as before the journal.`,
		Args: cobra.NoArgs,
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		return withMemories(c.Context(), o, false, func(svc *memories.Service) error {
			ctx := c.Context()
			e, err := svc.Curator.UndoLast(ctx)
			if errors.Is(err, memories.ErrNothingLogged) {
				m, err := svc.Curator.Undo(ctx)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, map[string]any{"undid": "delete " + m.ID, "memories": []string{m.ID}})
				}
				fmt.Fprintf(o.Stdout, "restored %s: %s\n", m.ID, truncate(termtext.Line(oneLineText(m.Content)), 80))
				return nil
			}
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Stdout, map[string]any{"undid": e.What, "at": e.At, "memories": e.IDs()})
			}
			fmt.Fprintf(o.Stdout, "undid %s (%s): %d %s as they were\n", termtext.Line(e.What), e.At.Local().Format("2006-01-02 15:04"),
				len(e.Before), plural(len(e.Before), "memory", "memories"))
			return nil
		})
	}
	addJSONFlag(cmd, o)
	return cmd
}

func newMemMergeCmd(o *Options) *cobra.Command {
	var content string
	cmd := &cobra.Command{Use: "merge KEEP OTHER",
		Short: "Merge OTHER into KEEP: KEEP holds what both said (or --content), gains OTHER's sources and tags; OTHER becomes superseded",
		Args:  cobra.ExactArgs(2)}
	cmd.Flags().StringVar(&content, "content", "", "the merged memory's text (default: KEEP's text, then what OTHER says that KEEP does not)")
	return serviceCmd(o, cmd,
		func(ctx context.Context, svc *memories.Service, args []string) (*memories.Memory, error) {
			keep, err := svc.Get(ctx, args[0])
			if err != nil {
				return nil, err
			}
			other, err := svc.Get(ctx, args[1])
			if err != nil {
				return nil, err
			}
			var m *memories.Memory
			err = svc.Curator.Record(ctx, "merge "+other.ID+" into "+keep.ID, []string{keep.ID, other.ID}, func(ctx context.Context) error {
				m, err = svc.Curator.MergeWith(ctx, keep.ID, other.ID, content)
				return err
			})
			return m, err
		},
		func(m *memories.Memory) {
			fmt.Fprintf(o.Stdout, "merged into %s: %s\n", m.ID, truncate(termtext.Line(oneLineText(m.Content)), 80))
		})
}

func newMemAddCmd(o *Options) *cobra.Command {
	var typ, tags, project, status, session string
	var importance int
	var global bool
	cmd := &cobra.Command{
		Use:   "add CONTENT",
		Short: "Add a memory by hand (pending unless --status approved)",
		Long: `add stores a memory you write. CONTENT "-" reads it from stdin. It is
checked for duplicates like extracted ones: a near-copy bumps the existing
memory instead. Secrets are redacted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			content := args[0]
			if content == "-" {
				b, err := io.ReadAll(io.LimitReader(o.Stdin, 1<<20))
				if err != nil {
					return err
				}
				content = string(b)
			}
			return withMemories(cmd.Context(), o, false, func(svc *memories.Service) error {
				t, err := memories.ParseType(typ)
				if err != nil {
					return usageError{err}
				}
				n := memories.NewMemory{Type: t, Content: content, Tags: splitList(tags), Importance: importance,
					Origin: memories.OriginManual, SourceSession: session}
				if status != "" {
					s, err := memories.ParseStatus(status)
					if err != nil {
						return usageError{err}
					}
					n.Status = s
				}
				return addMemory(cmd.Context(), o, svc, n, project, global, func(w io.Writer, r memories.AddResult) {
					fmt.Fprintf(w, "%s %s (%s)\n", r.Action, r.Memory.ID, r.Memory.Status)
					for _, c := range r.Conflicts {
						fmt.Fprintf(w, "  may contradict %s: review both (cairn memories show %s)\n", c, c)
					}
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "fact", "type: "+memories.TypeChoice())
	f.StringVar(&tags, "tags", "", "tags, comma-separated")
	f.IntVar(&importance, "importance", 3, "1 (minor) to 5 (critical)")
	f.StringVar(&project, "project", "", "project path or part of one (default: the current directory)")
	f.BoolVar(&global, "global", false, "a memory for every project")
	f.StringVar(&status, "status", "", "pending (default) or approved")
	f.StringVar(&session, "session", "", "the session it comes from")
	flagCheck(cmd, "type", checkType)
	flagRange(cmd, "importance", 1, 5, "1 minor to 5 critical")
	flagChoices(cmd, "status", false, string(memories.Pending), string(memories.Approved))
	addJSONFlag(cmd, o)
	return cmd
}

func newMemImportClaudeCmd(o *Options) *cobra.Command {
	var dry bool
	cmd := &cobra.Command{
		Use:   "import-claude",
		Short: "Import Claude Code's own memory files (projects/<P>/memory/*.md) as pending memories",
		Long: `import-claude reads the memory files Claude Code keeps per project
(<claude-dir>/projects/<P>/memory/*.md) and proposes each entry as a pending
memory of that project, de-duplicated against what cairn already has. The
files are only read, never changed. ` + "`cairn extract`" + ` runs this too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			claude, err := o.ResolveClaudeDir()
			if err != nil {
				return err
			}
			return withMemories(cmd.Context(), o, true, func(svc *memories.Service) error {
				res, err := svc.Sync.ImportClaudeMemory(cmd.Context(), claude, dry)
				if err != nil {
					return err
				}
				if o.JSON {
					return writeJSON(o.Stdout, res)
				}
				printProposed(o, res.Proposed, dry)
				fmt.Fprintf(o.Stdout, "%d memory file(s) read\n", res.Files)
				for _, p := range res.Problems {
					fmt.Fprintln(o.Stderr, "cairn: warning:", p)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show what would be imported without storing it")
	addJSONFlag(cmd, o)
	return cmd
}

// printProposed lists extraction results grouped by action.
func printProposed(o *Options, rs []memories.AddResult, dry bool) {
	counts := map[string]int{}
	t := o.newTable()
	if slices.ContainsFunc(rs, func(r memories.AddResult) bool { return !r.Unchanged }) {
		t.header("ACTION", "ID", "TYPE", "CONTENT")
	}
	for _, r := range rs {
		if r.Unchanged {
			counts["unchanged"]++
			continue
		}
		counts[r.Action]++
		id := r.Memory.ID
		if dry && r.Action == memories.ActionAdded {
			id = "(new)"
		}
		t.row(r.Action, id, string(r.Memory.Type), truncate(oneLineText(r.Memory.Content), 90))
	}
	t.flush()
	for _, r := range rs {
		for _, c := range r.Conflicts {
			fmt.Fprintf(o.Stdout, "note: %q may contradict %s; review both (cairn memories show %s)\n",
				truncate(oneLineText(r.Memory.Content), 60), c, c)
		}
	}
	fmt.Fprintln(o.Stdout, proposedCounts(counts, dry))
}

// proposedCounts is the line that counts extraction results by action.
func proposedCounts(counts map[string]int, dry bool) string {
	var parts []string
	for _, a := range []string{memories.ActionAdded, memories.ActionMerged, memories.ActionBumped, memories.ActionSkippedRejected, "unchanged"} {
		if counts[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[a], a))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing new"}
	}
	prefix := ""
	if dry {
		prefix = "dry run, nothing stored: "
	}
	return prefix + strings.Join(parts, ", ")
}
