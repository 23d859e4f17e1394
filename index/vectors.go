package index

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/index/embed"
)

// Embedder kinds.
const (
	EmbedBuiltin = "builtin"
	EmbedOllama  = "ollama"
	EmbedNone    = "none"
)

// EmbedderConfig chooses the embedder that makes vectors.
type EmbedderConfig struct {
	Kind   string             // builtin (default), ollama or none
	Ollama embed.OllamaConfig // for Kind ollama
}

// Embedder returns the embedder choice in effect.
func (s *Store) Embedder() EmbedderConfig {
	c := s.embedCfg
	if c.Kind == "" {
		c.Kind = EmbedBuiltin
	}
	return c
}

// ollamaPing bounds the reachability check before a long embedding run.
const ollamaPing = 5 * time.Second

// EmbedPending embeds every queued document with the configured embedder
// and refreshes the vector cache. It returns how many documents it embedded
// and the embedder's id. Queued documents stay queued on error, so the next
// run resumes where this one stopped.
func (d Derived) EmbedPending(ctx context.Context, retrain bool, progress func(done int)) (int, string, error) {
	return d.s.embedPending(ctx, retrain, nil, progress)
}

// embedPending is EmbedPending given, when a sync just committed them in
// one transaction, the documents it queued (handoff.only): when the
// embedding queue holds nothing else, the built-in embedder takes them from
// memory instead of reading the queue back.
func (s *Store) embedPending(ctx context.Context, retrain bool, fresh []DocRow, progress func(done int)) (int, string, error) {
	switch c := s.Embedder(); c.Kind {
	case EmbedNone:
		return 0, "", nil
	case EmbedOllama:
		return s.embedWithOllama(ctx, c.Ollama, progress)
	default:
		return s.embedWithBuiltin(ctx, retrain, fresh, progress)
	}
}

// embedWithOllama embeds the queue with an Ollama server, once it answers.
func (s *Store) embedWithOllama(ctx context.Context, c embed.OllamaConfig, progress func(done int)) (int, string, error) {
	o, err := embed.NewOllama(c)
	if err != nil {
		return 0, "", err
	}
	pctx, cancel := context.WithTimeout(ctx, ollamaPing)
	err = o.Ping(pctx)
	cancel()
	if err != nil {
		return 0, "", fmt.Errorf("%w; documents stay queued for Ollama and search uses the vectors it has", err)
	}
	d := s.Derived()
	if err := d.ActivateEmbedder(ctx, o.ID()); err != nil {
		return 0, o.ID(), err
	}
	n, err := d.EmbedQueued(ctx, o, progress)
	if rerr := d.RefreshVecCache(ctx, o.ID(), o.Dims()); err == nil {
		err = rerr
	}
	return n, o.ID(), err
}

// embedWithBuiltin embeds with the built-in model (trained first when
// needed): the training sample, then fresh documents from memory when the
// queue holds nothing else, else the queue.
func (s *Store) embedWithBuiltin(ctx context.Context, retrain bool, fresh []DocRow, progress func(done int)) (int, string, error) {
	m, sample, err := s.builtinEmbedder(ctx, retrain)
	if err != nil {
		return 0, "", err
	}
	if sample == nil && len(fresh) > 0 {
		if n, done, err := s.embedFresh(ctx, m, fresh, progress); done {
			return n, m.ID(), err
		}
	}
	n, err := s.embedRows(ctx, m, sample, progress)
	if err != nil {
		return n, m.ID(), err
	}
	k, err := s.embedQueued(ctx, m, n, progress)
	n += k
	if err != nil {
		return n, m.ID(), err
	}
	return n, m.ID(), s.Derived().RefreshVecCache(ctx, m.ID(), m.Dims())
}

// embedFresh embeds the fresh documents from memory, and refreshes the
// vector cache, when the embed queue holds nothing else (done; else the
// queue is embedded instead).
func (s *Store) embedFresh(ctx context.Context, m *embed.Model, fresh []DocRow, progress func(done int)) (n int, done bool, err error) {
	outside, err := s.queuedOutside(ctx, "embed_queue", fresh)
	if err != nil || outside {
		return 0, err != nil, err
	}
	if n, err = s.embedRows(ctx, m, embeddable(fresh), progress); err != nil {
		return n, true, err
	}
	return n, true, s.Derived().RefreshVecCache(ctx, m.ID(), m.Dims())
}

