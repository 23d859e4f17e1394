package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestZZSizes(t *testing.T) {
	src := os.Getenv("CAIRN_SIZES_SRC")
	if src == "" {
		t.Skip()
	}
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := mustSync(t, s, src, SyncOptions{})
	t.Logf("%+v", st)
	rows, err := s.r.Query(`SELECT name, sum(pgsize), count(*) FROM dbstat GROUP BY name ORDER BY 2 DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var sz, c int64
		rows.Scan(&n, &sz, &c)
		t.Logf("%-25s %9d", n, sz)
	}
	rows.Close()
	for _, q := range []string{"SELECT sum(length(text)) FROM entries", "SELECT sum(length(data)) FROM entries", "SELECT sum(length(state)) FROM sessions", "SELECT sum(length(detail)) FROM sessions", "SELECT count(*) FROM entries", "SELECT sum(length(text)) FROM entries WHERE role='tool'", "SELECT sum(length(data)) FROM entries WHERE block='tool_use'", "SELECT sum(length(text)) FROM entries WHERE block='tool_use'"} {
		var n int64
		s.r.QueryRow(q).Scan(&n)
		t.Logf("%-60s %d", q, n)
	}
	s.Close()
	fi, _ := os.Stat(filepath.Join(dir, DBName))
	t.Logf("db file after close: %d", fi.Size())
}

func TestZZToolSizes(t *testing.T) {
	src := os.Getenv("CAIRN_SIZES_SRC")
	if src == "" {
		t.Skip()
	}
	s, _ := openStore(t)
	mustSync(t, s, src, SyncOptions{})
	rows, _ := s.r.Query(`SELECT json_extract(data,'$.b[0].n') n, count(*), sum(length(data)), max(length(data)) FROM entries WHERE block='tool_use' GROUP BY n ORDER BY 3 DESC`)
	for rows.Next() {
		var n string
		var c, sz, mx int64
		rows.Scan(&n, &c, &sz, &mx)
		t.Logf("%-20s %5d %8d %6d", n, c, sz, mx)
	}
	rows.Close()
	var d string
	s.r.QueryRow(`SELECT data FROM entries WHERE block='tool_use' ORDER BY length(data) DESC LIMIT 1`).Scan(&d)
	t.Logf("%s", d)
}

func TestZZBlockSizes(t *testing.T) {
	src := os.Getenv("CAIRN_SIZES_SRC")
	if src == "" {
		t.Skip()
	}
	s, _ := openStore(t)
	mustSync(t, s, src, SyncOptions{})
	rows, _ := s.r.Query(`SELECT role, block, count(*), sum(length(text)), sum(length(data)), sum(length(parent)+length(uuid)) FROM entries GROUP BY 1,2 ORDER BY 4 DESC`)
	for rows.Next() {
		var r, b string
		var c, sz, d, u int64
		rows.Scan(&r, &b, &c, &sz, &d, &u)
		t.Logf("%-10s %-12s %5d %8d %8d %8d", r, b, c, sz, d, u)
	}
	rows.Close()
}

func TestZZBleve(t *testing.T) {
	src := os.Getenv("CAIRN_SIZES_SRC")
	if src == "" {
		t.Skip()
	}
	s, dir := openStore(t)
	var o SyncOptions
	fmt.Sscan(os.Getenv("CAIRN_HT"), &o.ToolHead, &o.ToolTail)
	mustSync(t, s, src, o)
	ix, err := s.OpenFTS(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := s.DrainFTS(t.Context(), ix, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	el := time.Since(start)
	var bl int64
	filepath.Walk(filepath.Join(dir, "bleve"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			bl += fi.Size()
		}
		return nil
	})
	s.Close()
	fi, _ := os.Stat(filepath.Join(dir, DBName))
	t.Logf("%d docs in %v; bleve %d bytes, db %d bytes", n, el, bl, fi.Size())
	b, _ := os.ReadFile(filepath.Join(dir, DBName))
	os.WriteFile("/tmp/zz.db", b, 0o600)
}
