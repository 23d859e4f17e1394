package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// SearchResultJSON is the stable --json shape of a search result.
type SearchResultJSON struct {
	Kind      string     `json:"kind"`
	SessionID string     `json:"session_id"`
	Project   string     `json:"project"`
	UUID      string     `json:"uuid"`
	Role      string     `json:"role"`
	Timestamp *time.Time `json:"timestamp"`
	Score     float64    `json:"score"`
	Title     string     `json:"title"`
	Snippet   string     `json:"snippet"`
	// Machine is the machine the session was synced from (cairn remote);
	// absent for this machine's.
	Machine string `json:"machine,omitempty"`
	// Match: "words" (holds the query's words), "prefix" (only longer
	// words starting as the last query word, with --prefix), "typo" (the
	// query as typed found nothing: holds its words with near spellings,
	// see corrected), "partial"
	// (some of the words, fewer than a full match holds; with --partial)
	// or "meaning" (no shared word; close in meaning, above the relevance
	// floor).
	Match string `json:"match"`
	// Relevance is 0..1 on a fixed scale: the share of the query's
	// information (its words weighted by rarity) the result holds.
	Relevance float64 `json:"relevance"`
}

// SearchJSON wraps results with how they were found.
type SearchJSON struct {
	Query    string             `json:"query"`
	Mode     string             `json:"mode"`
	Embedder string             `json:"embedder"`
	Notice   string             `json:"notice,omitempty"`
	TookMs   float64            `json:"took_ms"`
	Results  []SearchResultJSON `json:"results"`
	// Hint says what to try when nothing matched.
	Hint string `json:"hint,omitempty"`
	// PartialHidden counts the partial matches left out (--partial shows
	// them).
	PartialHidden int `json:"partial_hidden,omitempty"`
	// Corrected lists the near spellings searched for ("dialyzr →
	// dialyz") when the words as typed found nothing.
	Corrected []string `json:"corrected,omitempty"`
}

// searchFlags are the search flags parsed into the query when it runs.
type searchFlags struct {
	project, since, until, kind, role, subagents string
	recency                                      bool
}

