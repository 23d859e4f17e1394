package app

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memories"
)

// Profile says who runs the pipeline, which sets how hard it may work.
type Profile int

const (
	// Bulk is `cairn index` and the commands that index first: every core,
	// big transactions.
	Bulk Profile = iota
	// Interactive is the TUI's background indexing: a core left to the UI,
	// small transactions so readers never wait long, little memory.
	Interactive
	// Hook is a Claude Code hook's cheap variant: one worker, the given
	// project folders only, small transactions a deadline can cut short,
	// no full-text index (it stays queued for the next process that opens
	// it) and no vectors.
	Hook
)

// IndexOptions tune one run of the pipeline.
type IndexOptions struct {
	Profile Profile
	// Projects limits the sync to these project folders (names under
	// projects/); nil: all.
	Projects []string
	// Rebuild rebuilds the full-text index (and, with it, the vectors)
	// from the store; Retrain retrains the built-in embedder.
	Rebuild, Retrain bool
	// NoSync, with Rebuild, rebuilds the derived indexes from the store
	// without reading the transcripts (after a restore).
	NoSync bool
	// NoEmbed leaves vectors queued for a later run.
	NoEmbed bool
	// Recount reads every transcript again and aggregates each session
	// whose files are all on disk afresh (index.SyncOptions.Recount).
	Recount bool
	// StoreOnly syncs the store alone: the full-text documents and the
	// vectors stay queued for the next run that does them (listings that
	// only need the store; the Hook profile always).
	StoreOnly bool
	// LockWait is how long to wait for another process's full-text index
	// (0: 2 s). On time-out its work stays queued.
	LockWait time.Duration
	// DrainFTS, when set, owns the full-text index (the TUI's searcher
	// holds it open): the pipeline leaves the documents queued and calls
	// it once the store is written.
	DrainFTS func(ctx context.Context, progress func(done int)) (int, error)
	// Extract runs the post-index policy: memories are proposed from the
	// new entries (of Session only, when set) by the built-in extractor.
	// An Ollama extractor takes seconds a call, so it is left to the
	// caller's background work (IndexResult.ExtractDeferred).
	Extract bool
	Session string
	// Progress, when set, receives the pipeline's progress (from several
	// goroutines; keep it quick).
	Progress func(Progress)
}

// Progress is one report from the pipeline.
type Progress struct {
	// Stage is StageSync, StageFullText, StageEmbeddings or StageExtract.
	Stage string
	// Sync is the sync's progress (StageSync).
	Sync index.Progress
	// Done counts the stage's documents (StageFullText).
	Done int
	// Message is a short human phase message ("embeddings: 4000 documents").
	Message string
}

// The pipeline's stages, in order.
const (
	StageSync       = "reading transcripts"
	StageFullText   = "full-text"
	StageEmbeddings = "embeddings"
	StageExtract    = "memories"
)

// IndexResult says what a run did.
type IndexResult struct {
	index.UpdateStats
	// Proposed counts the memories the post-index extraction added.
	Proposed int
	// ExtractDeferred is set when extraction is the caller's background
	// work (memories.extractor = "ollama").
	ExtractDeferred bool
	// ExtractErr is why extraction did not run to the end; it does not
	// fail the run (the cursor stays where it was).
	ExtractErr error
	// MemoryFiles is what the run found in Claude Code's auto-memory
	// files: baselines and changes now waiting for review
	// (memories.ObserveMemoryFiles). MemoryFilesErr is why that stopped;
	// it does not fail the run.
	MemoryFiles    memories.FileObservation
	MemoryFilesErr error
}

// Index is cairn's one indexing pipeline: sync the store with the
// transcripts → the full-text index → embeddings with the configured
// embedder → the vector cache → Claude's auto-memory files (a change
// waits for review) → the post-index policy (extraction). The CLI, the
// TUI and the hooks differ only in Profile and options.
func (a *App) Index(ctx context.Context, o IndexOptions) (IndexResult, error) {
	report := o.Progress
	if report == nil {
		report = func(Progress) {}
	}
	var res IndexResult
	var err error
	res.UpdateStats, err = a.Store.Update(ctx, a.Paths.ClaudeDir, a.updateOptions(o, report))
	if err != nil {
		return res, err
	}
	if o.DrainFTS != nil && !o.storeOnly() {
		n, err := o.DrainFTS(ctx, func(n int) { report(Progress{Stage: StageFullText, Done: n}) })
		res.FTSDocs += n
		if err != nil {
			return res, err
		}
	}
	// Claude's own auto-memory files are a reviewed source: a change to
	// one waits in the review inbox as a diff.
	res.MemoryFiles, res.MemoryFilesErr = a.Memories.Sync.ObserveMemoryFiles(ctx, a.Paths.ClaudeDir, o.Projects)
	if o.Extract {
		a.extract(ctx, o, &res, report)
	}
	return res, nil
}

// updateOptions are the store update's settings for o: a store-only run
// (a hook's) and one that drains the full-text queue itself leave the
// full-text index to later, a store-only run the embeddings too.
func (a *App) updateOptions(o IndexOptions, report func(Progress)) index.UpdateOptions {
	return index.UpdateOptions{
		Sync:     a.syncOptions(o, report),
		Rebuild:  o.Rebuild,
		NoSync:   o.NoSync && o.Rebuild,
		Retrain:  o.Retrain,
		NoEmbed:  o.NoEmbed || o.storeOnly(),
		LockWait: o.LockWait,
		DeferFTS: o.DrainFTS != nil || o.storeOnly(),
		Status:   func(msg string) { report(Progress{Stage: StageEmbeddings, Message: msg}) },
	}
}

func (o IndexOptions) storeOnly() bool { return o.StoreOnly || o.Profile == Hook }

// syncOptions are the sync settings of a profile.
func (a *App) syncOptions(o IndexOptions, report func(Progress)) index.SyncOptions {
	so := index.SyncOptions{
		Projects: o.Projects,
		Recount:  o.Recount,
		ToolHead: a.Config.Index.ToolOutputHead,
		ToolTail: a.Config.Index.ToolOutputTail,
		Progress: func(p index.Progress) { report(Progress{Stage: StageSync, Sync: p}) },
	}
	switch o.Profile {
	case Interactive:
		so.Workers = max(1, runtime.NumCPU()-1) // leave a core to the UI
		so.Budget = 16 << 20
		so.BatchEntries, so.BatchBytes = 2000, 16<<20
	case Hook:
		so.Workers = 1
		// Small transactions: each one holds the write lock briefly, and a
		// deadline keeps what was committed.
		so.BatchEntries, so.BatchBytes = 2000, 8<<20
	}
	return so
}

// ExtractMax caps the entries a hook's extraction reads per session (the
// cursor moves past what was read; the next Stop goes on): it bounds the
// hook's time on a session that was never extracted.
const ExtractMax = 400

// extract is the post-index policy: propose memories from new entries.
func (a *App) extract(ctx context.Context, o IndexOptions, res *IndexResult, report func(Progress)) {
	if !a.Memories.Model().Policy().InHook {
		res.ExtractDeferred = true
		return
	}
	if ctx.Err() != nil {
		res.ExtractErr = ctx.Err()
		return
	}
	report(Progress{Stage: StageExtract, Message: "proposing memories"})
	eo := memories.ExtractOptions{Session: o.Session}
	if o.Profile == Hook {
		eo.MaxEntries = ExtractMax
	}
	r, err := a.Memories.Curator.Extract(ctx, eo)
	res.Proposed = r.Added()
	if err != nil && !errors.Is(err, context.Canceled) {
		res.ExtractErr = err
	}
}
