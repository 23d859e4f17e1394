//go:build !unix

package transcripts

import "os"

// openNonBlocking is os.Open: named pipes do not live among files here.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
