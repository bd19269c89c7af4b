package tui

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// buildBoxoffice builds the binary the way it ships.
func buildBoxoffice(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "boxoffice")
	cmd := osexec.Command("go", "build", "-o", bin, "boxoffice")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// cancelJSON is what show cancel --json prints.
type cancelJSON struct {
	Status      string `json:"status"`
	Reason      string `json:"reason"`
	RefundedNow int    `json:"refunded_now"`
	Bookings    int    `json:"bookings"`
	Contacts    []struct {
		Booking  string `json:"booking"`
		Name     string `json:"name"`
		Phone    string `json:"phone"`
		Refunded string `json:"refunded"`
	} `json:"contacts"`
}

// sellForty sells 40 bookings of one or two seats of show, every other
// one in cash, each to a named customer, and returns them by number.
func sellForty(t *testing.T, s *db.Store, show booking.Show) map[string]*booking.Booking {
	t.Helper()
	ctx := context.Background()
	sm := storeMap(t, s, show.ID, "")
	var free []booking.Seat
	for _, seat := range sm.Hall.Seats {
		if !seat.Kind.Accessible() && sm.State(seat.ID) == booking.SeatFree {
			free = append(free, seat)
		}
	}
	out := map[string]*booking.Booking{}
	for i := range 40 {
		n := 1 + i%2
		seats := free[:n]
		free = free[n:]
		ids := []int64{seats[0].ID}
		if n == 2 {
			ids = append(ids, seats[1].ID)
		}
		owner := fmt.Sprint("seller-", i)
		h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: show.ID, SeatIDs: ids, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		req := booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card,
			Customer: fmt.Sprintf("Customer %02d", i), Phone: fmt.Sprintf("0700 900 %03d", i)}
		if i%2 == 1 {
			req.Method, req.Tendered = booking.Cash, 100000
		}
		b, err := s.Checkout(ctx, booking.System, req)
		if err != nil {
			t.Fatal(err)
		}
		out[b.Number] = b
	}
	return out
}

// awaitMap delivers the store's changes to m until its map says cond, or
// fails after a generous deadline (the other process's commits arrive
// through the poller, on a loaded machine in seconds).
func awaitMap(t *testing.T, m *Model, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("the map never said %s:\n%s", what, screenText(m))
		}
		wait := takeParked(t, m, parkChange)
		got := make(chan tea.Msg, 1)
		go func() { got <- wait() }()
		select {
		case msg := <-got:
			send(t, m, msg)
		case <-time.After(time.Until(deadline)):
		}
	}
}

