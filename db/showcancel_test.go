package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

func TestStore_SetSalesClose(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	ctx := context.Background()
	sh, _ := s.Show(ctx, clerk, 1)
	if sh.SalesClose != booking.DefaultSalesClose {
		t.Fatalf("a new show closes %v after the start", sh.SalesClose)
	}
	hold := func() error {
		_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "x"})
		if err == nil {
			s.ReleaseOwner(ctx, "x")
		}
		return err
	}
	// Ten minutes before the start, the show's own close of -10m refuses.
	clock.Set(sh.Starts.Add(-10 * time.Minute))
	if err := hold(); err != nil {
		t.Fatal(err)
	}
	d := -10 * time.Minute
	if err := s.SetSalesClose(ctx, manager, 1, &d); err != nil {
		t.Fatal(err)
	}
	if err := hold(); booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "closed 10 min before the start") {
		t.Fatalf("hold after a -10m close: %v", err)
	}
	// Back on the cinema's default, which is now 0m: refused at the start.
	zero := time.Duration(0)
	if err := s.SetSalesClose(ctx, manager, 0, &zero); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSalesClose(ctx, manager, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := hold(); err != nil {
		t.Fatalf("hold before a 0m default close: %v", err)
	}
	if got, _ := s.Show(ctx, clerk, 1); got.SalesClose != 0 {
		t.Errorf("default close read as %v", got.SalesClose)
	}
	clock.Set(sh.Starts)
	if err := hold(); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("hold at the start with a 0m default: %v", err)
	}
	// Bad values are refused before anything is written.
	bad := 2 * time.Hour
	for _, c := range []struct {
		show  int64
		close *time.Duration
		code  string
	}{{1, &bad, booking.EInvalid}, {0, nil, booking.EInvalid}, {999, &d, booking.ENotFound}} {
		if err := s.SetSalesClose(ctx, manager, c.show, c.close); booking.ErrorCode(err) != c.code {
			t.Errorf("SetSalesClose(%d, %v): %v, want %s", c.show, c.close, err, c.code)
		}
	}
	if err := s.SetSalesClose(ctx, clerk, 1, &d); booking.ErrorCode(err) != booking.EForbidden {
		t.Errorf("a clerk set the sales close: %v", err)
	}
}

// BenchmarkStore_CancelShow cancels a show of 200 two-seat card bookings
// at synchronous=FULL, as a cinema runs: one small transaction a booking,
// so its figure is bounded by the commit rate, reported beside it
// (raw-tx/s) for the ratio. Run with go test ./db -run '^$' -bench
// Store_CancelShow -benchtime 5x.
func BenchmarkStore_CancelShow(b *testing.B) {
	raw, err := db.RawCommitRate(b.TempDir()+"/raw.db", "full", 500*time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s, _ := dbtest.MustOpenDemo(b, db.Options{SweepInterval: -1, PollInterval: -1})
		shows, err := s.Shows(ctx, clerk, time.Now().AddDate(0, 0, 1))
		if err != nil {
			b.Fatal(err)
		}
		show := shows[0]
		for _, sh := range shows {
			if sh.Capacity > show.Capacity {
				show = sh
			}
		}
		m, err := s.SeatMap(ctx, clerk, show.ID, "")
		if err != nil {
			b.Fatal(err)
		}
		sold := 0
		for i := 0; sold < 200 && i+1 < len(m.Hall.Seats); i += 2 {
			a, c := m.Hall.Seats[i], m.Hall.Seats[i+1]
			if a.Kind.Accessible() || c.Kind.Accessible() || a.Row != c.Row {
				continue
			}
			mustSell(b, s, show.ID, fmt.Sprint("b", i), a.Label, c.Label)
			sold++
		}
		b.StartTimer()
		start := time.Now()
		res, err := s.CancelShow(ctx, booking.System, show.ID, "bench")
		if err != nil || res.RefundedNow != sold {
			b.Fatalf("cancel: %v, %d refunded of %d", err, res.RefundedNow, sold)
		}
		total += time.Since(start)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(200*float64(b.N)/total.Seconds(), "bookings/s")
	b.ReportMetric(raw, "raw-tx/s")
}

// A store that read the show before another server cancelled it, or
// moved its sales close, still refuses: the hold reads the show's status
// and close in its own transaction, not from its cache.
func TestStore_Hold_ShowLifeInTransaction(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1, PollInterval: -1})
	other := dbtest.Open(t, path, db.Options{Clock: clock.Now, SweepInterval: -1, PollInterval: -1})
	ctx := context.Background()
	for _, id := range []int64{1, 2} {
		if _, err := s.SeatMap(ctx, clerk, id, ""); err != nil { // cached here
			t.Fatal(err)
		}
	}
	if _, err := other.CancelShow(ctx, booking.System, 1, "flood"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a"}); booking.ErrorCode(err) != booking.EInvalid ||
		!strings.Contains(booking.ErrorMessage(err), "cancelled: flood") {
		t.Errorf("hold on a show cancelled by another store: %v", err)
	}
	sh, _ := s.Show(ctx, clerk, 2)
	clock.Set(sh.Starts.Add(-5 * time.Minute))
	closes := -10 * time.Minute
	if err := other.SetSalesClose(ctx, manager, 2, &closes); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 2, Seats: []string{"A1"}, Owner: "a"}); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("hold after another store closed the sales: %v", err)
	}
}
