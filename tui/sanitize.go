package tui

import "github.com/cairn-dev/cairn/termtext"

// Transcript text is untrusted: a reply, a tool's output or a file Claude
// read can hold terminal control sequences (clear screen, OSC 52 clipboard
// writes, OSC 8 links, cursor movement). Everything taken from a transcript
// goes through sanitize or sanitizeLine before it is styled or rendered, so
// such sequences show up as inert, visible text (\x1b[2J) and never reach
// the terminal. Both are package termtext's, which every front end shares;
// these short names serve the TUI's many call sites.

// sanitize is termtext.Safe, for multi-line text: newlines kept, tabs as
// four spaces, controls and bidi overrides shown as visible escapes.
func sanitize(s string) string { return termtext.Safe(s) }

// sanitizeLine is termtext.Line, for text shown on one line: newlines and
// tabs become spaces as well.
func sanitizeLine(s string) string { return termtext.Line(s) }
