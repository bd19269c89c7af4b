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

var (
	sue = booking.Actor{Name: "sue", Role: booking.RoleSupervisor, Terminal: "t2"}
	mgr = booking.Actor{Name: "max", Role: booking.RoleManager, Terminal: "t3"}
)

// sell holds seats for owner and checks them out with req's payment
// fields (HoldID, Owner and the key are filled in).
func sell(t *testing.T, s *pg.Store, actor booking.Actor, seats []string, req booking.CheckoutRequest) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	h, err := s.Hold(ctx, actor, booking.HoldRequest{ShowID: 1, Seats: seats, Owner: actor.Name})
	if err != nil {
		t.Fatalf("hold %v: %v", seats, err)
	}
	req.HoldID, req.Owner = h.ID, actor.Name
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = fmt.Sprintf("k-%d-%d", h.ID, time.Now().UnixNano())
	}
	if req.Method == "" {
		req.Method = booking.Card
	}
	b, err := s.Checkout(ctx, actor, req)
	if err != nil {
		t.Fatalf("checkout %v: %v", seats, err)
	}
	return b
}

// db opens a plain connection to the store's schema, for what the test
// reads or writes behind the store's back.
func dbConn(t *testing.T, u string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func count(t *testing.T, conn *pgx.Conn, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// Two servers cancel the same booking at the same moment, 20 rounds
// (cash and card): one cancel wins each round and refunds once; the other
// is told, as db tells it, that the booking is already cancelled, and
// nothing more moves.
func TestCancel_TwoServersSameMomentRefundOnce(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	conn := dbConn(t, u)
	float := booking.Money(10000)
	if _, err := a.OpenShift(ctx, sue, booking.OpenShiftRequest{Float: float}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		method := []booking.PayMethod{booking.Card, booking.Cash}[round%2]
		seat := fmt.Sprintf("%s%d", []string{"A", "B"}[round/10], round%10+1)
		sold := sell(t, a, sue, []string{seat}, booking.CheckoutRequest{Method: method})
		var wg sync.WaitGroup
		start := make(chan struct{})
		got := make([]*booking.Booking, 2)
		errs := make([]error, 2)
		for i, s := range []*pg.Store{a, b} {
			wg.Add(1)
			go func(i int, s *pg.Store) {
				defer wg.Done()
				<-start
				// Lower case, no prefix: as a clerk types it.
				got[i], errs[i] = s.Cancel(ctx, sue, booking.CancelRequest{Number: strings.ToLower(strings.TrimPrefix(sold.Number, "BO-")), Reason: "ill"})
			}(i, s)
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range errs {
			if errs[i] == nil {
				won++
				if got[i].Status != booking.BookingCancelled || got[i].Tickets[0].Status != booking.TicketVoid {
					t.Fatalf("round %d: the winner's booking reads %s, ticket %s", round, got[i].Status, got[i].Tickets[0].Status)
				}
				continue
			}
			var stale *booking.StaleError
			if !errors.As(errs[i], &stale) || booking.ErrorCode(errs[i]) != booking.EConflict {
				t.Fatalf("round %d: the loser got %v (%T), want *StaleError", round, errs[i], errs[i])
			}
			if msg, want := booking.ErrorMessage(errs[i]), "Booking "+sold.Number+" is already cancelled"; msg != want {
				t.Fatalf("round %d: the loser was told %q, want %q", round, msg, want)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d cancels won, want 1", round, won)
		}
		refunds := count(t, conn, `SELECT count(*) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID)
		back := count(t, conn, `SELECT coalesce(sum(amount), 0) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID)
		rows := count(t, conn, `SELECT count(*) FROM audit WHERE booking_id = $1 AND action = 'cancel'`, sold.ID)
		if refunds != 1 || back != int64(sold.Total) || rows != 1 {
			t.Fatalf("round %d: %d refunds of %d (paid %d), %d cancel rows; want one refund of all, one row", round, refunds, back, sold.Total, rows)
		}
		if method == booking.Cash {
			if n := count(t, conn, `SELECT count(*) FROM payments WHERE booking_id = $1 AND kind = 'refund' AND shift_id IS NOT NULL`, sold.ID); n != 1 {
				t.Fatalf("round %d: a cash refund outside the canceller's shift", round)
			}
		}
	}
	m, err := b.SeatMap(ctx, sue, 1, "")
	if err != nil || m.Show.Sold != 0 {
		t.Fatalf("after every booking was cancelled: sold %d, %v", m.Show.Sold, err)
	}
	// The cash-up of the canceller's shift: ten cash sales in, ten out.
	rep, err := a.CloseShift(ctx, sue, booking.CloseShiftRequest{Counted: float})
	if err != nil || rep.Expected != float || rep.CashSales != 10*1250 || rep.CashRefunds != 10*1250 || rep.Sales != 20 || rep.Refunds != 20 {
		t.Fatalf("cash-up: %+v, %v", rep, err)
	}
}

func TestCancel_Refusals(t *testing.T) {
	s, u, clk := seeded(t)
	ctx := context.Background()
	conn := dbConn(t, u)
	sold := sell(t, s, clerk, []string{"A1", "A2"}, booking.CheckoutRequest{})
	if _, err := s.Cancel(ctx, clerk, booking.CancelRequest{Number: sold.Number}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk's cancel: %v", err)
	}
	if _, err := s.Cancel(ctx, clerk, booking.CancelRequest{Number: sold.Number, Approver: &booking.Credentials{Name: "sue", PIN: "9999"}}); booking.ErrorCode(err) != booking.EForbidden ||
		booking.ErrorMessage(err) != "Wrong name or PIN." {
		t.Fatalf("an approval with a wrong PIN: %v", err)
	}
	if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: "BO-22222222"}); booking.ErrorMessage(err) != "No booking BO-22222222." {
		t.Fatalf("an unknown number: %v", err)
	}
	// A ticket admitted (behind the store's back: the door is not on
	// PostgreSQL yet) stops the cancel, and nothing moves.
	if _, err := conn.Exec(ctx, `UPDATE tickets SET status = 'admitted' WHERE id = $1`, sold.Tickets[0].ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: sold.Number})
	if booking.ErrorCode(err) != booking.EConflict || booking.ErrorMessage(err) != "A ticket of "+sold.Number+" was already admitted; it cannot be cancelled." {
		t.Fatalf("cancel with an admitted ticket: %v", err)
	}
	if n := count(t, conn, `SELECT count(*) FROM payments WHERE kind = 'refund'`); n != 0 {
		t.Fatalf("%d refunds after a refused cancel", n)
	}
	if got, _ := s.Booking(ctx, sue, sold.Number); got.Status != booking.BookingConfirmed || got.Tickets[1].Status != booking.TicketIssued {
		t.Fatalf("after a refused cancel: %s, %s", got.Status, got.Tickets[1].Status)
	}
	// After the start, a supervisor may not; a manager may.
	other := sell(t, s, clerk, []string{"B1"}, booking.CheckoutRequest{})
	clk.Add(24*time.Hour + time.Minute)
	if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: other.Number}); booking.ErrorCode(err) != booking.EForbidden ||
		!strings.Contains(booking.ErrorMessage(err), "show has started: a manager must approve the refund.") {
		t.Fatalf("a supervisor's cancel after the start: %v", err)
	}
	got, err := s.Cancel(ctx, mgr, booking.CancelRequest{Number: other.Number, Reason: "late"})
	if err != nil || got.Status != booking.BookingCancelled || got.CancelledBy != "max" || got.Reason != "late" {
		t.Fatalf("a manager's cancel after the start: %+v, %v", got, err)
	}
	// Cash without a shift needs a float.
	clk.Add(-24 * time.Hour)
	float := booking.Money(2000)
	cash := sell(t, s, clerk, []string{"B5"}, booking.CheckoutRequest{Method: booking.Cash, OpenFloat: &float})
	if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: cash.Number}); !errors.Is(err, booking.ErrNoShift) {
		t.Fatalf("a cash cancel without a shift: %v", err)
	}
	got, err = s.Cancel(ctx, sue, booking.CancelRequest{Number: cash.Number, OpenFloat: &float})
	if err != nil || len(got.Payments) != 2 || got.Payments[1].ShiftID == 0 || got.Payments[1].ShiftID == got.Payments[0].ShiftID {
		t.Fatalf("a cash cancel opening the canceller's shift: %+v, %v", got, err)
	}
}

