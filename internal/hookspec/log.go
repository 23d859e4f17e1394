package hookspec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// OutsideClaudeDir is what the log and doctor say of a transcript_path
// outside the Claude directory, in place of the path: hook input names
// any file, and the log (which doctor prints) must not carry paths from
// elsewhere on the machine.
const OutsideClaudeDir = "transcript_path outside the Claude directory"

// quotedTranscriptPath is how earlier builds logged such a path.
var quotedTranscriptPath = regexp.MustCompile(`transcript_path "(?:[^"\\]|\\.)*" is (outside the Claude config dir|not absolute)`)

// ScrubTranscriptPaths takes the transcript_path out of a line an earlier
// build logged ("transcript_path \"/elsewhere/x\" is outside …").
func ScrubTranscriptPaths(line string) string {
	if !strings.Contains(line, "transcript_path \"") {
		return line
	}
	return quotedTranscriptPath.ReplaceAllStringFunc(line, func(m string) string {
		if strings.HasSuffix(m, "not absolute") {
			return "transcript_path not absolute"
		}
		return OutsideClaudeDir
	})
}
