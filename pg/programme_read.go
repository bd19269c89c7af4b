package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The programme's and prices' reads, and the upkeep a server runs, on
// PostgreSQL (the writes: programme_write.go, programme_edit.go,
// prices_write.go).

// Halls lists the halls with their seats, by name.
func (s *Store) Halls(ctx context.Context, actor booking.Actor) ([]booking.Hall, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM halls ORDER BY name`)
	if err != nil {
		return nil, s.translate("halls", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, s.translate("halls", err)
	}
	out := make([]booking.Hall, 0, len(ids))
	for _, id := range ids {
		h, err := s.hall(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *h)
	}
	return out, nil
}

// Films lists the films, retired ones too, by title.
func (s *Store) Films(ctx context.Context, actor booking.Actor) ([]booking.Film, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, title, minutes, rating, retired FROM films ORDER BY title`)
	if err != nil {
		return nil, s.translate("films", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Film, error) {
		var f booking.Film
		return f, r.Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired)
	})
	return out, s.translate("films", err)
}

// Prices returns the whole price table: ticket types, overrides and price
// lists, read in one batch (one implicit transaction, so one moment).
func (s *Store) Prices(ctx context.Context, actor booking.Actor) (*booking.PriceTable, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	b := &pgx.Batch{}
	queuePriceTable(b, pt)
	b.Queue(`SELECT name, label FROM price_lists ORDER BY name`).Query(func(rows pgx.Rows) error {
		var err error
		pt.Lists, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.PriceList, error) {
			var l booking.PriceList
			return l, r.Scan(&l.Name, &l.Label)
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, s.translate("prices", err)
	}
	return pt, nil
}

// HasSales reports whether any booking was ever made.
func (s *Store) HasSales(ctx context.Context) (bool, error) {
	var sold bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings)`).Scan(&sold)
	return sold, s.translate("has sales", err)
}

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
		// A reservation whose hold lapsed lapses with it, once (db's
		// lapseReservation); it read as lapsed from its cut-off anyway.
		if _, err := t.Exec(t.ctx, `UPDATE reservations r SET status = 'lapsed', lapsed_at = $1 FROM holds h
			WHERE h.id = r.hold_id AND r.status = 'reserved' AND h.status = 'expired' AND h.show_id = ANY($2)`, t.nowMS(), shows); err != nil {
			return 0, err
		}
		return n, audit(t, booking.System, booking.AuditEntry{Action: booking.AuditExpire, Detail: fmt.Sprintf("%d lapsed holds", n)}, 0)
	})
}
