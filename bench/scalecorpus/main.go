// Command scalecorpus grows a Claude Code projects tree to a target size for
// benchmarks. It is a Go port of ../shared/tools/scale-corpus (Python) and
// writes byte-identical output for the same arguments, in parallel over the
// copies and without Python's per-line regex cost.
//
// Usage: scalecorpus SRC_PROJECTS_DIR DEST_PROJECTS_DIR SIZE_MB [--projects N] [--seed S] [--jobs J]
//
// Copies every *.jsonl (and *.meta.json) under SRC again and again until DEST
// holds about SIZE_MB megabytes (it stops after the file that reaches it).
// Each copy k gets fresh, consistent identifiers: every UUID-looking string is
// mapped through uuid5(uuid5(URL, "SEED/k"), original), so parentUuid chains,
// sessionId fields and file names stay linked; timestamps are shifted back by
// k hours; copies are spread over N project folders whose cwd fields are
// rewritten to match. A file that already exists in DEST is left alone and
// not counted, as the Python tool does.
//
// It is a benchmark tool, not part of cairn: nothing in the module imports it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "scalecorpus:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("scalecorpus", flag.ContinueOnError)
	projects := fs.Int("projects", 40, "number of project folders the copies are spread over")
	seed := fs.String("seed", "cairn-bench", "seed of the identifiers' namespaces")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "files written at once")
	// Python's argparse takes options anywhere; flag stops at the first
	// positional argument, so gather positionals and parse the rest again.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("parse arguments: %w", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 3 {
		return errors.New("usage: scalecorpus SRC_PROJECTS_DIR DEST_PROJECTS_DIR SIZE_MB [--projects N] [--seed S] [--jobs J]")
	}
	sizeMB, err := strconv.ParseFloat(pos[2], 64)
	if err != nil {
		return fmt.Errorf("size_mb %q: %w", pos[2], err)
	}
	if *projects < 1 {
		return fmt.Errorf("--projects %d: must be at least 1", *projects)
	}
	res, err := Grow(Options{Src: pos[0], Dest: pos[1], SizeMB: sizeMB, Projects: *projects, Seed: *seed, Jobs: *jobs})
	if err != nil {
		return err
	}
	fmt.Printf("wrote %.1f MB in %d copies to %s\n", float64(res.Written)/1048576, res.Copies, pos[1])
	return nil
}
