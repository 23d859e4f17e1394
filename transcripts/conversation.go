package transcripts

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Conversation is one session's entries, ready to be read by a person.
type Conversation struct {
	Session *Session
	Entries []Entry            // the main thread, in order
	Agents  map[string][]Entry // subagent id -> its entries, in order
	// SpawnedBy maps the tool_use id of a Task/Agent call to the agent it spawned.
	SpawnedBy map[string]string
	// Unreadable is how many entries a damaged store could not give back
	// (they are left out).
	Unreadable int
	// LineContext: the entries carry their own cwd, branch, version and
	// model (read from transcripts, or from a store that keeps them); a
	// store written before it kept them gives only the session's.
	LineContext bool
}

// IsUUID reports whether s is a whole session id (a UUID, any case).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		if !uuidByte(i, s[i]) {
			return false
		}
	}
	return true
}

// uuidByte says c may stand at offset i of a UUID (8-4-4-4-12 hex
// digits): a dash between the groups, a hex digit of any case elsewhere.
func uuidByte(i int, c byte) bool {
	switch i {
	case 8, 13, 18, 23:
		return c == '-'
	}
	return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0
}

// MinIDPrefix is the shortest session id prefix accepted.
const MinIDPrefix = 8

// ErrSessionID is what ResolveSessionID's errors for an id that cannot
// name one session wrap: too short, or matching several (a bad argument:
// the CLI exits 2). An id that matches none is not one of them (the
// session may be gone: exit 1).
var ErrSessionID = errors.New("bad session id")

// sessionIDError is an error of ResolveSessionID: its text, and
// ErrSessionID for errors.Is.
type sessionIDError struct{ msg string }

func (e *sessionIDError) Error() string { return e.msg }
func (e *sessionIDError) Unwrap() error { return ErrSessionID }

func idErrorf(format string, a ...any) error { return &sessionIDError{msg: fmt.Sprintf(format, a...)} }

// ResolveSessionID finds the one session id in ids that starts with prefix.
func ResolveSessionID(prefix string, ids []string) (string, error) {
	prefix = strings.TrimSpace(prefix)
	if len(prefix) < MinIDPrefix {
		return "", idErrorf("session id %q is too short: give at least %d characters (see `cairn sessions`)", prefix, MinIDPrefix)
	}
	var matches []string
	seen := map[string]bool{}
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) && !seen[id] {
			seen[id] = true
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no session matches %q: list sessions with `cairn sessions`", prefix)
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", idErrorf("%q matches %d sessions (%s): give more characters", prefix, len(matches), strings.Join(matches, ", "))
}
