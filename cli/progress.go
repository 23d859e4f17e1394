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
}

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
	if frac > 0.01 && frac < 1 {
		eta = human.Duration(time.Duration(el/frac*(1-frac)) * time.Second)
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

// done clears the bar.
func (p *progressBar) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
