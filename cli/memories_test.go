package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn executes cairn with stdin and a shared data dir.
func runIn(t *testing.T, data, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	o := &Options{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin)}
	root := NewRoot(o)
	root.SetArgs(append(args, "--data", data, "--claude-dir", sample()))
	err := root.Execute()
	return out.String(), errb.String(), err
}

type memJSON struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Status     string   `json:"status"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	Importance int      `json:"importance"`
	Project    string   `json:"project"`
}

func TestMemoriesCommands(t *testing.T) {
	data := t.TempDir()
	proj := t.TempDir()
	out, _, err := runIn(t, data, "", "memories", "add", "Use Stripe Checkout, not custom payment forms", "--type", "decision",
		"--project", proj, "--tags", "payments,stripe", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var added struct {
		Memory memJSON `json:"memory"`
		Action string  `json:"action"`
	}
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.Action != "added" || added.Memory.Status != "pending" {
		t.Fatalf("add: %v %s", err, out)
	}
	id := added.Memory.ID
	if _, _, err := runIn(t, data, "", "memories", "add", "-", "--global", "--type", "preference"); err == nil {
		t.Fatal("empty stdin content accepted")
	}
	if _, _, err := runIn(t, data, "Prefer table-driven tests", "memories", "add", "-", "--global", "--type", "preference", "--status", "approved"); err != nil {
		t.Fatal(err)
	}
	out, _, err = runIn(t, data, "", "memories", "list", "--json")
	var list []memJSON
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 || list[0].ID != id {
		t.Fatalf("list (pending first): %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "memories", "list", "--status", "approved", "--type", "preference", "--json")
	if json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Type != "preference" {
		t.Fatalf("filtered list: %s", out)
	}
	if _, _, err := runIn(t, data, "", "memories", "list", "--type", "opinion"); err == nil || !strings.Contains(err.Error(), "opinion") {
		t.Fatalf("bad type: %v", err)
	}
	out, _, err = runIn(t, data, "", "memories", "search", "stripe", "payments", "--json")
	var found []memJSON
	if err != nil || json.Unmarshal([]byte(out), &found) != nil || len(found) != 1 || found[0].ID != id {
		t.Fatalf("search: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "memories", "list", "--tag", "stripe", "--json")
	if json.Unmarshal([]byte(out), &found) != nil || len(found) != 1 || found[0].ID != id {
		t.Fatalf("list --tag: %s", out)
	}
	out, _, err = runIn(t, data, "", "memories", "show", id[2:8])
	if err != nil || !strings.Contains(out, "Stripe Checkout") || !strings.Contains(out, "payments, stripe") {
		t.Fatalf("show: %v %s", err, out)
	}
	if _, _, err := runIn(t, data, "", "memories", "show", "m-ffffffff"); err == nil || !strings.Contains(err.Error(), "m-ffffffff") {
		t.Fatalf("unknown id: %v", err)
	}
	out, _, err = runIn(t, data, "", "memories", "edit", id, "--content", "Use Stripe Checkout for all payments", "--importance", "5", "--json")
	var m memJSON
	if err != nil || json.Unmarshal([]byte(out), &m) != nil || m.Importance != 5 || m.Content != "Use Stripe Checkout for all payments" {
		t.Fatalf("edit: %v %s", err, out)
	}
	if _, _, err := runIn(t, data, "", "memories", "approve"); err == nil {
		t.Fatal("approve without ids or --all accepted")
	}
	out, _, err = runIn(t, data, "", "memories", "approve", "--all", "--type", "decision", "--json")
	var approved []memJSON
	if err != nil || json.Unmarshal([]byte(out), &approved) != nil || len(approved) != 1 || approved[0].ID != id {
		t.Fatalf("approve --all --type decision: %v %s", err, out)
	}
	// Sync into the project's CLAUDE.md, then check the block.
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Mine\n"), 0o644)
	out, _, err = runIn(t, data, "", "sync", "--project", proj, "--dry-run")
	if err != nil || !strings.Contains(out, "+- Use Stripe Checkout for all payments") {
		t.Fatalf("sync dry run: %v %s", err, out)
	}
	if _, _, err := runIn(t, data, "", "sync", "--project", proj); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(proj, "CLAUDE.md"))
	if !strings.HasPrefix(string(b), "# Mine\n") || !strings.Contains(string(b), "Prefer table-driven tests") {
		t.Fatalf("CLAUDE.md:\n%s", b)
	}
	out, _, err = runIn(t, data, "", "sync", "--all", "--json")
	if err != nil || !strings.Contains(out, `"changed": false`) {
		t.Fatalf("sync --all after sync: %v %s", err, out)
	}
	out, _, err = runIn(t, data, "", "synthesize", "--project", proj)
	if err != nil || !strings.Contains(out, "+- Use Stripe Checkout") {
		t.Fatalf("synthesize: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "synthesize", "--project", proj)
	if !strings.Contains(out, "up to date") {
		t.Fatalf("second synthesis: %s", out)
	}
	// Export, delete, undo, import.
	exp, _, err := runIn(t, data, "", "export")
	if err != nil || !strings.HasPrefix(exp, `{"kind":"cairn-export"`) {
		t.Fatalf("export: %v %s", err, exp)
	}
	if _, _, err := runIn(t, data, "", "memories", "rm", id); err != nil {
		t.Fatal(err)
	}
	out, _, err = runIn(t, data, "", "memories", "undo")
	if err != nil || !strings.Contains(out, id) {
		t.Fatalf("undo: %v %s", err, out)
	}
	fresh := t.TempDir()
	out, _, err = runIn(t, fresh, exp, "import", "--json")
	if err != nil || !strings.Contains(out, `"memories": 2`) {
		t.Fatalf("import: %v %s", err, out)
	}
	if _, _, err := runIn(t, fresh, "not an export", "import"); err == nil {
		t.Fatal("garbage imported")
	}
	out, _, _ = runIn(t, data, "", "export", "--format", "markdown")
	if !strings.Contains(out, "Use Stripe Checkout for all payments") {
		t.Fatalf("markdown export: %s", out)
	}
}

func TestDraftsCommands(t *testing.T) {
	data := t.TempDir()
	const sid = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	md := "## Decisions\n- Use exponential backoff for reconnects\n\n## Learned\n- The root cause was a race in `reconnect()`\n"
	out, _, err := runIn(t, data, md, "drafts", "add", "--session", sid[:8], "--json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if json.Unmarshal([]byte(out), &d) != nil || d.Status != "pending" {
		t.Fatalf("draft: %s", out)
	}
	for name, c := range map[string]struct{ stdin, session string }{
		"empty":     {"", sid},
		"oversized": {"## Notes\n" + strings.Repeat("x", 70<<10), sid},
		"garbage":   {"\x00\x01\x02", sid},
		"unknown":   {md, "deadbeef-dead"},
	} {
		if _, _, err := runIn(t, data, c.stdin, "drafts", "add", "--session", c.session); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	out, _, err = runIn(t, data, "", "summary", sid[:8])
	if err != nil || !strings.Contains(out, "heuristic summary") || !strings.Contains(out, "## Request") {
		t.Fatalf("summary: %v %s", err, out)
	}
	if _, _, err := runIn(t, data, md, "drafts", "add"); err == nil || !strings.Contains(err.Error(), "--session") {
		t.Fatalf("no session: %v", err)
	}
	out, _, _ = runIn(t, data, "", "drafts", "list")
	if !strings.Contains(out, d.ID) {
		t.Fatalf("list: %s", out)
	}
	out, _, err = runIn(t, data, "", "drafts", "approve", d.ID)
	if err != nil || !strings.Contains(out, "2 added") {
		t.Fatalf("approve: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "summary", sid, "--json")
	if !strings.Contains(out, `"source": "draft"`) {
		t.Fatalf("approved draft is not the summary: %s", out)
	}
	out, _, _ = runIn(t, data, "", "memories", "list", "--json")
	var list []memJSON
	json.Unmarshal([]byte(out), &list)
	if len(list) != 2 {
		t.Fatalf("proposed memories: %s", out)
	}
}

func TestExtractCommand(t *testing.T) {
	data := t.TempDir()
	out, _, err := runIn(t, data, "", "extract", "--dry-run", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Sessions int               `json:"sessions"`
		Entries  int               `json:"entries"`
		Proposed []json.RawMessage `json:"proposed"`
	}
	if json.Unmarshal([]byte(out), &res) != nil || res.Sessions == 0 || len(res.Proposed) == 0 {
		t.Fatalf("dry run: %s", out)
	}
	out, _, _ = runIn(t, data, "", "memories", "list", "--json")
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("dry run stored memories: %s", out)
	}
	out, _, err = runIn(t, data, "", "extract")
	if err != nil || !strings.Contains(out, "added") {
		t.Fatalf("extract: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "extract")
	if !strings.Contains(out, "read 0 new entries") {
		t.Fatalf("second extract re-read entries: %s", out)
	}
	if _, _, err := runIn(t, data, "", "extract", "--session", "ae4a77f8", "--since", "7d"); err == nil {
		t.Fatal("--session with --since accepted")
	}
	out, _, err = runIn(t, data, "", "search", "--kind", "memories", "--mode", "text", "--json", "Dialyzer")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"kind": "memory"`) {
		t.Logf("no memory hit for Dialyzer (sample dependent): %s", out)
	}
}

