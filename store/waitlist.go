package store

import (
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// The waiting list of a sold-out show (booking.Waitlist). When seats come
// free the sweeper tells the box office whom to call, first come first;
// the seats told of stay promised to that party for booking.WaitlistOffer
// after they were told or called, or until a booking for the show is made
// with their phone number, so the next party is only told of seats nobody
// else has been promised. Only shows still on sale are ever looked at, so
// the sweeper's cost is set by the programme ahead, not by every show
// ever played.

// WaitlistQueries are the reads that decide whom to tell next: inside a
// write (Tx), and outside one (WaitlistReads.WaitlistView) to find
// whether a write is needed at all.
type WaitlistQueries interface {
	// FreeSeatCount counts a show's seats neither sold, nor held by a hold
	// live at now (unix ms), nor kept out of sale.
	FreeSeatCount(showID, now int64) (int, error)
	// FreeSeatsAmong counts those of seatIDs (seats of the show's hall)
	// that FreeSeatCount counts: neither sold, nor held by a hold live at
	// now, nor kept out of sale. 0 for none.
	FreeSeatsAmong(showID, now int64, seatIDs []int64) (int, error)
	// PromisedSeats sums the seats of a show's waiting parties told or
	// called after since (unix ms) who have not bought: no booking of the
	// show with their phone's digits made since they were told.
	PromisedSeats(showID, since int64) (int, error)
	// Waiting lists a show's waiting parties never told, first come
	// first: their ID, ShowID, Name, Phone and Seats.
	Waiting(showID int64) ([]booking.WaitlistEntry, error)
}

// WaitlistTx is what the waiting list asks of a transaction.
type WaitlistTx interface {
	WaitlistQueries
	// ShowLifeNow sets sh's Status, CancelReason and SalesClose (the
	// cinema's default where the show has none) as the transaction reads
	// them now, whatever a cached copy of sh said.
	ShowLifeNow(sh *booking.Show) error
	// InsertWaitlist puts a party (ShowID, Name, Phone, Seats) on its
	// show's waiting list at the transaction's time.
	InsertWaitlist(e booking.WaitlistEntry) (id int64, err error)
	// DeleteWaitlist takes an entry off its waiting list and says whose
	// show it was; found is false when it was gone.
	DeleteWaitlist(entryID int64) (showID int64, found bool, err error)
	// MarkNotified sets an entry's notified time to the transaction's by
	// compare-and-set: false when it was told already.
	MarkNotified(entryID int64) (bool, error)
	// MarkCalledBy records that by called an entry, at the transaction's
	// time, by compare-and-set on one told after toldAfter (unix ms) and
	// never called: false when it was not.
	MarkCalledBy(entryID int64, by string, toldAfter int64) (bool, error)
	// ReadWaitlistEntry reads an entry's Name, NotifiedAt, CalledAt and
	// CalledBy; found is false when it is gone.
	ReadWaitlistEntry(entryID int64) (e booking.WaitlistEntry, found bool, err error)
}

// WaitlistReads are the waiting list's reads outside a transaction.
type WaitlistReads interface {
	// WaitingShows lists the shows starting after startsAfter that have
	// a party waiting who was never told.
	WaitingShows(ctx context.Context, startsAfter time.Time) ([]int64, error)
	// WaitlistView is WaitlistQueries on ctx, outside a transaction.
	WaitlistView(ctx context.Context) WaitlistQueries
	// ReadWaitlist lists a show's waiting list, first come first, every
	// field but Show set (Bought: told, and bought since).
	ReadWaitlist(ctx context.Context, showID int64) ([]booking.WaitlistEntry, error)
	// ReadWaitlistCalls lists, oldest told first and at most limit, the
	// parties of shows starting after startsAfter who were told after
	// toldAfter, never called, and have not bought: every field but Show,
	// CalledAt, CalledBy and Bought set.
	ReadWaitlistCalls(ctx context.Context, startsAfter, toldAfter time.Time, limit int) ([]booking.WaitlistEntry, error)
}

// waitlistCalls is how many parties to call a counter lists at most.
const waitlistCalls = 20

// AddWaitlist puts a customer on the waiting list of a show. EInvalid for
// a show whose sales closed; EConflict when enough seats are free (and not
// promised to someone waiting) to sell them now. Both are decided in the
// transaction, on its clock. READ COMMITTED: two parties added at once are
// both added, in the order they committed.
func (s *Store) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	return s.AddWaitlistEntry(ctx, actor, booking.WaitlistRequest{ShowID: showID, Name: name, Phone: phone, Seats: seats})
}

