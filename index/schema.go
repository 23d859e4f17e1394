package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// migrations are applied in order; the store's PRAGMA user_version is the
// number applied. Never edit a released migration: append a new one.
var migrations = []string{
	// 1: the initial schema.
	`
-- A folder under ~/.claude/projects. first_seen is when cairn first
-- indexed it, last_seen the last time one of its files changed.
CREATE TABLE projects (
	id           INTEGER PRIMARY KEY,
	name         TEXT NOT NULL UNIQUE,  -- folder name: the encoded cwd
	decoded_path TEXT NOT NULL,         -- lossy decoding, the path of last resort
	first_seen   INTEGER NOT NULL,      -- unix ms
	last_seen    INTEGER NOT NULL
);

-- A transcript file and how far it has been read. The cursor is updated in
-- the same transaction as the entries it covers.
CREATE TABLE files (
	id         INTEGER PRIMARY KEY,
	path       TEXT NOT NULL UNIQUE,
	kind       INTEGER NOT NULL,        -- transcripts.FileKind
	project    INTEGER NOT NULL REFERENCES projects(id),
	session_id TEXT NOT NULL,           -- from the file name; '' for legacy agent files
	agent_id   TEXT NOT NULL,
	size       INTEGER NOT NULL,        -- when last read
	mtime      INTEGER NOT NULL,        -- unix ns, when last read
	cur_offset INTEGER NOT NULL,        -- transcripts.Cursor
	cur_line   INTEGER NOT NULL,
	cur_fp     INTEGER NOT NULL,
	present    INTEGER NOT NULL DEFAULT 1  -- 0: gone from disk; its entries are kept
);

-- One Claude Code session. The scalar columns serve listings and filters;
-- detail holds the finished lists (JSON); state is the serialised
-- transcripts.SessionState that new entries are added to, so appending to a
-- session never re-reads it.
CREATE TABLE sessions (
	id             INTEGER PRIMARY KEY,
	sid            TEXT NOT NULL UNIQUE,  -- the session id (a uuid)
	project        INTEGER NOT NULL REFERENCES projects(id),
	project_path   TEXT NOT NULL DEFAULT '',
	title          TEXT NOT NULL DEFAULT '',
	title_source   TEXT NOT NULL DEFAULT '',
	first_prompt   TEXT NOT NULL DEFAULT '',
	start_ns       INTEGER NOT NULL DEFAULT 0,
	end_ns         INTEGER NOT NULL DEFAULT 0,
	prompts        INTEGER NOT NULL DEFAULT 0,
	turns          INTEGER NOT NULL DEFAULT 0,
	tool_calls     INTEGER NOT NULL DEFAULT 0,
	errors         INTEGER NOT NULL DEFAULT 0,
	entries        INTEGER NOT NULL DEFAULT 0,  -- 0: no conversation yet; hidden
	compactions    INTEGER NOT NULL DEFAULT 0,
	input_tokens   INTEGER NOT NULL DEFAULT 0,
	output_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	has_main_file  INTEGER NOT NULL DEFAULT 0,
	archived       INTEGER NOT NULL DEFAULT 0,  -- 1: none of its files is on disk any more
	detail         TEXT NOT NULL DEFAULT '{}',
	state          BLOB,
	state_version  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_start ON sessions(start_ns);
CREATE INDEX sessions_project ON sessions(project);

-- Which files hold a session's entries (a file can hold several sessions).
CREATE TABLE session_files (
	session INTEGER NOT NULL REFERENCES sessions(id),
	file    INTEGER NOT NULL REFERENCES files(id),
	PRIMARY KEY (session, file)
) WITHOUT ROWID;

-- One transcript line with a uuid (user, assistant and the system lines
-- worth keeping). uuid is unique: INSERT OR IGNORE keeps the first seen
-- across files. text is the searchable text after redaction; data the
-- compact JSON needed to re-render the entry (NULL when text is enough).
CREATE TABLE entries (
	id      INTEGER PRIMARY KEY,
	uuid    TEXT NOT NULL UNIQUE,
	session INTEGER NOT NULL REFERENCES sessions(id),
	file    INTEGER NOT NULL REFERENCES files(id),
	line    INTEGER NOT NULL,
	agent   TEXT NOT NULL DEFAULT '',  -- subagent thread it belongs to; '' = main thread
	parent  TEXT NOT NULL DEFAULT '',  -- parentUuid
	type    TEXT NOT NULL,             -- user, assistant, system
	subtype TEXT NOT NULL DEFAULT '',
	role    TEXT NOT NULL,             -- user (a real prompt), assistant, tool (tool results), system
	block   TEXT NOT NULL DEFAULT '',  -- dominant block kind: text, thinking, tool_use, tool_result, image, ...
	ts      INTEGER NOT NULL DEFAULT 0, -- unix ms
	flags   INTEGER NOT NULL DEFAULT 0, -- see flag* in prepare.go
	text    TEXT NOT NULL DEFAULT '',
	data    TEXT
);
CREATE INDEX entries_session ON entries(session);

-- Where secrets were removed; never the secret. entry is 0 for session
-- metadata (titles, last prompts).
CREATE TABLE redactions (
	session INTEGER NOT NULL,
	entry   INTEGER NOT NULL,
	field   TEXT NOT NULL,     -- text, title, block:N:input, ...
	start   INTEGER NOT NULL,  -- byte offset in the original field
	length  INTEGER NOT NULL,
	kind    TEXT NOT NULL,     -- redact.Kind*
	PRIMARY KEY (session, entry, field, start)
) WITHOUT ROWID;

-- 1.x summary lines; session is set once leaf_uuid is found in entries.
CREATE TABLE summaries (
	id        INTEGER PRIMARY KEY,
	leaf_uuid TEXT NOT NULL,
	text      TEXT NOT NULL,
	session   INTEGER REFERENCES sessions(id),
	UNIQUE (leaf_uuid, text)
);
CREATE INDEX summaries_pending ON summaries(leaf_uuid) WHERE session IS NULL;

-- Documents to (re)index in the derived indexes; consumers ack them.
CREATE TABLE fts_queue (doc TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE embed_queue (doc TEXT PRIMARY KEY) WITHOUT ROWID;

-- Vectors: little-endian float32, one per document and embedder.
CREATE TABLE embeddings (
	doc      TEXT NOT NULL,
	embedder TEXT NOT NULL,     -- model, dims and version: vectors of different embedders never mix
	dims     INTEGER NOT NULL,
	vector   BLOB NOT NULL,
	created  INTEGER NOT NULL,  -- unix ms
	PRIMARY KEY (embedder, doc)
) WITHOUT ROWID;

-- Settings and small blobs (embedder models, last sync time).
CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
`,
	// 2: memories, their links, drafts, session summaries, injections,
	// extraction cursors and synthesis state (index/mem*.go).
	`
-- A distilled fact worth carrying into later sessions. Times are unix ms;
-- tags and source_uuids are JSON arrays of strings.
CREATE TABLE memories (
	id             TEXT PRIMARY KEY,     -- "m-" + 8 hex
	project        TEXT NOT NULL DEFAULT '',  -- project path; '' = global
	type           TEXT NOT NULL,
	content        TEXT NOT NULL,
	tags           TEXT NOT NULL DEFAULT '[]',
	importance     INTEGER NOT NULL DEFAULT 3,
	status         TEXT NOT NULL,
	source_session TEXT NOT NULL DEFAULT '',
	source_uuids   TEXT NOT NULL DEFAULT '[]',
	origin         TEXT NOT NULL DEFAULT '',
	created        INTEGER NOT NULL,
	updated        INTEGER NOT NULL,
	access_count   INTEGER NOT NULL DEFAULT 0,
	last_access    INTEGER NOT NULL DEFAULT 0,
	injected       INTEGER NOT NULL DEFAULT 0,
	used           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX memories_status ON memories(status, updated);

CREATE TABLE memory_links (
	src  TEXT NOT NULL,
	kind TEXT NOT NULL,   -- related, supersedes, contradicts, elaborates
	dst  TEXT NOT NULL,
	PRIMARY KEY (src, kind, dst)
) WITHOUT ROWID;
CREATE INDEX memory_links_dst ON memory_links(dst);

-- Deleted memories (JSON, with their links) so a deletion can be undone.
CREATE TABLE memory_trash (
	seq     INTEGER PRIMARY KEY,
	id      TEXT NOT NULL,
	deleted INTEGER NOT NULL,
	data    TEXT NOT NULL
);

-- Summaries written by /summarize, waiting for review.
CREATE TABLE drafts (
	id       TEXT PRIMARY KEY,  -- "d-" + 8 hex
	session  TEXT NOT NULL,
	project  TEXT NOT NULL DEFAULT '',
	markdown TEXT NOT NULL,
	status   TEXT NOT NULL,     -- pending, approved, rejected
	created  INTEGER NOT NULL,
	updated  INTEGER NOT NULL
);

-- One structured summary per session (heuristic, draft or ollama).
CREATE TABLE session_summaries (
	session  TEXT PRIMARY KEY,
	project  TEXT NOT NULL DEFAULT '',
	source   TEXT NOT NULL,
	markdown TEXT NOT NULL,
	sections TEXT NOT NULL DEFAULT '{}',  -- JSON: section -> lines
	created  INTEGER NOT NULL
);
CREATE INDEX session_summaries_project ON session_summaries(project, created);

-- Which memories were injected into which session, and whether they were used.
CREATE TABLE memory_injections (
	session TEXT NOT NULL,
	memory  TEXT NOT NULL,
	event   TEXT NOT NULL,
	ts      INTEGER NOT NULL,
	checked INTEGER NOT NULL DEFAULT 0,
	used    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session, memory, event)
) WITHOUT ROWID;

-- How far extraction has read each session (entries.id of the last entry).
CREATE TABLE extract_cursors (
	session    TEXT PRIMARY KEY,
	last_entry INTEGER NOT NULL,
	updated    INTEGER NOT NULL
) WITHOUT ROWID;

-- The last synthesis of each project and what it was built from.
CREATE TABLE synthesis (
	project  TEXT PRIMARY KEY,
	markdown TEXT NOT NULL,
	state    TEXT NOT NULL,
	updated  INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 3: long entry text and render data are stored compressed (see
	// compress.go): the rows move to entries_raw and entries becomes a view
	// that inflates them, so readers are unchanged. Existing rows stay as
	// they are (the view passes plain values through).
	`
ALTER TABLE entries RENAME TO entries_raw;
CREATE VIEW entries AS SELECT id, uuid, session, file, line, agent, parent, type, subtype, role, block, ts, flags,
	cairn_unz(text) AS text, cairn_unz(data) AS data FROM entries_raw;
`,
	// 4: entries wait in the queues under their row id ("e:" and 13
	// digits), not their random uuid: a run's queue rows sit together at
	// the end of the B-tree instead of dirtying a page each (an incremental
	// run's WAL, and the checkpoint that writes it back, were 4x larger).
	// Rows of entries no longer stored stay under "m:" (removals).
	`
INSERT OR IGNORE INTO fts_queue(doc) SELECT printf('e:%013d', e.id) FROM fts_queue q JOIN entries_raw e ON e.uuid = substr(q.doc, 3) WHERE q.doc >= 'm:' AND q.doc < 'm;';
DELETE FROM fts_queue WHERE doc >= 'm:' AND doc < 'm;' AND substr(doc, 3) IN (SELECT uuid FROM entries_raw);
INSERT OR IGNORE INTO embed_queue(doc) SELECT printf('e:%013d', e.id) FROM embed_queue q JOIN entries_raw e ON e.uuid = substr(q.doc, 3) WHERE q.doc >= 'm:' AND q.doc < 'm;';
DELETE FROM embed_queue WHERE doc >= 'm:' AND doc < 'm;' AND substr(doc, 3) IN (SELECT uuid FROM entries_raw);
`,
	// 5: vectors live in insertion order, found through a unique index on
	// (embedder, doc). Keyed by (embedder, doc) themselves, each new
	// 800-byte vector landed on its own page at a random place: most of an
	// incremental run's WAL, and slow bulk embedding.
	`
CREATE TABLE embeddings_v5 (
	id       INTEGER PRIMARY KEY,
	doc      TEXT NOT NULL,
	embedder TEXT NOT NULL,     -- model, dims and version: vectors of different embedders never mix
	dims     INTEGER NOT NULL,
	vector   BLOB NOT NULL,     -- little-endian float32
	created  INTEGER NOT NULL,  -- unix ms
	UNIQUE (embedder, doc)
);
INSERT INTO embeddings_v5(doc, embedder, dims, vector, created) SELECT doc, embedder, dims, vector, created FROM embeddings;
DROP TABLE embeddings;
ALTER TABLE embeddings_v5 RENAME TO embeddings;
`,
	// 6: an entry's vector is stored under the entry's "e:" key (its row
	// id), not its document id ("m:<uuid>"): the unique (embedder, doc)
	// index then grows at its end, where a run's new vectors share a page
	// or two, instead of at 50 random places for 50 new entries (the
	// biggest part of an incremental run's WAL and of the checkpoint that
	// writes it back). Readers translate back (see Embeddings).
	`
UPDATE embeddings SET doc = (SELECT printf('e:%013d', e.id) FROM entries_raw e WHERE e.uuid = substr(embeddings.doc, 3))
	WHERE doc >= 'm:' AND doc < 'm;' AND substr(doc, 3) IN (SELECT uuid FROM entries_raw);
`,
	// 7: no table changes, only formats an older build cannot read: values
	// under 2 KB are S2-compressed (compress.go) and vectors are stored as
	// half floats (encodeVector). The version moves so such a build refuses
	// the store instead of reading compressed bytes as text.
	`SELECT 1;`,
	// 8: what `cairn forget` removed, so no later sync stores it again
	// although its transcript files stay on disk (see forget.go).
	`
CREATE TABLE IF NOT EXISTS tombstones (
	kind    TEXT NOT NULL,     -- session, folder, path
	key     TEXT NOT NULL,
	created INTEGER NOT NULL,  -- unix ms
	PRIMARY KEY (kind, key)
) WITHOUT ROWID;
`,
	// 9: a summary line resolves within its own project (the folder whose
	// file holds it), never into another project's session with the same
	// leaf uuid. Lines stored before have no row here and resolve as before.
	// No foreign keys: forgetting a summary leaves its row, which the next
	// summary given that id replaces.
	`CREATE TABLE IF NOT EXISTS summary_projects (
	summary INTEGER PRIMARY KEY,  -- summaries.id
	project INTEGER NOT NULL      -- projects.id
);`,
	// 10: a session's project is the git repository it ran in (projects.go):
	// project_path becomes the repository and cwd keeps the folder the
	// session ran in (a worktree or subfolder). project_repos remembers
	// folders' repositories while they exist. The stored sessions,
	// memories, summaries, drafts and syntheses are re-keyed from folders
	// to repositories in Go right after (rekeyProjects, flagged in kv):
	// that needs the file system. memory_fingerprints keep what a review
	// turned down after the memory itself is deleted (memories/review.go).
	`
ALTER TABLE sessions ADD COLUMN cwd TEXT NOT NULL DEFAULT '';
UPDATE sessions SET cwd = project_path;
CREATE TABLE project_repos (
	path    TEXT PRIMARY KEY,  -- a folder sessions ran in: a worktree or subfolder of repo
	repo    TEXT NOT NULL,     -- the repository: its main checkout's folder
	updated INTEGER NOT NULL   -- unix ms
) WITHOUT ROWID;
CREATE TABLE memory_fingerprints (
	memory  TEXT PRIMARY KEY,  -- the memory's id
	project TEXT NOT NULL DEFAULT '',
	type    TEXT NOT NULL,
	neg     INTEGER NOT NULL DEFAULT 0,
	tokens  BLOB NOT NULL,     -- its content words' hashes (memories' dedup), little-endian uint32s
	status  TEXT NOT NULL,     -- the review: rejected or superseded
	created INTEGER NOT NULL   -- unix ms
) WITHOUT ROWID;
INSERT OR REPLACE INTO kv(key, value) VALUES ('projects.rekey', '1');
`,
	// 11: every word the person said is stored once (transcripts.EntrySaid):
	// a prompt queued while Claude worked gets a row of its own (until a
	// later prompt repeats it), a rejection's reason and the answers to
	// Claude's questions are the user's rows, and a VS Code prompt written
	// again block by block counts once. A store that has sessions reads
	// its transcripts again at its next full sync (a recount, flagged in
	// kv: see recountKey).
	`INSERT OR REPLACE INTO kv(key, value) SELECT 'sessions.recount', '11' WHERE EXISTS (SELECT 1 FROM sessions);`,
	// 12: the texts of Claude Code's own auto-memory files
	// (projects/<P>/memory/*.md) cairn has seen, so a change Claude makes is
	// reviewed as a diff, and any reviewed text can be put back
	// (memories/memfiles.go, index/mem_files.go).
	`
