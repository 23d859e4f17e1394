package memories

import (
	"context"
	"errors"

	"cairn/index"
)

// ErrOllamaUnavailable is wrapped when Ollama cannot be reached; extraction
// then falls back to the built-in extractor.
var ErrOllamaUnavailable = errors.New("ollama is unavailable")

func (s *Service) ollamaExtract(ctx context.Context, sid, project string, entries []index.MemEntry) ([]NewMemory, error) {
	return nil, ErrOllamaUnavailable
}
