package hook

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// The brief is sent once per context. On --resume (and a fork) Claude
// Code replays the transcript, which holds the SessionStart context of
// the run that started it (saved as a hook attachment): SessionStart's
// new context would be a second copy, and Claude Code sends it whenever
// another hook (a UserPromptSubmit's) adds context too. So SessionStart
// reads the transcript for cairn's brief since its last compaction and
// gives only what the history lacks. /clear and compaction start an empty
// context: the brief is given again (see sessionStart).

// briefMarker starts every brief (sessionStart's head line).
const briefMarker = "cairn: session id "

// compactMarker is the subtype of the entry a compaction writes; what
// comes before it is no longer in the context.
const compactMarker = `"compact_boundary"`

// historyChunk is how much of the transcript is read at a time, from its
// end.
const historyChunk = 256 << 10

// briefInHistory reports whether the transcript at path holds a cairn
// brief after its last compaction, and the session id the latest one
// named. A transcript that does not exist holds none.
func briefInHistory(path string) (found bool, session string, err error) {
	if path == "" {
		return false, "", nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, "", nil
	}
	if err != nil {
		return false, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, "", err
	}
	return lastBrief(f, fi.Size())
}

// lastBrief is briefInHistory of the size bytes of f.
func lastBrief(f io.ReaderAt, size int64) (found bool, session string, err error) {
	// Read backwards; each chunk overlaps the next one (towards the end)
	// by enough to hold a marker and a session id cut at the boundary.
	const overlap = 256
	end := size
	buf := make([]byte, historyChunk+overlap)
	for end > 0 {
		start := max(end-historyChunk, 0)
		n := int(min(size-start, int64(len(buf))))
		b := buf[:n]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return false, "", err
		}
		brief := bytes.LastIndex(b, []byte(briefMarker))
		boundary := bytes.LastIndex(b, []byte(compactMarker))
		switch {
		case brief >= 0 && brief > boundary:
			return true, sessionAt(b[brief+len(briefMarker):]), nil
		case boundary >= 0:
			return false, "", nil
		}
		end = start
	}
	return false, "", nil
}

// sessionAt is the session id at the start of b (the brief's head line).
func sessionAt(b []byte) string {
	i := 0
	for i < len(b) && i < 128 && nameByte(b[i]) {
		i++
	}
	return string(b[:i])
}
