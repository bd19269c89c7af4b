package pg_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/booking"
)

// The reports on PostgreSQL: a day's occupancy per show and per hall
// counted from the claims, a shift's cash summed from its payments, the
// no-shows once the show is settled, and no refunds where none were paid.
func TestReports_OnPostgres(t *testing.T) {
	t.Parallel()
	s, _, clk := seeded(t)
	ctx := context.Background()
	if _, err := s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 10000}); err != nil {
		t.Fatal(err)
	}
	for i, seats := range [][]string{{"A1", "A2"}, {"B5"}} {
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: seats, Owner: seats[0]})
		if err != nil {
			t.Fatal(err)
		}
		method := booking.Cash
		if i == 1 {
			method = booking.Card
		}
		if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: seats[0], IdempotencyKey: seats[0], Method: method}); err != nil {
			t.Fatal(err)
		}
	}
	day := booking.ReportRange{From: clk.Now(), To: clk.Now().Add(24 * time.Hour)}
	occ, err := s.ReportOccupancy(ctx, manager, booking.OccupancyQuery{ReportRange: day})
	if err != nil || len(occ.Rows) != 1 || occ.Rows[0].Sold != 3 || occ.Rows[0].Capacity != 20 {
		t.Fatalf("occupancy per show: %+v, %v", occ, err)
	}
	occ, err = s.ReportOccupancy(ctx, manager, booking.OccupancyQuery{ReportRange: day, By: booking.PerHall})
	if err != nil || len(occ.Rows) != 1 || occ.Rows[0].Hall != "One" || occ.Rows[0].Sold != 3 || occ.Rows[0].Shows != 1 {
		t.Fatalf("occupancy per hall: %+v, %v", occ, err)
	}
	shifts, err := s.ReportShifts(ctx, manager, booking.ReportRange{From: clk.Now(), To: clk.Now()})
	if err != nil || len(shifts.Rows) != 1 || shifts.Rows[0].CashSales != 2500 || shifts.Rows[0].Card != 1250 || shifts.Rows[0].Expected != 12500 {
		t.Fatalf("shifts: %+v, %v", shifts, err)
	}
	refunds, err := s.ReportRefunds(ctx, manager, day)
	if err != nil || len(refunds.Rows) != 0 {
		t.Fatalf("refunds: %+v, %v", refunds, err)
	}
	if _, err := s.ReportRefunds(ctx, clerk, day); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk's report: %v", err)
	}
	sh, _ := s.Show(ctx, clerk, 1)
	clk.Add(sh.Ends().Sub(clk.Now()) + booking.SettleGrace)
	if _, err := s.SettleShows(ctx); err != nil {
		t.Fatal(err)
	}
	ns, err := s.ReportNoShows(ctx, manager, day)
	if err != nil || len(ns.Rows) != 2 || ns.Rows[0].Tickets+ns.Rows[1].Tickets != 3 {
		t.Fatalf("no-shows: %+v, %v", ns, err)
	}
}