// Part refunds never add up to more than was paid: each ticket is
// refunded once (two servers refunding the same seat at once: one wins),
// the last one cancels the booking, and PostgreSQL itself refuses a
// refund written behind the store's back beyond the sale.
func TestRefundTickets_NeverMoreThanPaid(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	conn := dbConn(t, u)
	sold := sell(t, a, clerk, []string{"A3", "A4", "A5"}, booking.CheckoutRequest{Types: map[string]string{"A4": "child"}})
	if sold.Total != 1250+800+1250 {
		t.Fatalf("total %d", sold.Total)
	}
	got, err := a.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"a4"}, Reason: "left early"})
	if err != nil || got.Status != booking.BookingConfirmed || len(got.Payments) != 2 || got.Payments[1].Amount != 800 {
		t.Fatalf("refund of A4: %+v, %v", got, err)
	}
	_, err = b.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"A4"}})
	if msg := booking.ErrorMessage(err); booking.ErrorCode(err) != booking.EConflict || msg != "The ticket for A4 is already refunded" {
		t.Fatalf("A4 again: %v", err)
	}
	if _, err := a.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"B9"}}); booking.ErrorMessage(err) != "B9 is not a seat of "+sold.Number+"." {
		t.Fatalf("a seat not in the booking: %v", err)
	}
	// Two servers refund A3 at once, ten times over: one refund.
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, errs[i] = []*pg.Store{a, b}[i%2].RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"A3"}})
		}(i)
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		var stale *booking.StaleError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &stale):
			t.Fatalf("a losing refund of A3: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d refunds of A3 won, want 1", won)
	}
	m, err := a.SeatMap(ctx, clerk, 1, "")
	if err != nil || m.Show.Sold != 1 {
		t.Fatalf("sold %d after two of three refunded, %v", m.Show.Sold, err)
	}
	got, err = b.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"A5"}})
	if err != nil || got.Status != booking.BookingCancelled {
		t.Fatalf("the last ticket's refund: %+v, %v", got, err)
	}
	back := count(t, conn, `SELECT sum(amount) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID)
	if back != int64(sold.Total) {
		t.Fatalf("refunded %d of %d paid", back, sold.Total)
	}
	if _, err := a.Cancel(ctx, sue, booking.CancelRequest{Number: sold.Number}); booking.ErrorMessage(err) != "Booking "+sold.Number+" is already cancelled" {
		t.Fatalf("cancel after every ticket was refunded: %v", err)
	}
	if n := count(t, conn, `SELECT count(*) FROM audit WHERE booking_id = $1 AND action = 'refund'`, sold.ID); n != 3 {
		t.Fatalf("%d refund rows for three refunds", n)
	}
	// Behind the store's back: one cent more than was paid is refused.
	_, err = conn.Exec(ctx, `INSERT INTO payments (booking_id, kind, method, amount, at, staff) VALUES ($1, 'refund', 'card', 1, 0, 'x')`, sold.ID)
	if err == nil {
		t.Fatal("PostgreSQL accepted a refund beyond the sale")
	}
}

// Audit: one row per change, newest first, filtered as db filters, with
// the booking's number.
func TestAudit_Query(t *testing.T) {
	s, _, clk := seeded(t)
	ctx := context.Background()
	sold := sell(t, s, clerk, []string{"B2", "B3"}, booking.CheckoutRequest{})
	clk.Add(time.Second)
	if _, err := s.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"B2"}, Reason: "ill"}); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Second)
	if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: sold.Number, Reason: "all ill"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Audit(ctx, sue, booking.AuditQuery{}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a supervisor reading the audit trail: %v", err)
	}
	rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Booking: strings.ToLower(sold.Number)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		if r.Booking != sold.Number {
			t.Fatalf("row %+v names %q", r, r.Booking)
		}
		got = append(got, fmt.Sprintf("%s %s %d %s", r.Action, r.Actor, r.Amount, r.Detail))
	}
	want := []string{"cancel sue 1250 all ill", "refund sue 1250 " + sold.Number + " B2: ill", "sale ann 2500 card: B2 B3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows of %s:\n%s\nwant\n%s", sold.Number, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Staff: "SUE", Limit: 1}); err != nil || len(rows) != 1 || rows[0].Action != booking.AuditCancel {
		t.Fatalf("sue's newest row: %+v, %v", rows, err)
	}
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	if rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Day: day}); err != nil || len(rows) != 5 { // the seed, hold, sale, refund, cancel
		t.Fatalf("the day's rows: %+v, %v", rows, err)
	}
	if rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Day: day.AddDate(0, 0, 1)}); err != nil || len(rows) != 0 {
		t.Fatalf("the next day's rows: %d, %v", len(rows), err)
	}
	if _, err := s.Audit(ctx, mgr, booking.AuditQuery{Booking: "BO-22222222"}); booking.ErrorMessage(err) != "No booking BO-22222222." {
		t.Fatalf("an unknown booking: %v", err)
	}
}

// A cancel on one server racing a part refund of the same booking on
// another, 10 rounds: whichever goes first, each ticket goes back once,
// the refunds add up to what was paid, and the seats are all free.
func TestCancel_RacingRefundOnAnotherServer(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	conn := dbConn(t, u)
	for round := 0; round < 10; round++ {
		row := []string{"A", "B"}[round/5]
		seats := []string{fmt.Sprintf("%s%d", row, 2*(round%5)+1), fmt.Sprintf("%s%d", row, 2*(round%5)+2)}
		sold := sell(t, a, clerk, seats, booking.CheckoutRequest{})
		var wg sync.WaitGroup
		start := make(chan struct{})
		var cancelErr, refundErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, cancelErr = a.Cancel(ctx, sue, booking.CancelRequest{Number: sold.Number})
		}()
		go func() {
			defer wg.Done()
			<-start
			_, refundErr = b.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: seats[:1]})
		}()
		close(start)
		wg.Wait()
		var stale *booking.StaleError
		if cancelErr != nil || (refundErr != nil && !errors.As(refundErr, &stale)) {
			t.Fatalf("round %d: cancel %v, refund %v", round, cancelErr, refundErr)
		}
		back := count(t, conn, `SELECT coalesce(sum(amount), 0) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID)
		per := count(t, conn, `SELECT count(*) - count(DISTINCT ticket_id) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID)
		if back != int64(sold.Total) || per != 0 {
			t.Fatalf("round %d: refunded %d of %d paid, %d tickets refunded twice", round, back, sold.Total, per)
		}
	}
	if sh, err := b.Show(ctx, clerk, 1); err != nil || sh.Sold != 0 {
		t.Fatalf("sold %d after every booking went back, %v", sh.Sold, err)
	}
}

func TestCancel_WithdrawnSupervisorRefused(t *testing.T) {
	s, u, _ := seeded(t)
	ctx := context.Background()
	conn := dbConn(t, u)
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO staff (name, role, pin_hash, created_at, disabled) VALUES ('sid', 'supervisor', 'x', 0, true) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	sid := booking.Actor{StaffID: id, Name: "sid", Role: booking.RoleSupervisor}
	sold := sell(t, s, clerk, []string{"A6"}, booking.CheckoutRequest{})
	if _, err := s.Cancel(ctx, sid, booking.CancelRequest{Number: sold.Number}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled supervisor's cancel: %v", err)
	}
	if _, err := s.RefundTickets(ctx, sid, booking.RefundRequest{Number: sold.Number, Seats: []string{"A6"}}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled supervisor's refund: %v", err)
	}
	if n := count(t, conn, `SELECT count(*) FROM payments WHERE kind = 'refund'`); n != 0 {
		t.Fatalf("%d refunds by a disabled supervisor", n)
	}
}

// A database whose name index was written by the old SQL rule is indexed
// anew, in Go, once, the next time a store opens it (migration 0010 and
// reindexNames): its bookings are found by the same words as new ones.
func TestOpen_ReindexesNamesOnce(t *testing.T) {
	s, u, clk := seeded(t)
	ctx := context.Background()
	old := sell(t, s, clerk, []string{"A1"}, booking.CheckoutRequest{Customer: "Дмитрий Орлов"})
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// As the old rule left it: indexed under the unfolded word.
	for _, q := range []string{`DELETE FROM booking_words`, `INSERT INTO booking_words VALUES ('Дмитрий', ` + fmt.Sprint(old.ID) + `)`,
		`INSERT INTO meta (key, value) VALUES ('name_words', 'to index')`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = MustOpen(t, u, clk)
	found, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: "дмитрий орл"})
	if err != nil || len(found) != 1 || found[0].ID != old.ID {
		t.Fatalf("found %d bookings, %v", len(found), err)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM meta WHERE key = 'name_words'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the reindex mark is still there (%d, %v)", left, err)
	}
}
