package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The one rule for dynamic shell completion (`cairn completion bash|zsh|
// fish|powershell`), installed on every command by completeFlags:
//
//   - an argument named SESSION_ID or SESSION completes session ids,
//     newest first, with their titles; an ID, ID..., KEEP or OTHER of a
//     `memories` command completes memory ids with their text; an ID of a
//     `drafts` command completes draft ids;
//   - --session completes session ids, --project the projects' paths,
//     --type and --status the memory types and statuses, --data and
//     --claude-dir folders;
//   - a flag given choices (flagChoices) completes them, after the last
//     comma for a list.
//
// Completion reads the store only when there is one: it never creates a
// data folder or indexes anything.

// completeLimit bounds the ids offered.
const completeLimit = 200

// completeFlags installs the completion rule on every command under root.
func completeFlags(root *cobra.Command) {
	root.CompletionOptions.HiddenDefaultCmd = false
	completeTree(root)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = knownShell(c)
		}
	}
}

// completeTree gives c and every command under it the completion of its
// arguments (unless c has its own) and of its flags.
func completeTree(c *cobra.Command) {
	if c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
		if fn := argCompleter(c); fn != nil {
			c.ValidArgsFunction = fn
		}
	}
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if fn := flagCompleter(f); fn != nil {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
	}
	for _, sub := range c.Commands() {
		completeTree(sub)
	}
}

// knownShell is the argument check of the completion command cobra adds
// (completion): an unknown shell is a usage error naming the shells, not
// its help and exit 0.
func knownShell(completion *cobra.Command) cobra.PositionalArgs {
	shells := []string{}
	for _, s := range completion.Commands() {
		shells = append(shells, s.Name())
	}
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("no completion for %q: the shells are %s", args[0], orList(shells))
		}
		return nil
	}
}

type completer = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective)

// argCompleter is the completion of c's arguments by the names its Use
// gives them.
func argCompleter(c *cobra.Command) completer {
	words := strings.Fields(c.Use)
	if len(words) < 2 {
		return nil
	}
	arg := strings.TrimSuffix(words[1], "...")
	parent := ""
	if c.HasParent() {
		parent = c.Parent().Name()
	}
	list, ok := idArgs[idArg{"", arg}]
	if !ok {
		list, ok = idArgs[idArg{parent, arg}]
	}
	if !ok {
		return nil
	}
	return completeIDs(c, list)
}

// idArg is an argument by the name a command's Use gives it, under a
// parent command ("" under any).
type idArg struct{ parent, name string }

// idArgs is the ids that complete an argument.
var idArgs = map[idArg]idLister{
	{"", "SESSION_ID"}:   sessionIDs,
	{"", "SESSION"}:      sessionIDs,
	{"memories", "ID"}:   memoryIDs,
	{"memories", "KEEP"}: memoryIDs,
	{"drafts", "ID"}:     draftIDs,
}

// flagCompleter is the completion of flag f's values.
func flagCompleter(f *pflag.Flag) completer {
	if choices, ok := f.Annotations[annChoices]; ok {
		_, multi := f.Annotations[annMulti]
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return listCompletion(choices, toComplete, multi), cobra.ShellCompDirectiveNoFileComp
		}
	}
	switch f.Name {
	case "claude-dir", "data":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	case "session":
		return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return fromStore(cmd, toComplete, sessionIDs)
		}
	case "project":
		return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return fromStore(cmd, toComplete, projectPaths)
		}
	case "type":
		var types []string
		for _, t := range memories.Types {
			types = append(types, string(t))
		}
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return listCompletion(types, toComplete, true), cobra.ShellCompDirectiveNoFileComp
		}
	case "status":
		statuses := []string{string(memories.Pending), string(memories.Approved), string(memories.Rejected),
			string(memories.Superseded), string(memories.Archived), "all"}
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return listCompletion(statuses, toComplete, true), cobra.ShellCompDirectiveNoFileComp
		}
	}
	return nil
}

