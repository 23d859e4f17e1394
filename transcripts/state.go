package transcripts

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"time"

	json "github.com/go-json-experiment/json"
)

// StateVersion changes whenever the meaning or encoding of SessionState
// changes. A store holding states of another version cannot keep adding to
// them and must rebuild its sessions from the transcripts.
const StateVersion = 1

// SessionState is the running aggregate of one session: the Session being
// built plus the sets that make counting idempotent (responses whose usage
// was summed, assistant turns, spawned agents, title candidates).
//
// It is the one aggregation code path: Builder holds one per session in
// memory, and a store keeps it serialised (MarshalState) so that entries
// appended later are added to it without re-reading the session. Add must
// see each entry once (callers de-duplicate by uuid, first seen wins) and in
// file order; Finish derives the presentable Session without changing the
// state, so adding can continue afterwards.
type SessionState struct {
	Session Session

	Responses KeySet // message.id:requestId whose usage was summed
	Turns     KeySet // assistant responses counted as turns
	// Replays are the user and assistant lines counted, by ReplayKey: a
	// resume can write the history again with new uuids, and each message
	// and tool call counts once.
	Replays KeySet

	// MainModels counts the main thread's assistant responses per model;
	// the most used is the session's model.
	MainModels map[string]int
	// MainCWD is the working directory of the earliest main-thread entry
	// that has one (MainCWDAt): the session's project. Subagents may run
	// in worktrees of their own and never decide it.
	MainCWD   string
	MainCWDAt time.Time

	Agents map[string]*Subagent // agent id -> subagent seen through its entries
	Spawns map[string]*Subagent // Task/Agent tool_use id -> the agent it asked for

	// Title candidates, by precedence: CustomTitle > AITitle > LastPrompt >
	// Summary > first prompt > Command > SidePrompt.
	CustomTitle string
	AITitle     string
	LastPrompt  string
	Summary     string // from a 1.x summary entry whose leafUuid is in this session
	Command     string // first slash command
	SidePrompt  string // first subagent prompt, for sessions known only through subagents

	// Queued are the prompts queued while Claude worked (QueuedText) that
	// no later prompt has repeated yet: PromptKey -> the uuids of their
	// lines, oldest first. A prompt that repeats one was counted when
	// it was queued and is not counted again (and the queued line is
	// echoed: see TakeEchoed).
	Queued map[string][]string `json:",omitzero"`
	// PromptAt and PromptBlocks are the time and block hashes of the
	// last prompt of the main thread: the VS Code extension writes a
	// prompt again as one line per block, at the same time (RepeatsPrompt).
	PromptAt     time.Time `json:",omitzero"`
	PromptBlocks []uint64  `json:",omitzero"`

	// echoed are the uuids of queued lines a prompt added since the last
	// TakeEchoed repeated; not serialised.
	echoed []string

	// Lookup sets for the Session's lists; not serialised, rebuilt from the
	// lists when first needed.
	idx *stateIndex
}

type stateIndex struct {
	files, branches, models, versions, read, edited map[string]bool
}

// NewSessionState starts the state of session id in project (folder name).
func NewSessionState(id, project string) *SessionState {
	return &SessionState{Session: Session{ID: id, Project: project}}
}

// init makes the maps usable, also after decoding a state.
func (st *SessionState) init() {
	if st.idx != nil {
		return
	}
	makeIfNil(&st.Responses)
	makeIfNil(&st.Turns)
	makeIfNil(&st.Replays)
	makeIfNil(&st.MainModels)
	makeIfNil(&st.Agents)
	makeIfNil(&st.Spawns)
	s := &st.Session
	st.idx = &stateIndex{files: setOf(s.SourceFiles), branches: setOf(s.Branches), models: setOf(s.Models),
		versions: setOf(s.Versions), read: setOf(s.FilesRead), edited: setOf(s.FilesEdited)}
}

