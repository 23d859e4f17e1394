package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/index"
)

func TestIndexProgress(t *testing.T) {
	sync := func(done, total int) app.Progress {
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
	ip.report(sync(1, 2))
	if !strings.HasPrefix(buf.String(), "\rindexing [") {
		t.Fatalf("no bar: %q", buf.String())
	}
	buf.Reset()
	ip.report(sync(2, 2))
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") || !ip.barDone {
		t.Fatalf("the bar is not cleared when every file is read: %q", buf.String())
	}
	buf.Reset()
	ip.report(phase)
	ip.report(app.Progress{Stage: app.StageEmbeddings})
	ip.finish()
	if got, want := buf.String(), "\rembeddings: 4000 documents\x1b[K\r\x1b[K"; got != want {
		t.Fatalf("phase and finish wrote %q, want %q", got, want)
	}

	// The run ends before the bar is done: finish clears the bar.
	buf.Reset()
	ip = &indexProgress{w: &buf, bar: &progressBar{w: &buf, tty: true, width: 80, label: "indexing", start: time.Now()}}
	ip.report(sync(1, 2))
	buf.Reset()
	ip.finish()
	if got := buf.String(); got != "\r\x1b[K" || !ip.barDone {
		t.Fatalf("finish wrote %q", got)
	}

	// Off a terminal: nothing.
	buf.Reset()
	ip = newIndexProgress(&buf)
	ip.report(sync(1, 2))
	ip.report(sync(2, 2))
	ip.report(phase)
	ip.finish()
	if ip.bar != nil || buf.Len() != 0 {
		t.Fatalf("off a terminal: bar %v, wrote %q", ip.bar, buf.String())
	}
}
