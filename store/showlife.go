package store

import (
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// A show's life: its status and sales close, which change (unlike the
// film, hall and start the Programme caches), and the sweep that settles
// the bookings of shows that ended.

// ShowLifeTx is what a show's life asks of a transaction.
type ShowLifeTx interface {
	// ShowLife reads a show's status, cancel reason and sales close (its
	// own, else the cinema's default, else booking.DefaultSalesClose) as
	// the transaction sees them now; found is false when there is no such
	// show.
	ShowLife(showID int64) (l Life, found bool, err error)
	// SetDefaultSalesClose sets the cinema's sales close.
	SetDefaultSalesClose(close time.Duration) error
	// SetShowSalesClose sets a show's own sales close (nil: none, the
	// cinema's default applies); found is false when there is no such
	// show.
	SetShowSalesClose(showID int64, close *time.Duration) (found bool, err error)
	// ClaimSettle marks a show settled by compare-and-set: false when it
	// was settled already (by another sweeper).
	ClaimSettle(showID int64) (bool, error)
	// SettleBookings moves a show's confirmed bookings to completed (a
	// ticket of it was admitted) or no_show (none was) and says how many
	// it moved.
	SettleBookings(showID int64) (int, error)
}

// ShowLifeReads are a show's life's reads outside a transaction.
type ShowLifeReads interface {
	// ReadUnsettled lists, by start, at most limit shows that started by
	// startedBy and were never settled.
	ReadUnsettled(ctx context.Context, startedBy time.Time, limit int) ([]ShowSlot, error)
}

// ShowSlot is where and when a show plays.
type ShowSlot struct {
	ID, HallID int64
	Starts     time.Time
	Minutes    int // its film's running time
}

// Life is what changes about a show.
type Life struct {
	Status       booking.ShowStatus
	CancelReason string
	SalesClose   time.Duration
}

// ErrNoShow refuses an id that names no show: the one message for it, the
// drivers' reads' too.
func ErrNoShow(id int64) error { return booking.Errorf(booking.ENotFound, "There is no show %d.", id) }

// LiveShow is show showID's facts (prog) with its life read inside tx:
// whatever a cached copy says, a hold, a sale or a block decides on what
// the database says now.
func LiveShow(tx Tx, prog *Programme, showID int64) (booking.Show, error) {
	sh, err := prog.Show(tx.Context(), showID)
	if err != nil {
		return sh, err
	}
	l, found, err := tx.ShowLife(showID)
	if err != nil {
		return sh, err
	}
	if !found {
		return sh, ErrNoShow(showID)
	}
	sh.Status, sh.CancelReason, sh.SalesClose = l.Status, l.CancelReason, l.SalesClose
	return sh, nil
}

// SetSalesClose sets a show's sales close (nil: the cinema's default), or
// with show 0 the cinema's default. EInvalid for a time out of bounds or
// a default without one; ENotFound for the show.
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
	return apply(s, ctx, actor, Write{Op: "sales close"}, func(tx Tx) error {
		if showID == 0 {
			if err := tx.SetDefaultSalesClose(*close); err != nil {
				return err
			}
			tx.Touch(0) // a change to the default is a change to every show
			return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "cinema sales close " + booking.DescribeSalesClose(*close)}, 0)
		}
		detail := fmt.Sprintf("show %d: sales close the cinema's default", showID)
		if close != nil {
			detail = fmt.Sprintf("show %d: sales close %s", showID, booking.DescribeSalesClose(*close))
		}
		found, err := tx.SetShowSalesClose(showID, close)
		if err != nil {
			return err
		}
		if !found {
			return ErrNoShow(showID)
		}
		tx.Touch(showID)
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: showID, Detail: detail}, 0)
	})
}

// settleBatch is the most shows one settling transaction takes: a
// database with a year of unsettled shows catches up in small writes
// that let the counters in between.
const settleBatch = 32

// SettleShows settles the confirmed bookings of the shows that ended
// booking.SettleGrace ago, a batch of shows per transaction: each show is
// claimed by compare-and-set (ClaimSettle), so sweepers running at the
// same moment, on one server or several, settle each show once between
// them, and each confirmed booking becomes completed (a ticket was
// admitted) or no_show. It reads first and takes no write transaction
// when nothing is due.
func (s *Store) SettleShows(ctx context.Context) (int, error) {
	total := 0
	for {
		due, err := s.showsToSettle(ctx)
		if err != nil || len(due) == 0 {
			return total, err
		}
		n, err := write(s, ctx, booking.System, Write{Op: "settle shows"}, func(tx Tx) (int, error) {
			n, err := settle(tx, due)
			if err != nil || n == 0 {
				return n, err
			}
			return n, Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditSettle, Detail: fmt.Sprintf("settled %d bookings of %d shows", n, len(due))}, 0)
		})
		total += n
		if err != nil || len(due) < settleBatch {
			return total, err
		}
	}
}

// showsToSettle reads which started shows ended SettleGrace ago and were
// never settled, at most settleBatch of them.
func (s *Store) showsToSettle(ctx context.Context) ([]int64, error) {
	now := s.d.Now()
	started, err := s.d.ReadUnsettled(ctx, now, 256)
	if err != nil {
		return nil, err
	}
	var due []int64
	for _, st := range started {
		sh := booking.Show{Starts: st.Starts, Film: booking.Film{Minutes: st.Minutes}}
		if !now.Before(sh.Ends().Add(booking.SettleGrace)) && len(due) < settleBatch {
			due = append(due, st.ID)
		}
	}
	return due, nil
}

// settle settles the shows due inside tx: each show is claimed first, so
// a sweeper that read the same shows finds them taken and changes
// nothing.
func settle(tx Tx, due []int64) (int, error) {
	n := 0
	for _, id := range due {
		ok, err := tx.ClaimSettle(id)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue // another sweeper settled it
		}
		k, err := tx.SettleBookings(id)
		if err != nil {
			return 0, err
		}
		n += k
		tx.Touch(id)
	}
	return n, nil
}
