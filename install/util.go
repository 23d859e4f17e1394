package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	for _, c := range goBuildCaches() {
		if under(c, exe) {
			return true
		}
	}
	return slices.ContainsFunc(strings.Split(filepath.ToSlash(filepath.Dir(exe)), "/"), isGoWorkDir)
}

// goBuildCaches is where Go caches builds, symbolic links resolved:
// $GOCACHE (unless "off"), and the user cache dir's go-build.
func goBuildCaches() []string {
	caches := []string{os.Getenv("GOCACHE")}
	if d, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(d, "go-build"))
	}
	caches = slices.DeleteFunc(caches, func(c string) bool { return c == "" || c == "off" })
	for i, c := range caches {
		if r, err := filepath.EvalSymlinks(c); err == nil {
			caches[i] = r
		}
	}
	return caches
}

// under says path is inside dir (and not dir itself).
func under(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// isGoWorkDir says a directory name is a go command's work dir,
// go-build<digits>.
func isGoWorkDir(name string) bool {
	digits, ok := strings.CutPrefix(name, "go-build")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}