func newSearchCmd(o *Options) *cobra.Command {
	var q index.SearchQuery
	var sf searchFlags
	var profile func(*Options) func()
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search every session by words and by meaning (hybrid BM25 + vectors)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defer profile(o)()
			q.Text = strings.Join(args, " ")
			if strings.TrimSpace(q.Text) == "" {
				return usageError{errors.New(`the query is empty: cairn search "websocket reconnect" (cairn sessions lists everything)`)}
			}
			if err := sf.apply(cmd, &q); err != nil {
				return err
			}
			tty := isTerminal(o.Stdout)
			if tty && !o.JSON {
				q.Highlight = func(s string) string { return termtext.MarkOn + s + termtext.MarkOff }
			}
			resp, err := runSearch(cmd.Context(), o, &q, sf.project)
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Stdout, searchJSON(q, resp))
			}
			return o.page(func() error { return printSearch(o, q, resp, tty) })
		},
	}
	f := cmd.Flags()
	addJSONFlag(cmd, o)
	addWideFlag(cmd, o)
	f.IntVar(&q.Limit, "limit", 10, "number of results")
	f.StringVar(&q.Mode, "mode", "hybrid", "hybrid, text or vector")
	f.StringVar(&sf.project, "project", "", "only this project (path or part of it)")
	f.StringVar(&q.Session, "session", "", "only this session id")
	f.StringVar(&q.Machine, "machine", "", "only sessions synced from this machine (cairn remote), or local for this machine's")
	f.StringVar(&sf.since, "since", "", "only results after this: 7d, 24h, 2w, or a date (2026-03-01)")
	f.StringVar(&sf.until, "until", "", "only results before this (same forms as --since)")
	f.StringVar(&sf.kind, "kind", "all", "messages, summaries, memories or all (comma-separated)")
	f.StringVar(&sf.role, "role", "", "user, assistant, tool or system (comma-separated)")
	f.StringVar(&sf.subagents, "subagents", "both", "both, only or none")
	f.BoolVar(&q.NoThinking, "no-thinking", false, "leave Claude's thinking out")
	f.BoolVar(&q.NoToolOutput, "no-tool-output", false, "leave tool output out")
	f.BoolVar(&q.GroupBySession, "group", false, "one result per session")
	f.BoolVar(&q.Partial, "partial", false, "also show partial matches (fewer of the query's words than a full match holds), marked, after the full ones")
	f.BoolVar(&q.Prefix, "prefix", false, "also match the last word as the start of longer words (websock → websocket), as the TUI does while typing; whole-word hits rank first")
	f.BoolVar(&sf.recency, "recency", false, "favour recent results (default: search.recency)")
	f.StringVar(&q.Fusion, "fusion", "", "how text and vector rankings are fused: weighted or rrf (k=60) (default: search.fusion)")
	f.Float64Var(&q.VectorWeight, "vector-weight", 0, "weight of the vectors against BM25 (default 0.3 weighted, 0.01 rrf)")
	flagRange(cmd, "limit", 1, index.MaxSearchLimit, fmt.Sprintf("a search ranks at most %d candidates", index.MaxSearchLimit))
	flagChoices(cmd, "mode", false, index.ModeHybrid, index.ModeText, index.ModeVector)
	flagChoices(cmd, "kind", true, "messages", "summaries", "memories", "all")
	flagChoices(cmd, "role", true, "user", "assistant", "tool", "system")
	flagChoices(cmd, "subagents", false, "both", "only", "none")
	flagChoices(cmd, "fusion", false, "weighted", "rrf")
	flagCheck(cmd, "since", checkSince)
	flagCheck(cmd, "until", checkSince)
	profile = addProfileFlags(cmd)
	return cmd
}

// apply parses the filter flags into q (the project is matched against
// the store later, in runSearch).
func (sf *searchFlags) apply(cmd *cobra.Command, q *index.SearchQuery) error {
	var err error
	now := time.Now()
	if q.Since, err = parseSince(sf.since, now); err != nil {
		return usageError{fmt.Errorf("--since: %w", err)}
	}
	if q.Until, err = parseSince(sf.until, now); err != nil {
		return usageError{fmt.Errorf("--until: %w", err)}
	}
	if sf.kind != "" {
		q.Kinds = strings.Split(sf.kind, ",")
	}
	if sf.role != "" {
		q.Roles = strings.Split(sf.role, ",")
	}
	switch sf.subagents {
	case "", "both":
	case "only":
		q.Subagents = ptr(true)
	case "none":
		q.Subagents = ptr(false)
	default:
		return usageError{fmt.Errorf("--subagents takes both, only or none, not %q", sf.subagents)}
	}
	// Ranking flags not given are left unset: the store fills them from
	// the [search] settings (index.SearchDefaults).
	if cmd.Flags().Changed("recency") {
		q.Recency = &sf.recency
	}
	return nil
}

// runSearch indexes what is new, then runs q in the projects matching
// project. With sessions stored, the two run at once: the search answers
// from what is stored while the refresh surveys the transcripts (most of
// a refresh that finds nothing: a stat a file), and runs again on the
// refreshed store only when the refresh wrote something. A store with
// nothing yet is indexed first, with progress.
func runSearch(ctx context.Context, o *Options, q *index.SearchQuery, project string) (*index.SearchResponse, error) {
	a, err := openApp(o, app.Options{MapReads: true})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if has, herr := a.Store.HasSessions(ctx); herr != nil || !has {
		if _, err := refreshBeforeSearch(ctx, o, a); err != nil {
			return nil, err
		}
		return searchStored(ctx, a, q, project)
	}
	changed := make(chan bool, 1)
	go func() {
		wrote, _ := refreshBeforeSearch(ctx, o, a) // with sessions stored, a failure is only a warning
		changed <- wrote
	}()
	resp, err := searchStored(ctx, a, q, project)
	// The searcher is closed: a refresh that needs the full-text index
	// writable is not kept waiting for it.
	if <-changed {
		return searchStored(ctx, a, q, project)
	}
	return resp, err
}

