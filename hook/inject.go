package hook

import (
	"context"
	"fmt"
)

// withMemories runs fn with the memories of the hook's store and what
// this session was given already; nothing when the project opted out.
func (h *handler) withMemories(ctx context.Context, fn func(mem Memories, seen []string) ([]byte, error)) ([]byte, error) {
	st, err := h.openStore()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	trace("store open")
	if h.optedOut(ctx, st) {
		return nil, nil
	}
	mem := h.env.Memories(st, h.cfg)
	seen, err := mem.Injected(ctx, h.in.SessionID)
	if err != nil {
		return nil, fmt.Errorf("reading what this session received: %w", err)
	}
	trace("injected read")
	return fn(mem, seen)
}

// inject records that the session is given the memories injected and
// answers event with b's text; nothing when no memory fits. A failed
// record injects nothing: what is not recorded could be repeated.
func (h *handler) inject(ctx context.Context, mem Memories, event string, b *budget, injected []string) ([]byte, error) {
	if len(injected) == 0 {
		return nil, nil
	}
	if err := mem.RecordInjection(ctx, h.in.SessionID, h.in.Event, injected); err != nil {
		return nil, fmt.Errorf("recording injected memories: %w", err)
	}
	return h.answer(event, b, injected)
}

// answer answers event with b's text, which holds the memories injected.
func (h *handler) answer(event string, b *budget, injected []string) ([]byte, error) {
	text := b.String()
	h.res.Injected, h.res.Tokens = injected, Tokens(text)
	return output(event, text)
}
