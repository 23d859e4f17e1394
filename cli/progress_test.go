package cli

import (
	"strings"
	"testing"
	"time"
)

// The ETA follows the reading rate of the last etaWindow, not the whole
// run's: a cold index starts slowly (opening, training the model) and its
// rate changes as it goes, so the average over-estimated early (5–7 min
// shown for a 3.8 min run) and under-estimated when reading slowed.
func TestProgressETAFollowsTheRecentRate(t *testing.T) {
	const mb = 1 << 20
	start := time.Unix(1_000_000, 0)
	p := &progressBar{tty: true, width: 120, label: "indexing", start: start}
	eta := func(at time.Duration, done int64) string {
		line := p.line(0, 10, done, 1000*mb, 0, start.Add(at))
		_, after, ok := strings.Cut(line, "ETA ")
		if !ok {
			t.Fatalf("no ETA in %q", line)
		}
		return after
	}
	left := func(at time.Duration, done int64) time.Duration {
		d, ok := p.remaining(done, 1000*mb, start.Add(at))
		if !ok {
			t.Fatalf("no ETA at %v", at)
		}
		return d.Round(time.Second)
	}
	if got := eta(time.Second, 1*mb); got != "-" {
		t.Fatalf("an ETA after one second: %q", got)
	}
	// 20 s at 1 MB/s, then 10 MB/s.
	for s := 2; s <= 20; s++ {
		eta(time.Duration(s)*time.Second, int64(s)*mb)
	}
	if got := left(21*time.Second, 21*mb); got != 979*time.Second {
		t.Fatalf("at 1 MB/s with 979 MB left: ETA %v", got)
	}
	done := int64(21 * mb)
	for s := 22; s <= 50; s++ {
		done += 10 * mb
		eta(time.Duration(s)*time.Second, done)
	}
	// 311 MB read; 689 MB left at 10 MB/s: about 69 s. The run's average
	// (6.2 MB/s) would say 111 s.
	if got := left(51*time.Second, done+10*mb); got != 68*time.Second {
		t.Fatalf("at 10 MB/s with 679 MB left: ETA %v, want 68s", got)
	}
	// Nothing read in the window: no ETA rather than a wrong one.
	for s := 52; s <= 80; s++ {
		eta(time.Duration(s)*time.Second, done+10*mb)
	}
	if got := eta(81*time.Second, done+10*mb); got != "-" {
		t.Fatalf("stalled reading: ETA %q", got)
	}
}
