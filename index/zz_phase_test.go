package index

import (
	"context"
	"os"
	"testing"
	"time"

	"cairn/transcripts"
)

func TestZZPhases(t *testing.T) {
	data, claude := os.Getenv("ZZ_DATA"), os.Getenv("ZZ_CLAUDE")
	if data == "" {
		t.Skip()
	}
	var projs []string
	if p := os.Getenv("ZZ_PROJECT"); p != "" {
		projs = []string{p}
	}
	t0 := time.Now()
	s, err := OpenWith(data, OpenOptions{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	tree, _ := transcripts.Discover(claude)
	t2 := time.Now()
	k, _ := s.knownFiles(context.Background(), nil)
	t3 := time.Now()
	var n int
	s.r.QueryRow(`SELECT count(*) FROM sessions WHERE archived != NOT EXISTS (SELECT 1 FROM session_files sf JOIN files f ON f.id = sf.file WHERE sf.session = sessions.id AND f.present = 1)`).Scan(&n)
	t4 := time.Now()
	s.summariesResolvable(context.Background())
	t5 := time.Now()
	st, _ := s.Sync(context.Background(), claude, SyncOptions{Projects: projs})
	t6 := time.Now()
	s.Close()
	t7 := time.Now()
	t.Logf("open %v discover %v (%d files) known %v (%d) archived-q %v summaries %v sync %v (added %d, tx %d) close %v",
		t1.Sub(t0), t2.Sub(t1), len(tree.Files()), t3.Sub(t2), len(k), t4.Sub(t3), t5.Sub(t4), t6.Sub(t5), st.EntriesAdded, st.Transactions, t7.Sub(t6))
}

func BenchmarkZZInc(b *testing.B) {
	data, claude := os.Getenv("ZZ_DATA"), os.Getenv("ZZ_CLAUDE")
	if data == "" {
		b.Skip()
	}
	var projs []string
	if p := os.Getenv("ZZ_PROJECT"); p != "" {
		projs = []string{p}
	}
	path := os.Getenv("ZZ_FILE")
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		appendFile(b, path, freshLines(b, path, 50, "zz"+time.Now().Format("150405.000000")))
		b.StartTimer()
		s, err := OpenWith(data, OpenOptions{BusyTimeout: 100 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		st, err := s.Sync(context.Background(), claude, SyncOptions{Projects: projs})
		if err != nil || st.EntriesAdded != 50 {
			b.Fatal(err, st.EntriesAdded)
		}
		s.Close()
	}
}
