package db

import (
	"context"
	"time"

	"boxoffice/booking"
)

// A show's life on SQLite: its status and sales close, which change
// (unlike the film, hall and start showInfo caches), as a query reads
// them; the rules that change them and settle the shows that ended are
// store's (store/showlife.go).

// lifeColumns are a show's status, cancel reason and sales close in
// seconds after the start (its own, else the cinema's default in meta,
// else booking.DefaultSalesClose), for a query over shows s.
const lifeColumns = `s.status, s.cancel_reason, coalesce(s.sales_close, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'sales_close'), 1800)`

// The 1800 above is booking.DefaultSalesClose in seconds; this stops the
// build when the two part.
var _ = [1]struct{}{}[booking.DefaultSalesClose/time.Second-1800]

// markHistorySettled marks the generated history's shows that started
// before until as settled, leaving their bookings as sold. The simulation
// has no door, so settling them for real would make every booking of the
// year a no-show; left unsettled, the first sweep after init would do a
// year's settling in one burst.
func (s *Store) markHistorySettled(ctx context.Context, until time.Time) error {
	return apply(s, ctx, booking.System, "settle history", func(w *wtx) error {
		res, err := w.exec(`UPDATE shows SET settled_at = ? WHERE settled_at IS NULL AND starts_at < ?`, w.nowMS(), until.Unix())
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		return auditCount(w, booking.System, booking.AuditSettle, int(n), nil, "generated history: %d shows marked settled", n)
	})
}