// searchStored runs q on what the store holds now.
func searchStored(ctx context.Context, a *app.App, q *index.SearchQuery, project string) (*index.SearchResponse, error) {
	var err error
	if q.Projects, err = a.Store.MatchProjects(ctx, project); err != nil {
		if errors.Is(err, index.ErrNoProject) {
			return nil, usageError{err}
		}
		return nil, err
	}
	sr, err := a.Store.OpenSearcher(ctx, 3*time.Second)
	if err != nil {
		return nil, err
	}
	defer sr.Close()
	resp, err := sr.Search(ctx, *q)
	if errors.Is(err, index.ErrNoMachine) {
		return nil, usageError{err}
	}
	return resp, err
}

// refreshBeforeSearch indexes what is new first (everything, with
// progress, on a machine that never indexed), and says whether it wrote
// anything a search reads. A failure leaves what is stored searchable,
// which the response's notice explains: it is only a warning unless
// nothing is stored.
func refreshBeforeSearch(ctx context.Context, o *Options, a *app.App) (bool, error) {
	stats, err := updateStore(ctx, o, a, app.IndexOptions{LockWait: 3 * time.Second})
	wrote := stats.Sync.Transactions > 0 || stats.FTSDocs > 0 || stats.Embedded > 0
	if err != nil {
		if s, serr := a.Store.Stats(ctx); serr != nil || s.Sessions == 0 {
			return wrote, err
		}
		fmt.Fprintln(o.Stderr, "cairn: warning: could not refresh the index:", err)
	} else if stats.EmbedErr != nil {
		fmt.Fprintln(o.Stderr, "cairn: warning: embeddings not updated:", stats.EmbedErr)
	}
	return wrote, nil
}

func ptr[T any](v T) *T { return &v }

// checkSince is the flag check of a time flag (parseSince's forms).
func checkSince(s string) error {
	_, err := parseSince(s, time.Now())
	return err
}

// sinceUnits is, by its letter, the time n of a unit before now: minutes,
// hours, and calendar days and weeks.
var sinceUnits = map[byte]func(now time.Time, n int) time.Time{
	'm': func(now time.Time, n int) time.Time { return now.Add(-time.Duration(n) * time.Minute) },
	'h': func(now time.Time, n int) time.Time { return now.Add(-time.Duration(n) * time.Hour) },
	'd': func(now time.Time, n int) time.Time { return now.AddDate(0, 0, -n) },
	'w': func(now time.Time, n int) time.Time { return now.AddDate(0, 0, -7*n) },
}

// parseSince reads 7d, 24h, 90m, 2w or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if ago, ok := sinceUnits[s[len(s)-1]]; ok {
		if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n >= 0 {
			return ago(now, n), nil
		}
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use 7d, 24h, 90m, 2w or a date like 2026-03-01", s)
}

func searchJSON(q index.SearchQuery, resp *index.SearchResponse) SearchJSON {
	out := SearchJSON{Query: q.Text, Mode: resp.Mode, Embedder: resp.Embedder, Notice: resp.Notice,
		TookMs: float64(resp.Took.Microseconds()) / 1000, Results: []SearchResultJSON{}}
	for _, r := range resp.Results {
		out.Results = append(out.Results, SearchResultJSON{Kind: r.Kind, SessionID: r.SessionID, Project: r.Project,
			UUID: r.UUID, Role: r.Role, Timestamp: timePtr(r.Timestamp), Score: r.Score, Title: r.Title, Snippet: r.Snippet, Match: r.Match, Relevance: r.Relevance,
			Machine: r.Machine})
	}
	out.PartialHidden, out.Corrected = resp.Partial, resp.Corrected
	if len(out.Results) == 0 {
		out.Hint = index.NoMatchesHint(q)
	}
	return out
}

