package main

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // uuid5 is defined on SHA-1
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options are the Python tool's arguments.
type Options struct {
	Src, Dest string
	SizeMB    float64
	Projects  int
	Seed      string
	Jobs      int
}

// Result is what Grow wrote.
type Result struct {
	Written int64 // bytes, as the Python tool counts them (the output's)
	Copies  int
}

// srcFile is one source file, read once: its content after Python's
// universal-newline translation, and the size of its output for a copy
// whose project number prints in three digits.
type srcFile struct {
	path string
	rel  []string // path relative to Src, split at the separator
	text []byte
	out3 int64 // output size when the project number is 3 digits wide
	cwds int64 // cwd fields rewritten (each grows by the number's width)
}

// task is one output file: copy k of a source file.
type task struct {
	k    int
	f    *srcFile
	out  string
	size int64
}

// Grow does what scale-corpus does, in the same order with the same stop
// rule, but plans first (which files, which sizes: both are known without
// writing) and then writes the planned files in parallel.
func Grow(o Options) (Result, error) {
	files, err := readSources(o.Src)
	if err != nil {
		return Result{}, err
	}
	target := int64(o.SizeMB * 1024 * 1024)
	var (
		written int64
		k       int
		plan    []task
		planned = map[string]bool{}
	)
	for written < target {
		ns := uuid5(urlNamespace, o.Seed+"/"+itoa(k))
		pnum := k % o.Projects
		suffix := fmt.Sprintf("-bench%03d", pnum)
		for _, f := range files {
			out := copyPath(o.Dest, f, suffix, ns)
			if planned[out] {
				continue
			}
			there, err := exists(out)
			if err != nil {
				return Result{}, err
			}
			if there {
				continue
			}
			planned[out] = true
			size := f.out3 + f.cwds*int64(len(suffix)-len("-bench000"))
			plan = append(plan, task{k: k, f: f, out: out, size: size})
			written += size
			if written >= target {
				break
			}
		}
		k++
	}
	if err := writeAll(o, plan); err != nil {
		return Result{}, err
	}
	return Result{Written: written, Copies: k}, nil
}

// copyPath is where the copy of f with uuid namespace ns goes under dest:
// its project folder suffixed, the uuids of the rest of its path
// remapped.
func copyPath(dest string, f *srcFile, suffix string, ns [16]byte) string {
	parts := make([]string, 0, len(f.rel))
	parts = append(parts, dest, f.rel[0]+suffix)
	for _, p := range f.rel[1:] {
		parts = append(parts, string(remapUUIDs(nil, []byte(p), ns, nil)))
	}
	return pyJoin(parts)
}

// exists reports whether path exists (a copy already there is kept).
func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("stat %s: %w", path, err)
}

// pyJoin joins like os.path.join: a component that is absolute restarts the
// path, and the separator is added only when the left side lacks it.
func pyJoin(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		switch {
		case strings.HasPrefix(p, "/"):
			b.Reset()
		case i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "/"):
			b.WriteByte('/')
		}
		b.WriteString(p)
	}
	return b.String()
}

func itoa(k int) string { return fmt.Sprintf("%d", k) }

// readSources lists the files os.walk would, sorted as Python sorts the
// joined paths (by code point, which for UTF-8 is byte order), and reads
// each once.
func readSources(src string) ([]*srcFile, error) {
	paths, err := sourcePaths(src)
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .jsonl files under %s", src)
	}
	files := make([]*srcFile, 0, len(paths))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return nil, fmt.Errorf("relative path of %s: %w", p, err)
		}
		f := &srcFile{path: p, rel: strings.Split(rel, string(filepath.Separator)), text: universalNewlines(raw)}
		// The output's size does not depend on the copy but through the
		// width of its project number: uuids keep their length, a shifted
		// timestamp always prints as YYYY-MM-DDTHH:MM:SS.mmm. Measure it on
		// copy 0; writeAll checks every file it writes against it.
		out, cwds, err := transform(nil, f.text, uuid5(urlNamespace, "measure"), 0, "-bench000", nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		f.out3, f.cwds = int64(len(out)), int64(cwds)
		files = append(files, f)
	}
	return files, nil
}

// sourcePaths lists the .jsonl and .meta.json files under src as os.walk
// would, unsorted.
func sourcePaths(src string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// os.walk skips what it cannot list; so do we, but say so.
			fmt.Fprintf(os.Stderr, "scalecorpus: skipping %s: %v\n", p, err)
			if d != nil && d.IsDir() && p != src {
				return fs.SkipDir
			}
			return nil
		}
		// os.walk lists a link to a folder among the folders.
		if isSource(d.Name()) && !walkedAsDir(p, d) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", src, err)
	}
	return paths, nil
}

// isSource says a file name is one scale-corpus copies: a transcript or a
// subagent's meta file.
func isSource(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".meta.json")
}

