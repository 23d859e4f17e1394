package fts

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPackIDRoundTrip(t *testing.T) {
	for _, id := range []string{
		"m:0f8fad5b-d9cb-469f-a165-70867728950e",
		"s:7c9e6679-7425-40de-944b-e07fc1f90ae7",
		"m:0F8FAD5B-D9CB-469F-A165-70867728950E", // not canonical: kept
		"m:0f8fad5b-d9cb-469f-a165-70867728950",  // too short
		"m:0f8fad5bxd9cb-469f-a165-70867728950e", // no dash
		"m:nouuid-0123456789abcdef0123456789abcdef",
		"mem:42", "sum:7c9e6679-7425-40de-944b-e07fc1f90ae7",
		"\x01" + "0123456789abcdef", "\x00x", "\x02", "x",
	} {
		key := packID(id)
		if got := unpackID(key); got != id {
			t.Errorf("unpackID(packID(%q)) = %q", id, got)
		}
	}
	if k := packID("m:0f8fad5b-d9cb-469f-a165-70867728950e"); len(k) != 17 || k[0] != keyEntry {
		t.Errorf("an entry's id packs to %q", k)
	}
}

// An index written before ids were packed (schemaIDs1) is read and
// written as it is; a new one packs them; both give callers the same ids.
func TestIndexOfUnpackedIDsStillWorks(t *testing.T) {
	a := "m:0f8fad5b-d9cb-469f-a165-70867728950e"
	b := "s:7c9e6679-7425-40de-944b-e07fc1f90ae7"
	c := "mem:42"
	for _, legacy := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "fts")
		ix, err := Open(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if legacy {
			if err := ix.idx.SetInternal([]byte(schemaKey), []byte(schemaIDs1)); err != nil {
				t.Fatal(err)
			}
			ix.Close()
			if ix, err = Open(dir, time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if ix.packIDs == legacy {
			t.Fatalf("legacy %v: packIDs %v", legacy, ix.packIDs)
		}
		mustIndex(t, ix, Doc{ID: a, Kind: "message", Text: "websocket reconnect"},
			Doc{ID: b, Kind: "session", Text: "websocket title"}, Doc{ID: c, Kind: "memory", Text: "websocket memory"})
		ix.Close()
		if ix, err = OpenReadOnly(dir, time.Second); err != nil {
			t.Fatal(err)
		}
		got := searchIDs(t, ix, "websocket", Filter{})
		if !sameSet(got, []string{a, b, c}) {
			t.Errorf("legacy %v: search gives %q", legacy, got)
		}
		cov, err := ix.Cover("websocket reconnect", []string{a, b, c})
		if err != nil {
			t.Fatal(err)
		}
		if cov.Has[a] != 3 || cov.Has[b] != 1 || cov.Has[c] != 1 {
			t.Errorf("legacy %v: cover %v", legacy, cov.Has)
		}
		ix.Close()
		if ix, err = Open(dir, time.Second); err != nil {
			t.Fatal(err)
		}
		if err := ix.Delete([]string{a, b}); err != nil {
			t.Fatal(err)
		}
		if got := searchIDs(t, ix, "websocket", Filter{}); !slices.Equal(got, []string{c}) {
			t.Errorf("legacy %v: after deleting, search gives %q", legacy, got)
		}
		ix.Close()
	}
}
