package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"boxoffice/booking"
)

// The waiting list of a sold-out show. When seats come free the sweeper
// tells the box office whom to call, first come first; the seats told of
// stay promised to that party for booking.WaitlistOffer after they were
// told or called, or until a booking for the show is made with their
// phone number, so the next party is only told of seats nobody else has
// been promised. Only shows still on sale are ever looked at, so the
// sweeper's cost is set by the programme ahead, not by every show ever
// played.

// promisedSeats is the seats of show ?1 promised to waiting customers at
// ?2 (unix ms): told or called within the offer, and not yet bought.
const promisedSeats = `SELECT coalesce(sum(w.seats), 0) FROM waitlist w
	WHERE w.show_id = ?1 AND w.notified_at IS NOT NULL AND coalesce(w.called_at, w.notified_at) > ?2 - ?3
	AND NOT ` + boughtSince

// boughtSince is true when waiting customer w bought seats of the show
// after they were told (their phone digits on a booking made since). The
// unary + keeps SQLite on the phone index (a handful of bookings per
// number) rather than every booking of the show.
const boughtSince = `EXISTS (SELECT 1 FROM bookings b WHERE b.phone_rev = w.phone_rev AND b.phone_rev <> ''
		AND +b.show_id = w.show_id AND b.created_at >= w.notified_at)`

// rowQuerier is what the waiting-list rules read through: the writer's
// transaction, or the read pool for the checks that decide whether a
// write is needed at all.
type rowQuerier interface {
	queryRow(query string, args ...any) row
	query(query string, args ...any) (*sql.Rows, error)
}

type readQuerier struct {
	s   *Store
	ctx context.Context
}

func (r readQuerier) queryRow(query string, args ...any) row {
	return r.s.readRow(r.ctx, query, args...)
}

func (r readQuerier) query(query string, args ...any) (*sql.Rows, error) {
	return r.s.readRows(r.ctx, query, args...)
}

// unpromised is a show's free seats less those promised to waiting
// customers, at now (unix ms).
func unpromised(q rowQuerier, showID, now int64) (int, error) {
	var free, promised int
	if err := q.queryRow(`SELECT s.capacity - s.sold - `+heldCount+` - `+blockedCount+` FROM shows s WHERE s.id = ?`, now, showID).Scan(&free); err != nil {
		return 0, err
	}
	if err := q.queryRow(promisedSeats, showID, now, booking.WaitlistOffer.Milliseconds()).Scan(&promised); err != nil {
		return 0, err
	}
	return free - promised, nil
}

// AddWaitlist puts a customer on the waiting list of a show. EInvalid for
// a show whose sales closed; EConflict when enough seats are free (and not
// promised to someone waiting) to sell them now. Both are decided in the
// transaction, on its clock.
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
	return write(s, ctx, actor, "add waitlist", func(w *wtx) (*booking.WaitlistEntry, error) {
		sh, err := s.liveShow(w, showID)
		if err != nil {
			return nil, err
		}
		if err := booking.SalesOpen(sh, w.now); err != nil {
			return nil, err
		}
		left, err := unpromised(w, showID, w.nowMS())
		if err != nil {
			return nil, err
		}
		if left >= seats {
			return nil, booking.Errorf(booking.EConflict, "Seats are free: sell them now.")
		}
		added := e
		err = w.queryRow(`INSERT INTO waitlist (show_id, name, phone, phone_rev, seats, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			showID, e.Name, e.Phone, booking.ReverseDigits(e.Phone), seats, w.nowMS()).Scan(&added.ID)
		return &added, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("add entry %d: %s, %d seats", added.ID, e.Name, seats)}, err)
	})
}

// Waitlist lists a show's waiting list, first come first.
func (s *Store) Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT w.id, w.name, w.phone, w.seats, w.notified_at, w.called_at, w.called_by,
			w.notified_at IS NOT NULL AND `+boughtSince+`
		FROM waitlist w WHERE w.show_id = ? ORDER BY w.created_at, w.id`, showID)
	if err != nil {
		return nil, s.translate("waitlist", err)
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e := booking.WaitlistEntry{ShowID: showID}
		var at, called *int64
		if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats, &at, &called, &e.CalledBy, &e.Bought); err != nil {
			return nil, s.translate("waitlist", err)
		}
		e.NotifiedAt = msTime(at)
		e.CalledAt = msTime(called)
		out = append(out, e)
	}
	return out, s.translate("waitlist", rows.Err())
}

func msTime(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := time.UnixMilli(*ms)
	return &t
}

// RemoveWaitlist takes an entry off its show's waiting list (the customer
// bought, or no longer wants to wait); seats promised to it are free for
// the next party. ENotFound for an unknown or already removed entry.
func (s *Store) RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return apply(s, ctx, actor, "remove waitlist", func(w *wtx) error {
		var showID int64
		if err := w.queryRow(`DELETE FROM waitlist WHERE id = ? RETURNING show_id`, entryID).Scan(&showID); err != nil {
			return notFoundAs(err, "No waiting-list entry %d.", entryID)
		}
		w.touch(showID)
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("remove entry %d", entryID)}, 0)
	})
}

// liveWaitingShows lists the shows still on sale at now that have someone
// waiting who was never told: found from the programme (shows_by_start),
// not from every entry ever made.
const liveWaitingShows = `SELECT s.id FROM shows s WHERE s.starts_at > ?
	AND EXISTS (SELECT 1 FROM waitlist w WHERE w.show_id = s.id AND w.notified_at IS NULL)`

