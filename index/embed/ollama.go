package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ollama"
)

// DefaultOllamaModel is the embedding model used when OllamaConfig.Model is empty.
const DefaultOllamaModel = "nomic-embed-text"

// Sentinel errors; test with errors.Is. The errors returned carry a message
// that tells the user what to do.
var (
	// ErrOllamaUnreachable: nothing answers at the configured host, or the
	// connection broke.
	ErrOllamaUnreachable = errors.New("ollama is not reachable")
	// ErrModelNotPulled: the server runs but does not have the model.
	ErrModelNotPulled = errors.New("ollama model is not pulled")
	// ErrOllamaTimeout: a request took longer than OllamaConfig.Timeout on
	// every attempt.
	ErrOllamaTimeout = errors.New("ollama request timed out")
	// ErrBadResponse: the server answered with something that cannot be
	// stored (wrong count, wrong or inconsistent dimensions, NaN).
	ErrBadResponse = errors.New("bad embedding response")
	// ErrOllamaRejected: the server refused the request (HTTP 4xx other than
	// model-not-found), e.g. an input too long with truncation off.
	ErrOllamaRejected = errors.New("ollama rejected the request")
)

// Prefixes are prepended to texts before embedding. Retrieval models such as
// nomic-embed-text are trained with task prefixes and lose quality without them.
type Prefixes struct {
	Document string
	Query    string
}

// OllamaConfig configures NewOllama. The zero value is usable.
type OllamaConfig struct {
	// Host is the server address ("127.0.0.1:11434", "http://gpu-box:11434";
	// see ollama.ParseHost). Empty means $OLLAMA_HOST, else
	// http://127.0.0.1:11434.
	Host string
	// Model defaults to nomic-embed-text.
	Model string
	// Prefixes overrides the per-model defaults (search_document: /
	// search_query: for nomic-embed-text, none for unknown models). Set it to
	// &Prefixes{} to send texts unchanged.
	Prefixes *Prefixes
	// Dimensions asks the server to truncate vectors (Matryoshka models such
	// as nomic-embed-text keep ~98% quality at 256). 0 keeps the model's size.
	Dimensions int
	// BatchSize is the number of inputs per /api/embed call (default 32, max 256).
	BatchSize int
	// Timeout bounds each HTTP request (default 60s; a cold model load can
	// take several seconds).
	Timeout time.Duration
	// MaxRetries for transient failures: connection refused/reset, timeouts,
	// HTTP 429 and 5xx (default 3; negative disables retries). 4xx answers
	// such as model-not-found are never retried.
	MaxRetries int
	// RetryBackoff is the first back-off delay, doubled per attempt up to
	// 5s (default 250ms).
	RetryBackoff time.Duration
	// NoTruncate makes the server fail on inputs longer than the model's
	// context instead of truncating them.
	NoTruncate bool
	// MaxInputChars clips each text client-side before sending it, so a
	// megabyte tool output is not shipped to be truncated server-side
	// (default 6000 characters, about 1500 tokens; negative disables).
	MaxInputChars int
	// NumCtx sets options.num_ctx (context length in tokens); 0 leaves the
	// server default.
	NumCtx int
	// KeepAlive keeps the model loaded this long after a request; 0 leaves
	// the server default.
	KeepAlive time.Duration
	// HTTPClient replaces http.DefaultClient's transport (its Timeout should
	// be zero; per-request timeouts come from Timeout).
	HTTPClient *http.Client
}

// Ollama embeds texts through a local Ollama server. It is safe for
// concurrent use.
type Ollama struct {
	cfg      OllamaConfig
	client   *ollama.Client
	baseURL  string
	model    string // as sent to the server
	name     string // for IDs and messages: model without ":latest"
	prefixes Prefixes

	mu     sync.Mutex
	dims   int    // 0 until known (Dimensions, Ping or first Embed)
	digest string // from Ping
}

