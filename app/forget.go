package app

import (
	"context"
	"fmt"
	"github.com/cairn-dev/cairn/transcripts"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/index/ftsapi"
)

// ForgetResult says what Forget removed.
type ForgetResult struct {
	index.ForgetStats
	Project string `json:"project,omitempty"`
	Session string `json:"session,omitempty"`
	// Copies are the backups and stores kept aside by restores it was
	// forgotten in too.
	Copies []string `json:"copies,omitempty"`
}

// Forget removes a project (a name MatchProjects resolves) or a session
// (an id or a unique prefix) from the store with secure deletion, records
// a tombstone so the next index never brings it back, then rebuilds the
// full-text index, the vectors and (for the built-in embedder) the model
// trained on the transcripts, so nothing of it is left in the data dir.
func (a *App) Forget(ctx context.Context, project, session string, progress func(Progress)) (ForgetResult, error) {
	var res ForgetResult
	var err error
	switch {
	case (project == "") == (session == ""):
		return res, fmt.Errorf("give --project or --session (one of them)")
	case project != "":
		res.Project, err = a.project(ctx, project)
	default:
		res.Session, err = a.forgettable(ctx, session)
	}
	if err != nil {
		return res, err
	}
	res.ForgetStats, err = a.Store.Forget(ctx, index.ForgetTarget{Project: res.Project, Session: res.Session})
	if err != nil {
		return res, err
	}
	res.Copies, err = a.finishForget(ctx, progress)
	if err != nil {
		return res, fmt.Errorf("forgotten in the store, but %w", err)
	}
	return res, nil
}

// project is the project a name resolves to (MatchProjects); none is an
// error.
func (a *App) project(ctx context.Context, name string) (string, error) {
	p, err := a.Store.ResolveProject(ctx, name)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", fmt.Errorf("no project matches %q (`cairn projects` lists them)", name)
	}
	return p, nil
}

// forgettable is the session id a forget of session (an id or a unique
// prefix) records: a stored session's, or a whole id not stored (the
// tombstone alone keeps it out).
func (a *App) forgettable(ctx context.Context, session string) (string, error) {
	sess, err := a.Store.Session(ctx, session)
	switch {
	case err == nil:
		return sess.ID, nil
	case transcripts.IsUUID(session):
		return strings.ToLower(session), nil
	}
	return "", err
}

// finishForget rebuilds what a forget leaves holding the forgotten text
// (the full-text index, the vectors and, for the built-in embedder, the
// model trained on the transcripts), forgets in the copies of the store
// (the automatic backups, the stores restores kept aside: every forget the
// store recorded, so they never bring it back) and records that it is
// done. It returns the copies it cleaned.
func (a *App) finishForget(ctx context.Context, progress func(Progress)) ([]string, error) {
	_, err := a.Index(ctx, IndexOptions{Profile: Bulk, Rebuild: true, NoSync: true,
		Retrain: a.Config.Embedder.Kind == index.EmbedBuiltin, Progress: progress})
	if err != nil {
		return nil, fmt.Errorf("rebuilding the search indexes failed: %w (the full-text index and the embedder's model may still hold the forgotten text: run `cairn index --rebuild --retrain` to finish)", err)
	}
	copies, err := a.forgetInCopies(ctx)
	if err != nil {
		return copies, err
	}
	if err := a.Store.FinishForget(ctx); err != nil {
		return copies, err
	}
	return copies, nil
}

// forgetInCopies applies the store's forgets to its copies in the data dir
// and the automatic backups folder.
func (a *App) forgetInCopies(ctx context.Context) ([]string, error) {
	targets, err := a.Store.ForgetTargets(ctx)
	if err != nil || len(targets) == 0 {
		return nil, err
	}
	copies := append(index.AsideStores(a.Paths.DataDir), index.BackupFiles(a.Config.Backup.Folder(a.Paths.DataDir))...)
	var done []string
	for _, p := range copies {
		if err := index.ForgetInCopy(ctx, p, targets); err != nil {
			return done, fmt.Errorf("%w: the copy may still hold the forgotten text; delete it (rm -r %s) or run the same `cairn forget` again", err, p)
		}
		done = append(done, p)
	}
	return done, nil
}

// finishInterruptedForget finishes a forget whose process was stopped
// after the store forgot and before the search indexes were rebuilt, in
// binaries that have the full-text engine (the hooks' lean binary leaves
// it to the next command).
func (a *App) finishInterruptedForget(ctx context.Context) error {
	if !ftsapi.Available() {
		return nil
	}
	unfinished, err := a.Store.ForgetUnfinished(ctx)
	if err != nil || !unfinished {
		return err
	}
	if _, err := a.finishForget(ctx, nil); err != nil {
		return fmt.Errorf("an interrupted `cairn forget` is being finished, but %w", err)
	}
	return nil
}