// embeddable are the rows that get a vector.
func embeddable(rows []DocRow) []DocRow {
	var out []DocRow
	for _, r := range rows {
		if r.embed {
			out = append(out, r)
		}
	}
	return out
}

// queryTimeout bounds embedding a query with Ollama: a search must answer
// even when the server is slow or gone.
const queryTimeout = 2 * time.Second

// attachVectors gives sr the embedder in use and its vector cache, or a
// notice saying why search runs on text alone. With Ollama configured but
// not yet (or no longer) usable, search falls back to the built-in vectors
// when they exist, saying so; vectors of two embedders never mix.
func (s *Store) attachVectors(ctx context.Context, sr *Searcher) {
	if c := s.Embedder(); c.Kind == EmbedNone {
		sr.notice = "vectors are turned off (embedder.kind = \"none\"): text search only"
		return
	} else if c.Kind == EmbedOllama {
		why := s.attachOllama(ctx, sr, c.Ollama)
		if why == "" {
			return
		}
		s.attachBuiltin(ctx, sr)
		if sr.Embedder != nil {
			sr.notice = why + ": using the built-in vectors"
		} else {
			sr.notice = why + ": text search only"
		}
		return
	}
	s.attachBuiltin(ctx, sr)
}

func (s *Store) attachBuiltin(ctx context.Context, sr *Searcher) {
	m, ok, err := s.Derived().LoadBuiltinEmbedder(ctx)
	switch {
	case err != nil:
		sr.notice = "vectors unavailable (" + err.Error() + "): text search only; run `cairn index --rebuild`"
	case !ok:
		sr.notice = "no embeddings yet: text search only (run `cairn index` to build them)"
	default:
		vc, err := s.freshVecCache(ctx, m.ID(), m.Dims())
		if err != nil {
			sr.notice = "vector cache unavailable (" + err.Error() + "): text search only"
			break
		}
		sr.Embedder, sr.Vectors = m, vc
	}
}

// freshVecCache is the vector cache of embedder id (of dims), brought up
// to date with the store first.
func (s *Store) freshVecCache(ctx context.Context, id string, dims int) (*VecCache, error) {
	if err := s.Derived().RefreshVecCache(ctx, id, dims); err != nil {
		return nil, err
	}
	return OpenVecCache(s.vecCachePath(), id)
}

// attachOllama uses the Ollama vectors when the active embedder is an
// Ollama model; it returns why not otherwise.
func (s *Store) attachOllama(ctx context.Context, sr *Searcher, oc embed.OllamaConfig) string {
	active, _, err := s.Setting(ctx, activeEmbedderKey)
	if err != nil {
		return "cannot read the active embedder (" + err.Error() + ")"
	}
	id := string(active)
	dims, ok := ollamaDims(id)
	if !ok {
		return "no Ollama embeddings yet (run `cairn index` with Ollama running)"
	}
	o, err := embed.NewOllama(forQueries(oc, dims))
	if err != nil {
		return "Ollama is misconfigured (" + err.Error() + ")"
	}
	if o.ID() != id {
		return fmt.Sprintf("the Ollama vectors were made by %s, the config asks for %s (run `cairn index` to embed again)", id, o.ID())
	}
	vc, err := s.freshVecCache(ctx, id, dims)
	if err != nil {
		return "vector cache unavailable (" + err.Error() + ")"
	}
	sr.Embedder, sr.Vectors = o, vc
	return ""
}

// forQueries is Ollama's config oc for embedding queries with vectors of
// dims (unless oc sets them): within queryTimeout, without retries.
func forQueries(oc embed.OllamaConfig, dims int) embed.OllamaConfig {
	if oc.Timeout <= 0 || oc.Timeout > queryTimeout {
		oc.Timeout = queryTimeout
	}
	oc.MaxRetries = -1
	if oc.Dimensions == 0 {
		oc.Dimensions = dims
	}
	return oc
}