// NewOllama validates cfg and builds the client. It does no network I/O;
// call Ping to check the server and learn the vector size.
func NewOllama(cfg OllamaConfig) (*Ollama, error) {
	cfg.setDefaults()
	if cfg.BatchSize < 0 || cfg.BatchSize > 256 {
		return nil, fmt.Errorf("embed: ollama batch size %d out of range 1..256", cfg.BatchSize)
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("embed: ollama dimensions %d is negative", cfg.Dimensions)
	}
	base, err := ollama.ResolveHost(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	o := &Ollama{
		cfg:     cfg,
		client:  ollama.New(base, cfg.HTTPClient),
		baseURL: base.String(),
		model:   cfg.Model,
		name:    strings.TrimSuffix(cfg.Model, ":latest"),
		dims:    cfg.Dimensions,
	}
	if cfg.Prefixes != nil {
		o.prefixes = *cfg.Prefixes
	} else {
		o.prefixes = defaultPrefixes(cfg.Model)
	}
	return o, nil
}

// setDefaults fills in the settings left at their zero value (and turns
// a negative MaxRetries into none).
func (cfg *OllamaConfig) setDefaults() {
	if cfg.Model == "" {
		cfg.Model = DefaultOllamaModel
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 32
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = 250 * time.Millisecond
	}
	if cfg.MaxInputChars == 0 {
		cfg.MaxInputChars = 6000
	}
}

// defaultPrefixes knows the task prefixes of common Ollama embedding models.
func defaultPrefixes(model string) Prefixes {
	base, _, _ := strings.Cut(model, ":")
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	switch {
	case strings.HasPrefix(base, "nomic-embed-text"):
		return Prefixes{Document: "search_document: ", Query: "search_query: "}
	case strings.HasPrefix(base, "mxbai-embed-large"), strings.HasPrefix(base, "snowflake-arctic-embed"):
		return Prefixes{Query: "Represent this sentence for searching relevant passages: "}
	}
	return Prefixes{}
}

// ID is "ollama:<model>:<dims>", e.g. "ollama:nomic-embed-text:768". The dims
// part is 0 until known: call Ping (or Embed once) before using ID to key
// stored vectors.
func (o *Ollama) ID() string {
	return "ollama:" + o.name + ":" + strconv.Itoa(o.Dims())
}

// Dims is the vector length: OllamaConfig.Dimensions if set, else what Ping
// or the first successful Embed learned; 0 while unknown.
func (o *Ollama) Dims() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dims
}

// Model is the model name as sent to the server.
func (o *Ollama) Model() string { return o.model }

// Host is the server URL in use.
func (o *Ollama) Host() string { return o.baseURL }

// Digest is the model digest reported by /api/tags during Ping ("" before).
// It changes when the model is re-pulled with new weights.
func (o *Ollama) Digest() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.digest
}

// Ping checks that the server answers and that the model is pulled and can
// embed, and learns the vector size. It makes one attempt per request (no
// retries), so a missing server is reported at once. Errors say what to do
// next.
func (o *Ollama) Ping(ctx context.Context) error {
	if err := o.checkPulled(ctx); err != nil {
		return err
	}
	var show *ollama.ShowResponse
	err := o.withRetry(ctx, 0, func(rctx context.Context) error {
		var err error
		show, err = o.client.Show(rctx, o.model)
		return err
	})
	if err != nil {
		return err
	}
	if err := o.checkCanEmbed(show.Capabilities); err != nil {
		return err
	}
	return o.learnDims(nativeDims(show.ModelInfo))
}

// checkPulled asks /api/tags whether the model is pulled and records its
// digest.
func (o *Ollama) checkPulled(ctx context.Context) error {
	var list *ollama.ListResponse
	err := o.withRetry(ctx, 0, func(rctx context.Context) error {
		var err error
		list, err = o.client.List(rctx)
		return err
	})
	if err != nil {
		return err
	}
	found := list.Find(o.model)
	if found == nil {
		return o.notPulled(nil)
	}
	o.mu.Lock()
	o.digest = found.Digest
	o.mu.Unlock()
	return nil
}

// checkCanEmbed rejects a model whose capabilities (from /api/show) lack
// "embedding". Servers older than 0.6 list none: then it passes.
func (o *Ollama) checkCanEmbed(capabilities []string) error {
	if len(capabilities) == 0 || slices.Contains(capabilities, "embedding") {
		return nil
	}
	return fmt.Errorf("%w: model %s cannot produce embeddings (capabilities: %s): pick an embedding model such as `ollama pull %s`",
		ErrOllamaRejected, o.name, strings.Join(capabilities, ", "), DefaultOllamaModel)
}

// nativeDims is the vector size in a model's /api/show model_info (the
// "<architecture>.embedding_length" key), or 0 when it is not there.
func nativeDims(modelInfo map[string]any) int {
	native := 0
	for k, v := range modelInfo {
		if strings.HasSuffix(k, ".embedding_length") {
			if f, ok := v.(float64); ok && f > 0 {
				native = int(f)
			}
		}
	}
	return native
}

