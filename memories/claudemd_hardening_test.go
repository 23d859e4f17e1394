package memories

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// Sync used to rewrite a read-only CLAUDE.md, leave .CLAUDE.md.cairn-*
// files behind after a kill, break hard links and write its block with
// LF line endings inside a CRLF file (issue 19).
func TestSyncHardening(t *testing.T) {
	ctx := context.Background()
	t.Run("read-only", func(t *testing.T) {
		s, dir := syncFixture(t)
		target := filepath.Join(dir, "CLAUDE.md")
		os.WriteFile(target, []byte("# protected\n"), 0o444)
		_, err := s.Sync.Sync(ctx, SyncOptions{Project: dir})
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("want a refusal that says read-only, got %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "# protected\n" {
			t.Fatal("a read-only file was rewritten")
		}
	})
	t.Run("stale temp files", func(t *testing.T) {
		s, dir := syncFixture(t)
		target := filepath.Join(dir, "CLAUDE.md")
		os.WriteFile(target, []byte("# p\n"), 0o644)
		stale := filepath.Join(dir, ".CLAUDE.md.cairn-123456")
		os.WriteFile(stale, []byte("half a block"), 0o600)
		if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(stale); !os.IsNotExist(err) {
			t.Fatalf("the temporary file a killed sync left is still there (%v)", err)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		s, dir := syncFixture(t)
		target := filepath.Join(dir, "CLAUDE.md")
		os.WriteFile(target, []byte("# linked\n"), 0o644)
		other := filepath.Join(t.TempDir(), "shared-CLAUDE.md")
		if err := os.Link(target, other); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(target)
		b, _ := os.ReadFile(other)
		if string(a) != string(b) || !strings.Contains(string(b), MarkerStart) {
			t.Fatal("the hard link was broken: the other name kept the old text")
		}
		fa, _ := os.Stat(target)
		fb, _ := os.Stat(other)
		if !os.SameFile(fa, fb) {
			t.Fatal("the two names are no longer one file")
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("files left in %s: %v", dir, ents)
		}
	})
	t.Run("CRLF", func(t *testing.T) {
		s, dir := syncFixture(t)
		target := filepath.Join(dir, "CLAUDE.md")
		orig := "# Windows project\r\n\r\nRules.\r\n"
		os.WriteFile(target, []byte(orig), 0o644)
		for range 2 { // written, then updated in place
			if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
				t.Fatal(err)
			}
			approve(t, s, NewMemory{Project: dir, Type: Fact, Content: "The build runs on Windows runners"})
		}
		b, _ := os.ReadFile(target)
		got := string(b)
		if !strings.HasPrefix(got, orig) || !strings.Contains(got, MarkerStart+"\r\n") {
			t.Fatalf("file:\n%q", got)
		}
		if lf := strings.Count(got, "\n") - strings.Count(got, "\r\n"); lf != 0 {
			t.Fatalf("%d bare LF line endings in a CRLF file:\n%q", lf, got)
		}
		if again, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil || again.Changed {
			t.Fatalf("a CRLF file is rewritten on every sync: %+v %v", again, err)
		}
	})
}

// Memory text never reaches CLAUDE.md as an @path import (Claude Code
// inlines the file: @~/.aws/credentials would put the user's keys in every
// session) nor with characters a person cannot see: zero width, tags, bidi
// overrides, C1 controls. A memory stored raw by an older cairn is
// sanitised on the way out too.
func TestSyncNoImportsNoInvisibles(t *testing.T) {
	ctx := context.Background()
	s, dir := syncFixture(t)
	hostile := []string{
		"Keys live in @~/.aws/credentials",
		"@/etc/passwd is read at start",
		"See (@docs/secret.md) and \"@README\" first",
		"Mail alice@example.com; pin react@18",
		"Hidden\u200b zero width, tag\U000E0041\U000E0042 smuggled, bidi\u202eexe, c1\u009b31m csi",
	}
	var ids []string
	for _, c := range hostile {
		ids = append(ids, approve(t, s, NewMemory{Project: dir, Type: Fact, Content: c}))
	}
	// As an older cairn may have stored it: raw, past clean().
	row, err := s.row(ctx, ids[4])
	if err != nil {
		t.Fatal(err)
	}
	row.Content = hostile[4] + " @~/.ssh/id_ed25519"
	if err := s.st.Mem().Save(ctx, row); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync.Sync(ctx, SyncOptions{Project: dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	prev := ' '
	for i, r := range doc {
		if r == '@' && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			t.Errorf("an @ that can start an import at byte %d: %q", i, doc[max(0, i-20):min(len(doc), i+20)])
		}
		if unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && r != '\n' {
			t.Errorf("raw %U at byte %d: %q", r, i, doc[max(0, i-20):min(len(doc), i+20)])
		}
		prev = r
	}
	for _, want := range []string{"＠~/.aws/credentials", "(＠docs/secret.md)", "\"＠README\"", "＠/etc/passwd", "＠~/.ssh/id_ed25519",
		"alice@example.com", "react@18", "Hidden<U+200B>", "tag<U+E0041><U+E0042>", `bidi\u202eexe`, `c1\x9b31m`} {
		if !strings.Contains(doc, want) {
			t.Errorf("CLAUDE.md lacks %q:\n%s", want, doc)
		}
	}
}
