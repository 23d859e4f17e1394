package hook

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn/app"
)

// maintain is the background work that runs at most once a day whatever
// the session: the rolling backup (when backup.keep is set) and memory
// consolidation (proposals and pruning; nothing approved changes). Each step
// keeps its own once-a-day rule, so a skipped run is caught up by the next.
func maintain(ctx context.Context, env Env, a *app.App) {
	now := time.Now()
	if env.Now != nil {
		now = env.Now()
	}
	if p, err := a.RollingBackup(ctx, now); err != nil {
		env.Log.Printf("rolling backup: %v", err)
	} else if p != "" {
		env.Log.Printf("rolling backup: %s", p)
	}
	if rep, ran, err := a.Memories.Curator.AutoConsolidate(ctx); err != nil {
		env.Log.Printf("consolidation: %v", err)
	} else if ran && len(rep.Merges)+len(rep.Pruned) > 0 {
		env.Log.Printf("consolidation: %d merge proposals, %d stale memories listed, %d retired memories pruned (cairn memories consolidate --undo reverts it)",
			len(rep.Merges), len(rep.Stale), len(rep.Pruned))
	}
}
