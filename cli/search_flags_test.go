package cli

import (
	"errors"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/index"

	"github.com/spf13/cobra"
)

func TestSearchFlagsApply(t *testing.T) {
	cmd := &cobra.Command{}
	cmd.Flags().Bool("recency", false, "")
	for _, c := range []struct {
		sf       searchFlags
		sub      *bool
		kinds    []string
		roles    []string
		usageErr bool
	}{
		{sf: searchFlags{subagents: "both", kind: "all"}, kinds: []string{"all"}},
		{sf: searchFlags{subagents: ""}},
		{sf: searchFlags{subagents: "only", kind: "messages,memories", role: "user,tool"}, sub: ptr(true),
			kinds: []string{"messages", "memories"}, roles: []string{"user", "tool"}},
		{sf: searchFlags{subagents: "none"}, sub: ptr(false)},
		{sf: searchFlags{subagents: "some"}, usageErr: true},
		{sf: searchFlags{since: "yesterday-ish"}, usageErr: true},
		{sf: searchFlags{until: "nope"}, usageErr: true},
	} {
		var q index.SearchQuery
		err := c.sf.apply(cmd, &q)
		var ue usageError
		if c.usageErr != errors.As(err, &ue) || (!c.usageErr && err != nil) {
			t.Fatalf("%+v: error %v, want a usage error: %v", c.sf, err, c.usageErr)
		}
		if c.usageErr {
			continue
		}
		if (q.Subagents == nil) != (c.sub == nil) || (q.Subagents != nil && *q.Subagents != *c.sub) {
			t.Errorf("%+v: subagents %v, want %v", c.sf, q.Subagents, c.sub)
		}
		if !slices.Equal(q.Kinds, c.kinds) || !slices.Equal(q.Roles, c.roles) {
			t.Errorf("%+v: kinds %q roles %q, want %q %q", c.sf, q.Kinds, q.Roles, c.kinds, c.roles)
		}
		if q.Recency != nil {
			t.Errorf("%+v: recency set without the flag", c.sf)
		}
	}
	// --recency given (true or false) overrides the store's default.
	if err := cmd.Flags().Set("recency", "false"); err != nil {
		t.Fatal(err)
	}
	var q index.SearchQuery
	sf := searchFlags{recency: false}
	if err := sf.apply(cmd, &q); err != nil || q.Recency == nil || *q.Recency {
		t.Fatalf("--recency=false: %v, %v", err, q.Recency)
	}
}