CREATE TABLE IF NOT EXISTS memory_file_versions (
	id       INTEGER PRIMARY KEY,
	path     TEXT NOT NULL,               -- the memory file
	project  TEXT NOT NULL DEFAULT '',    -- its project (a repository path)
	hash     TEXT NOT NULL,               -- sha256 of text, hex; '' when the file was deleted
	text     TEXT NOT NULL,
	status   TEXT NOT NULL,               -- baseline, pending, approved, rejected, restored, withdrawn
	base     INTEGER NOT NULL DEFAULT 0,  -- the reviewed version a change was seen against (its diff's left side)
	seq      INTEGER NOT NULL DEFAULT 0,  -- review order (undo takes the highest); 0: not a review
	seen     INTEGER NOT NULL,            -- unix ms cairn read this text
	reviewed INTEGER NOT NULL DEFAULT 0   -- unix ms of the review
);
CREATE INDEX IF NOT EXISTS memory_file_versions_path ON memory_file_versions(path, id);
CREATE INDEX IF NOT EXISTS memory_file_versions_status ON memory_file_versions(status, project);
-- One baseline and at most one pending change per file, even when two
-- processes read the file at once.
CREATE UNIQUE INDEX IF NOT EXISTS memory_file_versions_one_pending ON memory_file_versions(path) WHERE status = 'pending';
CREATE UNIQUE INDEX IF NOT EXISTS memory_file_versions_one_baseline ON memory_file_versions(path) WHERE status = 'baseline';
`,
	// 13: no table changes, only a format an older build cannot read:
	// entries' vectors are stored as 8-bit values and a scale
	// (encodeStoredVector). The version moves so such a build refuses the
	// store instead of calling those vectors damaged. Vectors stored
	// before stay half floats and are read as such.
	`SELECT 1;`,
	// 14: no table changes, only a format an older build cannot read:
	// entries' short text and render data are S2-compressed against
	// dictionaries built into cairn (compress.go). The version moves so
	// such a build refuses the store instead of passing those values
	// through as text. Values stored before read as they were.
	`SELECT 1;`,
	// 15: an entry's parent uuid is stored as its 16 bytes (uuidpack.go);
	// the view gives it back as text. Parents stored before are text and
	// read as they are.
	`
DROP VIEW entries;
CREATE VIEW entries AS SELECT id, uuid, session, file, line, agent, cairn_uuid(parent) AS parent, type, subtype, role, block, ts, flags,
	cairn_unz(text) AS text, cairn_unz(data) AS data FROM entries_raw;
`,
	// 16: an entry's own uuid is stored as its 16 bytes too (uuidpack.go),
	// and the view gives it back as text. The uuids and parents stored
	// before are packed here, once: a uuid is looked up by its packed
	// value (and INSERT OR IGNORE must meet the copy stored first), so no
	// canonical uuid may stay text. The pages freed are reused by later
	// rows (the file does not shrink without a VACUUM).
	`
UPDATE entries_raw SET uuid = cairn_pack(uuid), parent = cairn_pack(parent)
	WHERE (typeof(uuid) = 'text' AND length(uuid) = 36) OR (typeof(parent) = 'text' AND length(parent) = 36);
DROP VIEW entries;
CREATE VIEW entries AS SELECT id, cairn_uuid(uuid) AS uuid, session, file, line, agent, cairn_uuid(parent) AS parent, type, subtype, role, block, ts, flags,
	cairn_unz(text) AS text, cairn_unz(data) AS data FROM entries_raw;
`,
	// 17: an entry's type, role and block kind are stored as one-byte
	// codes (kindpack.go) and the view gives the words back. The rows
	// stored before are packed here, once: rows are looked up by code.
	schema17(),
}

// schema17 is migration 17. Its words are the first 13 of kindWords,
// forever: a word added later needs a migration that recreates the view.
func schema17() string {
	const n = 14
	return `
UPDATE entries_raw SET type = ` + kindPackCase("type", n) + `, role = ` + kindPackCase("role", n) + `, block = ` + kindPackCase("block", n) + `
	WHERE length(type) > 1 OR length(role) > 1 OR length(block) > 1;
DROP VIEW entries;
CREATE VIEW entries AS SELECT id, cairn_uuid(uuid) AS uuid, session, file, line, agent, cairn_uuid(parent) AS parent,
	` + kindCase("type", n) + ` AS type, subtype, ` + kindCase("role", n) + ` AS role, ` + kindCase("block", n) + ` AS block, ts, flags,
	cairn_unz(text) AS text, cairn_unz(data) AS data FROM entries_raw;
`
}

// rewritesRows reports a migration that updates stored rows (packing
// uuids, coding kinds): its time grows with the store, unlike a migration
// that only changes the schema.
func rewritesRows(m string) bool {
	return strings.Contains(m, "UPDATE entries_raw") || strings.Contains(m, "UPDATE embeddings")
}

// holdsEntries reports whether the store holds any entry (a new or empty
// store migrates at once, whoever opens it).
func holdsEntries(ctx context.Context, q queryer) bool {
	for _, table := range []string{"entries_raw", "entries"} {
		var one int
		err := q.QueryRowContext(ctx, "SELECT 1 FROM "+table+" LIMIT 1").Scan(&one)
		if err == nil {
			return true
		}
		if err == sql.ErrNoRows {
			return false
		}
	}
	return false
}

// SchemaVersion is the schema this build writes.
var SchemaVersion = len(migrations)

// migrate brings the store to SchemaVersion. Each migration runs in its own
// immediate transaction and re-reads the version inside it, so processes
// opening a fresh store at the same time apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	db := s.w
	if s.readOnly {
		db = s.r
	}
	v, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if err := s.canMigrate(ctx, db, v); err != nil {
		return err
	}
	for {
		done, err := s.migrateOnce(ctx)
		if err != nil || done {
			return err
		}
	}
}

// canMigrate says why a store at schema version v (not SchemaVersion)
// cannot be migrated by this open, if it cannot.
func (s *Store) canMigrate(ctx context.Context, db *sql.DB, v int) error {
	if v > SchemaVersion {
		return fmt.Errorf("%w: %s has schema version %d, this cairn knows up to %d; upgrade cairn (or point it at another data dir)", ErrNewerSchema, s.path, v, SchemaVersion)
	}
	if s.readOnly {
		return fmt.Errorf("%s has schema version %d, this cairn needs %d: open it once for writing (run `cairn index`)", s.path, v, SchemaVersion)
	}
	if s.deferRewrites && slices.ContainsFunc(migrations[v:], rewritesRows) && holdsEntries(ctx, db) {
		return fmt.Errorf("%w: %s has schema version %d and this cairn's %d rewrites every row; `cairn index` (or the next background run) does it", ErrUpgradePending, s.path, v, SchemaVersion)
	}
	return nil
}

// migrateOnce applies the next migration in its own transaction, re-reading
// the version inside it; done when the store is at SchemaVersion.
func (s *Store) migrateOnce(ctx context.Context) (done bool, err error) {
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		v, err := userVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > SchemaVersion {
			return fmt.Errorf("%w: %s has schema version %d, this cairn knows up to %d; upgrade cairn", ErrNewerSchema, s.path, v, SchemaVersion)
		}
		if v == SchemaVersion {
			done = true
			return nil
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrating %s to schema version %d: %w", s.path, v+1, err)
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1))
		return err
	})
	return done, err
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}
