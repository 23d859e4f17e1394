package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/human"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/termtext"

	"github.com/spf13/cobra"
)

func newIndexCmd(o *Options) *cobra.Command {
	var rebuild, retrain, noEmbed, recount bool
	var profile func(*Options) func()
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Index new transcript lines into the store, the full-text index and the vectors",
		Long: `index reads every transcript line added since the last run (all of them the
first time) into cairn's store, fills the full-text index while it does, then
brings the vectors up to date with the configured embedder (built-in by
default; Ollama when embedder.kind = "ollama"). --rebuild throws the derived
indexes away and rebuilds them from the store; the store itself is never
deleted. --recount reads every transcript again and counts each session whose
files are all still on disk afresh (after an upgrade that reads transcripts
better); nothing stored is lost. Interrupted runs resume where they stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer profile(o)()
			a, err := openApp(o, app.Options{})
			if err != nil {
				return err
			}
			defer a.Close()
			res, err := updateStore(cmd.Context(), o, a, app.IndexOptions{Rebuild: rebuild, Retrain: retrain || rebuild, NoEmbed: noEmbed, Recount: recount})
			stats := res.UpdateStats
			reportDamage(o, stats)
			if err != nil {
				return err
			}
			if stats.FTSBusy {
				fmt.Fprintln(o.Stderr, "cairn: the full-text index is busy (another cairn holds it): its updates stay queued for the next run")
			}
			if stats.EmbedErr != nil {
				fmt.Fprintln(o.Stderr, "cairn: warning: embeddings not updated:", stats.EmbedErr)
			}
			s := stats.Sync
			mb := float64(s.BytesRead) / (1 << 20)
			secs := stats.Duration.Seconds()
			fmt.Fprintf(o.Stdout, "indexed %d files (%d new, %d changed, %d missing), %.1f MB, %d entries added, %d duplicates, %d bad lines, %d secrets redacted; %d documents to full-text, %d embedded (%s) in %.1fs\n",
				s.FilesScanned, s.FilesNew, s.FilesChanged, s.FilesMissing, mb, s.EntriesAdded,
				s.Duplicates, s.BadLines, s.Redactions, stats.FTSDocs, stats.Embedded, human.OrDash(stats.Embedder), secs)
			reportMemoryFiles(o, res, true)
			return nil
		},
	}
	profile = addProfileFlags(cmd)
	cmd.Flags().BoolVar(&rebuild, "rebuild", false, "rebuild the full-text index and the embeddings from the store")
	cmd.Flags().BoolVar(&retrain, "retrain", false, "retrain the built-in embedder on the current store")
	cmd.Flags().BoolVar(&noEmbed, "no-embed", false, "leave the vectors for a later run (they stay queued)")
	cmd.Flags().BoolVar(&recount, "recount", false, "read every transcript again and count its sessions afresh (those whose files are all on disk)")
	return cmd
}

// reportDamage says what a run found damaged in the store and repaired or
// left out.
func reportDamage(o *Options, stats index.UpdateStats) {
	if ic := stats.Integrity; !ic.OK() {
		if ic.IndexesOnly {
			fmt.Fprintf(o.Stderr, "cairn: the store's indexes were damaged (%s); rebuilt them, nothing was lost\n", termtext.Line(ic.Problems[0]))
		} else {
			fmt.Fprintf(o.Stderr, "cairn: the store is damaged (%s): what can be read was indexed; run `cairn doctor --full` for what to do\n", termtext.Line(ic.Problems[0]))
		}
	}
	if stats.Damaged > 0 {
		fmt.Fprintf(o.Stderr, "cairn: %d document(s) could not be read from the damaged store and were left out of the full-text index; %d of them were re-read from their transcripts; run `cairn doctor --full`\n", stats.Damaged, stats.Repaired)
	}
}

// updateStore runs the indexing pipeline (app.App.Index) for a command,
// drawing a progress bar on a terminal stderr and then the phase that
// follows (full-text catching up, embeddings). It reports what could not
// be read; the caller reports the rest.
func updateStore(ctx context.Context, o *Options, a *app.App, opts app.IndexOptions) (app.IndexResult, error) {
	collectForBulk, restore := boundMemory(160 << 20)
	defer restore()
	if opts.Rebuild || opts.Retrain {
		collectForBulk()
	}
	progress := newIndexProgress(o.Stderr)
	opts.Progress = func(p app.Progress) {
		if p.Stage == app.StageSync && p.Sync.BytesTotal > 32<<20 {
			collectForBulk()
		}
		progress.report(p)
	}
	res, err := a.Index(ctx, opts)
	progress.finish()
	reportSync(o, res.Sync)
	return res, err
}

// boundMemory is the garbage collector's policy of a command that
// indexes. A bulk run allocates a lot of short-lived memory: collect less
// often, but within bound (bytes: the runtime's soft memory limit), so
// peak RSS stays ~280 MB on a 1 GB corpus (`cairn index`; `cairn remote
// sync` pulling one: 513 MB without it). A small run (the usual
// incremental one) does not collect at all below the bound: its garbage
// dies with the process. bulk switches to the bulk policy (once a run
// turns out big); restore puts the settings back.
func boundMemory(bound int64) (bulk, restore func()) {
	gc := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(bound)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(300) }) },
		func() {
			debug.SetMemoryLimit(limit)
			debug.SetGCPercent(gc)
		}
}

