package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Outcome is status.json: how the last `cairn remote sync` ended. It is
// small on purpose (state.json holds every import): the TUI's status bar
// reads it every poll. Sync writes it when it ends, failed or not; a sync
// killed before that leaves the previous one's.
type Outcome struct {
	// LastSync is when the last sync that finished did.
	LastSync time.Time `json:"last_sync,omitzero"`
	// LastError is why the last sync failed, when it did (it is cleared
	// by the next one that finishes), and LastErrorAt when.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	// Last is what the last sync that finished did.
	Last *Result `json:"last,omitempty"`
}

func outcomePath(dataDir string) string { return filepath.Join(Dir(dataDir), "status.json") }

// Failed reports whether the last sync failed.
func (o Outcome) Failed() bool { return o.LastError != "" }

// ReadOutcome reads how the last sync ended, without the network or the
// store. configured is false when no remote was set up (nothing to show);
// a remote set up and never synced gives a zero Outcome.
func ReadOutcome(dataDir string) (o Outcome, configured bool, err error) {
	if _, err := os.Stat(configPath(dataDir)); err != nil {
		return o, false, nil
	}
	b, err := os.ReadFile(outcomePath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return o, true, nil
	}
	if err == nil {
		if jerr := json.Unmarshal(b, &o); jerr != nil {
			err = fmt.Errorf("%s is damaged (%w): the next `cairn remote sync` rewrites it", outcomePath(dataDir), jerr)
		}
	}
	return o, true, err
}

// record writes how a sync ended: its error, or its result. A damaged or
// missing earlier file only loses the time of the last success.
func record(dataDir string, res Result, syncErr error) error {
	o, _, _ := ReadOutcome(dataDir)
	now := time.Now().UTC()
	if syncErr != nil {
		o.LastError, o.LastErrorAt = syncErr.Error(), now
	} else {
		o.LastError, o.LastErrorAt, o.LastSync, o.Last = "", time.Time{}, now, &res
	}
	b, err := json.MarshalIndent(o, "", " ")
	if err != nil {
		return err
	}
	return writeAtomic(outcomePath(dataDir), b)
}