// AddWaitlistEntry is AddWaitlist for a request, which may name the
// customer the entry belongs to (attachCustomer).
func (s *Store) AddWaitlistEntry(ctx context.Context, actor booking.Actor, req booking.WaitlistRequest) (*booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	showID, seats := req.ShowID, req.Seats
	e := booking.WaitlistEntry{ShowID: showID, Name: booking.CleanLine(req.Name, 80), Phone: booking.CleanLine(req.Phone, 32), Seats: seats}
	if e.Name == "" || e.Phone == "" {
		return nil, booking.Errorf(booking.EInvalid, "The waiting list needs a name and a phone number to call.")
	}
	if seats < 1 || seats > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "Wait for between 1 and %d seats.", booking.MaxSeatsPerSale)
	}
	return write(s, ctx, actor, Write{Op: "add waitlist"}, func(tx Tx) (*booking.WaitlistEntry, error) {
		sh, err := s.showNow(tx, showID)
		if err != nil {
			return nil, err
		}
		if err := booking.SalesOpen(sh, tx.Now()); err != nil {
			return nil, err
		}
		left, err := s.unpromised(tx, tx.Context(), showID, tx.Now())
		if err != nil {
			return nil, err
		}
		if left >= seats {
			return nil, booking.Errorf(booking.EConflict, "Seats are free: sell them now.")
		}
		added := e
		if added.ID, err = tx.InsertWaitlist(e); err != nil {
			return nil, err
		}
		if err := attachCustomer(tx, req.CustomerID, func(c int64) error { return tx.SetWaitlistCustomer(added.ID, c) }); err != nil {
			return nil, err
		}
		return &added, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("add entry %d: %s, %d seats", added.ID, e.Name, seats)}, 0)
	})
}

// showNow is a show with its life (status, sales close) as tx reads it
// now: whatever a cached copy says, the waiting list decides on what the
// database says.
func (s *Store) showNow(tx Tx, showID int64) (booking.Show, error) {
	sh, err := s.prog.Show(tx.Context(), showID)
	if err != nil {
		return sh, err
	}
	return sh, tx.ShowLifeNow(&sh)
}

// unpromised is the seats of a show a waiting party could be sold at now:
// those free, less the wheelchair and companion places among them (kept
// for the customers who need them: a party is never offered one, so a
// show with only those free is sold out to it), less those promised to
// parties told before.
func (s *Store) unpromised(q WaitlistQueries, ctx context.Context, showID int64, now time.Time) (int, error) {
	free, err := q.FreeSeatCount(showID, now.UnixMilli())
	if err != nil {
		return 0, err
	}
	h, err := s.prog.HallOfShow(ctx, showID)
	if err != nil {
		return 0, err
	}
	var accessible []int64
	for _, seat := range h.Seats {
		if seat.Kind.Accessible() && !seat.Blocked {
			accessible = append(accessible, seat.ID)
		}
	}
	if len(accessible) > 0 {
		kept, err := q.FreeSeatsAmong(showID, now.UnixMilli(), accessible)
		if err != nil {
			return 0, err
		}
		free -= kept
	}
	promised, err := q.PromisedSeats(showID, now.Add(-booking.WaitlistOffer).UnixMilli())
	return free - promised, err
}

// Waitlist lists a show's waiting list, first come first.
func (s *Store) Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	return s.d.ReadWaitlist(ctx, showID)
}

// RemoveWaitlist takes an entry off its show's waiting list (the customer
// bought, or no longer wants to wait); seats promised to it are free for
// the next party. ENotFound for an unknown or already removed entry.
func (s *Store) RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "remove waitlist"}, func(tx Tx) error {
		showID, found, err := tx.DeleteWaitlist(entryID)
		if err != nil {
			return err
		}
		if !found {
			return booking.Errorf(booking.ENotFound, "No waiting-list entry %d.", entryID)
		}
		tx.Touch(showID)
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditWaitlist, ShowID: showID, Detail: fmt.Sprintf("remove entry %d", entryID)}, 0)
	})
}

