package transcripts

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Job is one file to read from a cursor.
type Job struct {
	File   File
	Cursor Cursor
}

// Result is a Job's outcome: the entries past the cursor and the new cursor.
type Result struct {
	Job     Job
	Entries []Entry
	Cursor  Cursor
	Stats   ReadStats
	Err     error // the file could not be read (the other files still are)
	Warning error // a side file could not be read (a subagent's meta.json): the entries still are
}

// DefaultBudget bounds the bytes of files being parsed at once by ReadAll.
const DefaultBudget = 48 << 20

// ReadAll parses jobs on `workers` goroutines (0 = all cores) and calls fn with
// each result in job order, so callers can aggregate deterministically. At most
// `budget` bytes of input are in flight at once (a larger file runs alone),
// which bounds memory on any corpus. fn returning an error stops the read.
func ReadAll(ctx context.Context, jobs []Job, workers int, budget int64, fn func(*Result) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	results := make([]chan *Result, len(jobs))
	for i := range results {
		results[i] = make(chan *Result, 1)
	}
	bud := newReadBudget(budget)
	work := make(chan int)
	go dispatch(ctx, jobs, bud, work)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] <- readJob(ctx, jobs[i])
			}
		}()
	}
	err := deliverResults(ctx, jobs, results, bud, fn)
	cancel()
	bud.wake()
	go func() { // drain so workers blocked on full result channels can exit
		for range work {
		}
	}()
	wg.Wait()
	return err
}

// dispatch sends the jobs' indexes to work in order, each once the byte
// budget admits it, until they are all sent or ctx ends; then it closes
// work.
func dispatch(ctx context.Context, jobs []Job, bud *readBudget, work chan<- int) {
	defer close(work)
	for i, j := range jobs {
		bud.admit(ctx, jobCost(j))
		select {
		case work <- i:
		case <-ctx.Done():
			return
		}
	}
}

// readJob reads one job's entries; reading stops early once ctx is done.
func readJob(ctx context.Context, j Job) *Result {
	r := &Result{Job: j}
	r.Warning = r.Job.File.loadMeta()
	r.Cursor, r.Stats, r.Err = ReadFile(j.File.Path, j.Cursor, func(e *Entry) error {
		r.Entries = append(r.Entries, *e)
		return ctx.Err()
	})
	return r
}

// deliverResults hands the results to fn in job order, releasing each
// job's bytes from the budget once fn is done with it. It stops at the
// first error of fn or when ctx is done.
func deliverResults(ctx context.Context, jobs []Job, results []chan *Result, bud *readBudget, fn func(*Result) error) error {
	for i := range jobs {
		var r *Result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := fn(r)
		bud.release(jobCost(jobs[i]))
		if err != nil {
			return err
		}
	}
	return nil
}

// jobCost is what a job counts against the byte budget: the bytes left to
// read, at least 1.
func jobCost(j Job) int64 {
	return max(j.File.Size-j.Cursor.Offset, 1)
}

// readBudget bounds the bytes of the jobs in flight (admitted and not yet
// handed over). One job is always admitted, however large.
type readBudget struct {
	mu       sync.Mutex
	cond     *sync.Cond
	inflight int64
	limit    int64
}

func newReadBudget(limit int64) *readBudget {
	b := &readBudget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// admit waits until c more bytes fit (or nothing is in flight, or ctx is
// done) and counts them in.
func (b *readBudget) admit(ctx context.Context, c int64) {
	b.mu.Lock()
	for b.inflight > 0 && b.inflight+c > b.limit && ctx.Err() == nil {
		b.cond.Wait()
	}
	b.inflight += c
	b.mu.Unlock()
}

// release counts c bytes out and wakes the dispatcher.
func (b *readBudget) release(c int64) {
	b.mu.Lock()
	b.inflight -= c
	b.cond.Broadcast()
	b.mu.Unlock()
}

// wake wakes the dispatcher, to see that ctx is done.
func (b *readBudget) wake() {
	b.mu.Lock()
	b.cond.Broadcast()
	b.mu.Unlock()
}

// ProjectSummary describes a project for listings.
type ProjectSummary struct {
	Name     string // folder name
	Path     string // real path
	Sessions int
	LastUsed time.Time
	Size     int64 // bytes of transcript files on disk
	// Folders are the other folders its sessions ran in: worktrees and
	// subfolders of the repository Path names (the store's listing only).
	Folders []string
}
