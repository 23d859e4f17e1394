package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// A search keeps one machine's sessions with Machine ("laptop", or local
// for this machine's), and every result of a session synced from another
// machine names it. The sample tree is this machine's; a copy of one of
// its sessions (its own session and entry ids) is laid out as `cairn
// remote sync` unpacks one from "laptop", so the same words are in both.
func TestSearchMachineFilter(t *testing.T) {
	ctx := context.Background()
	// The sample updated (the shared template's copy), then the laptop's
	// copy of one of its sessions.
	s, _, claude, _ := updatedSample(t, UpdateOptions{})
	const folder, sid = "-home-marco-projects-spotter", "491e126e-1e71-469c-ade2-fcc8af567c74"
	b, err := os.ReadFile(filepath.Join(claude, "projects", folder, sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	newID := uuid.ReplaceAllString(sid, "0b0b0b0b$1")
	dst := filepath.Join(s.MachineDir("laptop"), "projects", folder, newID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, uuid.ReplaceAll(b, []byte("0b0b0b0b$1")), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, s.MachineDir("laptop"), UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sr, err := s.OpenSearcher(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	// Hybrid filters the vector candidates by the same rule (accepts);
	// vector mode alone finds nothing here (the built-in vectors only join
	// word matches: MeaningAlone).
	for _, mode := range []string{ModeText, ModeHybrid} {
		search := func(machine, session string) []SearchResult {
			t.Helper()
			resp, err := sr.Search(ctx, SearchQuery{Text: "spotter tests", Mode: mode, Limit: MaxSearchLimit, Machine: machine, Session: session, Partial: true})
			if err != nil {
				t.Fatalf("%s, machine %q: %v", mode, machine, err)
			}
			return resp.Results
		}
		all, laptop, local := search("", ""), search("laptop", ""), search("local", "")
		if len(laptop) == 0 || len(local) == 0 {
			t.Fatalf("%s: %d results from laptop, %d local: want both", mode, len(laptop), len(local))
		}
		for _, r := range laptop {
			if r.SessionID != newID || r.Machine != "laptop" {
				t.Fatalf("%s, machine laptop: a result of session %s (machine %q)", mode, r.SessionID, r.Machine)
			}
		}
		for _, r := range local {
			if r.SessionID == newID || r.Machine != "" {
				t.Fatalf("%s, machine local: a result of session %s (machine %q)", mode, r.SessionID, r.Machine)
			}
		}
		marked, fromSid := 0, 0
		for _, r := range all {
			if r.SessionID == newID {
				if r.Machine != "laptop" {
					t.Fatalf("%s: a result of the laptop's session says machine %q", mode, r.Machine)
				}
				marked++
			}
			if r.SessionID == sid {
				fromSid++
			}
		}
		if marked == 0 || fromSid == 0 {
			t.Fatalf("%s, every machine: %d results of the laptop's copy, %d of the local session: want both", mode, marked, fromSid)
		}
		// A session and a machine that exclude each other find nothing;
		// one of that machine is searched alone.
		if got := search("local", newID); len(got) != 0 {
			t.Fatalf("%s: the laptop's session searched with machine local: %d results", mode, len(got))
		}
		if got := search("laptop", newID); len(got) == 0 {
			t.Fatalf("%s: the laptop's session searched with machine laptop: nothing", mode)
		}
	}
	_, err = sr.Search(ctx, SearchQuery{Text: "spotter", Machine: "desk"})
	if !errors.Is(err, ErrNoMachine) || !regexp.MustCompile(`"desk".*laptop.*local is this machine's`).MatchString(err.Error()) {
		t.Fatalf("an unknown machine: %v", err)
	}
}
