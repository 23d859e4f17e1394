package mcpserver

import (
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

func TestRememberMessage(t *testing.T) {
	for _, c := range []struct {
		action, status, want string
	}{
		{memories.ActionAdded, string(memories.Pending), "Saved as m1; it awaits the user's review in cairn before it is used."},
		{memories.ActionAdded, string(memories.Approved), "Saved as m1."},
		{memories.ActionSkippedRejected, string(memories.Rejected), "Not saved: the user rejected this memory before."},
		{memories.ActionMerged, string(memories.Approved), "A similar memory exists (m1): merged instead of adding a new one."},
		{memories.ActionBumped, string(memories.Pending), "A similar memory exists (m1): bumped instead of adding a new one."},
	} {
		if got := rememberMessage(c.action, MemoryOut{ID: "m1", Status: c.status}); got != c.want {
			t.Errorf("rememberMessage(%s, %s) = %q, want %q", c.action, c.status, got, c.want)
		}
	}
}