// TestMemoriesEditInEditor: edit opens $EDITOR on the memory with its
// header; what is saved is applied.
func TestMemoriesEditInEditor(t *testing.T) {
	data := t.TempDir()
	out, _, err := runIn(t, data, "", "memories", "add", "Deploys need the VPN", "--global", "--type", "fact", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var added struct {
		Memory memJSON `json:"memory"`
	}
	json.Unmarshal([]byte(out), &added)
	editor := filepath.Join(t.TempDir(), "editor.sh")
	script := "#!/bin/sh\nsed -i -e 's/^# type: fact/# type: gotcha/' -e 's/^# importance: 3/# importance: 5/' -e 's/Deploys need the VPN/Deploys to staging need the VPN/' \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
	if _, _, err := runIn(t, data, "", "memories", "edit", added.Memory.ID); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runIn(t, data, "", "memories", "show", added.Memory.ID, "--json")
	var m memJSON
	json.Unmarshal([]byte(out), &m)
	if m.Type != "gotcha" || m.Importance != 5 || m.Content != "Deploys to staging need the VPN" {
		t.Fatalf("after editing: %+v", m)
	}
	// An editor that empties the file changes nothing.
	os.WriteFile(editor, []byte("#!/bin/sh\n: > \"$1\"\n"), 0o755)
	if _, errOut, err := runIn(t, data, "", "memories", "edit", added.Memory.ID); err != nil || !strings.Contains(errOut, "nothing changed") {
		t.Fatalf("empty edit: %v %s", err, errOut)
	}
}

// TestMemoriesSearchNonsenseFindsNothing (issue 15.4): with the built-in
// vectors trained, a query matching no memory by words and none above the
// relevance floor by meaning finds nothing and says so (it used to list
// every memory, each a little close to any vector).
func TestMemoriesSearchNonsenseFindsNothing(t *testing.T) {
	data := t.TempDir()
	if _, _, err := runIn(t, data, "", "index"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"Dialyzer builds its PLT on the first run, which is slow; later runs reuse it",
		"Run mix phx.server in the background so the session is not blocked",
		"The pre-commit hook rejects unformatted code: run mix format before committing",
	} {
		if _, _, err := runIn(t, data, "", "memories", "add", c, "--type", "gotcha", "--global", "--status", "approved"); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runIn(t, data, "", "memories", "search", "zzzzqqqq-nothing-matches", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var found []memJSON
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found) != 0 {
		t.Fatalf("nonsense: %v %s", err, out)
	}
	out, _, _ = runIn(t, data, "", "memories", "search", "zzzzqqqq-nothing-matches")
	if !strings.HasPrefix(out, "no matches by words or meaning; try") {
		t.Fatalf("text: %q", out)
	}
	out, _, _ = runIn(t, data, "", "memories", "search", "dialyzer", "--json")
	var ranked []struct {
		Content string `json:"content"`
		Match   string `json:"match"`
	}
	if err := json.Unmarshal([]byte(out), &ranked); err != nil || len(ranked) != 1 || ranked[0].Match != "words" {
		t.Fatalf("dialyzer: %v %s", err, out)
	}
}