// listCompletion offers the choices starting as toComplete does; for a
// comma-separated list, the choices after its last comma.
func listCompletion(choices []string, toComplete string, multi bool) []cobra.Completion {
	head, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); multi && i >= 0 {
		head, last = toComplete[:i+1], toComplete[i+1:]
	}
	var out []cobra.Completion
	for _, c := range choices {
		if strings.HasPrefix(c, last) && !strings.Contains(","+head, ","+c+",") {
			out = append(out, head+c)
		}
	}
	return out
}

// completeIDs completes one argument per call of list (a command taking
// several ids completes each).
func completeIDs(c *cobra.Command, list idLister) completer {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if !strings.Contains(c.Use, "...") && len(args) >= argCount(c.Use) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fromStore(cmd, toComplete, list)
	}
}

// argCount is how many arguments a Use line names ("merge KEEP OTHER": 2).
func argCount(use string) int {
	n := 0
	for _, w := range strings.Fields(use)[1:] {
		if w == strings.ToUpper(w) && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "[") {
			n++
		}
	}
	return n
}

// idLister lists what completes (value, description), from an open app.
type idLister func(ctx context.Context, a *app.App, prefix string) ([]cobra.Completion, error)

// fromStore runs list on the store the command's --data names, when it
// exists; completion must not create one.
func fromStore(cmd *cobra.Command, toComplete string, list idLister) ([]cobra.Completion, cobra.ShellCompDirective) {
	none := cobra.ShellCompDirectiveNoFileComp
	flag := func(name string) string {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	dataDir, err := app.DataDir(flag("data"))
	if err != nil {
		return nil, none
	}
	if _, err := os.Stat(filepath.Join(dataDir, index.DBName)); err != nil {
		return nil, none
	}
	a, err := app.Open(app.Paths{DataDir: dataDir, ClaudeDir: flag("claude-dir")}, app.Options{BusyTimeout: 200 * time.Millisecond})
	if err != nil {
		return nil, none
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := list(ctx, a, toComplete)
	if err != nil {
		cobra.CompDebugln("cairn: "+err.Error(), false)
	}
	return out, none
}

func describe(value, text string) cobra.Completion {
	return cobra.CompletionWithDesc(value, termtext.Line(truncate(strings.Join(strings.Fields(text), " "), 60)))
}

func sessionIDs(ctx context.Context, a *app.App, prefix string) ([]cobra.Completion, error) {
	ss, err := a.Store.Sessions(ctx, index.SessionFilter{Limit: completeLimit})
	if err != nil {
		return nil, err
	}
	var out []cobra.Completion
	for _, s := range ss {
		if strings.HasPrefix(s.ID, prefix) {
			out = append(out, describe(s.ID, s.Title))
		}
	}
	return out, nil
}

func memoryIDs(ctx context.Context, a *app.App, prefix string) ([]cobra.Completion, error) {
	ms, err := a.Memories.List(ctx, memories.Filter{Statuses: []memories.Status{memories.Pending, memories.Approved}, Limit: completeLimit})
	if err != nil {
		return nil, err
	}
	var out []cobra.Completion
	for _, m := range ms {
		if strings.HasPrefix(m.ID, prefix) {
			out = append(out, describe(m.ID, string(m.Status)+": "+m.Content))
		}
	}
	return out, nil
}

func draftIDs(ctx context.Context, a *app.App, prefix string) ([]cobra.Completion, error) {
	ds, err := a.Memories.Drafts.Drafts(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []cobra.Completion
	for _, d := range ds {
		if strings.HasPrefix(d.ID, prefix) {
			out = append(out, describe(d.ID, d.Status+": "+firstLine(d.Markdown)))
		}
	}
	return out, nil
}

func projectPaths(ctx context.Context, a *app.App, prefix string) ([]cobra.Completion, error) {
	ps, err := a.Store.Projects(ctx)
	if err != nil {
		return nil, err
	}
	var out []cobra.Completion
	for _, p := range ps {
		if strings.HasPrefix(p.Path, prefix) || strings.HasPrefix(filepath.Base(p.Path), prefix) {
			out = append(out, cobra.CompletionWithDesc(p.Path, fmt.Sprintf("%d sessions", p.Sessions)))
		}
	}
	if len(out) == 0 && prefix != "" {
		return nil, errors.New("no project starts with " + prefix)
	}
	return out, nil
}
