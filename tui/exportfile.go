package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/transcripts"
	"github.com/cairn-dev/cairn/transcripts/render"
)

// writeNewFile writes data to path or, when a file of that name is there
// (an earlier export, a file of the person's), to the first free name
// beside it ("-2", "-3"… before the extension): an export never
// overwrites a file. It returns the path written.
func writeNewFile(path string, data []byte) (string, error) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for i := 1; i < 1000; i++ {
		p := path
		if i > 1 {
			p = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return p, err
		}
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(p)
			return p, err
		}
		return p, nil
	}
	return path, fmt.Errorf("%s and 998 numbered names beside it are taken", filepath.Base(path))
}

// ExportMarkdown renders a conversation as a Markdown document, as
// `cairn show --markdown` prints it (one renderer: render.Conversation).
func ExportMarkdown(c *transcripts.Conversation, thinking bool) string {
	var b strings.Builder
	_ = render.Conversation(&b, c, render.Options{Markdown: true, Thinking: thinking}) // a Builder does not fail
	return b.String()
}
