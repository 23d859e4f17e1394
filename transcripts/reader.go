package transcripts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"time"
)

// Cursor records how far a file has been read, so the next read resumes
// after the last complete line and notices a truncated or replaced file.
type Cursor struct {
	Offset      int64  // byte offset just past the last complete line read
	Line        int    // number of complete lines read so far
	Size        int64  // file size when it was last read
	Fingerprint uint64 // hash of the start of the first line; 0 when unknown
}

// LineError is one line that could not be used.
type LineError struct {
	Path   string
	Line   int
	Offset int64
	Err    error
}

func (e LineError) Error() string {
	return fmt.Sprintf("%s:%d (byte %d): %v", e.Path, e.Line, e.Offset, e.Err)
}

// ReadStats tells what a read did.
type ReadStats struct {
	Lines    int         // complete lines read
	Entries  int         // entries handed to the callback
	BadLines int         // lines skipped because they are not JSON objects
	Errors   []LineError // the first MaxLineErrors bad lines
	Bytes    int64       // bytes consumed
	Restart  bool        // the file was truncated or replaced, and was read from the start
}

// MaxLineErrors bounds how many bad lines are kept with details; all are counted.
const MaxLineErrors = 20

// MaxLineBytes bounds one line held in memory. A longer line is skipped
// (streamed past, counted as bad) instead of exhausting memory.
const MaxLineBytes = 512 << 20

// fingerprintBytes is how much of the first line identifies a file.
const fingerprintBytes = 4096

// QuietPeriod is how long a file must have gone unwritten before a last
// line without its newline is read anyway, when it is complete JSON: Claude
// Code sometimes ends a file without one, and that line (often the final
// answer) must not wait forever. A line still being written is younger.
var QuietPeriod = 3 * time.Second

var errLineTooLong = errors.New("line longer than 512 MB skipped")

// ReadFile reads the complete lines of path after cur and calls fn for every
// parsed entry. It returns the cursor to resume from. A half-written last
// line (no trailing newline yet) is left for the next read, unless the file
// has been quiet for QuietPeriod and the line is complete JSON: it is read
// then, and the newline arriving later is not read as a line of its own. When the file is
// shorter than cur.Offset or its first line changed, it is read from the start
// and stats.Restart is set: the caller must treat earlier entries of this file
// as replaced. fn may return an error to stop; it is returned as is.
func ReadFile(path string, cur Cursor, fn func(*Entry) error) (Cursor, ReadStats, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return cur, ReadStats{}, err
	}
	defer f.Close()
	var stats ReadStats
	cur, stats.Restart, err = restartIfReplaced(f, st.Size(), cur)
	if err != nil {
		return cur, stats, err
	}
	if cur.Offset == st.Size() && !stats.Restart {
		cur.Size = st.Size()
		return cur, stats, nil
	}
	ro := readOpts{quiet: time.Since(st.ModTime()) >= QuietPeriod, midLine: cur.Offset > 0 && inLine(f, cur.Offset)}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return cur, stats, err
	}
	ro.at = f
	next, err := read(f, path, cur, &stats, fn, ro)
	next.Size = st.Size()
	return next, stats, err
}

// inLine reports whether offset off of f is inside a line: the last read
// ended there without a newline (a complete last line read without it),
// and what follows is still that line.
func inLine(f io.ReaderAt, off int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], off-1)
	return err == nil && b[0] != '\n'
}

// readOpts are what ReadFile knows about a file beyond its bytes.
type readOpts struct {
	quiet   bool // unwritten for QuietPeriod: a complete unterminated last line is read
	midLine bool // the cursor is inside a line whose start was read already
	// at reads the file at an offset (nil: a plain stream): a line longer
	// than the read buffer is measured first and read into one buffer of
	// its size, instead of a buffer doubled up to twice the line.
	at io.ReaderAt
}

