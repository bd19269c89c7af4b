package pg_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/pg"
)

// doorDay is the day the door tests sell on: Friday 13 March 2026.
var doorDay = time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)

// doorSeed is rosterSeed's hall and staff with three shows of a
// 100-minute film: today at 15:00 (show 1), tomorrow at 12:00 (show 2)
// and a late show today at 23:00, ending at 00:40 (show 3).
func doorSeed() booking.Seed {
	seed := rosterSeed(doorDay)
	seed.Shows = []booking.SeedShow{
		{Film: 0, Hall: 0, Starts: time.Date(2026, 3, 13, 15, 0, 0, 0, time.UTC)},
		{Film: 0, Hall: 0, Starts: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)},
		{Film: 0, Hall: 0, Starts: time.Date(2026, 3, 13, 23, 0, 0, 0, time.UTC)},
	}
	return seed
}

// doors opens two stores on a database of the test's own seeded with
// doorSeed, the clock at doorDay.
func doors(t *testing.T) (a, b *pg.Store, u string, clk *clock) {
	t.Helper()
	clk = &clock{now: doorDay}
	u = testURL(t)
	a = MustOpen(t, u, clk)
	if err := a.Seed(context.Background(), doorSeed(), false); err != nil {
		t.Fatal(err)
	}
	return a, MustOpen(t, u, clk), u, clk
}

// sellOne sells seat of show by card and returns its booking.
func sellOne(t *testing.T, s *pg.Store, show int64, seat string) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	owner := fmt.Sprintf("sell-%d-%s", show, seat)
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{seat}, Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dbExec runs one statement on u straight, as another program would.
func dbExec(t *testing.T, u, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
}

// Invariant 5 across servers: one ticket scanned by twenty doors at
// once, half on each of two servers, is admitted once, and every other
// scan is told when and by whom.
func TestAdmit_OnceAcrossTwoServers(t *testing.T) {
	t.Parallel()
	a, b, u, clk := doors(t)
	ctx := context.Background()
	sold := sellOne(t, a, 1, "A1")
	clk.Add(4 * time.Hour) // 14:00, doors open at 13:00
	dora := signIn(t, a, "dora")
	stores := []*pg.Store{a, b}
	var wg sync.WaitGroup
	start := make(chan struct{})
	got := make([]*booking.Admission, 20)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got[i], errs[i] = stores[i%2].Admit(ctx, dora, sold.Tickets[0].Code)
		}()
	}
	close(start)
	wg.Wait()
	admitted := 0
	for i, err := range errs {
		if err == nil {
			admitted++
			if adm := got[i]; adm.Booking != sold.Number || adm.Ticket.Seat.Label != "A1" || adm.Show.ID != 1 || adm.Ticket.AdmittedBy != "dora" {
				t.Fatalf("admission %+v", adm)
			}
			continue
		}
		if want := "Ticket A1 was already admitted at 14:00:00 by dora."; booking.ErrorCode(err) != booking.EConflict || booking.ErrorMessage(err) != want {
			t.Fatalf("scan %d: %v, want %q", i, err, want)
		}
	}
	if admitted != 1 {
		t.Fatalf("admitted %d times", admitted)
	}
	if n := auditCount(t, u, booking.AuditAdmit, "seat A1"); n != 1 {
		t.Fatalf("%d admit audit rows, want 1", n)
	}
}

// The door window, in db's words: too early today, another day, ended
// today, and a late show that ended after midnight (the fixed rule).
func TestAdmit_DoorWindow(t *testing.T) {
	t.Parallel()
	a, _, _, clk := doors(t)
	ctx := context.Background()
	dora := signIn(t, a, "dora")
	early, tomorrow, late := sellOne(t, a, 1, "A2"), sellOne(t, a, 2, "A1"), sellOne(t, a, 3, "A1")
	at := func(when time.Time, b *booking.Booking, want string) {
		t.Helper()
		clk.mu.Lock()
		clk.now = when
		clk.mu.Unlock()
		_, err := a.Admit(ctx, dora, b.Tickets[0].Code)
		if want == "" && err != nil || want != "" && (booking.ErrorCode(err) != booking.EInvalid || booking.ErrorMessage(err) != want) {
			t.Fatalf("at %s: %v, want %q", when.Format("Mon 15:04"), err, want)
		}
	}
	at(doorDay, early, "Doors open at 13:00 for the 15:00 show (Test Film, seat A2).")
	at(doorDay, tomorrow, "Ticket A1 is for Test Film at Sat 14 Mar 12:00.")
	at(time.Date(2026, 3, 13, 16, 40, 0, 0, time.UTC), early, "This show ended at 16:40.")
	at(time.Date(2026, 3, 14, 0, 41, 0, 0, time.UTC), late, "This show ended at 00:40.")
	at(time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC), late, "Ticket A1 is for Test Film at Fri 13 Mar 23:00.")
	at(time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC), tomorrow, "")
}

