package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"boxoffice/booking"
)

// A show's life: its status and sales close, which change (unlike the
// film, hall and start showInfo caches), and the sweeper settling the
// bookings of shows that ended.

// lifeColumns are a show's status, cancel reason and sales close in
// seconds after the start (its own, else the cinema's default in meta,
// else booking.DefaultSalesClose), for a query over shows s.
const lifeColumns = `s.status, s.cancel_reason, coalesce(s.sales_close, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'sales_close'), 1800)`

// The 1800 above is booking.DefaultSalesClose in seconds; this stops the
// build when the two part.
var _ = [1]struct{}{}[booking.DefaultSalesClose/time.Second-1800]

// showLife is what changes about a show, as one read saw it.
type showLife struct {
	status booking.ShowStatus
	reason string
	close  time.Duration
}

// apply copies the life onto sh.
func (l showLife) apply(sh *booking.Show) {
	sh.Status, sh.CancelReason, sh.SalesClose = l.status, l.reason, l.close
}

// liveShow returns the show with its status and sales close read inside
// the write transaction: whatever a cached copy says, a hold or a sale
// decides on what the file says now.
func (s *Store) liveShow(w *wtx, showID int64) (booking.Show, error) {
	sh, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return sh, err
	}
	var l showLife
	var closeS int64
	if err := w.queryRow(`SELECT `+lifeColumns+` FROM shows s WHERE s.id = ?`, showID).Scan(&l.status, &l.reason, &closeS); err != nil {
		return sh, err
	}
	l.close = time.Duration(closeS) * time.Second
	l.apply(&sh)
	return sh, nil
}

// SetSalesClose sets a show's sales close, or the cinema's default.
func (s *Store) SetSalesClose(ctx context.Context, actor booking.Actor, showID int64, close *time.Duration) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	if close != nil {
		if err := booking.ValidateSalesClose(*close); err != nil {
			return err
		}
	}
	if showID == 0 && close == nil {
		return booking.Errorf(booking.EInvalid, "The cinema's sales close needs a time, like 30m.")
	}
	return apply(s, ctx, actor, "sales close", func(w *wtx) error {
		if showID == 0 {
			return s.setDefaultClose(w, actor, *close)
		}
		var secs sql.NullInt64
		detail := fmt.Sprintf("show %d: sales close the cinema's default", showID)
		if close != nil {
			secs = sql.NullInt64{Int64: int64(close.Seconds()), Valid: true}
			detail = fmt.Sprintf("show %d: sales close %s", showID, booking.DescribeSalesClose(*close))
		}
		res, err := w.exec(`UPDATE shows SET sales_close = ? WHERE id = ?`, secs, showID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return booking.Errorf(booking.ENotFound, "There is no show %d.", showID)
		}
		w.touch(showID)
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: showID, Detail: detail}, 0)
	})
}

// setDefaultClose sets the cinema's sales close; every open map
// repaints (a change to show 0 is a change to every show).
func (s *Store) setDefaultClose(w *wtx, actor booking.Actor, close time.Duration) error {
	if _, err := w.exec(`INSERT INTO meta (key, value) VALUES ('sales_close', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		strconv.Itoa(int(close.Seconds()))); err != nil {
		return err
	}
	w.touch(0)
	return w.audit(actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "cinema sales close " + booking.DescribeSalesClose(close)}, 0)
}

// settleBatch is the most shows one settling transaction takes: a store
// upgraded with a year of unsettled shows catches up in small writes
// that let the counters in between.
const settleBatch = 32

// qToSettle lists the shows that may need settling, through the partial
// index shows_to_settle: started, never settled, not cancelled.
const qToSettle = `SELECT s.id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id
	WHERE s.settled_at IS NULL AND s.starts_at <= ? ORDER BY s.starts_at LIMIT 256`

// SettleShows settles the confirmed bookings of the shows that ended
// SettleGrace ago, a batch of shows per transaction.
func (s *Store) SettleShows(ctx context.Context) (int, error) {
	total := 0
	for {
		due, err := s.showsToSettle(ctx)
		if err != nil || len(due) == 0 {
			return total, err
		}
		n, err := write(s, ctx, booking.System, "settle shows", func(w *wtx) (int, error) {
			n, err := settle(w, due)
			return n, auditCount(w, booking.System, booking.AuditSettle, n, err, "settled %d bookings of %d shows", n, len(due))
		})
		total += n
		if err != nil || len(due) < settleBatch {
			return total, err
		}
	}
}

// showsToSettle reads which started shows ended SettleGrace ago and were
// never settled, at most settleBatch of them. No write when none.
func (s *Store) showsToSettle(ctx context.Context) ([]int64, error) {
	now := s.opts.Clock()
	rows, err := s.readRows(ctx, qToSettle, now.Unix())
	if err != nil {
		return nil, s.translate("settle shows", err)
	}
	defer rows.Close()
	var due []int64
	for rows.Next() {
		var id, starts int64
		var minutes int
		if err := rows.Scan(&id, &starts, &minutes); err != nil {
			return nil, s.translate("settle shows", err)
		}
		sh := booking.Show{Starts: time.Unix(starts, 0), Film: booking.Film{Minutes: minutes}}
		if !now.Before(sh.Ends().Add(booking.SettleGrace)) && len(due) < settleBatch {
			due = append(due, id)
		}
	}
	return due, s.translate("settle shows", rows.Err())
}

// settle settles the shows due inside the transaction: each show is
// claimed by compare-and-set on settled_at, so a second sweeper (in this
// process or another) that read the same shows finds them taken and
// changes nothing; then each confirmed booking moves to completed when a
// ticket of it was admitted and to no_show when none was.
func settle(w *wtx, due []int64) (int, error) {
	n := 0
	for _, id := range due {
		res, err := w.exec(`UPDATE shows SET settled_at = ? WHERE id = ? AND settled_at IS NULL`, w.nowMS(), id)
		if err != nil {
			return 0, err
		}
		if k, _ := res.RowsAffected(); k != 1 {
			continue
		}
		for _, q := range []string{
			`UPDATE bookings SET status = 'completed' WHERE show_id = ? AND status = 'confirmed' AND EXISTS
				(SELECT 1 FROM tickets t WHERE t.id BETWEEN bookings.id * 32 AND bookings.id * 32 + 31 AND t.status = 'admitted')`,
			`UPDATE bookings SET status = 'no_show' WHERE show_id = ? AND status = 'confirmed'`,
		} {
			res, err := w.exec(q, id)
			if err != nil {
				return 0, err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		w.touch(id)
	}
	return n, nil
}

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
