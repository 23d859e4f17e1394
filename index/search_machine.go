package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/index/ftsapi"
)

// MachineLocal is the machine filter's name for this machine's own
// sessions (those not synced from another by `cairn remote`).
const MachineLocal = "local"

// ErrNoMachine is returned when a machine filter names a machine no
// session was synced from.
var ErrNoMachine = errors.New("no session was synced from machine")

// machineScope is a query's machine filter resolved against the store:
// which machine each imported session came from (SessionOrigins), and
// the one rule every front end's machine filter goes through (search,
// recall; `cairn sessions --machine` reads the same origins).
type machineScope struct {
	origins map[string]string // session id -> machine; local sessions are absent
	name    string            // "": every machine; MachineLocal; a machine's name
	// sessions are the named machine's sessions, sorted: the full-text
	// filter. For MachineLocal they are every imported session (excluded).
	sessions []string
}

// scopeMachine resolves machine ("" for every machine, MachineLocal, or a
// machine's name) for a search. Without an imports folder no session came
// from another machine and the store is not asked.
func (s *Store) scopeMachine(ctx context.Context, machine string) (*machineScope, error) {
	ms := &machineScope{name: strings.ToLower(strings.TrimSpace(machine)), origins: map[string]string{}}
	if _, err := os.Stat(s.ImportsRoot()); err == nil {
		if ms.origins, err = s.SessionOrigins(ctx); err != nil {
			return nil, err
		}
	}
	if ms.name == "" {
		return ms, nil
	}
	names := map[string]bool{}
	for sid, m := range ms.origins {
		names[m] = true
		if ms.name == MachineLocal || m == ms.name {
			ms.sessions = append(ms.sessions, sid)
		}
	}
	if ms.name != MachineLocal && !names[ms.name] {
		return nil, noMachine(machine, names)
	}
	sort.Strings(ms.sessions)
	return ms, nil
}

// noMachine is the error for machine, none of names (the machines synced
// from).
func noMachine(machine string, names map[string]bool) error {
	known := make([]string, 0, len(names))
	for m := range names {
		known = append(known, m)
	}
	sort.Strings(known)
	also := "none yet: `cairn remote sync` brings them"
	if len(known) > 0 {
		also = strings.Join(known, ", ")
	}
	return fmt.Errorf("%w %q (machines synced from: %s; %s is this machine's)", ErrNoMachine, machine, also, MachineLocal)
}

// noSession is a session id no document has: the filter of a query whose
// session and machine exclude each other.
const noSession = "-"

// narrow adds the machine filter to a full-text filter: a machine's
// sessions (those of session alone, when the query names one), or, for
// MachineLocal, every imported session excluded.
func (ms *machineScope) narrow(f *ftsapi.Filter, session string) {
	switch {
	case ms == nil || ms.name == "":
	case ms.name == MachineLocal:
		f.ExcludeSessions = ms.sessions
	case session != "":
		if !ms.accepts(session) {
			f.Sessions = []string{noSession}
		}
	default:
		f.Sessions = ms.sessions
		if len(f.Sessions) == 0 {
			f.Sessions = []string{noSession}
		}
	}
}

// accepts reports whether a document of session passes the machine
// filter (vector candidates, which carry no metadata in their cache).
// A document of no session (a memory written by hand) is this machine's.
func (ms *machineScope) accepts(session string) bool {
	if ms == nil || ms.name == "" {
		return true
	}
	return ms.of(session) == ms.name || ms.name == MachineLocal && ms.of(session) == ""
}

// of is the machine session was synced from, "" for this machine's.
func (ms *machineScope) of(session string) string {
	if ms == nil {
		return ""
	}
	return ms.origins[session]
}
