package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Invariant 5: a ticket is admitted at most once; the second scan says
// when and by whom.
func TestStore_Admit(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now})
	show := firstShow(t, s)
	b := mustSell(t, s, show.ID, "a", "E1", "E2")
	door := booking.Actor{Name: "dora", Role: booking.RoleDoor}
	ctx := context.Background()
	clock.Add(90 * time.Minute) // doors open
	t.Run("OnceUnderRace", func(t *testing.T) {
		code := b.Tickets[0].Code
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, errs[i] = s.Admit(ctx, door, code)
			}(i)
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if !strings.Contains(booking.ErrorMessage(err), "already admitted at") || !strings.Contains(booking.ErrorMessage(err), "by dora") {
				t.Fatalf("second scan said %q", booking.ErrorMessage(err))
			}
		}
		if ok != 1 {
			t.Fatalf("admitted %d times", ok)
		}
	})
	t.Run("ErrForged", func(t *testing.T) {
		code := []byte(b.Tickets[1].Code)
		mid := len(code) / 2
		if code[mid] == 'A' { // still base32, wrong MAC
			code[mid] = 'B'
		} else {
			code[mid] = 'A'
		}
		_, err := s.Admit(ctx, door, string(code))
		if booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("forged code: %v", err)
		}
		_, err = s.Admit(ctx, door, "NOT-A-CODE\x1b[2J")
		if booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("garbage code: %v", err)
		}
	})
	t.Run("ErrCancelled", func(t *testing.T) {
		b2 := mustSell(t, s, show.ID, "b", "F1")
		if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b2.Number}); err != nil {
			t.Fatal(err)
		}
		_, err := s.Admit(ctx, door, b2.Tickets[0].Code)
		if booking.ErrorCode(err) != booking.EConflict || !strings.Contains(booking.ErrorMessage(err), "cancelled") {
			t.Fatalf("cancelled ticket: %v", err)
		}
	})
	t.Run("ErrClerkCannotCancelAdmitted", func(t *testing.T) {
		_, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number})
		if booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("cancel after admission: %v", err)
		}
		got, _ := s.Booking(ctx, clerk, b.Number)
		if got.Status != booking.BookingConfirmed {
			t.Fatalf("status %s after a refused cancel", got.Status)
		}
	})
}