// learnDims checks the model's native vector size (0: unknown) against
// the configured dimensions, or against the size learned before, and
// learns it when nothing was known.
func (o *Ollama) learnDims(native int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.cfg.Dimensions > 0:
		if native > 0 && o.cfg.Dimensions > native {
			return fmt.Errorf("%w: %d dimensions requested but model %s produces %d: lower the dimensions setting",
				ErrOllamaRejected, o.cfg.Dimensions, o.name, native)
		}
	case o.dims == 0:
		o.dims = native
	case native > 0 && o.dims != native:
		return fmt.Errorf("%w: model %s now produces %d dimensions, earlier %d: it was re-pulled or replaced; re-embed with a fresh index",
			ErrBadResponse, o.name, native, o.dims)
	}
	return nil
}

// canonicalModel makes "nomic-embed-text" and "nomic-embed-text:latest" equal.
func canonicalModel(s string) string { return ollama.CanonicalModel(s) }

// Embed embeds texts in batches of BatchSize, adding the kind's prefix, and
// validates every response before returning anything.
func (o *Ollama) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	prefix := o.prefixes.Document
	if kind == Query {
		prefix = o.prefixes.Query
	}
	inputs := make([]string, 0, min(len(texts), o.cfg.BatchSize))
	for start := 0; start < len(texts); start += o.cfg.BatchSize {
		end := min(start+o.cfg.BatchSize, len(texts))
		inputs = inputs[:0]
		for _, t := range texts[start:end] {
			inputs = append(inputs, prefix+clipRunes(t, o.cfg.MaxInputChars))
		}
		vecs, err := o.embedBatch(ctx, inputs)
		if err != nil {
			if end-start < len(texts) {
				return nil, fmt.Errorf("embedding texts %d..%d of %d: %w", start, end-1, len(texts), err)
			}
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// clipRunes cuts s to at most n bytes without splitting a UTF-8 sequence
// (n <= 0 means no limit).
func clipRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (o *Ollama) embedBatch(ctx context.Context, inputs []string) ([][]float32, error) {
	truncate := !o.cfg.NoTruncate
	req := &ollama.EmbedRequest{
		Model:      o.model,
		Input:      inputs,
		Truncate:   &truncate,
		Dimensions: o.cfg.Dimensions,
		KeepAlive:  o.cfg.KeepAlive,
	}
	if o.cfg.NumCtx > 0 {
		req.Options = map[string]any{"num_ctx": o.cfg.NumCtx}
	}
	var resp *ollama.EmbedResponse
	err := o.withRetry(ctx, o.cfg.MaxRetries, func(rctx context.Context) error {
		var err error
		resp, err = o.client.Embed(rctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := o.validate(resp, len(inputs)); err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}

// validate rejects responses that must not be stored and normalises vectors.
func (o *Ollama) validate(resp *ollama.EmbedResponse, n int) error {
	if err := o.checkShape(resp.Embeddings, n); err != nil {
		return err
	}
	d := len(resp.Embeddings[0])
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.checkDims(d); err != nil {
		return err
	}
	o.dims = d
	for _, v := range resp.Embeddings {
		Normalize(v)
	}
	return nil
}

// checkShape rejects anything but n vectors of one non-zero size, all
// of finite values.
func (o *Ollama) checkShape(vs [][]float32, n int) error {
	if len(vs) != n {
		return fmt.Errorf("%w: ollama returned %d vectors for %d inputs (model %s at %s); nothing was stored",
			ErrBadResponse, len(vs), n, o.name, o.baseURL)
	}
	d := len(vs[0])
	for i, v := range vs {
		if len(v) != d || d == 0 {
			return fmt.Errorf("%w: ollama returned vectors of inconsistent size (%d and %d at input %d, model %s); nothing was stored",
				ErrBadResponse, d, len(v), i, o.name)
		}
		if j := checkFinite(v); j >= 0 {
			return fmt.Errorf("%w: ollama returned a non-finite value at input %d, component %d (model %s); nothing was stored",
				ErrBadResponse, i, j, o.name)
		}
	}
	return nil
}

// checkDims rejects vectors of d dimensions when the settings ask for
// others, or earlier answers had others (o.mu held).
func (o *Ollama) checkDims(d int) error {
	if o.cfg.Dimensions > 0 && d != o.cfg.Dimensions {
		return fmt.Errorf("%w: asked model %s for %d dimensions, got %d: the model may not support truncation; unset the dimensions setting or set it to %d",
			ErrBadResponse, o.name, o.cfg.Dimensions, d, d)
	}
	if o.dims != 0 && d != o.dims {
		return fmt.Errorf("%w: model %s returned %d dimensions, expected %d: the model changed under this index; re-embed into a fresh vector space",
			ErrBadResponse, o.name, d, o.dims)
	}
	return nil
}

// withRetry runs call with a per-request timeout, retrying transient failures
// with exponential back-off, and turns the final failure into an actionable
// error.
func (o *Ollama) withRetry(ctx context.Context, retries int, call func(context.Context) error) error {
	delay := o.cfg.RetryBackoff
	for attempt := 1; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
		err := call(rctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("ollama request to %s canceled: %w", o.baseURL, ctx.Err())
		}
		retry, final := o.classify(err, attempt)
		if !retry || attempt > retries {
			return final
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("ollama request to %s canceled while retrying after %w: %w", o.baseURL, final, ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// classify says whether err is worth retrying and builds the error to return
// if it is the last one.
func (o *Ollama) classify(err error, attempts int) (retry bool, final error) {
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	var se *ollama.StatusError
	if errors.As(err, &se) {
		return o.classifyStatus(se, err, tries)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true, &ollamaError{kind: ErrOllamaTimeout, cause: err,
			msg: fmt.Sprintf("ollama at %s did not answer within %v%s (model %s may still be loading): raise the timeout, lower the batch size, or use the built-in embedder",
				o.baseURL, o.cfg.Timeout, tries, o.name)}
	}
	var ue *ollama.UnreachableError
	if errors.As(err, &ue) {
		return o.classifyUnreachable(ue, err, tries)
	}
	// Unknown failures (e.g. a response that is not JSON) are not retried.
	return false, &ollamaError{kind: ErrBadResponse, cause: err,
		msg: fmt.Sprintf("ollama at %s gave an unusable answer for model %s: %v", o.baseURL, o.name, err)}
}

// classifyStatus is classify for an HTTP error status: a model not
// pulled, a server that is not Ollama, one that wants authorization, a
// transient failure (retried) or a rejected request.
func (o *Ollama) classifyStatus(se *ollama.StatusError, err error, tries string) (retry bool, final error) {
	msg := se.Message
	switch {
	case se.ModelNotFound():
		return false, o.notPulled(err)
	case se.StatusCode == http.StatusNotFound:
		return false, &ollamaError{kind: ErrOllamaUnreachable, cause: err,
			msg: fmt.Sprintf("the server at %s answered HTTP 404 (%s): it does not look like Ollama; check OLLAMA_HOST or the host setting", o.baseURL, msg)}
	case se.StatusCode == http.StatusUnauthorized:
		return false, &ollamaError{kind: ErrOllamaRejected, cause: err,
			msg: fmt.Sprintf("ollama at %s requires authorization (HTTP %d): use a local server or sign in with `ollama signin`", o.baseURL, se.StatusCode)}
	case se.StatusCode == http.StatusTooManyRequests || se.StatusCode >= 500:
		return true, fmt.Errorf("ollama at %s failed with HTTP %d%s: %s: check `ollama serve` logs: %w",
			o.baseURL, se.StatusCode, tries, msg, err)
	}
	return false, &ollamaError{kind: ErrOllamaRejected, cause: err,
		msg: fmt.Sprintf("ollama at %s rejected the request for model %s (HTTP %d): %s", o.baseURL, o.name, se.StatusCode, msg)}
}

// classifyUnreachable is classify for a server not reached: an unknown
// host is not retried, anything else (not started yet) is.
func (o *Ollama) classifyUnreachable(ue *ollama.UnreachableError, err error, tries string) (retry bool, final error) {
	if strings.HasPrefix(ue.Reason, "unknown host") {
		return false, &ollamaError{kind: ErrOllamaUnreachable, cause: err,
			msg: fmt.Sprintf("Ollama is not reachable at %s (%s): fix OLLAMA_HOST or the host setting, or use the built-in embedder", o.baseURL, ue.Reason)}
	}
	return true, &ollamaError{kind: ErrOllamaUnreachable, cause: err,
		msg: fmt.Sprintf("Ollama is not reachable at %s (%s%s): start it with `ollama serve`, or use the built-in embedder", o.baseURL, ue.Reason, tries)}
}

func (o *Ollama) notPulled(cause error) error {
	return &ollamaError{kind: ErrModelNotPulled, cause: cause,
		msg: fmt.Sprintf("model %s is not pulled: run `ollama pull %s`", o.name, o.name)}
}

// ollamaError carries a user-facing message, a sentinel kind for errors.Is,
// and the underlying cause for errors.As.
type ollamaError struct {
	kind  error
	msg   string
	cause error
}

func (e *ollamaError) Error() string { return e.msg }

func (e *ollamaError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}
