package index

import (
	"context"
	"database/sql"
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
