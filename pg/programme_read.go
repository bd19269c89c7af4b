package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The upkeep a server runs, on PostgreSQL. (The programme's and the
// prices' reads and writes are store's, over tx_programme.go and
// tx_prices.go.)

// TrimChanges trims nothing: PostgreSQL keeps no change log (servers
// tell each other by NOTIFY, which keeps nothing to trim).
func (s *Store) TrimChanges(ctx context.Context) (int, error) { return 0, nil }

// ExpireHolds marks every lapsed hold and its claims expired and says how
// many, with one audit row, as SQLite's does. It reads first and writes
// only when there is something to expire. (A lapsed hold never blocks a
// seat meanwhile: every live-claim check reads the hold's expiry.)
func (s *Store) ExpireHolds(ctx context.Context) (int, error) {
	now := s.opts.Clock().UnixMilli()
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT show_id FROM holds WHERE status = 'held' AND expires_at <= $1`, now)
	if err != nil {
		return 0, s.translate("expire holds", err)
	}
	shows, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(shows) == 0 {
		return 0, s.translate("expire holds", err)
	}
	// READ COMMITTED: each hold moves held -> expired by compare-and-set,
	// so a checkout or a release racing it keeps what it won.
	return inTx(s, ctx, "expire holds", s.holdMode(), func(t *tx) (int, error) {
		n := 0
		for _, id := range shows {
			k, err := expireStale(t, id)
			if err != nil {
				return 0, err
			}
			n += k
		}
		if n == 0 {
			return 0, nil
		}
		return n, audit(t, booking.System, booking.AuditEntry{Action: booking.AuditExpire, Detail: fmt.Sprintf("%d lapsed holds", n)}, 0)
	})
}