// searchMatchMarks are the marks printSearch puts after a result that
// did not match all of the query's words as typed.
var searchMatchMarks = map[string]string{
	index.MatchMeaning: "[by meaning: none of the words]",
	index.MatchPartial: "[partial: some of the words]",
	index.MatchTypo:    "[near spelling]",
}

// resultTitle is a result's title as printSearch shows it: "(untitled)"
// for none, and led by "@machine · " for a remote session, as cairn
// sessions marks it.
func resultTitle(r index.SearchResult) string {
	title := r.Title
	if title == "" {
		title = "(untitled)"
	}
	if r.Machine != "" {
		title = "@" + r.Machine + " · " + title
	}
	return title
}

// resultHead is the nth result's first line: its title, whether it is
// archived, and what matched.
func resultHead(n int, r index.SearchResult, color bool) string {
	arch := ""
	if r.Archived {
		arch = " [archived]"
	}
	mark := ""
	if m, ok := searchMatchMarks[r.Match]; ok {
		mark = " " + sgr(color, "2", m)
	}
	return sgr(color, "1", fmt.Sprintf("%d. %s%s", n, termtext.Line(truncate(resultTitle(r), 100)), arch)) + mark
}

// printNoMatches says a search found nothing, what to try, and how many
// results matched only some of its words.
func printNoMatches(o *Options, q index.SearchQuery, partial int) {
	fmt.Fprintln(o.Stdout, "No matches by words or meaning for "+strconv.Quote(termtext.Line(q.Text))+"; "+strings.TrimPrefix(index.NoMatchesHint(q), "no matches; ")+".")
	if partial > 0 {
		fmt.Fprintf(o.Stdout, "%d result(s) hold only some of its words: --partial shows them.\n", partial)
	}
}

func printSearch(o *Options, q index.SearchQuery, resp *index.SearchResponse, tty bool) error {
	if resp.Notice != "" {
		fmt.Fprintln(o.Stderr, "cairn:", termtext.Line(resp.Notice))
	}
	if len(resp.Results) == 0 {
		printNoMatches(o, q, resp.Partial)
		return nil
	}
	color := o.useColor(tty)
	// On a terminal every line fits it (the snippet wraps under its
	// result); --wide and a pipe print them whole.
	width := 0
	if !o.Wide {
		width = terminalWidth(o.Stdout)
	}
	fit := func(s string) string { return truncate(s, width) }
	for i, r := range resp.Results {
		fmt.Fprintln(o.Stdout, fit(resultHead(i+1, r, color)))
		fmt.Fprintln(o.Stdout, fit("   "+sgr(color, "2", fmt.Sprintf("%s · %s · %s · %s · relevance %.2f", termtext.Line(human.Path(r.Project)), fmtTime(r.Timestamp), human.OrDash(r.Role), r.Kind, r.Relevance))))
		snippet := termtext.Highlight(r.Snippet, color)
		if width > 3 {
			snippet = ansi.Wrap(snippet, width-3, " ")
		}
		for _, l := range strings.Split(snippet, "\n") {
			fmt.Fprintln(o.Stdout, fit("   "+l))
		}
		fmt.Fprintln(o.Stdout, fit("   "+sgr(color, "2", "cairn show "+termtext.Line(r.SessionID))))
	}
	words, meaning := index.MatchCounts(resp.Results)
	partial := ""
	if resp.Partial > 0 {
		partial = fmt.Sprintf(" · %d partial hidden (--partial)", resp.Partial)
	}
	fmt.Fprintln(o.Stdout, fit(sgr(color, "2", fmt.Sprintf("%d matched by words · %d by meaning%s · %s · %s · %.0f ms", words, meaning, partial, resp.Mode, human.OrDash(resp.Embedder), float64(resp.Took.Microseconds())/1000))))
	return nil
}
