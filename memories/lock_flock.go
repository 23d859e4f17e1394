package memories

import (
	"fmt"
	"os"

	"github.com/gofrs/flock"
)

// tryLock takes an exclusive advisory lock on path without waiting; ok is
// false when another process (or another tryLock in this one) holds it. The
// lock dies with the process; the file stays. gofrs/flock: flock(2) on Unix,
// LockFileEx on Windows.
func tryLock(path string) (unlock func(), ok bool, err error) {
	l := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ok, err = l.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return func() { _ = l.Unlock() }, true, nil
}
