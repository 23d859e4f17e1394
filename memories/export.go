package memories

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/cairn-dev/cairn/termtext"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/memtype"
	"github.com/cairn-dev/cairn/redact"

	json "github.com/go-json-experiment/json"
)

// ExportVersion is the version of the JSONL export format.
const ExportVersion = 1

// exportRecord is one JSONL line: a header, a memory, a summary or a draft.
type exportRecord struct {
	Kind    string            `json:"kind"` // cairn-export | memory | summary | draft
	Version int               `json:"version,omitzero"`
	Written *time.Time        `json:"written,omitzero"`
	Memory  *index.MemRow     `json:"memory,omitzero"`
	Summary *exportSummary    `json:"summary,omitzero"`
	Draft   *exportDraft      `json:"draft,omitzero"`
	Extra   map[string]string `json:"extra,omitzero"`
}

type exportSummary struct {
	Session  string              `json:"session"`
	Project  string              `json:"project"`
	Source   string              `json:"source"`
	Markdown string              `json:"markdown"`
	Sections map[string][]string `json:"sections"`
	Created  time.Time           `json:"created"`
}

type exportDraft struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Project  string    `json:"project"`
	Markdown string    `json:"markdown"`
	Status   string    `json:"status"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// ExportCounts says how much was exported or imported.
type ExportCounts struct {
	Memories  int `json:"memories"`
	Links     int `json:"links"`
	Summaries int `json:"summaries"`
	Drafts    int `json:"drafts"`
	Replaced  int `json:"replaced"` // imported records that replaced existing ones
}

func (s *core) exportData(ctx context.Context) ([]*index.MemRow, []*index.SummaryRow, []*index.DraftRow, error) {
	mems, err := s.st.Mem().Query(ctx, index.MemFilter{})
	if err != nil {
		return nil, nil, nil, err
	}
	slices.SortFunc(mems, func(a, b *index.MemRow) int { return strings.Compare(a.ID, b.ID) })
	sums, err := s.st.Mem().Summaries(ctx, "", "", 0)
	if err != nil {
		return nil, nil, nil, err
	}
	slices.SortFunc(sums, func(a, b *index.SummaryRow) int { return strings.Compare(a.Session, b.Session) })
	drafts, err := s.st.Mem().Drafts(ctx, "", "")
	if err != nil {
		return nil, nil, nil, err
	}
	slices.SortFunc(drafts, func(a, b *index.DraftRow) int { return strings.Compare(a.ID, b.ID) })
	return mems, sums, drafts, nil
}

// ExportJSONL writes every memory (with its links), session summary and
// draft as JSON lines, after a header line. `cairn import` reads it back
// exactly.
func (s Sync) ExportJSONL(ctx context.Context, w io.Writer) (ExportCounts, error) {
	var c ExportCounts
	mems, sums, drafts, err := s.exportData(ctx)
	if err != nil {
		return c, err
	}
	out := jsonlWriter{bufio.NewWriter(w)}
	now := s.now().UTC()
	if err := out.write(exportRecord{Kind: "cairn-export", Version: ExportVersion, Written: &now}); err != nil {
		return c, err
	}
	for _, m := range mems {
		if err := out.write(exportRecord{Kind: "memory", Memory: withEmptyLists(m)}); err != nil {
			return c, err
		}
		c.Memories++
		c.Links += len(m.Links)
	}
	for _, sm := range sums {
		if err := out.write(exportRecord{Kind: "summary", Summary: &exportSummary{Session: sm.Session, Project: sm.Project,
			Source: sm.Source, Markdown: sm.Markdown, Sections: sm.Sections, Created: sm.Created}}); err != nil {
			return c, err
		}
		c.Summaries++
	}
	for _, d := range drafts {
		if err := out.write(exportRecord{Kind: "draft", Draft: &exportDraft{ID: d.ID, Session: d.Session, Project: d.Project,
			Markdown: d.Markdown, Status: d.Status, Created: d.Created, Updated: d.Updated}}); err != nil {
			return c, err
		}
		c.Drafts++
	}
	return c, out.Flush()
}

// jsonlWriter writes records as JSON lines.
type jsonlWriter struct{ *bufio.Writer }

func (w jsonlWriter) write(r exportRecord) error {
	b, err := json.Marshal(r, json.Deterministic(true))
	if err != nil {
		return err
	}
	// The export goes to stdout by default: C1 and bidi controls and
	// invisible characters are spelled as \u escapes, which import reads
	// back as the same characters (the data is unchanged).
	b = termtext.EscapeJSON(b)
	w.Write(b)
	return w.WriteByte('\n')
}

// withEmptyLists gives m empty lists where it has none, so an export says
// [] rather than null.
func withEmptyLists(m *index.MemRow) *index.MemRow {
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if m.SourceUUIDs == nil {
		m.SourceUUIDs = []string{}
	}
	if m.Links == nil {
		m.Links = []index.MemLink{}
	}
	return m
}

// ExportMarkdown writes memories by project and type, then summaries, for
// reading (import reads the JSONL export).
func (s Sync) ExportMarkdown(ctx context.Context, w io.Writer) (ExportCounts, error) {
	var c ExportCounts
	mems, sums, _, err := s.exportData(ctx)
	if err != nil {
		return c, err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# cairn memories\n\nExported %s. Statuses in brackets; ids let you find them with `cairn memories show`.\n", s.now().UTC().Format(time.RFC3339))
	byProject := map[string][]*index.MemRow{}
	for _, m := range mems {
		byProject[m.Project] = append(byProject[m.Project], m)
	}
	for _, p := range slices.Sorted(maps.Keys(byProject)) {
		writeProjectMarkdown(bw, p, byProject[p], &c)
	}
	writeSummariesMarkdown(bw, sums, &c)
	return c, bw.Flush()
}

// writeProjectMarkdown writes a project's memories ("" = global) by type.
func writeProjectMarkdown(bw *bufio.Writer, project string, mems []*index.MemRow, c *ExportCounts) {
	name := project
	if name == "" {
		name = "Global"
	}
	fmt.Fprintf(bw, "\n## %s\n", oneLine(name))
	for _, t := range Types {
		ms := slices.DeleteFunc(slices.Clone(mems), func(m *index.MemRow) bool { return m.Type != t })
		if len(ms) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n### %s\n\n", typeHeadings[t])
		for _, m := range ms {
			writeMemoryMarkdown(bw, m)
			c.Memories++
			c.Links += len(m.Links)
		}
	}
}

// writeMemoryMarkdown writes a memory as a list item: status, content,
// then id, importance, tags and links in brackets.
func writeMemoryMarkdown(bw *bufio.Writer, m *index.MemRow) {
	fmt.Fprintf(bw, "- [%s] %s (%s, importance %d", m.Status, oneLine(m.Content), m.ID, m.Importance)
	if len(m.Tags) > 0 {
		fmt.Fprintf(bw, ", tags %s", oneLine(strings.Join(m.Tags, ", ")))
	}
	for _, l := range m.Links {
		fmt.Fprintf(bw, ", %s %s", oneLine(string(l.Kind)), oneLine(l.Target))
	}
	bw.WriteString(")\n")
}

// writeSummariesMarkdown writes the session summaries, their headings
// demoted below the export's.
func writeSummariesMarkdown(bw *bufio.Writer, sums []*index.SummaryRow, c *ExportCounts) {
	if len(sums) == 0 {
		return
	}
	bw.WriteString("\n## Session summaries\n")
	for _, sm := range sums {
		fmt.Fprintf(bw, "\n### Session %s (%s, %s)\n\n", oneLine(sm.Session), oneLine(sm.Source), sm.Created.Format("2006-01-02"))
		for _, line := range strings.Split(strings.TrimSpace(termtext.Safe(sm.Markdown)), "\n") {
			if strings.HasPrefix(line, "#") {
				line = "###" + line
			}
			bw.WriteString(line + "\n")
		}
		c.Summaries++
	}
}

// ErrBadImport is wrapped by import errors; nothing is written then.
var ErrBadImport = errors.New("cannot import")

// maxImportLine is the longest JSONL line accepted.
const maxImportLine = 8 << 20

// Import reads a JSONL export. Every line is checked before anything is
// written: a bad line is reported with its number and nothing changes.
// Records with an id already stored replace it (so importing twice is
// harmless). Text passes through the redactor again.
func (s Sync) Import(ctx context.Context, r io.Reader) (ExportCounts, error) {
	in, err := readImport(r)
	if err != nil {
		return ExportCounts{}, err
	}
	c, err := s.importCounts(ctx, in.mems)
	if err != nil {
		return c, err
	}
	for i := 0; i < len(in.mems); i += 500 {
		if err := s.st.Mem().Save(ctx, in.mems[i:min(i+500, len(in.mems))]...); err != nil {
			return c, err
		}
	}
	c.Memories = len(in.mems)
	for _, sm := range in.sums {
		if err := s.st.Mem().SaveSummary(ctx, sm); err != nil {
			return c, err
		}
	}
	c.Summaries = len(in.sums)
	for _, d := range in.drafts {
		if err := s.st.Mem().SaveDraft(ctx, d); err != nil {
			return c, err
		}
	}
	c.Drafts = len(in.drafts)
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
	return c, nil
}

// importCounts counts the links of the memories to import and those that
// replace a stored memory.
func (s *core) importCounts(ctx context.Context, mems []*index.MemRow) (ExportCounts, error) {
	var c ExportCounts
	existing, err := s.st.Mem().Query(ctx, index.MemFilter{})
	if err != nil {
		return c, err
	}
	have := map[string]bool{}
	for _, m := range existing {
		have[m.ID] = true
	}
	for _, m := range mems {
		if have[m.ID] {
			c.Replaced++
		}
		c.Links += len(m.Links)
	}
	return c, nil
}

// importBatch is what an export holds, checked and redacted.
type importBatch struct {
	mems   []*index.MemRow
	sums   []*index.SummaryRow
	drafts []*index.DraftRow
	header bool
}

// readImport reads and checks every line of a JSONL export.
func readImport(r io.Reader) (*importBatch, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	in := &importBatch{}
	lineNo := 0
	for {
		line, err := br.ReadString('\n')
		if len(line) > maxImportLine {
			return nil, fmt.Errorf("%w: line %d is longer than %d MB", ErrBadImport, lineNo+1, maxImportLine>>20)
		}
		if line != "" {
			lineNo++
			if err := in.addLine(strings.TrimSpace(line), lineNo); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case in.header:
		return in, nil
	case lineNo == 0:
		return nil, fmt.Errorf("%w: the input is empty", ErrBadImport)
	}
	return nil, fmt.Errorf("%w: no cairn-export header line: is this a file written by `cairn export --format jsonl`?", ErrBadImport)
}

// addLine checks line lineNo (trimmed) and adds its record.
func (in *importBatch) addLine(t string, lineNo int) error {
	if t == "" {
		return nil
	}
	if lineNo == 1 && strings.HasPrefix(t, "#") {
		return fmt.Errorf("%w: this looks like a Markdown export, which is for reading; import the JSONL export (`cairn export --format jsonl`)", ErrBadImport)
	}
	var rec exportRecord
	if err := json.Unmarshal([]byte(t), &rec); err != nil {
		return fmt.Errorf("%w: line %d is not a cairn export record: %w", ErrBadImport, lineNo, err)
	}
	return in.addRecord(&rec, lineNo)
}

// addRecord adds the record of line lineNo by its kind: the header (its
// version must be one this cairn reads), a memory, a summary or a draft.
func (in *importBatch) addRecord(rec *exportRecord, lineNo int) error {
	var err error
	switch rec.Kind {
	case "cairn-export":
		if rec.Version > ExportVersion {
			return fmt.Errorf("%w: the export has format version %d; this cairn reads up to %d (upgrade cairn)", ErrBadImport, rec.Version, ExportVersion)
		}
		in.header = true
	case "memory":
		err = in.addMemory(rec.Memory)
	case "summary":
		err = in.addSummary(rec.Summary)
	case "draft":
		err = in.addDraft(rec.Draft)
	default:
		return fmt.Errorf("%w: line %d has unknown kind %q", ErrBadImport, lineNo, rec.Kind)
	}
	if err != nil {
		return fmt.Errorf("%w: line %d: %w", ErrBadImport, lineNo, err)
	}
	return nil
}

func (in *importBatch) addMemory(m *index.MemRow) error {
	if err := checkImportedMemory(m); err != nil {
		return err
	}
	in.mems = append(in.mems, m)
	return nil
}

func (in *importBatch) addSummary(sm *exportSummary) error {
	if sm == nil || sm.Session == "" || strings.TrimSpace(sm.Markdown) == "" {
		return errors.New("a summary needs a session and Markdown")
	}
	in.sums = append(in.sums, &index.SummaryRow{Session: sm.Session, Project: sm.Project, Source: sm.Source,
		Markdown: redactOnly(sm.Markdown), Sections: redactSections(sm.Sections), Created: sm.Created})
	return nil
}

func (in *importBatch) addDraft(d *exportDraft) error {
	if d == nil || !strings.HasPrefix(d.ID, "d-") || d.Session == "" {
		return errors.New("a draft needs an id (d-…) and a session")
	}
	switch d.Status {
	case "pending", "approved", "rejected":
	default:
		return fmt.Errorf("draft status %q", d.Status)
	}
	in.drafts = append(in.drafts, &index.DraftRow{ID: d.ID, Session: d.Session, Project: d.Project,
		Markdown: redactOnly(d.Markdown), Status: d.Status, Created: d.Created, Updated: d.Updated})
	return nil
}

func checkImportedMemory(m *index.MemRow) error {
	if m == nil {
		return errors.New("a memory record without a memory")
	}
	if err := checkImportedKind(m); err != nil {
		return err
	}
	if strings.TrimSpace(m.Content) == "" {
		return fmt.Errorf("memory %s has no content", m.ID)
	}
	if m.Importance < 1 || m.Importance > 5 {
		return fmt.Errorf("memory %s: importance %d (1-5)", m.ID, m.Importance)
	}
	if k, ok := unknownLinkKind(m.Links); ok {
		return fmt.Errorf("memory %s: link kind %q", m.ID, k)
	}
	m.Content = redactOnly(m.Content)
	return nil
}

// checkImportedKind checks what an imported memory is: an id shaped as
// cairn's, a known type (in lower case) and a known status.
func checkImportedKind(m *index.MemRow) error {
	if !strings.HasPrefix(m.ID, "m-") || len(m.ID) < 6 {
		return fmt.Errorf("memory id %q: ids look like m-1a2b3c4d", m.ID)
	}
	if _, err := ParseType(string(m.Type)); err != nil || m.Type != Type(strings.ToLower(string(m.Type))) {
		return fmt.Errorf("memory %s: type %q", m.ID, m.Type)
	}
	if _, err := ParseStatus(string(m.Status)); err != nil {
		return fmt.Errorf("memory %s: %w", m.ID, err)
	}
	return nil
}

// unknownLinkKind is the first kind of links that is not a LinkKind.
func unknownLinkKind(links []Link) (LinkKind, bool) {
	for _, l := range links {
		if !slices.Contains(memtype.LinkKinds, l.Kind) {
			return l.Kind, true
		}
	}
	return "", false
}

func redactOnly(s string) string {
	r, _ := redact.Redact(s)
	return r
}

func redactSections(sec map[string][]string) map[string][]string {
	for k, v := range sec {
		for i := range v {
			v[i] = redactOnly(v[i])
		}
		sec[k] = v
	}
	return sec
}
