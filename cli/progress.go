package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/human"
)

// progressBar draws a one-line progress bar on a terminal (files, MB,
// entries/s, ETA), redrawn at most every 100 ms. Off a terminal it prints
// nothing: the command prints one summary line at the end instead.
type progressBar struct {
	w       io.Writer
	tty     bool
	width   int
	label   string
	start   time.Time
	mu      sync.Mutex
	last    time.Time
	drawn   bool
	minShow time.Duration
	// recent are the bytes read at the latest redraws, the ETA's window.
	recent []readAt
}

// readAt is how many bytes had been read at a time.
type readAt struct {
	t time.Time
	n int64
}

// etaWindow is how far back the ETA's reading rate looks: the rate of a
// cold index changes as it goes (opening, training the model, full-text
// segments growing), so the whole run's average misleads early and late.
const (
	etaWindow    = 20 * time.Second
	etaMinWindow = 3 * time.Second
)

func newProgressBar(w io.Writer, label string) *progressBar {
	wd := terminalWidth(w)
	if wd <= 0 {
		wd = 80
	}
	return &progressBar{w: w, tty: isTerminal(w), width: wd, label: label, start: time.Now(), minShow: 300 * time.Millisecond}
}

// update redraws with the current counts.
func (p *progressBar) update(filesDone, filesTotal int, bytesDone, bytesTotal int64, entries int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < p.minShow || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.drawn = true
	fmt.Fprint(p.w, "\r"+p.line(filesDone, filesTotal, bytesDone, bytesTotal, entries, now)+"\x1b[K")
}

func (p *progressBar) line(filesDone, filesTotal int, bytesDone, bytesTotal int64, entries int, now time.Time) string {
	el := now.Sub(p.start).Seconds()
	frac := 0.0
	if bytesTotal > 0 {
		frac = float64(bytesDone) / float64(bytesTotal)
	}
	rate := 0.0
	if el > 0 {
		rate = float64(entries) / el
	}
	eta := "-"
	if left, ok := p.remaining(bytesDone, bytesTotal, now); ok {
		eta = human.Duration(left)
	}
	stats := fmt.Sprintf(" %d/%d files  %.0f/%.0f MB  %.0f entries/s  ETA %s", filesDone, filesTotal,
		float64(bytesDone)/(1<<20), float64(bytesTotal)/(1<<20), rate, eta)
	barW := p.width - len(p.label) - len(stats) - 4
	if barW < 10 {
		return p.label + stats
	}
	fill := int(frac * float64(barW))
	return p.label + " [" + strings.Repeat("█", fill) + strings.Repeat("░", barW-fill) + "]" + stats
}

// remaining is how long reading the rest takes at the rate of the last
// etaWindow; false until a window of etaMinWindow is there (or when
// nothing is read in it).
func (p *progressBar) remaining(done, total int64, now time.Time) (time.Duration, bool) {
	p.recent = append(p.recent, readAt{now, done})
	i := 0
	for i < len(p.recent)-1 && now.Sub(p.recent[i+1].t) >= etaWindow {
		i++
	}
	p.recent = p.recent[i:]
	first := p.recent[0]
	dt := now.Sub(first.t)
	if dt < etaMinWindow || done <= first.n || done >= total {
		return 0, false
	}
	rate := float64(done-first.n) / dt.Seconds()
	return time.Duration(float64(total-done) / rate * float64(time.Second)), true
}

// done clears the bar.
func (p *progressBar) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
