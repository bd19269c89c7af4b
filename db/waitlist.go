package db

import (
	"context"
	"time"

	"boxoffice/booking"
)

// AddWaitlist puts a customer on the waiting list of a show.
func (s *Store) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	e := &booking.WaitlistEntry{ShowID: showID, Name: booking.CleanLine(name, 80), Phone: booking.CleanLine(phone, 32), Seats: seats}
	if e.Name == "" || e.Phone == "" {
		return nil, booking.Errorf(booking.EInvalid, "The waiting list needs a name and a phone number to call.")
	}
	if seats < 1 || seats > maxSeatsPerHold {
		return nil, booking.Errorf(booking.EInvalid, "Wait for between 1 and %d seats.", maxSeatsPerHold)
	}
	if _, err := s.showInfo(ctx, showID); err != nil {
		return nil, err
	}
	err := s.doAs(ctx, actor, "add waitlist", func(w *wtx) error {
		return w.queryRow(`INSERT INTO waitlist (show_id, name, phone, seats, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
			showID, e.Name, e.Phone, seats, w.nowMS()).Scan(&e.ID)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Waitlist lists a show's waiting list, first come first.
func (s *Store) Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT id, name, phone, seats, notified_at, called_at, called_by FROM waitlist WHERE show_id = ? ORDER BY created_at, id`, showID)
	if err != nil {
		return nil, s.translate("waitlist", err)
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e := booking.WaitlistEntry{ShowID: showID}
		var at, called *int64
		if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats, &at, &called, &e.CalledBy); err != nil {
			return nil, s.translate("waitlist", err)
		}
		if at != nil {
			t := time.UnixMilli(*at)
			e.NotifiedAt = &t
		}
		if called != nil {
			t := time.UnixMilli(*called)
			e.CalledAt = &t
		}
		out = append(out, e)
	}
	return out, s.translate("waitlist", rows.Err())
}

// NotifyWaitlist finds the waiting customers whose party now fits the free
// seats of their show, first come first, and marks each notified by
// compare-and-set on notified_at: however many sweepers run, in however
// many processes, an entry is notified at most once. It returns the
// entries this call notified, for the caller to announce.
func (s *Store) NotifyWaitlist(ctx context.Context) ([]booking.WaitlistEntry, error) {
	var waiting int
	if err := s.readRow(ctx, `SELECT count(*) FROM waitlist WHERE notified_at IS NULL`).Scan(&waiting); err != nil {
		return nil, s.translate("notify waitlist", err)
	}
	if waiting == 0 {
		return nil, nil
	}
	var notified []booking.WaitlistEntry
	err := s.do(ctx, "notify waitlist", func(w *wtx) error {
		notified = nil
		shows, err := queryList[int64](w, `SELECT DISTINCT show_id FROM waitlist WHERE notified_at IS NULL`)
		if err != nil {
			return err
		}
		for _, showID := range shows {
			var free int
			err := w.queryRow(`SELECT s.capacity - s.sold - (SELECT count(*) FROM seat_claims c JOIN holds h ON h.id = c.hold_id
				WHERE c.show_id = s.id AND c.status = 'held' AND h.expires_at > ?) FROM shows s WHERE s.id = ?`, w.nowMS(), showID).Scan(&free)
			if err != nil {
				return err
			}
			rows, err := w.query(`SELECT id, name, phone, seats FROM waitlist WHERE show_id = ? AND notified_at IS NULL ORDER BY created_at, id`, showID)
			if err != nil {
				return err
			}
			var entries []booking.WaitlistEntry
			for rows.Next() {
				e := booking.WaitlistEntry{ShowID: showID}
				if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats); err != nil {
					rows.Close()
					return err
				}
				entries = append(entries, e)
			}
			rows.Close()
			for _, e := range entries {
				if e.Seats > free {
					break // first come first: nobody jumps the queue
				}
				res, err := w.exec(`UPDATE waitlist SET notified_at = ? WHERE id = ? AND notified_at IS NULL`, w.nowMS(), e.ID)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 1 {
					at := w.now
					e.NotifiedAt = &at
					notified = append(notified, e)
					free -= e.Seats
					w.touch(showID) // open counters look for calls to make
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return notified, nil
}

// WaitlistCalls lists notified customers nobody has called yet.
func (s *Store) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT w.id, w.show_id, w.name, w.phone, w.seats, w.notified_at FROM waitlist w JOIN shows s ON s.id = w.show_id
		WHERE w.notified_at IS NOT NULL AND w.called_at IS NULL AND s.starts_at > ?
		ORDER BY w.notified_at, w.id LIMIT 20`, s.opts.Clock().Add(-SalesClose).Unix())
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
		t := time.UnixMilli(at)
		e.NotifiedAt = &t
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

// MarkCalled claims a notified entry as called by compare-and-set.
func (s *Store) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return s.doAs(ctx, actor, "mark called", func(w *wtx) error {
		res, err := w.exec(`UPDATE waitlist SET called_at = ?, called_by = ? WHERE id = ? AND notified_at IS NOT NULL AND called_at IS NULL`,
			w.nowMS(), actor.Name, entryID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var name, by string
		var called *int64
		if err := w.queryRow(`SELECT name, called_by, called_at FROM waitlist WHERE id = ?`, entryID).Scan(&name, &by, &called); err != nil {
			return notFoundAs(err, "No such waiting-list entry.")
		}
		if called == nil {
			return booking.Errorf(booking.EConflict, "%s's seats have not come free yet.", booking.Clean(name))
		}
		return &booking.StaleError{What: booking.Clean(name), Current: "called by " + booking.Clean(by)}
	})
}
