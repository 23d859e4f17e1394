package index

import "context"

// attachVectors gives sr the embedder in use and its vector cache, or a
// notice saying why search runs on text alone.
func (s *Store) attachVectors(ctx context.Context, sr *Searcher) {
	m, ok, err := s.LoadBuiltinEmbedder()
	switch {
	case err != nil:
		sr.notice = "vectors unavailable (" + err.Error() + "): text search only; run `cairn index --rebuild`"
	case !ok:
		sr.notice = "no embeddings yet: text search only (run `cairn index` to build them)"
	default:
		if err := s.RefreshVecCache(ctx, m.ID(), m.Dims()); err != nil {
			sr.notice = "vector cache unavailable (" + err.Error() + "): text search only"
			break
		}
		vc, err := OpenVecCache(s.vecCachePath(), m.ID())
		if err != nil {
			sr.notice = "vector cache unavailable (" + err.Error() + "): text search only"
			break
		}
		sr.Embedder, sr.Vectors = m, vc
	}
}
