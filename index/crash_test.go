package index

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment of the child process (the test binary re-executed).
const (
	envChild  = "CAIRN_INDEX_TEST_CHILD"
	envData   = "CAIRN_INDEX_TEST_DATA"
	envClaude = "CAIRN_INDEX_TEST_CLAUDE"
	envBatch  = "CAIRN_INDEX_TEST_BATCH"
	// envWorkers sets the parse goroutines (default 1, to make the crash
	// test's syncs slower); 0 means all cores (for measuring RSS and speed).
	envWorkers = "CAIRN_INDEX_TEST_WORKERS"
	// envProgress makes the child print a "progress FILES TOTAL ENTRIES"
	// line on stderr after each file it has read (and committed, when the
	// batch was full): the crash test kills it on those lines.
	envProgress = "CAIRN_INDEX_TEST_PROGRESS"
)

// TestSyncChild is not a test: it is the body of the child process of the
// crash and concurrency tests.
func TestSyncChild(t *testing.T) {
	if os.Getenv(envChild) == "" {
		t.Skip("child process only")
	}
	batch, _ := strconv.Atoi(os.Getenv(envBatch))
	workers := 1
	if w := os.Getenv(envWorkers); w != "" {
		workers, _ = strconv.Atoi(w)
	}
	s, err := Open(os.Getenv(envData))
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	o := SyncOptions{BatchEntries: batch, Workers: workers}
	if os.Getenv(envProgress) != "" {
		o.Progress = func(p Progress) {
			fmt.Fprintf(os.Stderr, "progress %d %d %d\n", p.FilesDone, p.FilesTotal, p.Entries)
		}
	}
	st, err := s.Sync(context.Background(), os.Getenv(envClaude), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sync:", err)
		os.Exit(4)
	}
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		os.Exit(5)
	}
	json.NewEncoder(os.Stdout).Encode(st)
}

