package transcripts

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what reading anything but a regular file gives: a FIFO
// named *.jsonl would block a reader forever, a device could stream
// without end. Such files are skipped and reported, never read.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading without blocking (a FIFO opens at once
// instead of waiting for a writer) and refuses anything that is not a
// regular file once it is open, so a file swapped between a stat and the
// open cannot slip through.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, NotRegularError(path, st.Mode())
	}
	return f, st, nil
}

// NotRegularError says that path is not a regular file and what it is.
func NotRegularError(path string, mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	case mode.IsDir():
		what = "a directory"
	}
	return fmt.Errorf("skipped %s: it is %s, not a transcript file (%w)", path, what, ErrNotRegular)
}

// ReadSmallFile reads a whole regular file of at most max bytes (a sidecar,
// a memory file), refusing FIFOs, devices and anything larger.
func ReadSmallFile(path string, max int64) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d KB: larger than the %d KB allowed; skipped", path, st.Size()>>10, max>>10)
	}
	return io.ReadAll(io.LimitReader(f, max))
}
