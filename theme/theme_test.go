package theme

import (
	"strings"
	"testing"
)

func TestNoColorHasNoColours(t *testing.T) {
	s := New(true, true).Styles()
	for name, out := range map[string]string{
		"title": s.Title.Render("x"), "selected": s.Selected.Render("x"), "error": s.Error.Render("x"),
		"highlight": s.Highlight.Render("x"), "muted": s.Muted.Render("x"), "tab": s.TabActive.Render("x"),
	} {
		// 38;/48; are foreground/background colours in SGR.
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("%s carries a colour with NO_COLOR: %q", name, out)
		}
	}
	// Selection and highlights stay visible without colour.
	if s.Selected.Render("x") == "x" || s.Highlight.Render("x") == "x" || s.TabActive.Render("x") == "x" {
		t.Error("selection, highlights or the active tab are invisible without colour")
	}
}

func TestLightAndDarkDiffer(t *testing.T) {
	d, l := New(true, false), New(false, false)
	if d.Text == l.Text || d.Accent == l.Accent || d.SelectedBg == l.SelectedBg {
		t.Error("light and dark palettes share colours that must contrast with the background")
	}
	if out := d.Styles().Title.Render("x"); !strings.Contains(out, "38;") {
		t.Errorf("dark title has no colour: %q", out)
	}
}

func TestNoColorEnv(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if !NoColorEnv() {
		t.Error("NO_COLOR=1 not honoured")
	}
	t.Setenv("NO_COLOR", "")
	if NoColorEnv() {
		t.Error("empty NO_COLOR must not disable colour")
	}
}
