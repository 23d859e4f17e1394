package index

import (
	"context"
	"database/sql"
	"strings"
)

// eachRow runs q on the read pool and calls fn for each row, stopping at
// fn's first error.
func (s *Store) eachRow(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryRows runs q on the read pool and returns what scan reads of each row.
func queryRows[T any](ctx context.Context, s *Store, q string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	var out []T
	err := s.eachRow(ctx, q, args, func(rows *sql.Rows) error {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRowIn runs head + "?,?,…)" for each chunk of up to 500 keys (head
// ends in "IN ("), calling fn for each row.
func (s *Store) eachRowIn(ctx context.Context, head string, keys []any, fn func(*sql.Rows) error) error {
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), 500)]
		keys = keys[len(chunk):]
		if err := s.eachRow(ctx, head+placeholders(len(chunk))+`)`, chunk, fn); err != nil {
			return err
		}
	}
	return nil
}

// idsByPrefix returns the ids starting with prefix a and those starting with
// prefix b, each without its prefix; other ids are left out.
func idsByPrefix(ids []string, a, b string) (as, bs []any) {
	for _, id := range ids {
		switch {
		case strings.HasPrefix(id, a):
			as = append(as, strings.TrimPrefix(id, a))
		case strings.HasPrefix(id, b):
			bs = append(bs, strings.TrimPrefix(id, b))
		}
	}
	return as, bs
}
