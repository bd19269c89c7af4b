package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Empty reports whether the database was never seeded: Seed always
// writes meta 'demo', an empty Seed too.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM meta WHERE key = 'demo'`).Scan(&n); err != nil {
		return false, s.translate("empty", err)
	}
	return n == 0, nil
}

// IsDemo reports whether the database was seeded with the demo cinema.
func (s *Store) IsDemo(ctx context.Context) (bool, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'demo'`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.translate("is demo", err)
	}
	return v == "1", nil
}
