package db_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// Migration 0014 refuses a cash payment without an open shift of its
// staff, whatever writes it.
func TestShift_TriggerRefusesCashWithoutShift(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	sh, err := s.CurrentShift(context.Background(), clerk)
	if err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	insert := `INSERT INTO payments (booking_id, kind, method, amount, tendered, at, staff, shift_id) VALUES (?, 'sale', ?, 100, 100, 0, ?, ?)`
	for _, c := range []struct {
		method, staff string
		shift         any
		ok            bool
	}{
		{"cash", "carl", nil, false},
		{"cash", "sue", sh.ID, false}, // carl's shift, sue's payment
		{"cash", "carl", sh.ID + 1000, false},
		{"card", "carl", nil, true},
		{"cash", "CARL", sh.ID, true},
	} {
		_, err := raw.Exec(insert, b.ID, c.method, c.staff, c.shift)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "open shift")) {
			t.Errorf("%s by %s in shift %v: %v", c.method, c.staff, c.shift, err)
		}
	}
	dbtest.MustCloseShift(t, s, clerk)
	if _, err := raw.Exec(insert, b.ID, "cash", "carl", sh.ID); err == nil {
		t.Error("a cash payment went into a closed shift")
	}
	if _, err := raw.Exec(`UPDATE shifts SET float = 0 WHERE id = ?`, sh.ID); err == nil {
		t.Error("a shift's float was changed")
	}
	if _, err := raw.Exec(`DELETE FROM shift_events`); err == nil {
		t.Error("shift events were deleted")
	}
}

// CheckInvariants follows refunds ticket by ticket: a partial refund is
// whole, a refund of a ticket still issued is not.
func TestRefund_CheckInvariants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1", "A2")
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}}); err != nil {
		t.Fatal(err)
	}
	dbtest.MustBeWhole(t, s)
	raw := openRaw(t, path)
	if _, err := raw.Exec(`INSERT INTO payments (booking_id, kind, method, amount, at, staff, ticket_id) VALUES (?, 'refund', 'card', 1250, 0, 'x', ?)`, b.ID, b.Tickets[1].ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.CheckInvariants(ctx)
	joined := strings.Join(got, "\n")
	if err != nil || len(got) != 2 || !strings.Contains(joined, "paid 25.00 less 25.00 refunded for 12.50 of live tickets") || !strings.Contains(joined, "1 ticket refunds not matching their ticket") {
		t.Fatalf("problems %q %v", got, err)
	}
}

// checkHistoryShifts: the history generator opens the clerk's shift each
// morning and cashes it up each night: every cash payment is in a closed
// shift of its day, and each shift's expected cash is its float and its
// own payments. TestGenerateHistory checks its history with it.
func checkHistoryShifts(t *testing.T, path string) {
	t.Helper()
	raw := openRaw(t, path)
	var shifts, open, days, bad, outside int
	raw.QueryRow(`SELECT count(*), count(*) FILTER (WHERE status = 'open'), count(DISTINCT date(opened_at / 1000, 'unixepoch', 'localtime')) FROM shifts`).Scan(&shifts, &open, &days)
	raw.QueryRow(`SELECT count(*) FROM shifts s WHERE s.expected <> s.float +
		(SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments p WHERE p.shift_id = s.id AND p.method = 'cash')`).Scan(&bad)
	raw.QueryRow(`SELECT count(*) FROM payments p WHERE p.shift_id IS NULL OR date(p.at / 1000, 'unixepoch', 'localtime') <>
		(SELECT date(opened_at / 1000, 'unixepoch', 'localtime') FROM shifts WHERE id = p.shift_id)`).Scan(&outside)
	if shifts < 2 || open != 0 || days != shifts || bad != 0 || outside != 0 {
		t.Fatalf("%d shifts (%d open) over %d days, %d with a wrong expected figure, %d payments outside their day's shift", shifts, open, days, bad, outside)
	}
}

// A shift's takings are kept beside it by a trigger (migration 0026), so
// a payment written by anything — here a bare SQL connection — is in the
// X report at once; totals edited by hand are named by the invariant
// check.
func TestShift_MoneyKeptByTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	sh, err := s.CurrentShift(ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	if _, err := raw.Exec(`INSERT INTO payments (booking_id, kind, method, amount, tendered, at, staff, shift_id) VALUES (?, 'sale', 'cash', 700, 700, 0, 'carl', ?)`, b.ID, sh.ID); err != nil {
		t.Fatal(err)
	}
	after, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.CashSales != before.CashSales+700 || after.Sales != before.Sales+1 || after.Expected != before.Expected+700 {
		t.Fatalf("cash %s → %s, sales %d → %d, expected %s → %s", before.CashSales, after.CashSales, before.Sales, after.Sales, before.Expected, after.Expected)
	}
	if _, err := raw.Exec(`UPDATE shift_money SET amount = amount - 700 WHERE shift_id = ? AND kind = 'sale' AND method = 'cash'`, sh.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.CheckInvariants(ctx)
	want := fmt.Sprintf("shift %d: its sale cash total is off its payments by -700 cents over 0 payments", sh.ID)
	if err != nil || !slices.Contains(got, want) {
		t.Fatalf("problems %q %v, want %q", got, err, want)
	}
}