// restartIfReplaced is cur, or the start of the file (restart) when f,
// of size bytes, is no longer the one cur was read from.
func restartIfReplaced(f *os.File, size int64, cur Cursor) (_ Cursor, restart bool, _ error) {
	if cur.Offset == 0 {
		return cur, false, nil
	}
	replaced, err := isReplaced(f, size, cur)
	if err != nil || !replaced {
		return cur, false, err
	}
	return Cursor{}, true, nil
}

// isReplaced reports whether the file f, of size bytes, is no longer the
// one cur was read from: it shrank below the cursor or its first line
// changed.
func isReplaced(f *os.File, size int64, cur Cursor) (bool, error) {
	fp, err := fingerprint(f)
	if err != nil {
		return false, err
	}
	return size < cur.Offset || (cur.Fingerprint != 0 && fp != cur.Fingerprint), nil
}

// fingerprint hashes the first fingerprintBytes of the file's first line.
func fingerprint(r io.ReaderAt) (uint64, error) {
	buf := make([]byte, fingerprintBytes)
	n, err := r.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return 0, err
	}
	buf = buf[:n]
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i]
	}
	return hashBytes(buf), nil
}

func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	s := h.Sum64()
	if s == 0 {
		s = 1 // 0 means "unknown"
	}
	return s
}

// Read reads complete lines from r, which is positioned at cur.Offset, and
// returns the advanced cursor (Size is left to the caller). path is only used
// in error reports.
func Read(r io.Reader, path string, cur Cursor, stats *ReadStats, fn func(*Entry) error) (Cursor, error) {
	return read(r, path, cur, stats, fn, readOpts{})
}

func read(r io.Reader, path string, cur Cursor, stats *ReadStats, fn func(*Entry) error, ro readOpts) (Cursor, error) {
	lr := lineReader{br: bufio.NewReaderSize(r, 256<<10), path: path, cur: cur, stats: stats, fn: fn, ro: ro}
	for {
		chunk, err := lr.br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !lr.overflow(chunk) {
				return lr.cur, nil
			}
		case err == io.EOF:
			err := lr.unterminated(chunk)
			return lr.cur, err
		case err != nil:
			return lr.cur, err
		default:
			if err := lr.line(chunk); err != nil {
				return lr.cur, err
			}
		}
	}
}

// lineReader is the state of one read: the buffered file, the line too
// long for its buffer being gathered, and the cursor that moves past each
// line read.
type lineReader struct {
	br    *bufio.Reader
	long  []byte // accumulates lines longer than the bufio buffer
	path  string
	cur   Cursor
	stats *ReadStats
	fn    func(*Entry) error
	ro    readOpts
}

// overflow takes a chunk of a line longer than the read buffer. It keeps
// the chunk while the line stays within MaxLineBytes (in one buffer sized
// up front when the file can be read at an offset); past that it streams
// over the rest of the line and counts it as bad. It is false when the
// file ends inside the line: the line is not complete yet.
func (lr *lineReader) overflow(chunk []byte) bool {
	if len(lr.long) == 0 && lr.ro.at != nil {
		if n, ok := lineRest(lr.ro.at, lr.cur.Offset+int64(len(chunk))); ok && int64(len(chunk))+n <= MaxLineBytes {
			lr.long = make([]byte, 0, int64(len(chunk))+n)
		}
	}
	if len(lr.long)+len(chunk) <= MaxLineBytes {
		lr.long = append(lr.long, chunk...)
		return true
	}
	// Stream past the rest of this line without keeping it.
	skipped, err := skipLine(lr.br)
	if err != nil { // EOF inside the line: it is not complete yet
		return false
	}
	skipLongLine(lr.path, int64(len(lr.long)+len(chunk)+skipped), &lr.cur, lr.stats)
	lr.long = nil
	return true
}