// NotifyWaitlist finds the waiting customers whose party now fits the free,
// unpromised seats of their show, first come first, and marks each
// notified by compare-and-set on notified_at: however many sweepers run,
// in however many processes, an entry is notified at most once, and never
// more parties than there are seats. It returns the entries this call
// notified, for the caller to announce. It decides with reads whether
// anyone is to be told and takes no write transaction when nobody is.
func (s *Store) NotifyWaitlist(ctx context.Context) ([]booking.WaitlistEntry, error) {
	now := s.opts.Clock()
	shows, err := s.readIDs(ctx, liveWaitingShows, now.Add(-booking.MaxSalesClose).Unix())
	if err != nil {
		return nil, err
	}
	var due []int64
	for _, id := range shows {
		next, err := nextToNotify(readQuerier{s, ctx}, id, now.UnixMilli())
		if err != nil {
			return nil, s.translate("notify waitlist", err)
		}
		if len(next) > 0 {
			due = append(due, id)
		}
	}
	if len(due) == 0 {
		return nil, nil
	}
	return write(s, ctx, booking.System, "notify waitlist", func(w *wtx) ([]booking.WaitlistEntry, error) {
		told, err := s.notify(w, due)
		return told, auditCount(w, booking.System, booking.AuditWaitlist, len(told), err, "told %d waiting parties", len(told))
	})
}

// notify tells, in the transaction, the waiting parties of the shows due
// that fit now, each by compare-and-set, and returns those it told. A show
// whose sales closed since the read that found it is left alone.
func (s *Store) notify(w *wtx, due []int64) ([]booking.WaitlistEntry, error) {
	var notified []booking.WaitlistEntry
	for _, showID := range due {
		sh, err := s.liveShow(w, showID)
		if err != nil {
			return nil, err
		}
		if booking.SalesOpen(sh, w.now) != nil {
			continue
		}
		next, err := nextToNotify(w, showID, w.nowMS())
		if err != nil {
			return nil, err
		}
		for _, e := range next {
			res, err := w.exec(`UPDATE waitlist SET notified_at = ? WHERE id = ? AND notified_at IS NULL`, w.nowMS(), e.ID)
			if err != nil {
				return nil, err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				at := w.now
				e.NotifiedAt = &at
				notified = append(notified, e)
				w.touch(showID) // open counters look for calls to make
			}
		}
	}
	return notified, nil
}

// nextToNotify lists the waiting parties of a show to tell now: in order
// of arrival, as long as each fits the seats still free and unpromised.
// Nobody jumps the queue: the first party that does not fit stops it.
func nextToNotify(q rowQuerier, showID, now int64) ([]booking.WaitlistEntry, error) {
	left, err := unpromised(q, showID, now)
	if err != nil || left <= 0 {
		return nil, err
	}
	rows, err := q.query(`SELECT id, name, phone, seats FROM waitlist WHERE show_id = ? AND notified_at IS NULL ORDER BY created_at, id`, showID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e := booking.WaitlistEntry{ShowID: showID}
		if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats); err != nil {
			return nil, err
		}
		if e.Seats > left {
			break
		}
		left -= e.Seats
		out = append(out, e)
	}
	return out, rows.Err()
}

// WaitlistCalls lists notified customers nobody has called yet whose offer
// is still open and who have not bought, for shows still on sale.
func (s *Store) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	now := s.opts.Clock()
	rows, err := s.readRows(ctx, `SELECT w.id, w.show_id, w.name, w.phone, w.seats, w.notified_at
		FROM shows s CROSS JOIN waitlist w ON w.show_id = s.id
		WHERE s.starts_at > ? AND w.notified_at > ? AND w.called_at IS NULL AND NOT `+boughtSince+`
		ORDER BY w.notified_at, w.id LIMIT 20`, now.Add(-booking.MaxSalesClose).Unix(), now.Add(-booking.WaitlistOffer).UnixMilli())
	if err != nil {
		return nil, s.translate("waitlist calls", err)
	}
	var out []booking.WaitlistEntry
	for rows.Next() {
		var e booking.WaitlistEntry
		var at int64
		if err := rows.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &at); err != nil {
			rows.Close()
			return nil, s.translate("waitlist calls", err)
		}
		e.NotifiedAt = msTime(&at)
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.translate("waitlist calls", err)
	}
	for i := range out {
		sh, err := s.showInfo(ctx, out[i].ShowID)
		if err != nil {
			return nil, err
		}
		out[i].Show = sh
	}
	return out, nil
}

// MarkCalled claims a notified entry as called by compare-and-set. The
// call starts the offer's time again. EExpired when the offer lapsed
// before anyone called (the seats may be promised to the next party).
func (s *Store) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return apply(s, ctx, actor, "mark called", func(w *wtx) error {
		res, err := w.exec(`UPDATE waitlist SET called_at = ?, called_by = ? WHERE id = ? AND notified_at > ? AND called_at IS NULL`,
			w.nowMS(), actor.Name, entryID, w.now.Add(-booking.WaitlistOffer).UnixMilli())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return w.audit(actor, booking.AuditEntry{Action: booking.AuditWaitlist, Detail: fmt.Sprintf("called entry %d", entryID)}, 0)
		}
		var name, by string
		var notified, called *int64
		if err := w.queryRow(`SELECT name, called_by, notified_at, called_at FROM waitlist WHERE id = ?`, entryID).Scan(&name, &by, &notified, &called); err != nil {
			return notFoundAs(err, "No such waiting-list entry.")
		}
		switch {
		case notified == nil:
			return booking.Errorf(booking.EConflict, "%s's seats have not come free yet.", booking.Clean(name))
		case called == nil:
			return booking.Errorf(booking.EExpired, "The offer to %s lapsed after %d minutes without a call; the seats may go to the next in line.",
				booking.Clean(name), int(booking.WaitlistOffer.Minutes()))
		}
		return &booking.StaleError{What: booking.Clean(name), Current: "called by " + booking.Clean(by)}
	})
}
