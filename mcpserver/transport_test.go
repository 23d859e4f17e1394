package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/app"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/memories"
)

// stdioPeer drives Serve over pipes, as Claude Code drives `cairn mcp`
// over stdin/stdout.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan map[string]any
	done chan error
}

func newStdioPeer(t *testing.T) *stdioPeer {
	t.Helper()
	st := syncedSample(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, out: make(chan map[string]any, 100), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { inW.Close(); cancel() })
	go func() {
		p.done <- Serve(ctx, Options{App: &app.App{Config: config.Default(), Store: st, Memories: memories.New(st, config.Default())}, Project: "/path/to/Demo"}, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			m, ok := v.(map[string]any)
			if !ok {
				m = map[string]any{"batch": v}
			}
			p.out <- m
		}
		close(p.out)
	}()
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %q: %v (the server stopped reading)", line, err)
	}
}

// next returns the next message the server wrote.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.out:
		if !ok {
			p.t.Fatalf("the server closed its output (exited: %v)", <-p.done)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no answer from the server")
	}
	return nil
}

// expectError reads the next message and checks it is an error response
// with code and id (nil: null).
func (p *stdioPeer) expectError(code int, id any) {
	p.t.Helper()
	m := p.next()
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(code) || m["id"] != id || m["jsonrpc"] != "2.0" {
		p.t.Fatalf("got %v, want error %d for id %v", m, code, id)
	}
}

func (p *stdioPeer) initialize(version string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m := p.next()
	if m["id"] != "init" || m["result"] == nil {
		p.t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// A malformed line is answered with -32700 or -32600 and the server serves
// on; a call before initialize gets -32002.
func TestMalformedLinesAnsweredAndServedOn(t *testing.T) {
	p := newStdioPeer(t)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	p.expectError(codeNotInitialized, float64(1))
	p.send(`this is not json`)
	p.expectError(codeParseError, nil)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := p.next(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("ping before initialize: %v", m)
	}
	p.initialize("2025-06-18")
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{}`, codeInvalidRequest, nil},
		{`"hello"`, codeInvalidRequest, nil},
		{`42`, codeInvalidRequest, nil},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, codeInvalidRequest, float64(3)},
		{`{"id":4,"method":"ping"}`, codeInvalidRequest, float64(4)},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, codeInvalidRequest, nil},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, codeInvalidRequest, float64(5)},
		{`[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, codeInvalidRequest, nil},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list"`, codeParseError, nil},
	} {
		p.send(c.line)
		p.expectError(c.code, c.id)
	}
	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	m := p.next()
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); m["id"] != float64(8) || len(tools) != len(toolDescriptions) {
		t.Fatalf("tools/list after the bad lines: %v", m)
	}
}

// A call the client cancelled gets no response; the next one does.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	p := newStdioPeer(t)
	p.initialize("2025-06-18")
	p.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"websocket reconnect test"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"user pressed Esc"}}`)
	p.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	deadline := time.After(1500 * time.Millisecond)
	gotPing := false
	for {
		select {
		case m := <-p.out:
			switch m["id"] {
			case float64(10):
				t.Fatalf("the cancelled call was answered: %v", m)
			case float64(11):
				gotPing = true
			}
		case <-deadline:
			if !gotPing {
				t.Fatal("no answer to the ping after the cancellation")
			}
			return
		}
	}
}

// Batches are answered -32600 only where the protocol has none.
func TestBatchUnderOlderProtocolIsServed(t *testing.T) {
	p := newStdioPeer(t)
	p.initialize("2025-03-26")
	p.send(`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`)
	m := p.next()
	if m["batch"] == nil || strings.Contains(toJSON(m), `"error"`) || !strings.Contains(toJSON(m), `"id":20`) {
		t.Fatalf("a batch under 2025-03-26: %v", m)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
