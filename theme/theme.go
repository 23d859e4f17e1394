// Package theme is cairn's semantic palette: colours are named for what
// they mean (accent, muted, error, highlight…), chosen for light or dark
// terminal backgrounds, and dropped entirely when NO_COLOR is set, leaving
// bold, underline and reverse video to carry focus and selection.
package theme

import (
	"image/color"
	"os"

	"charm.land/lipgloss/v2"
)

// Theme is the palette for one background.
type Theme struct {
	Dark    bool
	NoColor bool

	Text, Muted, Subtle   color.Color
	Accent, AccentAlt     color.Color
	OK, Warn, Error       color.Color
	Highlight, SelectedBg color.Color
	Border, BorderFocus   color.Color
	User, Assistant, Tool color.Color
}

// NoColorEnv reports whether the user asked for no colour (https://no-color.org).
func NoColorEnv() bool { return os.Getenv("NO_COLOR") != "" }

// New returns the palette for a dark or light background.
func New(isDark, noColor bool) Theme {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	t := Theme{
		Dark:        isDark,
		NoColor:     noColor,
		Text:        ld(c("#1f2328"), c("#e6e6e6")),
		Muted:       ld(c("#57606a"), c("#9a9a9a")),
		Subtle:      ld(c("#8c959f"), c("#5c5c5c")),
		Accent:      ld(c("#0b62d6"), c("#7aa2f7")),
		AccentAlt:   ld(c("#8250df"), c("#bb9af7")),
		OK:          ld(c("#1a7f37"), c("#9ece6a")),
		Warn:        ld(c("#9a6700"), c("#e0af68")),
		Error:       ld(c("#cf222e"), c("#f7768e")),
		Highlight:   ld(c("#fff1a8"), c("#5a4a00")),
		SelectedBg:  ld(c("#dbe9ff"), c("#283457")),
		Border:      ld(c("#d0d7de"), c("#3b4261")),
		BorderFocus: ld(c("#0b62d6"), c("#7aa2f7")),
		User:        ld(c("#0a7f6f"), c("#73daca")),
		Assistant:   ld(c("#8250df"), c("#bb9af7")),
		Tool:        ld(c("#57606a"), c("#8a8fa8")),
	}
	return t
}

// Styles are the lipgloss styles every pane draws with.
type Styles struct {
	Theme Theme

	Text, Muted, Subtle, Bold lipgloss.Style
	Title                     lipgloss.Style // pane titles, session titles
	Selected                  lipgloss.Style // the row under the cursor
	Marked                    lipgloss.Style // a row marked for an action (merge)
	Tab, TabActive            lipgloss.Style
	StatusBar, StatusKey      lipgloss.Style
	OK, Warn, Error           lipgloss.Style
	Highlight                 lipgloss.Style // matched words in snippets and finds
	User, Assistant, Tool     lipgloss.Style
	Border, BorderFocus       lipgloss.Style // boxes around side panels
	HelpKey, HelpDesc         lipgloss.Style
	Gutter                    lipgloss.Style // the cursor bar in the reader
}

// Styles builds the styles of the theme.
func (t Theme) Styles() Styles {
	s := lipgloss.NewStyle
	if t.NoColor {
		return Styles{
			Theme:       t,
			Text:        s(),
			Muted:       s(),
			Subtle:      s(),
			Bold:        s().Bold(true),
			Title:       s().Bold(true),
			Selected:    s().Reverse(true),
			Marked:      s().Underline(true),
			Tab:         s(),
			TabActive:   s().Bold(true).Reverse(true),
			StatusBar:   s(),
			StatusKey:   s().Bold(true),
			OK:          s(),
			Warn:        s().Bold(true),
			Error:       s().Bold(true),
			Highlight:   s().Underline(true).Bold(true),
			User:        s().Bold(true),
			Assistant:   s().Bold(true),
			Tool:        s(),
			Border:      s().Border(lipgloss.NormalBorder()),
			BorderFocus: s().Border(lipgloss.ThickBorder()),
			HelpKey:     s().Bold(true),
			HelpDesc:    s(),
			Gutter:      s().Bold(true),
		}
	}
	return Styles{
		Theme:       t,
		Text:        s().Foreground(t.Text),
		Muted:       s().Foreground(t.Muted),
		Subtle:      s().Foreground(t.Subtle),
		Bold:        s().Bold(true).Foreground(t.Text),
		Title:       s().Bold(true).Foreground(t.Accent),
		Selected:    s().Background(t.SelectedBg).Foreground(t.Text).Bold(true),
		Marked:      s().Foreground(t.AccentAlt).Underline(true),
		Tab:         s().Foreground(t.Muted),
		TabActive:   s().Bold(true).Foreground(t.Text).Background(t.SelectedBg),
		StatusBar:   s().Foreground(t.Muted),
		StatusKey:   s().Foreground(t.Accent).Bold(true),
		OK:          s().Foreground(t.OK),
		Warn:        s().Foreground(t.Warn),
		Error:       s().Foreground(t.Error).Bold(true),
		Highlight:   s().Background(t.Highlight).Foreground(t.Text).Bold(true),
		User:        s().Foreground(t.User).Bold(true),
		Assistant:   s().Foreground(t.Assistant).Bold(true),
		Tool:        s().Foreground(t.Tool),
		Border:      s().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border),
		BorderFocus: s().Border(lipgloss.RoundedBorder()).BorderForeground(t.BorderFocus),
		HelpKey:     s().Foreground(t.Accent),
		HelpDesc:    s().Foreground(t.Muted),
		Gutter:      s().Foreground(t.Accent).Bold(true),
	}
}
