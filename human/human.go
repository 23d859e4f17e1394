// Package human writes sizes, durations and times the way every cairn
// front end shows them to a person (CLI tables, the TUI, doctor), so the
// same number reads the same everywhere.
package human

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// OrDash is s, or "-" when it is empty (an unknown value in a table).
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Path is a path with the home folder written ~ ("~/src/cairn").
func Path(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if p == home {
			return "~"
		}
		if strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + p[len(home):]
		}
	}
	return p
}

// Bytes is a size: "512 B", "280 KB", "2.7 MB", "1.02 GB".
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
}

// Duration is a length of time in its largest useful unit: "45s", "12m",
// "3h05m", "4d"; "-" for none.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Ago is how long before now t was: "just now", "5m ago", "3h ago",
// "12d ago", then the date in loc (nil: local time); "-" for none.
func Ago(t, now time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("2006-01-02")
}

// sparks are the eight heights of a sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws vs as one line of block characters, scaled to the
// largest value; zero is a blank-looking lowest block. (Eight runes and a
// division: a charting library would cost more than it saves here.)
func Sparkline(vs []int) string {
	top := 0
	for _, v := range vs {
		top = max(top, v)
	}
	out := make([]rune, len(vs))
	for i, v := range vs {
		switch {
		case top == 0 || v <= 0:
			out[i] = ' '
		default:
			out[i] = sparks[min(len(sparks)-1, (v*(len(sparks)-1)+top-1)/top)]
		}
	}
	return string(out)
}

// Bar is a horizontal bar of n out of top, width cells at most.
func Bar(n, top, width int) string {
	if top <= 0 || n <= 0 || width <= 0 {
		return ""
	}
	cells := max(1, n*width/top)
	return strings.Repeat("█", min(cells, width))
}