// NotifyWaitlist finds the waiting customers whose party now fits the
// free, unpromised seats of their show, first come first, and marks each
// notified by compare-and-set: however many sweepers run, on however many
// servers or processes, an entry is notified at most once, and never more
// parties than there are seats. It returns the entries this call
// notified, for the caller to announce. It decides with reads whether
// anyone is to be told and takes no write transaction when nobody is.
func (s *Store) NotifyWaitlist(ctx context.Context) ([]booking.WaitlistEntry, error) {
	now := s.d.Now()
	shows, err := s.d.WaitingShows(ctx, now.Add(-booking.MaxSalesClose))
	if err != nil {
		return nil, err
	}
	var due []int64
	view := s.d.WaitlistView(ctx)
	for _, id := range shows {
		next, err := s.nextToNotify(view, ctx, id, now)
		if err != nil {
			return nil, err
		}
		if len(next) > 0 {
			due = append(due, id)
		}
	}
	if len(due) == 0 {
		return nil, nil
	}
	return write(s, ctx, booking.System, Write{Op: "notify waitlist"}, func(tx Tx) ([]booking.WaitlistEntry, error) {
		told, err := s.notify(tx, due)
		if err != nil || len(told) == 0 {
			return nil, err
		}
		return told, Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditWaitlist, Detail: fmt.Sprintf("told %d waiting parties", len(told))}, 0)
	})
}

// notify tells, in tx, the waiting parties of the shows due that fit now,
// each by compare-and-set, and returns those it told. A show whose sales
// closed since the read that found it is left alone.
func (s *Store) notify(tx Tx, due []int64) ([]booking.WaitlistEntry, error) {
	var told []booking.WaitlistEntry
	for _, showID := range due {
		sh, err := s.showNow(tx, showID)
		if err != nil {
			return nil, err
		}
		if booking.SalesOpen(sh, tx.Now()) != nil {
			continue
		}
		next, err := s.nextToNotify(tx, tx.Context(), showID, tx.Now())
		if err != nil {
			return nil, err
		}
		for _, e := range next {
			ok, err := tx.MarkNotified(e.ID)
			if err != nil {
				return nil, err
			}
			if ok {
				at := tx.Now()
				e.NotifiedAt = &at
				told = append(told, e)
				tx.Touch(showID) // open counters look for calls to make
			}
		}
	}
	return told, nil
}

// nextToNotify lists the waiting parties of a show to tell at now: in
// order of arrival, as long as each fits the seats still free and
// unpromised. Nobody jumps the queue: the first party that does not fit
// stops it.
func (s *Store) nextToNotify(q WaitlistQueries, ctx context.Context, showID int64, now time.Time) ([]booking.WaitlistEntry, error) {
	left, err := s.unpromised(q, ctx, showID, now)
	if err != nil || left <= 0 {
		return nil, err
	}
	waiting, err := q.Waiting(showID)
	if err != nil {
		return nil, err
	}
	var out []booking.WaitlistEntry
	for _, e := range waiting {
		if e.Seats > left {
			break
		}
		left -= e.Seats
		out = append(out, e)
	}
	return out, nil
}

// WaitlistCalls lists notified customers nobody has called yet whose offer
// is still open and who have not bought, for shows still on sale, oldest
// first.
func (s *Store) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return nil, err
	}
	now := s.d.Now()
	out, err := s.d.ReadWaitlistCalls(ctx, now.Add(-booking.MaxSalesClose), now.Add(-booking.WaitlistOffer), waitlistCalls)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Show, err = s.prog.Show(ctx, out[i].ShowID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MarkCalled claims a notified entry as called by compare-and-set: of two
// counters at once, one records the call and the other is told who made
// it. The call starts the offer's time again. EExpired when the offer
// lapsed before anyone called (the seats may be promised to the next
// party).
func (s *Store) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "mark called"}, func(tx Tx) error {
		ok, err := tx.MarkCalledBy(entryID, actor.Name, tx.Now().Add(-booking.WaitlistOffer).UnixMilli())
		if err != nil {
			return err
		}
		if ok {
			return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditWaitlist, Detail: fmt.Sprintf("called entry %d", entryID)}, 0)
		}
		e, found, err := tx.ReadWaitlistEntry(entryID)
		switch {
		case err != nil:
			return err
		case !found:
			return booking.Errorf(booking.ENotFound, "No such waiting-list entry.")
		case e.NotifiedAt == nil:
			return booking.Errorf(booking.EConflict, "%s's seats have not come free yet.", booking.Clean(e.Name))
		case e.CalledAt == nil:
			return booking.Errorf(booking.EExpired, "The offer to %s lapsed after %d minutes without a call; the seats may go to the next in line.",
				booking.Clean(e.Name), int(booking.WaitlistOffer.Minutes()))
		}
		return &booking.StaleError{What: booking.Clean(e.Name), Current: "called by " + booking.Clean(e.CalledBy)}
	})
}
