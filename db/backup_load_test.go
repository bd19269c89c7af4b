package db_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// Must show 5, first half: a backup taken while 64 clients sell, as the
// bench does (goroutines on the real store, each Hold then Checkout),
// opens, passes the check and holds every booking acknowledged before the
// backup started; the clients go on selling while it is taken.
func TestStore_BackupUnderSellLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpenDemo(t, db.Options{SweepInterval: -1})
	var shows []int64
	for d := 1; d <= 3; d++ {
		day, err := s.Shows(ctx, booking.System, time.Now().AddDate(0, 0, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range day {
			shows = append(shows, sh.ID)
		}
	}
	if len(shows) < 10 {
		t.Fatalf("only %d shows to sell", len(shows))
	}

	var mu sync.Mutex
	acked := map[string]time.Time{} // booking number -> when its Checkout returned
	var backupStarted, backupEnded atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 64 {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				b, err := sellPair(ctx, s, shows[(c+k)%len(shows)], fmt.Sprintf("load-%d-%d", c, k))
				if err != nil {
					continue // a show sold out or a clash: the next one
				}
				mu.Lock()
				acked[b.Number] = time.Now()
				mu.Unlock()
			}
		})
	}
	waitFor := func(n int) {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			got := len(acked)
			mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d sales", got)
			}
		}
	}
	waitFor(100)
	mu.Lock()
	before := len(acked)
	mu.Unlock()
	path := filepath.Join(t.TempDir(), "during.db")
	backupStarted.Store(time.Now().UnixNano())
	info, err := s.Backup(ctx, path)
	backupEnded.Store(time.Now().UnixNano())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(before + 20) // selling goes on after it
	close(stop)
	wg.Wait()

	report, err := db.Verify(ctx, path)
	if err != nil || !report.OK() {
		t.Fatalf("the copy taken under load: %+v %v", report, err)
	}
	inCopy := bookingNumbers(t, path)
	started, ended := time.Unix(0, backupStarted.Load()), time.Unix(0, backupEnded.Load())
	var ackedBefore, during int
	for number, at := range acked {
		switch {
		case at.Before(started):
			ackedBefore++
			if !inCopy[number] {
				t.Errorf("%s was acknowledged before the backup started but is not in it", number)
			}
		case at.Before(ended):
			during++
		}
	}
	if audit, err := db.AuditSales(ctx, path); err != nil || audit.DoubleSold != 0 || audit.Bookings != info.Bookings {
		t.Errorf("the copy: %+v %v (backup said %d bookings)", audit, err, info.Bookings)
	}
	if int64(len(inCopy)) > int64(len(acked)) || ackedBefore == 0 {
		t.Errorf("%d bookings in the copy, %d acknowledged in all, %d before the backup", len(inCopy), len(acked), ackedBefore)
	}
	dbtest.MustBeWhole(t, s)
	t.Logf("%d sales acknowledged before the backup, %d while it ran (%s), %d in all; the copy holds %d",
		ackedBefore, during, ended.Sub(started).Round(time.Millisecond), len(acked), len(inCopy))
}

// sellPair holds the best two seats of a show and sells them.
func sellPair(ctx context.Context, s *db.Store, show int64, owner string) (*booking.Booking, error) {
	h, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: show, N: 2, Owner: owner})
	if err != nil {
		return nil, err
	}
	return s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
}

// bookingNumbers reads every booking number in the file at path.
func bookingNumbers(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw := openRaw(t, path)
	defer raw.Close()
	rows, err := raw.Query(`SELECT number FROM bookings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[n] = true
	}
	return out
}