// Codes: a forged one reads like one never issued; one signed with the
// key before a rotation admits where OldTicketKeys has that key, and
// nowhere else.
func TestAdmit_TicketKeys(t *testing.T) {
	t.Parallel()
	a, _, u, clk := doors(t)
	ctx := context.Background()
	dora := signIn(t, a, "dora")
	sold := sellOne(t, a, 1, "B1")
	clk.Add(4 * time.Hour)
	code := []byte(sold.Tickets[0].Code)
	mid := len(code) / 2
	if code[mid] == 'A' {
		code[mid] = 'B'
	} else {
		code[mid] = 'A'
	}
	for _, bad := range []string{string(code), "NOT-A-CODE\x1b[2J"} {
		if _, err := a.Admit(ctx, dora, bad); booking.ErrorMessage(err) != "Unknown ticket code." || booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("forged code %q: %v", bad, err)
		}
	}
	old := booking.TicketKey{ID: 1, Secret: []byte("test-secret-0123456789abcdef0123")} // MustOpen's
	fresh := booking.TicketKey{ID: 2, Secret: []byte("another-secret-0123456789abcdef0")}
	open := func(opts pg.Options) *pg.Store {
		opts.Clock = clk.Now
		s, err := pg.Open(ctx, u, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	if _, err := open(pg.Options{TicketKey: fresh}).Admit(ctx, dora, sold.Tickets[0].Code); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("an old code without the old key: %v", err)
	}
	if _, err := open(pg.Options{TicketKey: fresh, OldTicketKeys: []booking.TicketKey{old}}).Admit(ctx, dora, sold.Tickets[0].Code); err != nil {
		t.Fatalf("an old code with the old key: %v", err)
	}
}

// Refusals whatever the time: a cancelled ticket, a cancelled show, an
// actor who may not admit or whose access was withdrawn.
func TestAdmit_Refused(t *testing.T) {
	t.Parallel()
	a, b, u, clk := doors(t)
	ctx := context.Background()
	dora := signIn(t, a, "dora")
	void, other, show := sellOne(t, a, 1, "A3"), sellOne(t, a, 1, "A4"), sellOne(t, a, 2, "A5")
	clk.Add(4 * time.Hour)
	dbExec(t, u, `UPDATE tickets SET status = 'void' WHERE booking_id = $1`, void.ID)
	if _, err := b.Admit(ctx, dora, void.Tickets[0].Code); booking.ErrorMessage(err) != "Ticket A3 of "+void.Number+" was cancelled and refunded." {
		t.Fatalf("a void ticket: %v", err)
	}
	dbExec(t, u, `UPDATE shows SET status = 'cancelled' WHERE id = 2`)
	if _, err := b.Admit(ctx, dora, show.Tickets[0].Code); booking.ErrorMessage(err) != "This show was cancelled." || booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a cancelled show: %v", err)
	}
	if _, err := b.Admit(ctx, booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}, other.Tickets[0].Code); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("the kiosk admitted: %v", err)
	}
	if err := a.DisableStaff(ctx, booking.System, "dora"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Admit(ctx, dora, other.Tickets[0].Code); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled door's scan: %v", err)
	}
	var status string
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT string_agg(status, ',') FROM tickets WHERE booking_id = $1`, other.ID).Scan(&status); err != nil || strings.TrimSpace(status) != "issued" {
		t.Fatalf("the refused scans left %q, %v", status, err)
	}
}