// unterminated takes what follows the last newline at the end of the file:
// a half-written line waits for the next read, unless the file is quiet
// and the line is complete JSON.
func (lr *lineReader) unterminated(chunk []byte) error {
	if !lr.ro.quiet || len(lr.long)+len(chunk) == 0 {
		return nil
	}
	line := append(lr.long, chunk...)
	if trimmed := bytes.TrimSpace(line); len(trimmed) == 0 || !json.Valid(trimmed) {
		return nil
	}
	return readLine(line, lr.path, &lr.cur, lr.stats, lr.fn)
}

// line reads the line that chunk ends (with what overflow gathered of it),
// unless it is only the newline of a line whose start a read before this
// one took.
func (lr *lineReader) line(chunk []byte) error {
	line := chunk
	if len(lr.long) > 0 {
		lr.long = append(lr.long, chunk...)
		line = lr.long
	}
	if lr.ro.midLine {
		// The rest of a line read before its newline came: the
		// newline alone (or what was glued to the line) is not a new
		// line.
		lr.ro.midLine = false
		if len(bytes.TrimSpace(line)) == 0 {
			lr.cur.Offset += int64(len(line))
			lr.stats.Bytes += int64(len(line))
			lr.long = lr.long[:0]
			return nil
		}
		lr.cur.Line--
	}
	if err := readLine(line, lr.path, &lr.cur, lr.stats, lr.fn); err != nil {
		return err
	}
	if cap(lr.long) > 4<<20 {
		lr.long = nil // do not keep a huge buffer after a huge line
	} else {
		lr.long = lr.long[:0]
	}
	return nil
}

// lineRest is how many bytes from off to the next newline, included (ok
// false when there is none yet, or the file cannot be read there).
func lineRest(at io.ReaderAt, off int64) (int64, bool) {
	buf := make([]byte, 1<<20)
	var n int64
	for n <= MaxLineBytes {
		k, err := at.ReadAt(buf, off+n)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return n + int64(i) + 1, true
		}
		n += int64(k)
		if err != nil || k == 0 {
			return 0, false
		}
	}
	return 0, false
}

// skipLongLine counts a line of n bytes, over MaxLineBytes, that was
// skipped, as a bad line.
func skipLongLine(path string, n int64, cur *Cursor, stats *ReadStats) {
	cur.Line++
	stats.Lines++
	stats.Bytes += n
	stats.bad(LineError{Path: path, Line: cur.Line, Offset: cur.Offset, Err: errLineTooLong})
	cur.Offset += n
}

// readLine counts one complete line (newline included), fingerprints the
// file at its first line, and hands the entry it holds, if any, to fn. cur
// moves past the line even when fn fails.
func readLine(line []byte, path string, cur *Cursor, stats *ReadStats, fn func(*Entry) error) error {
	n := int64(len(line))
	cur.Line++
	stats.Lines++
	stats.Bytes += n
	if cur.Offset == 0 && cur.Fingerprint == 0 {
		fp := bytes.TrimSuffix(line, []byte{'\n'})
		if len(fp) > fingerprintBytes {
			fp = fp[:fingerprintBytes]
		}
		cur.Fingerprint = hashBytes(fp)
	}
	var err error
	if len(bytes.TrimSpace(line)) > 0 {
		err = emitLine(line, path, cur, stats, fn)
	}
	cur.Offset += n
	return err
}

// emitLine parses a non-blank line at cur and hands its entry to fn; a
// line that does not parse is counted as bad.
func emitLine(line []byte, path string, cur *Cursor, stats *ReadStats, fn func(*Entry) error) error {
	e, err := ParseLine(line)
	if err != nil {
		stats.bad(LineError{Path: path, Line: cur.Line, Offset: cur.Offset, Err: err})
		return nil
	}
	e.Line = cur.Line
	e.Offset = cur.Offset
	stats.Entries++
	return fn(&e)
}

// skipLine discards through the next newline and returns the bytes skipped.
func skipLine(br *bufio.Reader) (int, error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return n, err
	}
}

func (s *ReadStats) bad(e LineError) {
	s.BadLines++
	if len(s.Errors) < MaxLineErrors {
		s.Errors = append(s.Errors, e)
	}
}
