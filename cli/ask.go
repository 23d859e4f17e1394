package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/memories"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newAskCmd(o *Options) *cobra.Command {
	var project string
	var noModel bool
	var budget int
	cmd := &cobra.Command{
		Use:   `ask "QUESTION"`,
		Short: "Ask a question about past work: an answer citing memories and sessions, or the evidence",
		Long: `ask gathers the best approved memories, session summaries and excerpts of
past sessions for a question and, when a language model is configured
(memories.extractor = "claude" runs your Claude Code headless;
ollama.chat_model uses Ollama), returns a short answer citing the memory ids
([m-…]) and session ids ([s:…]) it used. With no model (or --no-model) it
prints the ranked evidence itself, labelled as such.`,
		Args: cobra.MinimumNArgs(1),
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project's sessions and memories")
	cmd.Flags().BoolVar(&noModel, "no-model", false, "print the ranked evidence without asking a model")
	cmd.Flags().IntVar(&budget, "budget", 8000, "characters of evidence handed to the model")
	flagRange(cmd, "budget", 500, 100000, "")
	return serviceCmd(o, cmd, func(ctx context.Context, svc *memories.Service, args []string) (memories.Answer, error) {
		q := strings.TrimSpace(strings.Join(args, " "))
		if q == "" {
			return memories.Answer{}, usageError{fmt.Errorf("the question is empty: cairn ask \"how did I fix the websocket bug?\"")}
		}
		p := ""
		if project != "" {
			var err error
			if p, err = svc.Store().ResolveProject(ctx, project); err != nil {
				return memories.Answer{}, err
			}
		}
		return svc.Recall.Ask(ctx, q, memories.AskOptions{Project: p, NoModel: noModel, Budget: budget})
	}, func(a memories.Answer) { printAnswer(o, a) })
}

func printAnswer(o *Options, a memories.Answer) {
	w := o.Stdout
	if a.Answer != "" {
		fmt.Fprintln(w, termtext.Safe(a.Answer))
		fmt.Fprintf(w, "\n— %s", a.Model)
		if len(a.Cited) > 0 {
			fmt.Fprintf(w, ", citing %s", strings.Join(a.Cited, " "))
		}
		fmt.Fprintln(w)
	}
	if a.Note != "" {
		fmt.Fprintln(o.Stderr, "cairn:", a.Note)
	}
	if len(a.Evidence) == 0 {
		return
	}
	if a.Answer != "" {
		fmt.Fprintln(w, "\nSources:")
	} else {
		fmt.Fprintln(w, "Evidence (no synthesized answer), best first:")
	}
	for i, e := range a.Evidence {
		if a.Answer != "" && !slices.Contains(a.Cited, e.Ref) {
			continue
		}
		fmt.Fprintln(w, evidenceHead(i+1, e))
		fmt.Fprintln(w, "   "+termtext.Line(truncate(oneLineText(e.Text), 300)))
	}
}

// evidenceHead is the nth piece of evidence's line: its ref, what it is,
// its title and its date.
func evidenceHead(n int, e memories.Evidence) string {
	head := fmt.Sprintf("%d. [%s] %s", n, e.Ref, e.Label())
	if e.Title != "" {
		head += " · " + termtext.Line(truncate(e.Title, 60))
	}
	if !e.Time.IsZero() {
		head += " · " + e.Time.Local().Format("2006-01-02")
	}
	return head
}