// makeIfNil makes the map *m when it is nil (a state decoded without it).
func makeIfNil[M ~map[K]V, K comparable, V any](m *M) {
	if *m == nil {
		*m = M{}
	}
}

// setOf is the set of list's values.
func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, v := range list {
		m[v] = true
	}
	return m
}

// Add feeds one entry of the session read from f. Summary entries are
// ignored: their leafUuid names the session they describe, which only the
// caller can resolve (it then sets Summary).
func (st *SessionState) Add(f *File, e *Entry) {
	if e.Type == "summary" {
		return
	}
	st.init()
	st.noteFile(f)
	if st.titleOrBookkeeping(e) {
		return
	}
	sidechain := f.sidechain(e)
	if e.IsUserOrAssistant() && st.repeated(f, e, sidechain) {
		return
	}
	st.noteContext(e, sidechain)
	var agent *Subagent
	if sidechain {
		agent = st.agent(f, e)
	}
	switch e.Type {
	case "system":
		st.system(e, sidechain)
	case "user", "assistant":
		st.Session.Entries++
		agent.count()
		st.message(e, sidechain)
	}
}

// sidechain says e, read from f, is not on the main thread: it says so,
// or f is an agent's file.
func (f *File) sidechain(e *Entry) bool { return e.IsSidechain || f.Kind != MainFile }

// count counts a message of agent ag (nil: of none).
func (ag *Subagent) count() {
	if ag != nil {
		ag.Entries++
	}
}

// repeated reports whether user or assistant line e, read from f, was
// added already: history a resume wrote again, or a prompt's block written
// again as a line of its own. A main-session line first read from another
// session's file names that session as the host.
func (st *SessionState) repeated(f *File, e *Entry, sidechain bool) bool {
	if k := ReplayKey(f, e); k != "" && !st.Replays.Add(k) {
		return true
	}
	if sidechain {
		return false
	}
	if st.RepeatsPrompt(e) {
		return true
	}
	if f.SessionID != "" && f.SessionID != st.Session.ID && st.Session.HostSession == "" {
		st.Session.HostSession = f.SessionID
	}
	return false
}

// IsReplay reports whether e, read from f, is a user or assistant line
// that repeats one already added (ReplayKey): history a resume wrote
// again. A store skips such lines instead of storing them twice.
func (st *SessionState) IsReplay(f *File, e *Entry) bool {
	if !e.IsUserOrAssistant() {
		return false
	}
	if !f.sidechain(e) && st.RepeatsPrompt(e) {
		return true
	}
	if len(st.Replays) == 0 {
		return false
	}
	k := ReplayKey(f, e)
	if k == "" {
		return false
	}
	_, seen := st.Replays[keyHash(k)]
	return seen
}

// noteFile records f among the session's source files.
func (st *SessionState) noteFile(f *File) {
	s := &st.Session
	if !st.idx.files[f.Path] {
		st.idx.files[f.Path] = true
		s.SourceFiles = append(s.SourceFiles, f.Path)
	}
	if f.Kind == MainFile && f.SessionID == s.ID {
		s.HasMainFile = true
	}
}

// titleOrBookkeeping takes the entry types that carry a title candidate or
// only bookkeeping, and reports whether e was one of them (and so is done).
func (st *SessionState) titleOrBookkeeping(e *Entry) bool {
	switch e.Type {
	case "custom-title":
		setIfNonEmpty(&st.CustomTitle, e.CustomTitle)
	case "ai-title":
		setIfNonEmpty(&st.AITitle, e.AITitle)
	case "last-prompt":
		setIfNonEmpty(&st.LastPrompt, e.LastPrompt)
	case "queue-operation":
		st.queue(e)
	case "file-history-snapshot":
	default:
		return false
	}
	return true
}

