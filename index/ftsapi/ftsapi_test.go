package ftsapi

import (
	"errors"
	"testing"
	"time"
)

// Without an engine the index is "busy": callers leave work queued.
func TestNoEngineIsBusy(t *testing.T) {
	if Available() {
		t.Skip("an engine is linked into this test binary")
	}
	_, err := Open(t.TempDir(), time.Millisecond)
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrLocked) {
		t.Fatalf("Open without an engine: %v", err)
	}
	if err := Remove(t.TempDir()); !errors.Is(err, ErrLocked) {
		t.Fatalf("Remove without an engine: %v", err)
	}
	if QueryTerms("websocket reconnect") != nil {
		t.Fatal("query terms without an engine")
	}
	if got := Snippet("abcdefghij", nil, 4, nil); got != "abcd…" {
		t.Fatalf("snippet %q", got)
	}
}
