package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The waiting list of a sold-out show, as on SQLite (db/waitlist.go): when
// seats come free the sweeper tells the box office whom to call, first
// come first; the seats told of stay promised to that party for
// booking.WaitlistOffer after they were told or called, or until a
// booking for the show is made with their phone number.

// phoneKey is a phone's digits, last first: SQLite's phone_rev, computed
// by PostgreSQL from the phone as stored (the bookings_by_phone index).
const phoneKey = `reverse(regexp_replace(%s, '[^0-9]', '', 'g')) COLLATE "C"`

// pqBoughtSince is true when waiting customer w bought seats of the show
// after they were told: their phone's digits on a booking made since.
var pqBoughtSince = `EXISTS (SELECT 1 FROM bookings b WHERE b.phone <> '' AND ` + fmt.Sprintf(phoneKey, "b.phone") + ` = ` + fmt.Sprintf(phoneKey, "w.phone") + `
		AND b.show_id = w.show_id AND b.created_at >= w.notified_at)`

// unpromised is a show's free seats less those promised to waiting
// customers, at now (unix ms), read in t.
func unpromised(t *tx, showID, now int64) (int, error) {
	var free, promised int
	err := t.QueryRow(t.ctx, `SELECT s.capacity
		- (SELECT count(*) FROM seat_claims c WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'sold')
		- (SELECT count(*) FROM seat_claims c JOIN holds ho ON ho.id = c.hold_id WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'held' AND ho.expires_at > $2)
		- `+pqBlockedCount+`
		FROM shows s WHERE s.id = $1`, showID, now).Scan(&free)
	if err != nil {
		return 0, err
	}
	err = t.QueryRow(t.ctx, `SELECT coalesce(sum(w.seats), 0) FROM waitlist w
		WHERE w.show_id = $1 AND w.notified_at IS NOT NULL AND coalesce(w.called_at, w.notified_at) > $2::bigint - $3::bigint AND NOT `+pqBoughtSince,
		showID, now, booking.WaitlistOffer.Milliseconds()).Scan(&promised)
	return free - promised, err
}

// AddWaitlist puts a customer on the waiting list of a show. EInvalid for
// a show whose sales closed; EConflict when enough seats are free (and not
// promised to someone waiting) to sell them now. READ COMMITTED: two
// parties added at once are both added, in the order they committed.
func (s *Store) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	e := booking.WaitlistEntry{ShowID: showID, Name: booking.CleanLine(name, 80), Phone: booking.CleanLine(phone, 32), Seats: seats}
	if e.Name == "" || e.Phone == "" {
		return nil, booking.Errorf(booking.EInvalid, "The waiting list needs a name and a phone number to call.")
	}
	if seats < 1 || seats > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "Wait for between 1 and %d seats.", booking.MaxSeatsPerSale)
	}
	return inTx(s, ctx, "add waitlist", txMode{}, func(t *tx) (*booking.WaitlistEntry, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if err := s.salesOpen(t, showID); err != nil {
			return nil, err
		}
		left, err := unpromised(t, showID, t.nowMS())
		if err != nil {
			return nil, err
		}
		if left >= seats {
			return nil, booking.Errorf(booking.EConflict, "Seats are free: sell them now.")
		}
		added := e
		if err := t.QueryRow(t.ctx, `INSERT INTO waitlist (show_id, name, phone, seats, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			showID, e.Name, e.Phone, seats, t.nowMS()).Scan(&added.ID); err != nil {
			return nil, err
		}
		return &added, audit(t, actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("add entry %d: %s, %d seats", added.ID, e.Name, seats)}, 0)
	})
}

// Waitlist lists a show's waiting list, first come first.
func (s *Store) Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT w.id, w.name, w.phone, w.seats, w.notified_at, w.called_at, w.called_by,
			w.notified_at IS NOT NULL AND `+pqBoughtSince+`
		FROM waitlist w WHERE w.show_id = $1 ORDER BY w.created_at, w.id`, showID)
	if err != nil {
		return nil, s.translate("waitlist", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		e := booking.WaitlistEntry{ShowID: showID}
		var at, called *int64
		err := r.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats, &at, &called, &e.CalledBy, &e.Bought)
		e.NotifiedAt, e.CalledAt = msTime(at), msTime(called)
		return e, err
	})
	return out, s.translate("waitlist", err)
}

func msTime(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := time.UnixMilli(*ms)
	return &t
}

// RemoveWaitlist takes an entry off its show's waiting list; seats
// promised to it are free for the next party. ENotFound for an unknown or
// already removed entry.
func (s *Store) RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "remove waitlist", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var showID int64
		err := t.QueryRow(t.ctx, `DELETE FROM waitlist WHERE id = $1 RETURNING show_id`, entryID).Scan(&showID)
		if errors.Is(err, pgx.ErrNoRows) {
			return struct{}{}, booking.Errorf(booking.ENotFound, "No waiting-list entry %d.", entryID)
		}
		if err != nil {
			return struct{}{}, err
		}
		t.touch(showID)
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("remove entry %d", entryID)}, 0)
	})
	return err
}

