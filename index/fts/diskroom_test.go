package fts

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/cairn-dev/cairn/internal/diskspace"
)

// withFree makes the index folder report free bytes of room.
func withFree(t *testing.T, free uint64) {
	t.Helper()
	old := freeSpaceFn.Load()
	f := func(string) (uint64, bool) { return free, true }
	freeSpaceFn.Store(&f)
	t.Cleanup(func() { freeSpaceFn.Store(old) })
}

func TestBatchRefusedWithoutRoom(t *testing.T) {
	ix := openTemp(t)
	docs := []Doc{{ID: "m:1", Kind: "message", Text: strings.Repeat("websocket reconnect ", 500), Session: "s"}}
	withFree(t, batchFloor+1000) // less than the batch needs
	err := ix.Index(docs)
	if !diskspace.IsFull(err) || !strings.Contains(err.Error(), ix.Dir()) || !strings.Contains(err.Error(), "nothing was lost") {
		t.Fatalf("want a full-disk error naming %s, got %v", ix.Dir(), err)
	}
	// The index refuses further writes with the same error, and closes.
	if err2 := ix.Index(docs); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second write: %v", err2)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("close after a refused batch: %v", err)
	}
}

func TestBatchWithRoom(t *testing.T) {
	ix := openTemp(t)
	withFree(t, 1<<40)
	if err := ix.Index([]Doc{{ID: "m:1", Kind: "message", Text: "websocket reconnect", Session: "s"}}); err != nil {
		t.Fatal(err)
	}
	hits, _, err := ix.Search("websocket", Filter{}, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v %v", hits, err)
	}
}

func TestMergeWaitsForRoom(t *testing.T) {
	ix := openTemp(t)
	if ix.scorch == nil {
		t.Fatal("the index is not registered for bleve's callbacks")
	}
	ev := scorch.Event{Kind: scorch.EventKindPreMergeCheck, Scorch: ix.scorch}
	withFree(t, 1<<40)
	if !onScorchEvent(ev) {
		t.Error("a merge with room was refused")
	}
	withFree(t, mergeFloor-1)
	start := time.Now()
	if onScorchEvent(ev) {
		t.Error("a merge without room was allowed")
	}
	if d := time.Since(start); d < mergeBackoff/2 {
		t.Errorf("a refused merge came back after %s: scorch would spin", d)
	}
	// Other events and other indexes are not ours to refuse.
	if !onScorchEvent(scorch.Event{Kind: scorch.EventKindMergerProgress, Scorch: ix.scorch}) || !onScorchEvent(scorch.Event{Kind: scorch.EventKindPreMergeCheck}) {
		t.Error("refused an event that is not a merge of a cairn index")
	}
}

func TestBackgroundFullDiskFailsTheIndex(t *testing.T) {
	ix := openTemp(t)
	onScorchError(errors.New("got err persisting snapshot: write /x/000001.zap: no space left on device"), ix.Dir())
	err := ix.Index([]Doc{{ID: "m:1", Kind: "message", Text: "x", Session: "s"}})
	if !diskspace.IsFull(err) || !strings.Contains(err.Error(), "in the background") {
		t.Fatalf("after bleve's persister met a full disk: %v", err)
	}
	onScorchError(errors.New("some other error"), t.TempDir()) // ignored
	start := time.Now()
	if err := ix.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if d := time.Since(start); d > closeWait+time.Second {
		t.Errorf("close took %s", d)
	}
}

// closeFailed gives up on a close that does not return.
func TestCloseFailedHasADeadline(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	start := time.Now()
	err := closeFailed(closerFunc(func() error { <-block; return nil }))
	if !errors.Is(err, errCloseTimeout) || time.Since(start) > closeWait+time.Second {
		t.Errorf("closeFailed: %v after %s", err, time.Since(start))
	}
	if err := closeFailed(closerFunc(func() error { panic("assignment to entry in nil map") })); err != nil {
		t.Errorf("a panicking close: %v", err)
	}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// A merge cairn asks for without room waits for room instead (the index
// stays correct with more segments); it never hands scorch a forced merge
// its own callback would refuse forever.
func TestCompactWithoutRoomReturns(t *testing.T) {
	ix := openTemp(t)
	for i := range 5 {
		if err := ix.Index([]Doc{{ID: "m:" + string(rune('a'+i)), Kind: "message", Text: "websocket reconnect", Session: "s"}}); err != nil {
			t.Fatal(err)
		}
	}
	withFree(t, mergeFloor-1)
	done := make(chan error, 1)
	go func() { done <- ix.Compact() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("compact without room: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("compact without room did not return")
	}
	// With room it merges, and the forced merge passes the merge check.
	withFree(t, 1<<40)
	if err := ix.Compact(); err != nil {
		t.Fatal(err)
	}
	if n, err := ix.segmentCount(); err != nil || n != 1 {
		t.Errorf("after compacting with room: %d segments (%v)", n, err)
	}
}
