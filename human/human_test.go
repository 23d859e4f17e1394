package human

import (
	"strings"
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 280 << 10: "280 KB", 2831155: "2.7 MB", 1 << 30: "1.00 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "-", -time.Second: "-", 45 * time.Second: "45s", 12 * time.Minute: "12m",
		3*time.Hour + 5*time.Minute: "3h05m", 47 * time.Hour: "47h00m", 100 * time.Hour: "4d"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{30 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago",
		12 * 24 * time.Hour: "12d ago", 90 * 24 * time.Hour: "2025-12-01"} {
		if got := Ago(now.Add(-d), now, time.UTC); got != want {
			t.Errorf("Ago(-%v) = %q, want %q", d, got, want)
		}
	}
	if Ago(time.Time{}, now, nil) != "-" {
		t.Error("zero time")
	}
}

func TestSparklineAndBar(t *testing.T) {
	if got := Sparkline([]int{0, 1, 4, 8}); got != " ▂▅█" {
		t.Fatalf("Sparkline = %q", got)
	}
	if got := Sparkline([]int{0, 0}); got != "  " {
		t.Fatalf("all zero = %q", got)
	}
	if Bar(5, 10, 20) != strings.Repeat("█", 10) || Bar(1, 1000, 20) != "█" || Bar(0, 10, 20) != "" || Bar(50, 10, 20) != strings.Repeat("█", 20) {
		t.Fatal("Bar scales wrong")
	}
}

func TestOrDashAndPath(t *testing.T) {
	if OrDash("") != "-" || OrDash("x") != "x" {
		t.Errorf("OrDash: %q %q", OrDash(""), OrDash("x"))
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for in, want := range map[string]string{
		home:                "~",
		home + "/src/cairn": "~/src/cairn",
		home + "x/src":      home + "x/src", // a sibling folder is not under home
		"/var/tmp":          "/var/tmp",
		"":                  "",
	} {
		if got := Path(in); got != want {
			t.Errorf("Path(%q) = %q, want %q", in, got, want)
		}
	}
}
