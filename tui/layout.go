package tui

// rect is a region of the screen, in cells.
type rect struct{ x, y, w, h int }

// layout is the screen cut into its named regions, computed once per
// resize: the tab bar on top, the body (the focused pane, the help screen
// or the editor), the help line and the status bar at the bottom.
type layout struct {
	w, h                     int
	tabs, body, help, status rect
}

// minW and minH are the smallest screen drawn; smaller terminals are
// treated as this size.
const minW, minH = 20, 6

func newLayout(w, h int) layout {
	w, h = max(w, minW), max(h, minH)
	return layout{
		w: w, h: h,
		tabs:   rect{0, 0, w, 1},
		body:   rect{0, 1, w, h - 3},
		help:   rect{0, h - 2, w, 1},
		status: rect{0, h - 1, w, 1},
	}
}
