// Package memtype holds the memory vocabulary shared by the store (index)
// and the memory domain (memories): a memory's type, its review status and
// the kinds of links between memories. It sits below both so a stored row
// and a domain memory carry the same typed values: no string casts between
// them. The rules about these values live in package memories.
package memtype

import (
	"fmt"
	"slices"
	"strings"
)

// Type is what kind of knowledge a memory holds.
type Type string

// Memory types.
const (
	Decision     Type = "decision"
	Architecture Type = "architecture"
	Pattern      Type = "pattern"
	Gotcha       Type = "gotcha"
	Preference   Type = "preference"
	Fact         Type = "fact"
	Bugfix       Type = "bugfix"
	Progress     Type = "progress"
	Context      Type = "context"
)

// Types lists every type, in display order. It is the one list: the CLI
// flag help, the MCP tool schemas, the Ollama prompt and schema and the
// TUI derive theirs from it, and tests check the texts that cannot (the
// slash commands, the README, struct tags) against it.
var Types = []Type{Decision, Architecture, Pattern, Gotcha, Preference, Fact, Bugfix, Progress, Context}

// TypeNames returns the names of Types, in order.
func TypeNames() []string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return names
}

// TypeList joins the type names with sep: TypeList(", ") is
// "decision, architecture, …, context".
func TypeList(sep string) string { return strings.Join(TypeNames(), sep) }

// TypeChoice is the type names as a choice: "decision, architecture, …
// or context".
func TypeChoice() string {
	names := TypeNames()
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseType accepts a type name (case-insensitive, singular or plural).
func ParseType(s string) (Type, error) {
	t := Type(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s"))
	if t == "progres" {
		t = Progress
	}
	if slices.Contains(Types, t) {
		return t, nil
	}
	return "", fmt.Errorf("unknown memory type %q: use one of %s", s, TypeList(", "))
}

// Status is where a memory is in review.
type Status string

// Statuses.
const (
	Pending    Status = "pending"
	Approved   Status = "approved"
	Rejected   Status = "rejected"
	Superseded Status = "superseded"
	Archived   Status = "archived"
)

// Statuses lists every status.
var Statuses = []Status{Pending, Approved, Rejected, Superseded, Archived}

// ParseStatus accepts a status name.
func ParseStatus(s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Statuses, st) {
		return st, nil
	}
	return "", fmt.Errorf("unknown status %q: use pending, approved, rejected, superseded or archived", s)
}

// LinkKind is how two memories relate.
type LinkKind string

// Link kinds.
const (
	Related     LinkKind = "related"
	Supersedes  LinkKind = "supersedes"
	Contradicts LinkKind = "contradicts"
	Elaborates  LinkKind = "elaborates"
)

// LinkKinds lists every link kind.
var LinkKinds = []LinkKind{Related, Supersedes, Contradicts, Elaborates}

// Link points from a memory to another.
type Link struct {
	Kind   LinkKind `json:"kind"`
	Target string   `json:"target"` // another memory's id
}

// HasLink reports whether links point to target, with any of kinds (with
// no kinds: of any kind).
func HasLink(links []Link, target string, kinds ...LinkKind) bool {
	return slices.ContainsFunc(links, func(l Link) bool {
		return l.Target == target && (len(kinds) == 0 || slices.Contains(kinds, l.Kind))
	})
}
