package db_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// sellerMain runs in a child process: sell pairs of seats as fast as it
// can until it is killed.
func sellerMain() int {
	path := os.Getenv("BOXOFFICE_DB")
	show, _ := strconv.ParseInt(os.Getenv("BOXOFFICE_SHOW"), 10, 64)
	s, err := db.Open(path, db.Options{TicketKey: storetest.TicketKey})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	ctx := context.Background()
	hall := storetest.Hall()
	fmt.Println("READY")
	told := false
	for k := 0; ; k++ {
		if !told && k == len(hall.Seats)/2 {
			// Every pair tried and none sold: the show is full from the
			// rounds before (the last seller's hold blocks its pair until
			// it lapses). Kill away.
			told = true
			fmt.Println("FULL")
		}
		i := k % (len(hall.Seats) / 2)
		owner := fmt.Sprint("seller-", k)
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{hall.Seats[2*i].Label, hall.Seats[2*i+1].Label}, Owner: owner})
		if err != nil {
			continue // sold already: a cancel below frees it again
		}
		b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Cash, Tendered: 5000})
		if err == nil && !told {
			told = true
			fmt.Println("SOLD") // the parent kills only once a sale is in
		}
		if err == nil && k%3 == 0 {
			s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number})
		}
	}
}

// A process killed with SIGKILL in the middle of selling and cancelling
// leaves the file consistent: integrity ok, every booking whole (tickets,
// payments and sold seats agree with its status), the show's sold counter
// equal to the seats really sold, and the store opens and sells again.
func TestStore_KilledMidSale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, path := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	s.Close()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "BOXOFFICE_SELLER=1", "BOXOFFICE_DB="+path, "BOXOFFICE_SHOW="+strconv.FormatInt(show.ID, 10))
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first sale (or for a full show) however slow the
		// machine is, then kill the seller in the middle of the ones after.
		lines := bufio.NewScanner(out)
		for lines.Scan() && lines.Text() != "SOLD" && lines.Text() != "FULL" {
		}
		time.Sleep(time.Duration(150+100*round) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		raw := openRaw(t, path)
		var check string
		raw.QueryRow(`PRAGMA integrity_check`).Scan(&check)
		if check != "ok" {
			t.Fatalf("round %d: integrity %q", round, check)
		}
		var bad int
		// A confirmed booking has issued tickets, one sale payment, no
		// refund and its seats sold; a cancelled one has void tickets, one
		// refund per ticket and no sold seats.
		raw.QueryRow(`SELECT count(*) FROM bookings b WHERE
			(SELECT count(*) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'sale') != 1
			OR (b.status = 'confirmed' AND (
				(SELECT count(*) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'refund') != 0
				OR (SELECT count(*) FROM tickets t WHERE t.booking_id = b.id AND t.status = 'issued') !=
				   (SELECT count(*) FROM seat_claims c WHERE c.hold_id = b.hold_id AND c.status = 'sold')))
			OR (b.status = 'cancelled' AND (
				(SELECT count(*) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'refund') !=
				   (SELECT count(*) FROM tickets t WHERE t.booking_id = b.id)
				OR (SELECT count(*) FROM seat_claims c WHERE c.hold_id = b.hold_id AND c.status = 'sold') != 0))`).Scan(&bad)
		var counter, sold, bookings int
		raw.QueryRow(`SELECT sold FROM shows WHERE id = ?`, show.ID).Scan(&counter)
		raw.QueryRow(`SELECT count(*) FROM seat_claims WHERE show_id = ? AND status = 'sold'`, show.ID).Scan(&sold)
		raw.QueryRow(`SELECT count(*) FROM bookings`).Scan(&bookings)
		if bad != 0 || counter != sold {
			t.Fatalf("round %d: %d broken bookings of %d; sold counter %d, sold seats %d", round, bad, bookings, counter, sold)
		}
		if bookings == 0 {
			t.Fatalf("round %d: the seller sold nothing before it was killed", round)
		}
	}
	// The file still works: the next show (the seller may have sold this
	// one out) sells.
	s2 := dbtest.Open(t, path, db.Options{})
	if _, err := s2.HoldBest(context.Background(), clerk, booking.HoldBestRequest{ShowID: show.ID + 1, N: 2, Owner: "after"}); err != nil {
		t.Fatal(err)
	}
}

// Another process holding the write lock longer than busy_timeout: the
// writer retries the batch a bounded number of times and the caller sees
// success, never "database is locked". Held for good, the caller gets a
// plain internal error after the bounded retries.
func TestStore_BusyFromAnotherProcess(t *testing.T) {
	s, path := dbtest.MustOpen(t, db.Options{BusyTimeout: 20 * time.Millisecond})
	show := firstShow(t, s)
	raw := openRaw(t, path)
	ctx := context.Background()
	// lock takes the write lock from another connection and lets it go
	// when release says so.
	lock := func(release func() bool) {
		conn, err := raw.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		go func() {
			for !release() {
				time.Sleep(5 * time.Millisecond)
			}
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
		}()
	}
	held := func(d time.Duration) func() bool {
		until := time.Now().Add(d)
		return func() bool { return time.Now().After(until) }
	}
	t.Run("OK", func(t *testing.T) {
		before := s.Stats().Retries
		// The lock goes once the writer has met it and retried (or after
		// 3 s, which fails below): a fixed sleep let a loaded machine
		// release it before the write arrived.
		deadline := held(3 * time.Second)
		lock(func() bool { return s.Stats().Retries > before || deadline() })
		if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"J9"}, Owner: "busy"}); err != nil {
			t.Fatalf("a lock held until the writer retried reached the caller: %v", err)
		}
		if s.Stats().Retries == before {
			t.Fatal("the writer did not have to retry: the test did not hold the lock")
		}
	})
	t.Run("ErrHeldForGood", func(t *testing.T) {
		lock(held(5 * time.Second))
		_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"J10"}, Owner: "busy"})
		if err == nil || booking.ErrorMessage(err) != "Internal error." {
			t.Fatalf("got %v, want a plain internal error", err)
		}
	})
}
