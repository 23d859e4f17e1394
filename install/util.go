package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonMarshalSorted marshals plain values (maps marshal with sorted keys).
func jsonMarshalSorted(v any) ([]byte, error) { return json.Marshal(v) }

// TemporaryBuild reports whether exe is a `go run` build, which Go deletes
// or evicts: one in the Go build cache ($GOCACHE, else the user cache
// dir's go-build, where Go 1.24+ caches `go run` executables) or in a go
// command's work dir ($GOTMPDIR or $TMPDIR/go-build<digits>/). Any other
// binary is fine wherever it lives, $TMPDIR included.
func TemporaryBuild(exe string) bool {
	exe = filepath.Clean(exe)
	caches := []string{os.Getenv("GOCACHE")}
	if d, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(d, "go-build"))
	}
	for _, c := range caches {
		if c == "" || c == "off" {
			continue
		}
		if r, err := filepath.EvalSymlinks(c); err == nil {
			c = r
		}
		if rel, err := filepath.Rel(c, exe); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(exe)), "/") {
		if digits, ok := strings.CutPrefix(part, "go-build"); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	return false
}
