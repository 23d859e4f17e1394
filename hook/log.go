package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/termtext"
)

// LogName is the hook log inside the data dir. It is rotated at LogMaxBytes
// into LogName+".1" (one old file kept).
const LogName = "hooks.log"

// LogMaxBytes is the size at which the log is rotated.
const LogMaxBytes = 1 << 20

// Logger appends one line per problem to the hook log. It never fails:
// a hook that cannot log still exits 0 with nothing on stdout.
type Logger struct {
	Path string
	Now  func() time.Time
	// Prefix is added to every line (the event and session).
	Prefix string
}

// NewLogger logs into dataDir/hooks.log.
func NewLogger(dataDir string) *Logger {
	return &Logger{Path: filepath.Join(dataDir, LogName), Now: time.Now}
}

// Printf writes one line (newlines in the message become spaces).
func (l *Logger) Printf(format string, args ...any) {
	if l == nil || l.Path == "" {
		return
	}
	msg := fmt.Sprintf(format, args...)
	// Whatever a message carries (an error quoting input, a path), the log
	// gets it redacted and on one terminal-safe line: doctor prints it.
	msg, _ = redact.Redact(l.Prefix + msg)
	msg = termtext.Line(msg)
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	line := now().UTC().Format(time.RFC3339) + " " + msg + "\n"
	if fi, err := os.Stat(l.Path); err == nil && fi.Size()+int64(len(line)) > LogMaxBytes {
		// Several hook processes may race here; the loser's rename fails or
		// moves a fresh file, which only loses old lines.
		_ = os.Rename(l.Path, l.Path+".1")
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	// One write of one line: O_APPEND keeps concurrent writers' lines whole.
	_, _ = f.WriteString(line)
	_ = f.Close()
}

// LastLines returns up to n last lines of the log (the rotated file is read
// too when the current one is short), oldest first.
func LastLines(dataDir string, n int) []string {
	var lines []string
	for _, p := range []string{filepath.Join(dataDir, LogName+".1"), filepath.Join(dataDir, LogName)} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
