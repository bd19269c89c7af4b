package db_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// A write that commits after its caller's deadline ran out must still
// answer with what it did: the soak found cancels the database had made
// reported to the clerk as "The request was cancelled", because the
// booking was read back with the caller's context. The clock here ends
// the caller's context inside the transaction, after the writer has
// begun it, so the commit happens and only the read-back sees the end.
func TestStore_AnswerAfterCommitOutlivesTheCaller(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	var armed atomic.Pointer[context.CancelFunc]
	now := func() time.Time {
		if c := armed.Swap(nil); c != nil {
			(*c)()
		}
		return clock.Now()
	}
	s, path := dbtest.MustOpen(t, db.Options{Clock: now})
	show := firstShow(t, s)
	try := func(name string, seats []string, call func(ctx context.Context, number string) (*booking.Booking, error), want booking.BookingStatus) {
		t.Run(name, func(t *testing.T) {
			b := mustSell(t, s, show.ID, name, seats...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			armed.Store(&cancel)
			got, err := call(ctx, b.Number)
			armed.Store(nil)
			var status string
			openRaw(t, path).QueryRow(`SELECT status FROM bookings WHERE id = ?`, b.ID).Scan(&status)
			if err != nil {
				if status != string(booking.BookingConfirmed) {
					t.Fatalf("told %v, but the database says %s", err, status)
				}
				// Consistent, but this test no longer reaches the case it
				// is for: the clock was read before the transaction began.
				t.Fatalf("refused before the commit (%v): move the context's end into the transaction", err)
			}
			if got.Status != want || status != string(want) {
				t.Fatalf("told %s, the database says %s, want %s", got.Status, status, want)
			}
		})
	}
	try("cancel", []string{"E1"}, func(ctx context.Context, number string) (*booking.Booking, error) {
		return s.Cancel(ctx, supervisor, booking.CancelRequest{Number: number, Reason: "ill"})
	}, booking.BookingCancelled)
	try("refund", []string{"E3"}, func(ctx context.Context, number string) (*booking.Booking, error) {
		return s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: number, Seats: []string{"E3"}, Reason: "ill"})
	}, booking.BookingCancelled)
}
