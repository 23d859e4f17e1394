package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/install"
	"github.com/cairn-dev/cairn/internal/testutil"
)

// A store damaged at random pages (a few flipped bytes, as a disk error or
// a cut copy leaves them) must never be reported healthy by `doctor --full`
// while SQLite's integrity_check fails, and text search must keep working
// or say plainly that it cannot, before and after `index --rebuild`. Before
// the fix: doctor said ok, and a rebuild deleted the full-text index first
// and then failed on a bad row, leaving every search empty.
func TestDamagedStoreTrials(t *testing.T) {
	ranThere := withoutRace.RanAlone(t) // and then the race part, below
	// Two of the sample projects (a smaller store keeps the trials quick;
	// 12 flips land on most of its pages' kinds).
	claude := t.TempDir()
	for _, p := range []string{"-home-marco-projects-spotter", "-path-to-Demo"} {
		copyTree(t, filepath.Join(sample(), "projects", p), filepath.Join(claude, "projects", p))
	}
	base := t.TempDir()
	if _, _, err := run(t, "index", "--no-embed", "--claude-dir", claude, "--data", base); err != nil {
		t.Fatal(err)
	}
	// Each trial runs doctor --full, two searches, a rebuild and two
	// shows: 24 seeded trials, whatever they damage. Under the race
	// detector those 24 run in the package's binary without it
	// (withoutRace.RanAlone; docs/testing.md has the cost), and 2 run
	// here, under it, for the
	// concurrent search and rebuild on a damaged store: the seeded flips
	// are screened first (a copy and integrity_check, a fraction of a
	// trial) and the first that fails integrity_check and the first that
	// passes it (damage SQLite does not see: inside values) are the
	// trials, so both kinds are in.
	trials, wantDamaged, wantSilent := 24, -1, -1
	if ranThere {
		trials, wantDamaged, wantSilent = 2, 1, 1
	}
	if n, err := strconv.Atoi(os.Getenv("CAIRN_DAMAGE_TRIALS")); err == nil {
		trials, wantDamaged, wantSilent = n, -1, -1
	}
	rng := rand.New(rand.NewPCG(19, 19))
	damaged, silent, candidate := 0, 0, 0
	for trial := 0; trial < trials; candidate++ {
		if candidate >= 10*trials {
			t.Fatalf("%d seeded flips gave %d stores failing integrity_check and %d passing it: want %d and %d", candidate, damaged, silent, wantDamaged, wantSilent)
		}
		dir := filepath.Join(t.TempDir(), "data")
		copyTree(t, base, dir)
		flipPages(t, filepath.Join(dir, "cairn.db"), rng, 12)
		problems := integrityCheck(t, filepath.Join(dir, "cairn.db"))
		if wantDamaged >= 0 && ((len(problems) > 0 && damaged == wantDamaged) || (len(problems) == 0 && silent == wantSilent)) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			continue // screened out: that kind has its trials
		}
		if len(problems) > 0 {
			damaged++
		} else {
			silent++
		}
		// doctor --full: never healthy while integrity fails.
		out, _, err := run(t, "doctor", "--full", "--json", "--claude-dir", claude, "--data", dir)
		var rep install.Report
		if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
			t.Fatalf("trial %d: doctor --json: %v\n%s", trial, jerr, out)
		}
		if len(problems) > 0 && (err == nil || rep.Healthy() || !hasCheck(&rep, "integrity", install.Fail)) {
			t.Errorf("trial %d: integrity_check fails (%s) but doctor --full says healthy", trial, problems[0])
		}
		searchWorksOrSays(t, trial, "before the rebuild", claude, dir)
		_, stderr, err := run(t, "index", "--rebuild", "--no-embed", "--claude-dir", claude, "--data", dir)
		if err != nil && !plainDamage(err.Error()) {
			t.Errorf("trial %d: rebuild failed unclearly: %v", trial, err)
		}
		if len(problems) > 0 && !strings.Contains(stderr, "damaged") && err == nil {
			// Writes since (the sync) may have replaced the damaged page.
			if still := integrityCheck(t, filepath.Join(dir, "cairn.db")); len(still) > 0 {
				t.Errorf("trial %d: a rebuild of a damaged store said nothing about it (%s)", trial, still[0])
			}
		}
		searchWorksOrSays(t, trial, "after the rebuild", claude, dir)
		// show of every session: whole, or with the bad entries left out
		// and said so, or a plain error.
		for _, id := range []string{"5c0375b4", "491e126e"} {
			if _, _, err := run(t, "show", id, "--claude-dir", claude, "--data", dir); err != nil && !plainDamage(err.Error()) && !strings.Contains(err.Error(), "no session") {
				t.Errorf("trial %d: show %s: %v", trial, id, err)
			}
		}
		trial++
	}
	if damaged < trials/4 {
		t.Fatalf("only %d of %d trials damaged the store: flip more", damaged, trials)
	}
	t.Logf("%d trials (of %d seeded flips), %d with integrity_check failing, %d passing it", trials, candidate, damaged, silent)
}

// searchWorksOrSays: a text search finds something, or fails with an error
// that says the store or index is damaged and what to do.
func searchWorksOrSays(t *testing.T, trial int, when, claude, dir string) {
	t.Helper()
	out, _, err := run(t, "search", "--mode", "text", "--json", "spotter", "--claude-dir", claude, "--data", dir)
	if err != nil {
		if !plainDamage(err.Error()) {
			t.Errorf("trial %d %s: search failed unclearly: %v", trial, when, err)
		}
		return
	}
	var res struct {
		Results []json.RawMessage `json:"results"`
	}
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil || len(res.Results) == 0 {
		t.Errorf("trial %d %s: text search silently found nothing (%v)", trial, when, jerr)
	}
}

func plainDamage(msg string) bool {
	return strings.Contains(msg, "damaged") && (strings.Contains(msg, "cairn index") || strings.Contains(msg, "doctor") || strings.Contains(msg, "move it aside"))
}

func hasCheck(r *install.Report, name, status string) bool {
	for _, c := range r.Checks {
		if c.Name == name && c.Status == status {
			return true
		}
	}
	return false
}

// flipPages flips a few bytes on n random pages of a SQLite file (never
// the header page).
func flipPages(t *testing.T, path string, rng *rand.Rand, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 16384
	pages := len(b) / page
	for range n {
		off := (1+rng.IntN(pages-1))*page + 100 + rng.IntN(page-104)
		for i := range 4 {
			b[off+i] ^= 0x5a
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// integrityCheck is SQLite's own verdict, from a connection of its own.
func integrityCheck(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), "PRAGMA integrity_check")
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return []string{err.Error()}
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		out = append(out, err.Error())
	}
	if len(out) == 1 && out[0] == "ok" {
		return nil
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = testutil.RepoRoot
}