func setIfNonEmpty(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// noteContext widens the session's time span and records where it ran: the
// working directory (the main thread's, see MainCWD), git branch and
// Claude Code version.
func (st *SessionState) noteContext(e *Entry, sidechain bool) {
	s := &st.Session
	s.widenSpan(e.Timestamp)
	if s.ProjectPath == "" && e.CWD != "" {
		s.ProjectPath = e.CWD // any thread's: the fallback
	}
	if !sidechain && e.CWD != "" && (st.MainCWD == "" || (!e.Timestamp.IsZero() && e.Timestamp.Before(st.MainCWDAt))) {
		st.MainCWD, st.MainCWDAt = e.CWD, e.Timestamp
	}
	addOnce(st.idx.branches, &s.Branches, e.GitBranch)
	addOnce(st.idx.versions, &s.Versions, e.Version)
}

// widenSpan makes the session's span from Start to End hold t (when
// known).
func (s *Session) widenSpan(t time.Time) {
	if t.IsZero() {
		return
	}
	if s.Start.IsZero() || t.Before(s.Start) {
		s.Start = t
	}
	if t.After(s.End) {
		s.End = t
	}
}

// system counts compactions of the main thread and API errors.
func (st *SessionState) system(e *Entry, sidechain bool) {
	switch e.Subtype {
	case "compact_boundary":
		if !sidechain {
			st.Session.Compactions++
		}
	case "api_error":
		st.Session.Errors++
	}
}

// agent finds or creates the subagent record an entry belongs to.
func (st *SessionState) agent(f *File, e *Entry) *Subagent {
	id := cmp.Or(f.AgentID, e.AgentID)
	if id == "" {
		return nil
	}
	ag := st.Agents[id]
	if ag == nil {
		ag = &Subagent{AgentID: id, File: f.Path}
		if strings.HasPrefix(id, "acompact") {
			ag.Type = "compact"
		}
		st.Agents[id] = ag
	}
	if f.Meta != nil {
		ag.takeMeta(f.Meta)
	}
	return ag
}

// takeMeta takes what an agent's meta file says of it: its type, its
// description, the tool call that spawned it.
func (ag *Subagent) takeMeta(m *SubagentMeta) {
	ag.Type = cmp.Or(m.AgentType, ag.Type)
	ag.Description = cmp.Or(m.Description, ag.Description)
	ag.ToolUseID = cmp.Or(m.ToolUseID, ag.ToolUseID)
}

// message adds a user or assistant entry: its model and usage, and, on the
// main thread, the turn, the prompt, the agents it links and its blocks.
func (st *SessionState) message(e *Entry, sidechain bool) {
	s := &st.Session
	if e.Model != "<synthetic>" {
		addOnce(st.idx.models, &s.Models, e.Model)
	}
	st.usage(e)
	if sidechain {
		if st.SidePrompt == "" && e.Type == "user" && IsRealPrompt(e) {
			st.SidePrompt = CleanPrompt(e.PromptText())
		}
		return
	}
	switch e.Type {
	case "assistant":
		st.turn(e)
	case "user":
		st.prompt(e)
	}
	st.linkSpawns(e)
	st.blocks(e)
}

// usage sums e's token usage once per response.
func (st *SessionState) usage(e *Entry) {
	if e.Usage == nil {
		return
	}
	key := e.MessageID + ":" + e.RequestID
	if e.MessageID == "" {
		key = "uuid:" + e.UUID
	}
	if st.Responses.Add(key) {
		st.Session.Usage.Add(*e.Usage)
	}
}

// turn counts an assistant response once, however many entries it spans.
// Claude Code's own entries (IsSyntheticReply) are not Claude's turns; an
// API error among them is an error.
func (st *SessionState) turn(e *Entry) {
	if IsSyntheticReply(e) {
		if e.IsAPIError && st.Turns.Add("synthetic:"+e.MessageID+e.UUID) {
			st.Session.Errors++
		}
		return
	}
	key := e.MessageID
	if key == "" {
		key = "uuid:" + e.UUID
	}
	if st.Turns.Add(key) {
		st.Session.AssistantTurns++
		if e.Model != "" && e.Model != "<synthetic>" {
			st.MainModels[e.Model]++
		}
	}
}

// maxPromptKept bounds the first prompt (and command) a session keeps.
const maxPromptKept = 8 << 10

// prompt counts a real user prompt (unless it repeats a queued prompt,
// counted already) and keeps the first one (or the first slash command)
// as a title candidate.
func (st *SessionState) prompt(e *Entry) {
	if !IsRealPrompt(e) {
		return
	}
	s := &st.Session
	st.PromptAt, st.PromptBlocks = e.Timestamp, promptBlockHashes(e)
	if !st.echo(PromptKey(e.PromptText())) {
		s.Prompts++
	}
	if st.Command != "" && s.FirstPrompt != "" {
		return
	}
	// A title candidate: its head is all a title uses, and a 20 MB
	// pasted log must not be kept (and stored) whole a second time.
	text := HeadTail(e.PromptText(), maxPromptKept, 0)
	if IsCairnCommand(text) {
		return // a query for cairn, not the session's request
	}
	if IsCommandWrapper(text) {
		if st.Command == "" {
			st.Command = CleanPrompt(text)
		}
	} else if s.FirstPrompt == "" {
		s.FirstPrompt = CleanPrompt(text)
	}
}

// queue counts a prompt queued while Claude worked (QueuedText) and keeps
// it until a later prompt repeats it.
func (st *SessionState) queue(e *Entry) {
	text := QueuedText(e)
	if text == "" {
		return
	}
	st.Session.Prompts++
	if st.Queued == nil {
		st.Queued = map[string][]string{}
	}
	k := PromptKey(text)
	st.Queued[k] = append(st.Queued[k], e.UUID)
}

// echo reports whether a prompt with key k repeats a queued prompt, and
// then takes that one off the queue (it is echoed: TakeEchoed).
func (st *SessionState) echo(k string) bool {
	uuids := st.Queued[k]
	if len(uuids) == 0 {
		return false
	}
	st.echoed = append(st.echoed, uuids[0])
	if len(uuids) == 1 {
		delete(st.Queued, k)
	} else {
		st.Queued[k] = uuids[1:]
	}
	return true
}

// TakeEchoed returns the uuids of the queued lines that prompts added
// since the last call repeated, and forgets them: a store no longer shows
// or searches those lines as the person's words (the prompt is).
func (st *SessionState) TakeEchoed() []string {
	out := st.echoed
	st.echoed = nil
	return out
}

// RepeatsPrompt reports whether the user line e writes the last prompt of
// the main thread again, or some of its blocks: the VS Code extension
// records a prompt as the whole message, then each of its blocks (an
// image, an <ide_opened_file> block) as a line of its own with the same
// timestamp. Such lines are neither counted nor shown.
func (st *SessionState) RepeatsPrompt(e *Entry) bool {
	if e.Type != "user" || e.IsMeta || e.IsCompactSummary || e.Timestamp.IsZero() || len(st.PromptBlocks) == 0 ||
		!e.Timestamp.Equal(st.PromptAt) || e.IsToolResultOnly() {
		return false
	}
	return subsetOf(promptBlockHashes(e), st.PromptBlocks)
}

// promptBlockHashes are the hashes of a prompt's blocks by kind and text
// (tool results left out).
func promptBlockHashes(e *Entry) []uint64 {
	var out []uint64
	for i := range e.Blocks {
		b := &e.Blocks[i]
		if b.Type == BlockToolResult {
			continue
		}
		out = append(out, keyHash(b.Type+"\x00"+strings.TrimSpace(b.Text)))
	}
	return out
}

// subsetOf reports whether every hash of a (at least one) is in b.
func subsetOf(a, b []uint64) bool {
	if len(a) == 0 {
		return false
	}
	for _, h := range a {
		if !slices.Contains(b, h) {
			return false
		}
	}
	return true
}

// linkSpawns uses toolUseResult.agentId to link the spawning call to the
// agent.
func (st *SessionState) linkSpawns(e *Entry) {
	if e.ResultAgentID == "" {
		return
	}
	for _, b := range e.Blocks {
		if b.Type != BlockToolResult {
			continue
		}
		if sp := st.Spawns[b.ToolUseID]; sp != nil && sp.AgentID == "" {
			sp.AgentID = e.ResultAgentID
		}
	}
}

// blocks counts tool calls and failed tool results.
func (st *SessionState) blocks(e *Entry) {
	s := &st.Session
	for i := range e.Blocks {
		b := &e.Blocks[i]
		switch b.Type {
		case BlockToolUse:
			s.ToolCalls++
			st.tool(b)
		case BlockToolResult:
			if b.IsError {
				s.Errors++
			}
		}
	}
}

func (st *SessionState) tool(b *Block) {
	s := &st.Session
	in := DecodeToolInput(b.ToolInput)
	switch b.ToolName {
	case "Read", "NotebookRead":
		addOnce(st.idx.read, &s.FilesRead, firstNonEmpty(in.FilePath, in.NotebookPath))
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		addOnce(st.idx.edited, &s.FilesEdited, firstNonEmpty(in.FilePath, in.NotebookPath))
	case "Bash":
		if in.Command != "" {
			s.Commands = append(s.Commands, in.Command)
		}
	}
	if IsAgentTool(b.ToolName) {
		sp := &Subagent{Type: in.SubagentType, Description: in.Description, ToolUseID: b.ToolID}
		if sp.Type == "" {
			sp.Type = "general-purpose"
		}
		st.Spawns[b.ToolID] = sp
	}
}

// Finish returns the presentable Session: the title picked by precedence,
// the project path defaulted to decodedPath, and the subagents merged with
// the calls that spawned them. The state itself is left unchanged.
func (st *SessionState) Finish(decodedPath string) *Session {
	out := st.Session // the lists are shared read-only; Subagents is rebuilt
	s := &out
	s.ProjectPath = cmp.Or(st.MainCWD, s.ProjectPath, decodedPath)
	s.MainModel = st.mainModel()
	s.Models = MainFirst(s.Models, s.MainModel) // a copy when it moves: the state's list is shared
	s.CWD = s.ProjectPath
	if title, source, ok := st.title(); ok {
		s.Title, s.TitleSource = title, source
	}
	s.Title = OneLine(s.Title, 200)
	s.Subagents = st.subagents()
	s.SourceExists = len(s.SourceFiles) > 0
	return s
}

// titleSources is where a session's title comes from, by precedence: the
// person's own (/rename), Claude's, the last prompt, the summary line,
// the first prompt, the first slash command, a subagent's prompt. shown,
// when set, is the title a text makes.
var titleSources = []struct {
	source string
	text   func(st *SessionState) string
	shown  func(string) string
}{
	{"custom", func(st *SessionState) string { return st.CustomTitle }, nil},
	{"ai", func(st *SessionState) string { return st.AITitle }, nil},
	{"last-prompt", func(st *SessionState) string { return st.LastPrompt }, CleanPrompt},
	{"summary", func(st *SessionState) string { return st.Summary }, nil},
	{"first-prompt", func(st *SessionState) string { return st.Session.FirstPrompt }, nil},
	{"command", func(st *SessionState) string { return st.Command }, nil},
	{"subagent-prompt", func(st *SessionState) string { return st.SidePrompt }, nil},
}

// title is the session's title and its source (titleSources), if it has
// one.
func (st *SessionState) title() (title, source string, ok bool) {
	for _, t := range titleSources {
		text := t.text(st)
		if text == "" {
			continue
		}
		if t.shown != nil {
			text = t.shown(text)
		}
		return text, t.source, true
	}
	return "", "", false
}

// mainModel is the model of most of the main thread's responses (the
// first seen of those tied), else the first model seen anywhere.
func (st *SessionState) mainModel() string {
	best, n := "", 0
	for _, m := range st.Session.Models {
		if c := st.MainModels[m]; c > n {
			best, n = m, c
		}
	}
	if best == "" && len(st.Session.Models) > 0 {
		best = st.Session.Models[0]
	}
	return best
}

// subagents merges the agents seen through their entries with the calls
// that spawned them, working on copies.
func (st *SessionState) subagents() []Subagent {
	agents := make(map[string]*Subagent, len(st.Agents)+len(st.Spawns))
	byTool := map[string]*Subagent{}
	for id, ag := range st.Agents {
		cp := *ag
		agents[id] = &cp
		if cp.ToolUseID != "" {
			byTool[cp.ToolUseID] = &cp
		}
	}
	for tid, sp := range st.Spawns {
		mergeSpawn(agents, byTool, tid, sp)
	}
	var out []Subagent
	for _, ag := range agents {
		if ag.Type == "" {
			ag.Type = "general-purpose"
		}
		out = append(out, *ag)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].AgentID != out[j].AgentID {
			return out[i].AgentID < out[j].AgentID
		}
		return out[i].ToolUseID < out[j].ToolUseID
	})
	return out
}

