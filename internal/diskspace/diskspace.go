// Package diskspace says how much room a folder's filesystem has left and
// recognises the errors of a full disk, so every writer (the store, the
// full-text index) reports a full disk the same way: which folder, how much
// is free, and that nothing was lost.
package diskspace

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/human"
)

// ErrFull is what a write that failed for lack of space wraps.
var ErrFull = errors.New("the disk is full")

// IsFull reports whether err is the operating system saying there is no
// room: no space left, over quota, or over the file size limit.
func IsFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrFull) {
		return true
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && isFullErrno(errno) {
		return true
	}
	// bleve's persister formats the system's error into its own text.
	msg := err.Error()
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if strings.Contains(msg, e.Error()) {
			return true
		}
	}
	return false
}

// Error is the error of a write into dir that failed for lack of space
// (cause may be an error or a recovered panic value). It names the folder,
// says how much is free when that can be told, and that nothing was lost.
func Error(what, dir string, cause any) error {
	free := ""
	if n, ok := Free(dir); ok {
		free = fmt.Sprintf(" (%s free now)", human.Bytes(int64(min(n, 1<<62))))
	}
	return &FullError{What: what, Dir: dir, msg: fmt.Sprintf("%s: could not write in %s (%v): free space in %s%s and run the command again; nothing was lost",
		what, dir, cause, dir, free)}
}

// FullError is a write that failed for lack of space.
type FullError struct {
	What, Dir string
	msg       string
}

func (e *FullError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrFull) true.
func (e *FullError) Unwrap() error { return ErrFull }