// ollamaDims reads the vector size out of an Ollama embedder id
// ("ollama:<model>:<dims>").
func ollamaDims(id string) (int, bool) {
	if !strings.HasPrefix(id, "ollama:") {
		return 0, false
	}
	i := strings.LastIndexByte(id, ':')
	d, err := strconv.Atoi(id[i+1:])
	return d, err == nil && d > 0
}

// Keys beside the built-in model blob: its id (to tell whether a model held
// in memory is still current without reading the blob) and the highest
// entry id when it was trained (to tell, in O(1), when the store has grown
// enough to retrain).
const (
	builtinIDKey      = "embed.builtin.id"
	builtinTrainedKey = "embed.builtin.trained_at_entry"
)

// LoadBuiltinEmbedder returns the stored built-in model without training;
// ok is false when there is none. The decoded model is kept for the life
// of the Store and re-read only when another process stored a new one.
func (d Derived) LoadBuiltinEmbedder(ctx context.Context) (*embed.Model, bool, error) {
	s := d.s
	id, haveID, err := s.Setting(ctx, builtinIDKey)
	if err != nil {
		return nil, false, err
	}
	s.modelMu.Lock()
	defer s.modelMu.Unlock()
	if haveID {
		if m := s.heldModel(string(id)); m != nil {
			return m, true, nil
		}
	}
	return s.readBuiltin(ctx, haveID)
}

// readBuiltin decodes the stored built-in model, holds it and caches it;
// a store from before the id key (haveID false) remembers its id from
// now on. The caller holds modelMu.
func (s *Store) readBuiltin(ctx context.Context, haveID bool) (*embed.Model, bool, error) {
	b, ok, err := s.Setting(ctx, builtinModelKey)
	if err != nil || !ok {
		return nil, false, err
	}
	m, err := embed.LoadModel(b)
	if err != nil {
		return nil, false, err
	}
	s.model = m
	s.writeModelCache(m.ID(), b)
	if !haveID && !s.readOnly {
		if err := s.SetSetting(ctx, builtinIDKey, []byte(m.ID())); err != nil {
			return nil, false, err
		}
	}
	return m, true, nil
}

// heldModel is the built-in model of id when it is held in memory or in
// the model cache (then held from now on); nil when not. The caller holds
// modelMu.
func (s *Store) heldModel(id string) *embed.Model {
	if s.model != nil && s.model.ID() == id {
		return s.model
	}
	if m := s.loadModelCache(id); m != nil {
		s.model = m
		return m
	}
	return nil
}

// saveBuiltinModel stores a newly trained model with its id and the entry
// high-water mark it was trained at.
func (s *Store) saveBuiltinModel(ctx context.Context, m *embed.Model, blob []byte) error {
	top, err := s.maxEntryID(ctx)
	if err != nil {
		return err
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		for k, v := range map[string][]byte{
			builtinModelKey:   blob,
			builtinIDKey:      []byte(m.ID()),
			builtinTrainedKey: []byte(strconv.FormatInt(top, 10)),
		} {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO kv(key, value) VALUES (?, ?)`, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.wrap(err)
	}
	s.modelMu.Lock()
	s.model = m
	s.modelMu.Unlock()
	s.writeModelCache(m.ID(), blob)
	return nil
}

// grownSinceTraining reports whether the store holds more than twice the
// entries the built-in model was trained on (plus 5,000), by entry ids:
// a primary-key lookup, not a count.
func (s *Store) grownSinceTraining(ctx context.Context) (bool, error) {
	top, err := s.maxEntryID(ctx)
	if err != nil {
		return false, err
	}
	b, ok, err := s.Setting(ctx, builtinTrainedKey)
	if err != nil {
		return false, err
	}
	at, perr := strconv.ParseInt(string(b), 10, 64)
	if !ok || perr != nil {
		// A model from before the mark: count it as trained now.
		return false, s.SetSetting(ctx, builtinTrainedKey, []byte(strconv.FormatInt(top, 10)))
	}
	return top >= 2*at+5000, nil
}

func (s *Store) maxEntryID(ctx context.Context) (int64, error) {
	var top sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT max(id) FROM entries`).Scan(&top)
	return top.Int64, s.wrap(err)
}
