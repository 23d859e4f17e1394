package tui

import (
	"fmt"
	"os"
	"time"
)

// processStart is close to when the process started (package init).
var processStart = time.Now()

// traceFile, from CAIRN_TUI_TRACE, receives timing lines for
// scripts/bench-tui.sh: when the first frame with content was drawn and how
// long each search took.
var traceFile = os.Getenv("CAIRN_TUI_TRACE")

func trace(format string, a ...any) {
	if traceFile == "" {
		return
	}
	f, err := os.OpenFile(traceFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, format+"\n", a...)
	f.Close()
}