// childSync is bin (a test binary of the package: os.Args[0], or
// withoutRace.Child's) running TestSyncChild.
func childSync(ctx context.Context, bin, data, claude string, batch int) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestSyncChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"=1", envData+"="+data, envClaude+"="+claude, envBatch+"="+strconv.Itoa(batch))
	return cmd
}

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// grownTree copies src n times, each copy under its own project folders
// and with every uuid (entries, sessions, file names) changed, so the
// copies are distinct sessions.
func grownTree(t testing.TB, src string, n int) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "claude")
	for k := range n {
		remap := func(b []byte) []byte {
			return uuidRe.ReplaceAllFunc(b, func(u []byte) []byte {
				return append([]byte(fmt.Sprintf("%02x", k)), u[2:]...)
			})
		}
		err := filepath.Walk(filepath.Join(src, "projects"), func(path string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(src, "projects"), path)
			proj, rest, _ := cutPath(rel)
			target := filepath.Join(dst, "projects", fmt.Sprintf("%s-copy%d", proj, k), string(remap([]byte(rest))))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, remap(data), 0o644); err != nil {
				return err
			}
			return os.Chtimes(target, fi.ModTime(), fi.ModTime())
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func cutPath(rel string) (first, rest string, ok bool) {
	for i := 0; i < len(rel); i++ {
		if rel[i] == filepath.Separator {
			return rel[:i], rel[i+1:], true
		}
	}
	return rel, "", false
}

// checkInvariants verifies what must hold after any crash: every stored
// entry is covered by its file's cursor (they were committed together).
func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	if n := count(t, s, `SELECT count(*) FROM entries e JOIN files f ON f.id = e.file WHERE e.line > f.cur_line`); n != 0 {
		t.Fatalf("%d entries beyond their file's cursor", n)
	}
	var res string
	if err := s.r.QueryRowContext(t.Context(), `PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity check: %v %s", err, res)
	}
}

// killAfterProgress starts cmd (a childSync with envProgress set) and
// kills it with SIGKILL once it has read `after` files and committed a
// transaction, after jitter (so the kill also falls inside the
// transaction the next files start); it returns whether the kill came
// before the child ended.
func killAfterProgress(t *testing.T, cmd *exec.Cmd, after int, jitter time.Duration) bool {
	t.Helper()
	cmd.Env = append(cmd.Env, envProgress+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	killed := false
	for sc.Scan() {
		var done, total, entries int
		if _, err := fmt.Sscanf(sc.Text(), "progress %d %d %d", &done, &total, &entries); err != nil || done < after || entries == 0 {
			continue
		}
		time.Sleep(jitter)
		killed = cmd.Process.Signal(syscall.SIGKILL) == nil
		break
	}
	_, _ = io.Copy(io.Discard, stderr) // drained so Wait returns
	err = cmd.Wait()
	var ee *exec.ExitError
	return killed && errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}

// SIGKILL in the middle of a sync, six times, each run resuming where the
// last one died (the small sample four times: 40 files, the largest
// 775 KB read in many transactions), leaves a store that passes the invariants after every
// kill and ends equal to a fresh store. The kills are placed by the
// child's own progress (after a random number of files, where the
// transactions commit, plus a jitter that lands inside the next one):
// kills at random times spread over a timed run landed before the first
// commit or after the last one about a third of the time, and each wasted
// a whole child sync under the race detector.
func TestKill9LeavesAConsistentStore(t *testing.T) {
	claude, data := subprocessSetup(t, 4)
	bin := withoutRace.Child(t) // killed syncs: see testutil.WithoutRace.Child
	fresh, _ := openStore(t)
	mustSync(t, fresh, claude, SyncOptions{})
	want := count(t, fresh, `SELECT count(*) FROM entries`)
	files := count(t, fresh, `SELECT count(*) FROM files`)

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var partial []int
	midway := 0
	for attempt := 0; midway < 6 && attempt < 20; attempt++ {
		if len(partial) > 0 && partial[len(partial)-1] == want {
			os.RemoveAll(data) // finished: start over to get more kills in
		}
		// The files still to read: the stored ones are skipped.
		left := files
		if s, err := Open(data); err == nil {
			left -= count(t, s, `SELECT count(*) FROM files WHERE cur_line > 0`)
			s.Close()
		}
		after := 1 + r.IntN(max(left-1, 1))
		jitter := time.Duration(r.Int64N(int64(20 * time.Millisecond)))
		killAfterProgress(t, childSync(t.Context(), bin, data, claude, 60), after, jitter)
		s, err := Open(data)
		if err != nil {
			t.Fatalf("open after kill %d: %v", attempt, err)
		}
		checkInvariants(t, s)
		n := count(t, s, `SELECT count(*) FROM entries`)
		partial = append(partial, n)
		if n > 0 && n < want {
			midway++
		}
		s.Close()
	}
	if midway < 6 {
		t.Fatalf("only %d kills landed in the middle of a sync (counts %v of %d): the test proved little", midway, partial, want)
	}
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustSync(t, s, claude, SyncOptions{})
	got := count(t, s, `SELECT count(*) FROM entries`)
	t.Logf("entries after each kill: %v; final %d, fresh %d", partial, got, want)
	if got != want {
		t.Fatalf("after kills: %d entries, a fresh store has %d", got, want)
	}
	sameSessions(t, storeSessions(t, s), storeSessions(t, fresh))
	for _, q := range []string{`SELECT count(*) FROM fts_queue`, `SELECT count(*) FROM embed_queue`, `SELECT count(*) FROM session_files`, `SELECT count(*) FROM redactions`} {
		if a, b := count(t, s, q), count(t, fresh, q); a != b {
			t.Errorf("%s: %d after kills, %d fresh", q, a, b)
		}
	}
}

// Two syncs in two processes and a reader at once store what one sync
// stores. The tree is the small sample twice (it was the whole sample
// three times, then twice) with batches of 25 and 40 entries (100 and
// 150 on the whole sample, 200 and 300 before): about as many
// transactions per child, so as many turns at the write lock, for a
// quarter of the entries.
func TestConcurrentSyncsAndReader(t *testing.T) {
	claude, data := subprocessSetup(t, 2)
	// Create the store first so the children race on data, not on creation.
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range 2 {
		cmd := childSync(t.Context(), os.Args[0], data, claude, 25+15*i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %w: %s", i, err, out)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	reads := 0
	for loop := true; loop; {
		select {
		case <-done:
			loop = false
		default:
		}
		ss, err := s.Sessions(context.Background(), SessionFilter{Limit: 5})
		if err != nil {
			t.Fatalf("reader: %v", err)
		}
		if len(ss) > 0 {
			if _, err := s.Conversation(context.Background(), ss[0].ID); err != nil {
				t.Fatalf("reader: %v", err)
			}
		}
		if _, err := s.Stats(t.Context()); err != nil {
			t.Fatalf("reader: %v", err)
		}
		reads++
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkInvariants(t, s)
	fresh, _ := openStore(t)
	mustSync(t, fresh, claude, SyncOptions{})
	got, want := count(t, s, `SELECT count(*) FROM entries`), count(t, fresh, `SELECT count(*) FROM entries`)
	t.Logf("%d reads during the syncs; %d entries, fresh %d", reads, got, want)
	if got != want {
		t.Fatalf("two concurrent syncs stored %d entries, a single one %d", got, want)
	}
	sameSessions(t, storeSessions(t, s), storeSessions(t, fresh))
}

func TestCorruptDatabaseIsNotTouched(t *testing.T) {
	for name, content := range map[string][]byte{
		"garbage":    []byte("this is not a database at all, but it is long enough to look like a header........................................"),
		"bad header": append([]byte("SQLite format 3\x00"), make([]byte, 8192)...),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, DBName)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir)
			if err == nil {
				// Some damage only shows on first use.
				_, err = s.Sync(t.Context(), sampleDir, SyncOptions{})
				s.Close()
			}
			if err == nil {
				t.Fatal("a corrupt database opened without error")
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cairn index") {
				t.Fatalf("unhelpful error: %v", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(content) {
				t.Fatal("the corrupt file was modified")
			}
		})
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	s, dir := openStore(t)
	if _, err := s.w.ExecContext(t.Context(), `PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(dir)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "newer cairn") {
		t.Fatalf("opening a newer store: %v", err)
	}
}
