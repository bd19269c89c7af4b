package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Seal runs one seal of the audit trail, as the seal loop does.
func Seal(ctx context.Context, s *Store) (string, error) {
	head, err := s.seal(ctx)
	return head.String(), err
}

// OffMachine is o on a machine whose own clock is off by d: both the
// clock the store measures against the database's and its Clock.
func OffMachine(o Options, d time.Duration, clock func() time.Time) Options {
	o.wall = func() time.Time { return time.Now().Add(d) }
	o.Clock = func() time.Time { return clock().Add(d) }
	return o
}

// Traced is o with every statement of the store's pool shown to tr.
func Traced(o Options, tr pgx.QueryTracer) Options {
	o.Tracer = tr
	return o
}
