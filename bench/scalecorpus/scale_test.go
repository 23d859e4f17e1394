package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// testdata/golden is what ../shared/tools/scale-corpus (Python 3.11) wrote
// for `scale-corpus testdata/src golden 0.004 --projects 2 --seed golden`.
// testdata/src holds what the substitutions must get right: CRLF and lone
// CR line ends, timestamps without a fraction, with one digit, with seven,
// shifted across a day, a year and a leap day, near-uuids (upper case, one
// digit short, run into another), invalid UTF-8, a cwd without its closing
// quote on the line, a file without a uuid in its name (it collides across
// copies k and k+2 and is written once), a file that is not copied, and the
// stop rule (the fifth copy is cut after the file that reaches the size).
func TestGrowMatchesPythonGolden(t *testing.T) {
	for _, jobs := range []int{1, 2, 5} {
		dest := filepath.Join(t.TempDir(), "out")
		res, err := Grow(Options{Src: "testdata/src", Dest: dest, SizeMB: 0.004, Projects: 2, Seed: "golden", Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if res.Copies != 5 {
			t.Errorf("jobs %d: %d copies, the Python tool made 5", jobs, res.Copies)
		}
		want, got := readTree(t, "testdata/golden"), readTree(t, dest)
		var total int64
		for name, w := range want {
			total += int64(len(w))
			g, ok := got[name]
			switch {
			case !ok:
				t.Errorf("jobs %d: %s missing", jobs, name)
			case !bytes.Equal(g, w):
				t.Errorf("jobs %d: %s differs from the Python tool's output:\n got %q\nwant %q", jobs, name, g, w)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("jobs %d: %s written, the Python tool did not write it", jobs, name)
			}
		}
		if res.Written != total {
			t.Errorf("jobs %d: counted %d bytes, wrote %d", jobs, res.Written, total)
		}
	}
}

// A file already in DEST is neither rewritten nor counted, so a second run
// into the same folder writes only new copies, as the Python tool does.
func TestGrowLeavesExistingFiles(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out")
	first, err := Grow(Options{Src: "testdata/src", Dest: dest, SizeMB: 0.004, Projects: 2, Seed: "golden", Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	marked := filepath.Join(dest, "-home-u-other-bench000", "agent-test-hash.jsonl")
	if err := os.WriteFile(marked, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	second, err := Grow(Options{Src: "testdata/src", Dest: dest, SizeMB: 0.004, Projects: 2, Seed: "golden", Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marked); err != nil || string(b) != "kept" {
		t.Errorf("existing file rewritten: %q, %v", b, err)
	}
	if second.Copies <= first.Copies {
		t.Errorf("second run made copies 0..%d, want more than the first run's %d (its copies exist)", second.Copies, first.Copies)
	}
}

func TestShiftStampRefusesWhatFromisoformatRefuses(t *testing.T) {
	for _, s := range []string{"2024-02-30T00:00:00", "2023-02-29T00:00:00", "2024-13-01T00:00:00", "2024-01-01T24:00:00", "2024-01-01T23:59:60", "0000-01-01T00:00:00"} {
		if _, err := shiftStamp(nil, []byte(s), 1); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
	if _, err := shiftStamp(nil, []byte("0001-01-01T00:30:00"), 1); err == nil {
		t.Error("shift before year 1 accepted")
	}
	for in, want := range map[string]string{
		"2024-03-01T00:00:00.9":       "2024-02-29T23:00:00.900",
		"2024-01-01T05:00:00.1234567": "2024-01-01T04:00:00.123",
		"0999-01-01T05:00:00":         "0999-01-01T04:00:00.000",
	} {
		got, err := shiftStamp(nil, []byte(in), 1)
		if err != nil || string(got) != want {
			t.Errorf("%s: got %s, %v; want %s", in, got, err, want)
		}
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out[rel] = b
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no files under %s", root)
	}
	return out
}
