//go:build !unix

package index

// releasePages does nothing where madvise is missing: the scanned pages stay
// resident until the cache is closed.
func releasePages([]byte) {}