// Must show 1: a show with 40 bookings, its map open at two counters (two
// stores on the file, as two servers would have), is cancelled by the
// real binary: once killed halfway, then twice at the same time. Each
// booking is refunded exactly once, the two maps say the show is
// cancelled and refuse to hold, and both contact lists name all 40.
func TestCancelShow_AcrossProcesses(t *testing.T) {
	t.Parallel()
	bin := buildBoxoffice(t)
	clock := storetest.NewClock(time.Now())
	opts := storeOptions(clock)
	seeded, path := dbtest.MustOpenDemo(t, opts)
	data := filepath.Dir(path)

	// Tomorrow's first Grand show, far from its end whenever this runs.
	shows, err := seeded.Shows(context.Background(), booking.System, clock.Now().AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var show booking.Show
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			show = sh
			break
		}
	}
	sold := sellForty(t, seeded, show)

	opts.PollInterval = 20 * time.Millisecond
	var counters []*Model
	for i := range 2 {
		s := dbtest.Open(t, path, opts)
		m := newTestModel(t, s, clock, fmt.Sprint("counter-", i), 120, 40)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		run(t, m, m.openSeatMap(show))
		if m.seats.sm == nil || m.seats.show.Cancelled() {
			t.Fatalf("counter %d: map not open: %q", i, m.status)
		}
		counters = append(counters, m)
	}

	const reason = "Projector broken"
	cancel := func(env ...string) *osexec.Cmd {
		cmd := osexec.Command(bin, "--data", data, "show", "cancel", strconv.FormatInt(show.ID, 10), "--reason", reason, "--json")
		cmd.Env = append(os.Environ(), env...)
		return cmd
	}
	// Killed halfway: the process dies after its tenth refund.
	out, err := cancel("BOXOFFICE_TEST_DIE_AFTER_REFUNDS=10").CombinedOutput()
	if err == nil {
		t.Fatalf("the killed run exited 0: %s", out)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := raw.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM bookings WHERE show_id = ? AND status = 'cancelled'`, show.ID); n != 10 {
		t.Fatalf("the killed run cancelled %d bookings, want 10", n)
	}

	// Run again, twice at the same time: together they finish the job.
	var wg sync.WaitGroup
	results := make([]cancelJSON, 2)
	for i := range results {
		wg.Go(func() {
			out, err := cancel().Output()
			if err != nil {
				t.Errorf("run %d: %v %s", i, err, out)
				return
			}
			if err := json.Unmarshal(out, &results[i]); err != nil {
				t.Errorf("run %d: %v %q", i, err, out)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if now := results[0].RefundedNow + results[1].RefundedNow; now != 30 {
		t.Errorf("the two runs refunded %d + %d bookings, want 30 between them", results[0].RefundedNow, results[1].RefundedNow)
	}
	for i, r := range results {
		if r.Status != "cancelled" || r.Reason != reason || r.Bookings != 40 || len(r.Contacts) != 40 {
			t.Errorf("run %d: %s %q, %d bookings, %d contacts", i, r.Status, r.Reason, r.Bookings, len(r.Contacts))
		}
		for _, k := range r.Contacts {
			b := sold[k.Booking]
			if b == nil || k.Name != b.Customer || k.Phone != b.Phone || k.Refunded != b.Total.String() {
				t.Errorf("run %d: contact %+v, sold %+v", i, k, b)
			}
		}
	}

	// The money: one refund per ticket sold, never two, adding up to what
	// was taken; every booking cancelled; the file's invariants hold.
	tickets := 0
	var taken booking.Money
	for _, b := range sold {
		tickets += len(b.Tickets)
		taken += b.Total
	}
	if n := count(`SELECT count(*) FROM payments p JOIN bookings b ON b.id = p.booking_id WHERE b.show_id = ? AND p.kind = 'refund'`, show.ID); n != tickets {
		t.Errorf("%d refund payments, want one for each of %d tickets", n, tickets)
	}
	if n := count(`SELECT count(*) FROM (SELECT ticket_id FROM payments WHERE kind = 'refund' GROUP BY ticket_id HAVING count(*) > 1)`); n != 0 {
		t.Errorf("%d tickets refunded twice", n)
	}
	if n := count(`SELECT coalesce(sum(p.amount), 0) FROM payments p JOIN bookings b ON b.id = p.booking_id WHERE b.show_id = ? AND p.kind = 'refund'`, show.ID); booking.Money(n) != taken {
		t.Errorf("refunded %s, took %s", booking.Money(n), taken)
	}
	if n := count(`SELECT count(*) FROM bookings WHERE show_id = ? AND status <> 'cancelled'`, show.ID); n != 0 {
		t.Errorf("%d bookings not cancelled", n)
	}
	if n := count(`SELECT count(*) FROM audit WHERE show_id = ? AND action = 'cancel'`, show.ID); n != 40 {
		t.Errorf("%d cancel audit rows, want 40", n)
	}
	if n := count(`SELECT count(*) FROM audit WHERE show_id = ? AND action = 'show_cancel'`, show.ID); n != 1 {
		t.Errorf("%d show_cancel audit rows, want 1", n)
	}
	if problems, err := seeded.CheckInvariants(context.Background()); err != nil || len(problems) != 0 {
		t.Errorf("invariants: %v %v", problems, err)
	}

	// Both maps say so, free again and refusing to hold.
	for i, m := range counters {
		awaitMap(t, m, "cancelled", func() bool { return m.seats.show.Cancelled() && m.seats.show.Sold == 0 })
		screen := screenText(m)
		if !strings.Contains(screen, "Cancelled — "+reason) || !strings.Contains(screen, "CANCELLED") {
			t.Errorf("counter %d's map does not say the show is cancelled:\n%s", i, screen)
		}
		press(t, m, "space")
		if !strings.Contains(m.status, "This show was cancelled") || len(m.seats.mine()) != 0 {
			t.Errorf("counter %d held a seat of the cancelled show: %q", i, m.status)
		}
	}
}

// TestGolden_CancelledShow draws a cancelled show in the shows list and
// its seat map, where holding a seat is refused, at 80×24 and 120×40.
func TestGolden_CancelledShow(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	var grand booking.Show
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			grand = sh
			break
		}
	}
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: grand.ID, Seats: []string{"H9", "H10"}, Owner: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "elsewhere", IdempotencyKey: "golden", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelShow(ctx, booking.System, grand.ID, "Projector broken \x1b[2J"); err != nil {
		t.Fatal(err)
	}
	profiles := []colorprofile.Profile{colorprofile.Ascii, colorprofile.ANSI256}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, hgt := size[0], size[1]
		m := newTestModel(t, s, clock, fmt.Sprintf("golden-%d", w), w, hgt)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		m.setInfo("")
		shot := func(screen string) {
			for _, p := range profiles {
				golden(t, m, fmt.Sprintf("%s-%dx%d-%s", screen, w, hgt, p), p)
			}
		}
		for m.shows.visible()[m.shows.cursor].ID != grand.ID {
			press(t, m, "down")
		}
		shot("shows-cancelled")
		press(t, m, "enter")
		press(t, m, "space")
		if !strings.Contains(m.status, "This show was cancelled: Projector broken [2J. No seats can be held.") || len(m.seats.mine()) != 0 {
			t.Fatalf("hold on a cancelled show: %q", m.status)
		}
		shot("seatmap-cancelled")
	}
}
