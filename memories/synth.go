package memories

import "context"

// Synthesis is a project's synthesised memory.
type Synthesis struct {
	Project  string `json:"project"`
	Markdown string `json:"markdown"`
	Diff     string `json:"diff"`
	Changed  bool   `json:"changed"`
}

// Synthesize writes the project memory from approved memories and summaries.
func (s *Service) Synthesize(ctx context.Context, project string, dryRun bool) (Synthesis, error) {
	return Synthesis{Project: project}, nil
}