// indexProgress shows an indexing run on a terminal: the progress bar
// while transcripts are read, then one line for the phases that follow
// (full-text catching up, embeddings), each with its latest message, and
// the time since reading ended, redrawn every second so a long step (a
// first index trains the built-in model, bleve writes its segments) never
// looks stuck. Off a terminal it shows nothing. It is safe for concurrent
// use.
type indexProgress struct {
	w       io.Writer
	bar     *progressBar // nil off a terminal
	mu      sync.Mutex
	barDone bool
	// After the bar: each phase's latest message, in the order the
	// phases first spoke, and when reading ended.
	phases []string
	latest map[string]string
	since  time.Time
	tick   time.Duration    // redraw period; 0: only on a message (tests)
	clock  func() time.Time // nil: time.Now
	stop   chan struct{}    // closed by finish: the redraw ends
	drawn  chan struct{}    // closed by the redraw when it has ended
}

func newIndexProgress(w io.Writer) *indexProgress {
	p := &indexProgress{w: w, tick: time.Second}
	if isTerminal(w) {
		p.bar = newProgressBar(w, "indexing")
	}
	return p
}

func (ip *indexProgress) now() time.Time {
	if ip.clock != nil {
		return ip.clock()
	}
	return time.Now()
}

// report is the app.IndexOptions.Progress callback.
func (ip *indexProgress) report(p app.Progress) {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if ip.bar == nil {
		return
	}
	if p.Stage != app.StageSync {
		if p.Message == "" {
			return
		}
		ip.note(p.Message)
		if ip.barDone {
			ip.draw()
		}
		return
	}
	ip.bar.update(p.Sync.FilesDone, p.Sync.FilesTotal, p.Sync.BytesDone, p.Sync.BytesTotal, p.Sync.Entries)
	if p.Sync.FilesDone == p.Sync.FilesTotal && !ip.barDone {
		ip.bar.done()
		ip.barDone = true
		ip.since = ip.now()
		if ip.tick > 0 {
			ip.stop, ip.drawn = make(chan struct{}), make(chan struct{})
			go ip.redraw(ip.stop, ip.drawn)
		}
	}
}

// note keeps msg as its phase's latest: the phase is what precedes the
// first colon ("full-text index: 4000 documents").
func (ip *indexProgress) note(msg string) {
	phase, _, _ := strings.Cut(msg, ":")
	if ip.latest == nil {
		ip.latest = map[string]string{}
	}
	if _, ok := ip.latest[phase]; !ok {
		ip.phases = append(ip.phases, phase)
	}
	ip.latest[phase] = msg
}

// draw writes the phases' line (ip.mu held), cut to the terminal's width
// so that \r can redraw it.
func (ip *indexProgress) draw() {
	if len(ip.phases) == 0 {
		return
	}
	parts := make([]string, 0, len(ip.phases)+1)
	for _, ph := range ip.phases {
		parts = append(parts, ip.latest[ph])
	}
	parts = append(parts, elapsed(ip.now().Sub(ip.since)))
	line := []rune(strings.Join(parts, " · "))
	if w := ip.bar.width - 1; w > 0 && len(line) > w {
		line = append(line[:w-1], '…')
	}
	fmt.Fprintf(ip.w, "\r%s\x1b[K", string(line))
}

// elapsed is a ticking clock: 7s, 1m05s, 1h02m.
func elapsed(d time.Duration) string {
	switch d = d.Truncate(time.Second); {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// redraw redraws the phases' line every tick until stop is closed; it
// closes drawn when it has ended, so that nothing is drawn after finish.
func (ip *indexProgress) redraw(stop, drawn chan struct{}) {
	defer close(drawn)
	t := time.NewTicker(ip.tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ip.mu.Lock()
			if ip.stop == stop { // finish has not begun
				ip.draw()
			}
			ip.mu.Unlock()
		}
	}
}

// finish clears what the run left on the line: the bar, or the phases'
// line.
func (ip *indexProgress) finish() {
	ip.mu.Lock()
	stop, drawn := ip.stop, ip.drawn
	ip.stop, ip.drawn = nil, nil
	ip.mu.Unlock()
	if stop != nil {
		close(stop)
		<-drawn
	}
	ip.mu.Lock()
	defer ip.mu.Unlock()
	switch {
	case ip.bar == nil:
	case ip.barDone:
		fmt.Fprint(ip.w, "\r\x1b[K")
	default:
		ip.bar.done()
	}
	ip.barDone = true
}