// NotifyWaitlist finds the waiting customers whose party now fits the
// free, unpromised seats of their show, first come first, and marks each
// notified by compare-and-set on notified_at: however many servers sweep,
// an entry is notified at most once. It returns the entries this call
// notified. Shows still on sale only (by start), so its cost is set by the
// programme ahead.
func (s *Store) NotifyWaitlist(ctx context.Context) ([]booking.WaitlistEntry, error) {
	now := s.opts.Clock()
	rows, err := s.pool.Query(ctx, `SELECT s.id FROM shows s WHERE s.starts_at > $1
		AND EXISTS (SELECT 1 FROM waitlist w WHERE w.show_id = s.id AND w.notified_at IS NULL)`, now.Add(-booking.MaxSalesClose).Unix())
	if err != nil {
		return nil, s.translate("notify waitlist", err)
	}
	shows, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(shows) == 0 {
		return nil, s.translate("notify waitlist", err)
	}
	return inTx(s, ctx, "notify waitlist", txMode{}, func(t *tx) ([]booking.WaitlistEntry, error) {
		var told []booking.WaitlistEntry
		for _, showID := range shows {
			if s.salesOpen(t, showID) != nil {
				continue
			}
			next, err := nextToNotify(t, showID)
			if err != nil {
				return nil, err
			}
			for _, e := range next {
				tag, err := t.Exec(t.ctx, `UPDATE waitlist SET notified_at = $1 WHERE id = $2 AND notified_at IS NULL`, t.nowMS(), e.ID)
				if err != nil {
					return nil, err
				}
				if tag.RowsAffected() == 1 {
					at := t.now
					e.NotifiedAt = &at
					told = append(told, e)
					t.touch(showID) // open counters look for calls to make
				}
			}
		}
		if len(told) == 0 {
			return nil, nil
		}
		return told, audit(t, booking.System, booking.AuditEntry{Action: booking.AuditWaitlist, Detail: fmt.Sprintf("told %d waiting parties", len(told))}, 0)
	})
}

// nextToNotify lists the waiting parties of a show to tell now, in order of
// arrival, as long as each fits the seats still free and unpromised: the
// first party that does not fit stops the queue.
func nextToNotify(t *tx, showID int64) ([]booking.WaitlistEntry, error) {
	left, err := unpromised(t, showID, t.nowMS())
	if err != nil || left <= 0 {
		return nil, err
	}
	rows, err := t.Query(t.ctx, `SELECT id, name, phone, seats FROM waitlist WHERE show_id = $1 AND notified_at IS NULL ORDER BY created_at, id`, showID)
	if err != nil {
		return nil, err
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		e := booking.WaitlistEntry{ShowID: showID}
		return e, r.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats)
	})
	var out []booking.WaitlistEntry
	for _, e := range all {
		if e.Seats > left {
			break
		}
		left -= e.Seats
		out = append(out, e)
	}
	return out, err
}

// WaitlistCalls lists notified customers nobody has called yet whose offer
// is still open and who have not bought, for shows still on sale.
func (s *Store) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	now := s.opts.Clock()
	rows, err := s.pool.Query(ctx, `SELECT w.id, w.show_id, w.name, w.phone, w.seats, w.notified_at
		FROM shows s JOIN waitlist w ON w.show_id = s.id
		WHERE s.starts_at > $1 AND w.notified_at > $2 AND w.called_at IS NULL AND NOT `+pqBoughtSince+`
		ORDER BY w.notified_at, w.id LIMIT 20`, now.Add(-booking.MaxSalesClose).Unix(), now.Add(-booking.WaitlistOffer).UnixMilli())
	if err != nil {
		return nil, s.translate("waitlist calls", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		var e booking.WaitlistEntry
		var at int64
		err := r.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &at)
		e.NotifiedAt = msTime(&at)
		return e, err
	})
	if err != nil {
		return nil, s.translate("waitlist calls", err)
	}
	for i := range out {
		if out[i].Show, err = s.showInfo(ctx, out[i].ShowID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MarkCalled claims a notified entry as called by compare-and-set; the call
// starts the offer's time again. EExpired when the offer lapsed before
// anyone called.
func (s *Store) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "mark called", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		tag, err := t.Exec(t.ctx, `UPDATE waitlist SET called_at = $1, called_by = $2 WHERE id = $3 AND notified_at > $4 AND called_at IS NULL`,
			t.nowMS(), actor.Name, entryID, t.now.Add(-booking.WaitlistOffer).UnixMilli())
		if err != nil {
			return struct{}{}, err
		}
		if tag.RowsAffected() == 1 {
			return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditWaitlist, Detail: fmt.Sprintf("called entry %d", entryID)}, 0)
		}
		var name, by string
		var notified, called *int64
		err = t.QueryRow(t.ctx, `SELECT name, called_by, notified_at, called_at FROM waitlist WHERE id = $1`, entryID).Scan(&name, &by, &notified, &called)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return struct{}{}, booking.Errorf(booking.ENotFound, "No such waiting-list entry.")
		case err != nil:
			return struct{}{}, err
		case notified == nil:
			return struct{}{}, booking.Errorf(booking.EConflict, "%s's seats have not come free yet.", booking.Clean(name))
		case called == nil:
			return struct{}{}, booking.Errorf(booking.EExpired, "The offer to %s lapsed after %d minutes without a call; the seats may go to the next in line.",
				booking.Clean(name), int(booking.WaitlistOffer.Minutes()))
		}
		return struct{}{}, &booking.StaleError{What: booking.Clean(name), Current: "called by " + booking.Clean(by)}
	})
	return err
}