// walkedAsDir reports whether os.walk takes d for a folder: a folder, or
// a link to one.
func walkedAsDir(p string, d fs.DirEntry) bool {
	if d.IsDir() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// universalNewlines is Python's text-mode reading (newline=None): "\r\n"
// and a lone "\r" both become "\n".
func universalNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			out = append(out, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// writeAll writes the plan's files, a copy at a time per worker (one uuid
// cache per copy), Jobs workers at once.
func writeAll(o Options, plan []task) error {
	jobs := max(o.Jobs, 1)
	ch := make(chan []task)
	errs := make(chan error, jobs)
	var wg sync.WaitGroup
	var mkdirMu sync.Mutex
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for g := range ch {
				var err error
				if buf, err = writeCopy(o, g, buf, &mkdirMu); err != nil {
					errs <- err
					for range ch { //nolint:revive // drain so the sender ends
					}
					return
				}
			}
		}()
	}
	for _, g := range copyGroups(plan) {
		ch <- g
	}
	close(ch)
	wg.Wait()
	close(errs)
	return <-errs
}

// copyGroups cuts the plan into its runs of tasks of one copy.
func copyGroups(plan []task) [][]task {
	var groups [][]task
	for i := 0; i < len(plan); {
		j := i
		for j < len(plan) && plan[j].k == plan[i].k {
			j++
		}
		groups = append(groups, plan[i:j])
		i = j
	}
	return groups
}

// writeCopy writes the files of one copy, transformed in buf (returned
// for the next copy); mkdirMu guards the folders the workers make.
func writeCopy(o Options, g []task, buf []byte, mkdirMu *sync.Mutex) ([]byte, error) {
	k := g[0].k
	ns := uuid5(urlNamespace, o.Seed+"/"+itoa(k))
	suffix := fmt.Sprintf("-bench%03d", k%o.Projects)
	cache := map[string][36]byte{}
	for _, t := range g {
		var err error
		buf, _, err = transform(buf[:0], t.f.text, ns, k, suffix, cache)
		if err == nil {
			err = writeTask(t, buf, mkdirMu)
		}
		if err != nil {
			return buf, fmt.Errorf("copy %d of %s -> %s: %w", k, t.f.path, t.out, err)
		}
	}
	return buf, nil
}

// writeTask writes one transformed file, which must be the planned size.
func writeTask(t task, buf []byte, mkdirMu *sync.Mutex) error {
	if int64(len(buf)) != t.size {
		return fmt.Errorf("wrote %d bytes, planned %d", len(buf), t.size)
	}
	mkdirMu.Lock()
	err := os.MkdirAll(filepath.Dir(t.out), 0o777)
	mkdirMu.Unlock()
	if err != nil {
		return err
	}
	return os.WriteFile(t.out, buf, 0o666)
}

var urlNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// uuid5 is Python's uuid.uuid5(ns, name).
func uuid5(ns [16]byte, name string) [16]byte {
	h := sha1.New() //nolint:gosec // uuid5 is defined on SHA-1
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return u
}

const hexDigits = "0123456789abcdef"

func formatUUID(u [16]byte) [36]byte {
	var s [36]byte
	j := 0
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hexDigits[b>>4], hexDigits[b&0x0f]
		j += 2
	}
	return s
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// uuidAt reports whether s[i:] starts with
// [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.
func uuidAt(s []byte, i int) bool {
	const shape = "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
	return i >= 0 && i+len(shape) <= len(s) && hasShape(s[i:i+len(shape)], shape)
}

// remapUUIDs is UUID_RE.sub(remap, s), appended to dst. Every match has a
// hyphen 8 bytes after its start, so the hyphens enumerate the candidates
// in order.
func remapUUIDs(dst, s []byte, ns [16]byte, cache map[string][36]byte) []byte {
	pos := 0
	for from := 8; from < len(s); {
		j := bytes.IndexByte(s[from:], '-')
		if j < 0 {
			break
		}
		h := from + j
		start := h - 8
		if !uuidAt(s, start) {
			from = h + 1
			continue
		}
		dst = append(dst, s[pos:start]...)
		key := s[start : start+36]
		rep, ok := cache[string(key)]
		if !ok {
			rep = formatUUID(uuid5(ns, string(key)))
			if cache != nil {
				cache[string(key)] = rep
			}
		}
		dst = append(dst, rep[:]...)
		pos = start + 36
		from = pos + 8
	}
	return append(dst, s[pos:]...)
}

var (
	tsKey  = []byte(`"timestamp":"`)
	cwdKey = []byte(`"cwd":"`)
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tsAt matches \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z" at s[i:]; it
// returns the end of the digits (before Z) and of the match, or -1.
func tsAt(s []byte, i int) (stampEnd, end int) {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if i+len(shape) > len(s) || !hasShape(s[i:i+len(shape)], shape) {
		return -1, -1
	}
	e := i + len(shape)
	if e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
		e = digitsEnd(s, e+1)
		// else the optional fraction backtracks: Z" must then follow the
		// seconds, and there is a '.' there.
	}
	if e+1 < len(s) && s[e] == 'Z' && s[e+1] == '"' {
		return e, e + 2
	}
	return -1, -1
}

