package memories

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-dev/cairn/index"
)

// Snapshot holds memories as they were, for Restore to put back: the undo
// of a review (approve, reject, merge) in a front end. Approving can
// supersede the memories it links to and merging changes both memories,
// so a snapshot takes the memories named and those they link to.
type Snapshot struct {
	rows []*index.MemRow
}

// IDs are the memories the snapshot holds.
func (sn *Snapshot) IDs() []string {
	out := make([]string, len(sn.rows))
	for i, r := range sn.rows {
		out[i] = r.ID
	}
	return out
}

// Snapshot copies the memories ids (and the ones they link to) as they
// are now.
func (s Curator) Snapshot(ctx context.Context, ids ...string) (*Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	sn := &Snapshot{}
	var add func(id string, links bool) error
	add = func(id string, links bool) error {
		r, err := s.row(ctx, id)
		if err != nil {
			return err
		}
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		cp := *r
		sn.rows = append(sn.rows, &cp)
		if links {
			for _, l := range r.Links {
				if err := add(l.Target, false); err != nil && !isNotFound(err) {
					return err
				}
			}
		}
		return nil
	}
	for _, id := range ids {
		if err := add(id, true); err != nil {
			return nil, fmt.Errorf("snapshot of %s for undo: %w", id, err)
		}
	}
	return sn, nil
}

// Restore writes the snapshot's memories back as they were.
func (s Curator) Restore(ctx context.Context, sn *Snapshot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range sn.rows {
		cp := *r
		cp.Updated = s.now().UTC()
		if err := s.st.Mem().Save(ctx, &cp); err != nil {
			return fmt.Errorf("restoring %s: %w", r.ID, err)
		}
	}
	s.cache = nil
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