// mergeSpawn merges the call tid that spawned sp into the agent it
// spawned, found by tool use id or agent id, or adds sp as an agent of its
// own when its transcript is not on disk.
func mergeSpawn(agents, byTool map[string]*Subagent, tid string, sp *Subagent) {
	ag := byTool[tid]
	if ag == nil && sp.AgentID != "" {
		if ag = agents[sp.AgentID]; ag != nil {
			ag.ToolUseID = tid
		}
	}
	if ag == nil {
		cp := *sp
		agents["tool:"+tid] = &cp // spawned, but its transcript is not on disk
		return
	}
	if ag.Description == "" {
		ag.Description = sp.Description
	}
	if ag.Type == "" {
		ag.Type = sp.Type
	}
}

// MarshalState encodes a state for storage.
func MarshalState(st *SessionState) ([]byte, error) {
	return json.Marshal(st)
}

// UnmarshalState decodes a state written by MarshalState. A caller that
// stored some of the Session's lists elsewhere may put them back before the
// next Add (the lookup sets are built from the lists then).
func UnmarshalState(b []byte) (*SessionState, error) {
	st := &SessionState{}
	if err := json.Unmarshal(b, st, decodeOpts); err != nil {
		return nil, err
	}
	return st, nil
}

// KeySet is a set of strings kept as 64-bit hashes: a session's response
// and turn keys ("msg_01…:req_01…", ~60 bytes each) shrink to 8 bytes, which
// keeps a stored state small enough to load and rewrite on every hook. A
// collision would merely skip one response's tokens; at 64 bits it takes
// billions of keys per session to become likely.
type KeySet map[uint64]struct{}

// Add inserts key and reports whether it was new.
func (k KeySet) Add(key string) bool {
	v := keyHash(key)
	if _, ok := k[v]; ok {
		return false
	}
	k[v] = struct{}{}
	return true
}

func keyHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// MarshalJSON writes the hashes as base64 of sorted little-endian uint64s.
func (k KeySet) MarshalJSON() ([]byte, error) {
	vals := make([]uint64, 0, len(k))
	for v := range k {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], v)
	}
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(raw))+2)
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, raw)
	return append(out, '"'), nil
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (k *KeySet) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	if len(raw)%8 != 0 {
		return errors.New("key set: length is not a multiple of 8")
	}
	m := make(KeySet, len(raw)/8)
	for i := 0; i < len(raw); i += 8 {
		m[binary.LittleEndian.Uint64(raw[i:])] = struct{}{}
	}
	*k = m
	return nil
}