// digitsEnd is the end of the run of digits at s[i:].
func digitsEnd(s []byte, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// hasShape reports whether b is shape, where 'd' stands for any digit and
// 'h' for any lower-case hex digit.
func hasShape(b []byte, shape string) bool {
	for j := 0; j < len(shape); j++ {
		var ok bool
		switch shape[j] {
		case 'd':
			ok = isDigit(b[j])
		case 'h':
			ok = isLowerHex(b[j])
		default:
			ok = b[j] == shape[j]
		}
		if !ok {
			return false
		}
	}
	return true
}

func num(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// daysIn is the number of days of month mo of year y (0: no such month).
func daysIn(y, mo int) int {
	if mo < 1 || mo > 12 {
		return 0
	}
	if mo == 2 && (y%4 == 0 && y%100 != 0 || y%400 == 0) {
		return 29
	}
	return monthDays[mo]
}

// validDate says y-mo-d is a date: year 1 on, a day of the month.
func validDate(y, mo, d int) bool { return y >= 1 && d >= 1 && d <= daysIn(y, mo) }

// validClock says h:mi:sec is a time of day.
func validClock(h, mi, sec int) bool { return h <= 23 && mi <= 59 && sec <= 59 }

// shiftStamp is datetime.fromisoformat(t) - timedelta(hours=k), printed with
// isoformat(timespec="milliseconds"): the fraction's first three digits,
// zero-padded (Python keeps six and truncates to milliseconds; the shift is
// whole hours so it never touches them). Values fromisoformat refuses are
// an error, as they end the Python tool.
func shiftStamp(dst, t []byte, k int) ([]byte, error) {
	y, mo, d := num(t[0:4]), num(t[5:7]), num(t[8:10])
	h, mi, sec := num(t[11:13]), num(t[14:16]), num(t[17:19])
	if !validDate(y, mo, d) || !validClock(h, mi, sec) {
		return nil, fmt.Errorf("timestamp %q: fromisoformat refuses it", t)
	}
	tm := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC).Add(-time.Duration(k) * time.Hour)
	if tm.Year() < 1 {
		return nil, fmt.Errorf("timestamp %q minus %d hours: before year 1", t, k)
	}
	ms := []byte("000")
	if len(t) > 20 {
		copy(ms, t[20:]) // up to three digits, the rest truncated
	}
	dst = tm.AppendFormat(dst, "2006-01-02T15:04:05")
	dst = append(dst, '.')
	return append(dst, ms...), nil
}

// shiftTimestamps is TS_RE.sub(reshift, s), appended to dst.
func shiftTimestamps(dst, s []byte, k int) ([]byte, error) {
	pos, from := 0, 0
	for {
		j := bytes.Index(s[from:], tsKey)
		if j < 0 {
			break
		}
		i := from + j
		v := i + len(tsKey)
		stampEnd, end := tsAt(s, v)
		if end < 0 {
			from = i + 1
			continue
		}
		dst = append(dst, s[pos:v]...)
		var err error
		if dst, err = shiftStamp(dst, s[v:stampEnd], k); err != nil {
			return nil, err
		}
		dst = append(dst, 'Z', '"')
		pos, from = end, end
	}
	return append(dst, s[pos:]...), nil
}

// rewriteCwds is re.sub(r'"cwd":"([^"]*)"', ...) applied line by line: the
// value ends at the next quote, which must come before the line's end.
func rewriteCwds(dst, s []byte, suffix string) ([]byte, int) {
	pos, from, n := 0, 0, 0
	for {
		j := bytes.Index(s[from:], cwdKey)
		if j < 0 {
			break
		}
		i := from + j
		v := i + len(cwdKey)
		q := bytes.IndexAny(s[v:], "\"\n")
		if q < 0 || s[v+q] != '"' {
			from = i + 1
			continue
		}
		e := v + q
		dst = append(dst, s[pos:e]...)
		dst = append(dst, suffix...)
		dst = append(dst, '"')
		pos, from = e+1, e+1
		n++
	}
	return append(dst, s[pos:]...), n
}

// transform is the Python tool's three substitutions in its order (uuids,
// then timestamps, then cwd), appended to dst; it returns how many cwd
// fields it rewrote. None of the patterns spans a newline, so running each
// over the whole file equals running them line by line.
func transform(dst, text []byte, ns [16]byte, k int, suffix string, cache map[string][36]byte) ([]byte, int, error) {
	a := remapUUIDs(make([]byte, 0, len(text)+len(text)/16), text, ns, cache)
	b, err := shiftTimestamps(make([]byte, 0, len(a)+len(a)/16), a, k)
	if err != nil {
		return nil, 0, err
	}
	out, n := rewriteCwds(dst, b, suffix)
	return out, n, nil
}
