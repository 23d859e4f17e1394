package cli

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
)

func TestIndexProgress(t *testing.T) {
	read := func(done, total int) app.Progress {
		return app.Progress{Stage: app.StageSync, Sync: index.Progress{FilesDone: done, FilesTotal: total, BytesDone: int64(done), BytesTotal: int64(total)}}
	}
	phase := app.Progress{Stage: app.StageEmbeddings, Message: "embeddings: 4000 documents"}

	// On a terminal: the bar, then the phase messages on the same line.
	var buf bytes.Buffer
	ip := &indexProgress{w: &buf, bar: &progressBar{w: &buf, tty: true, width: 80, label: "indexing", start: time.Now()}}
	ip.report(phase)
	if buf.Len() != 0 {
		t.Fatalf("a phase message shows before the bar is done: %q", buf.String())
	}
	ip.report(read(1, 2))
	if !strings.HasPrefix(buf.String(), "\rindexing [") {
		t.Fatalf("no bar: %q", buf.String())
	}
	buf.Reset()
	ip.report(read(2, 2))
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") || !ip.barDone {
		t.Fatalf("the bar is not cleared when every file is read: %q", buf.String())
	}
	buf.Reset()
	now := ip.since
	ip.clock = func() time.Time { return now }
	ip.report(phase)
	ip.report(app.Progress{Stage: app.StageEmbeddings})
	ip.finish()
	if got, want := buf.String(), "\rembeddings: 4000 documents · 0s\x1b[K\r\x1b[K"; got != want {
		t.Fatalf("phase and finish wrote %q, want %q", got, want)
	}

	// Two phases at once: one line, each with its latest message, and the
	// time since reading ended; cut to the terminal's width.
	buf.Reset()
	ip = &indexProgress{w: &buf, bar: &progressBar{w: &buf, tty: true, width: 80, label: "indexing", start: time.Now()}}
	ip.clock = func() time.Time { return now }
	ip.report(read(2, 2))
	ip.report(app.Progress{Stage: app.StageEmbeddings, Message: "full-text index: 10 documents"})
	ip.report(phase)
	now = now.Add(65 * time.Second)
	ip.report(app.Progress{Stage: app.StageEmbeddings, Message: "full-text index: 20 documents"})
	lines := strings.Split(buf.String(), "\r")
	if got, want := lines[len(lines)-1], "full-text index: 20 documents · embeddings: 4000 documents · 1m05s\x1b[K"; got != want {
		t.Fatalf("two phases: %q, want %q", got, want)
	}
	ip.bar.width = 30
	ip.report(phase)
	lines = strings.Split(buf.String(), "\r")
	if got := strings.TrimSuffix(lines[len(lines)-1], "\x1b[K"); len([]rune(got)) != 29 || !strings.HasSuffix(got, "…") {
		t.Fatalf("a line wider than the terminal: %q (%d runes), want 29 ending in …", got, len([]rune(got)))
	}
	ip.finish()

	// A long step with nothing new to say still shows time passing.
	var mu sync.Mutex
	buf.Reset()
	ip = &indexProgress{w: &lockedWriter{mu: &mu, w: &buf}, bar: &progressBar{w: &buf, tty: true, width: 80, label: "indexing", start: time.Now()}, tick: 5 * time.Millisecond}
	ip.report(read(2, 2))
	ip.report(phase)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := strings.Count(buf.String(), "embeddings: 4000 documents")
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the phases' line was drawn %d times in 5 s with a 5 ms tick", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ip.finish()
	// Nothing is drawn after finish: its clearing is the last write.
	mu.Lock()
	end := buf.String()
	mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	mu.Lock()
	after := buf.String()
	mu.Unlock()
	if !strings.HasSuffix(end, "\r\x1b[K") || after != end {
		t.Fatalf("written after finish: %q", strings.TrimPrefix(after, end))
	}

	// The run ends before the bar is done: finish clears the bar.
	buf.Reset()
	ip = &indexProgress{w: &buf, bar: &progressBar{w: &buf, tty: true, width: 80, label: "indexing", start: time.Now()}}
	ip.report(read(1, 2))
	buf.Reset()
	ip.finish()
	if got := buf.String(); got != "\r\x1b[K" || !ip.barDone {
		t.Fatalf("finish wrote %q", got)
	}

	// Off a terminal: nothing.
	buf.Reset()
	ip = newIndexProgress(&buf)
	ip.report(read(1, 2))
	ip.report(read(2, 2))
	ip.report(phase)
	ip.finish()
	if ip.bar != nil || buf.Len() != 0 {
		t.Fatalf("off a terminal: bar %v, wrote %q", ip.bar, buf.String())
	}
}

// lockedWriter serialises writes to w with mu, for a test that reads w
// while a goroutine writes it.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
