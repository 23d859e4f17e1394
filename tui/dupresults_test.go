package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// TestReaderPairsTheFirstCopyOfAResult: the reader shows each call with
// the first result written for it, as `cairn show` and the export do
// (testdata/dupresults: a Bash result and a subagent's Read result
// written twice, the copies saying "DUPLICATE COPY").
func TestReaderPairsTheFirstCopyOfAResult(t *testing.T) {
	m := newTestModel(t, 120, 40, syncedStore(t, "dupresults"), nil)
	openFirst(t, m, "spotter-a0y")
	r := m.reader
	for i := range r.items { // every subagent expanded
		if r.items[i].agentID != "" {
			r.expanded[r.items[i].key] = true
		}
	}
	r.build()
	tools, agentCalls := 0, 0
	for _, it := range r.items {
		if it.kind != kTool {
			continue
		}
		tools++
		if it.result == nil {
			t.Errorf("%s has no result", it.label)
			continue
		}
		if strings.Contains(it.result.Text, "DUPLICATE COPY") {
			t.Errorf("%s shows the copy of its result", it.label)
		}
		if it.depth > 0 {
			agentCalls++
		}
	}
	if tools != 4 || agentCalls != 1 {
		t.Errorf("%d tool calls (%d in the subagent), want 4 (1)", tools, agentCalls)
	}
}

// syncedStore is a new store synced from testdata/name (a Claude dir).
func syncedStore(t *testing.T, name string) *index.Store {
	t.Helper()
	st, err := index.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Sync(context.Background(), filepath.Join(testutil.RepoRoot(), "testdata", name), index.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return st
}
