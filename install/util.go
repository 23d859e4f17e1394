package install

import (
	"encoding/json"
	"sort"
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
