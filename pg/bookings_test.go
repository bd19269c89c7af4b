package pg_test

import (
	"context"
	"fmt"
	"strings"
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

// PostgreSQL itself refuses a refund beyond the sale, written behind the
// store's back (payments_refund_within_sale), and a second refund of a
// ticket (payments_one_ticket_refund); the store's own refunds of every
// ticket add up to what was paid. The rule is the contract's
// (Refund/OneOfThreeUnderTwelveAttempts); this is the engine's guard.
func TestRefundTickets_EngineRefusesBeyondTheSale(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	conn := dbConn(t, u)
	sold := sell(t, s, clerk, []string{"A3", "A4"}, booking.CheckoutRequest{Types: map[string]string{"A4": "child"}})
	got, err := s.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"A3", "A4"}})
	if err != nil || got.Status != booking.BookingCancelled {
		t.Fatalf("refund of both: %+v, %v", got, err)
	}
	if back := count(t, conn, `SELECT sum(amount) FROM payments WHERE booking_id = $1 AND kind = 'refund'`, sold.ID); back != int64(sold.Total) {
		t.Fatalf("refunded %d of %d paid", back, sold.Total)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO payments (booking_id, kind, method, amount, at, staff) VALUES ($1, 'refund', 'card', 1, 0, 'x')`, sold.ID); err == nil {
		t.Fatal("PostgreSQL accepted a refund beyond the sale")
	}
	if _, err := conn.Exec(ctx, `INSERT INTO payments (booking_id, kind, method, amount, at, staff, ticket_id) VALUES ($1, 'refund', 'card', 0, 0, 'x', $2)`,
		sold.ID, sold.Tickets[0].ID); err == nil {
		t.Fatal("PostgreSQL accepted a second refund of a ticket")
	}
}

// Audit: one row per change, newest first, filtered as db filters, with
// the booking's number.
func TestAudit_Query(t *testing.T) {
	t.Parallel()
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

// A database whose name index was written by the old SQL rule is indexed
// anew, in Go, once, the next time a store opens it (migration 0011 and
// reindexNames): its bookings are found by the same words as new ones.
func TestOpen_ReindexesNamesOnce(t *testing.T) {
	t.Parallel()
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
