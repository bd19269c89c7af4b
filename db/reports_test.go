package db_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// fixtureZone is an hour east of UTC, so a payment at 00:30 local belongs
// to a day that UTC would put it before: a report that added up by UTC
// days, not the cinema's, gets D1 and D2 wrong.
var fixtureZone = time.FixedZone("UTC+1", 3600)

// openReportFixture opens the reports fixture (internal/storetest).
func openReportFixture(t *testing.T) *db.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	dbtest.ReportFixture(t, path, fixtureZone)
	return dbtest.Open(t, path, db.Options{SweepInterval: -1})
}

// fixtureRange is D1..D3 of the fixture.
func fixtureRange() booking.ReportRange {
	return booking.ReportRange{From: storetest.ReportDay(fixtureZone, 1, 0, 0), To: storetest.ReportDay(fixtureZone, 3, 0, 0)}
}

func takings(key, label string, sales, refunds booking.Money, tickets, refunded int) booking.TakingsRow {
	return booking.TakingsRow{Key: key, Label: label, Sales: sales, Refunds: refunds, Net: sales - refunds, Tickets: tickets, Refunded: refunded}
}

// The figures below are worked out by hand from the fixture's lists in
// internal/storetest/reports.go. In range D1..D3: sales R1 2100 cash ann
// (2 tickets, S1), R2 3750 card bob (3, S1), R3 950 cash bob (1, S2), R9
// 2500 card bob (2, S1) on D1; R4 2500 cash ann (2, S3; 00:30 local), R5
// 4000 card ann (4, S3), R6 2500 cash bob (2, S2) on D2; R7 1250 card ann
// (1, S4) on D3. Refunds: R5 ticket 1000 card bob on D2; R5 ticket 1000
// card mgr on D3; R6 whole 2500 cash bob (2 void tickets) on D3. Out of
// range: R8 on D0, R10 on D4 at 00:10 local.
func TestReports_Takings(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	t.Run("span", func(t *testing.T) { checkTakings(t, s) })
	// The same figures when each booking's tickets are counted on its
	// own, as for payments whose bookings are far apart.
	defer db.SetTicketSpanSlack(-1 << 40)()
	t.Run("each", func(t *testing.T) { checkTakings(t, s) })
}

func checkTakings(t *testing.T, s *db.Store) {
	ctx := context.Background()
	total := takings("total", "Total", 19550, 4500, 17, 4)
	for _, tc := range []struct {
		by   booking.TakingsBy
		want []booking.TakingsRow
	}{
		{booking.ByDay, []booking.TakingsRow{
			takings("2026-11-02", "Mon 2 Nov 2026", 9300, 0, 8, 0),
			takings("2026-11-03", "Tue 3 Nov 2026", 9000, 1000, 8, 1),
			takings("2026-11-04", "Wed 4 Nov 2026", 1250, 3500, 1, 3),
		}},
		{booking.ByFilm, []booking.TakingsRow{
			takings("1", "First Film", 14850, 2000, 13, 2),
			takings("2", "Second Film", 4700, 2500, 4, 2),
		}},
		{booking.ByShow, []booking.TakingsRow{
			takings("1", "First Film · Hall A · Mon 2 Nov 19:00", 8350, 0, 7, 0),
			takings("2", "Second Film · Hall B · Mon 2 Nov 21:00", 3450, 2500, 3, 2),
			takings("3", "First Film · Hall B · Tue 3 Nov 18:00", 6500, 2000, 6, 2),
			takings("4", "Second Film · Hall A · Thu 5 Nov 20:00", 1250, 0, 1, 0),
		}},
		{booking.ByMethod, []booking.TakingsRow{
			takings("card", "card", 11500, 2000, 10, 2),
			takings("cash", "cash", 8050, 2500, 7, 2),
		}},
		{booking.ByClerk, []booking.TakingsRow{
			takings("ann", "ann", 9850, 0, 9, 0),
			takings("bob", "bob", 9700, 3500, 8, 3),
			takings("mgr", "mgr", 0, 1000, 0, 1),
		}},
	} {
		t.Run(string(tc.by), func(t *testing.T) {
			rep, err := s.ReportTakings(ctx, storetest.Manager, booking.TakingsQuery{ReportRange: fixtureRange(), By: tc.by})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rep.Rows, tc.want) {
				t.Errorf("rows\n got %+v\nwant %+v", rep.Rows, tc.want)
			}
			if rep.Total != total {
				t.Errorf("total %+v, want %+v", rep.Total, total)
			}
		})
	}
}

func TestReports_Refunds(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	rep, err := s.ReportRefunds(context.Background(), storetest.Manager, fixtureRange())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		at                           time.Time
		number, seat, by, ok, reason string
		amount                       booking.Money
		method                       booking.PayMethod
	}
	var got []row
	for _, r := range rep.Rows {
		got = append(got, row{r.At, r.Booking, r.Seat, r.By, r.ApprovedBy, r.Reason, r.Amount, r.Method})
	}
	d := func(n, hh int) time.Time { return storetest.ReportDay(fixtureZone, n, hh, 0) }
	want := []row{
		{d(2, 15), "BO-R5", "A1", "bob", "sue", "", 1000, booking.Card},
		{d(3, 10), "BO-R5", "A2", "mgr", "", "", 1000, booking.Card},
		// The older form: the whole booking, approved on the booking.
		{d(3, 11), "BO-R6", "", "bob", "sue", "customer ill", 2500, booking.Cash},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refunds\n got %+v\nwant %+v", got, want)
	}
	if rep.Count != 3 || rep.Total != 4500 {
		t.Errorf("count %d total %s, want 3 and 45.00 (the takings' refunds)", rep.Count, rep.Total)
	}
	if rep.Rows[0].Show != "First Film · Hall B" || !rep.Rows[0].Starts.Equal(storetest.ReportDay(fixtureZone, 2, 18, 0)) {
		t.Errorf("show %q at %v", rep.Rows[0].Show, rep.Rows[0].Starts)
	}
}

// Occupancy counts the shows starting in D1..D3 (S1, S2, S3; S4 is on
// D4) and their seats sold now: S1 8 of 140 (R1 2, R2 3, R8 1, R9 2), S2
// 1 of 50 (R6 was cancelled), S3 4 of 50 (R4 2, R5 4 less 2 refunded).
func TestReports_Occupancy(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	ctx := context.Background()
	rep, err := s.ReportOccupancy(ctx, storetest.Manager, booking.OccupancyQuery{ReportRange: fixtureRange()})
	if err != nil {
		t.Fatal(err)
	}
	d := func(n, hh int) time.Time { return storetest.ReportDay(fixtureZone, n, hh, 0) }
	want := []booking.OccupancyRow{
		{Key: "1", Label: "First Film", Hall: "Hall A", Starts: d(1, 19), Shows: 1, Capacity: 140, Sold: 8},
		{Key: "2", Label: "Second Film", Hall: "Hall B", Starts: d(1, 21), Shows: 1, Capacity: 50, Sold: 1},
		{Key: "3", Label: "First Film", Hall: "Hall B", Starts: d(2, 18), Shows: 1, Capacity: 50, Sold: 4},
	}
	for i := range rep.Rows {
		if i < len(want) && rep.Rows[i].Starts.Equal(want[i].Starts) {
			rep.Rows[i].Starts = want[i].Starts // same instant, any location
		}
	}
	if !reflect.DeepEqual(rep.Rows, want) {
		t.Errorf("per show\n got %+v\nwant %+v", rep.Rows, want)
	}
	if tot := rep.Total; tot.Shows != 3 || tot.Capacity != 240 || tot.Sold != 13 || tot.Percent() != 5.4 {
		t.Errorf("total %+v (%.1f%%), want 3 shows, 13 of 240 (5.4%%)", tot, tot.Percent())
	}
	if got := rep.Rows[0].Percent(); got != 5.7 {
		t.Errorf("S1 %.1f%%, want 5.7%%", got)
	}

	halls, err := s.ReportOccupancy(ctx, storetest.Manager, booking.OccupancyQuery{ReportRange: fixtureRange(), By: booking.PerHall})
	if err != nil {
		t.Fatal(err)
	}
	wantHalls := []booking.OccupancyRow{
		{Key: "1", Label: "Hall A", Hall: "Hall A", Shows: 1, Capacity: 140, Sold: 8},
		{Key: "2", Label: "Hall B", Hall: "Hall B", Shows: 2, Capacity: 100, Sold: 5},
	}
	if !reflect.DeepEqual(halls.Rows, wantHalls) || halls.Total.Sold != 13 || halls.Total.Capacity != 240 {
		t.Errorf("per hall\n got %+v %+v\nwant %+v", halls.Rows, halls.Total, wantHalls)
	}
}

// Shifts opened in D1..D3: ann's first (float 100.00, cash R1 21.00 + R4
// 25.00, counted 145.50 against 146.00), bob's, still open (float 100.00,
// cash R3 9.50 + R6 25.00 − R6's refund 25.00; card R2 37.50 − R5's
// ticket 10.00), ann's second (float 50.00, card R7 12.50, counted
// exactly). mgr's on D0 is out of range.
func TestReports_Shifts(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	rep, err := s.ReportShifts(context.Background(), storetest.Manager, fixtureRange())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		staff, status                         string
		float, cashIn, cashOut, card, expects booking.Money
		variance                              string
	}
	var got []row
	for _, r := range rep.Rows {
		v := "-"
		if r.Variance != nil {
			v = r.Variance.String()
		}
		got = append(got, row{r.Staff, r.Status, r.Float, r.CashSales, r.CashRefunds, r.Card, r.Expected, v})
	}
	want := []row{
		{"ann", "closed", 10000, 4600, 0, 0, 14600, "-0.50"},
		{"bob", "open", 10000, 3450, 2500, 2750, 10950, "-"},
		{"ann", "closed", 5000, 0, 0, 1250, 5000, "0.00"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shifts\n got %+v\nwant %+v", got, want)
	}
	wantTotal := booking.ShiftTotal{Shifts: 3, Open: 1, Float: 25000, CashSales: 8050, CashRefunds: 2500, Card: 4000, Expected: 30550, Counted: 19550, Variance: -50}
	if rep.Total != wantTotal {
		t.Errorf("total %+v, want %+v", rep.Total, wantTotal)
	}
	if c := rep.Rows[0].ClosedAt; c == nil || !c.Equal(storetest.ReportDay(fixtureZone, 2, 1, 0)) {
		t.Errorf("ann's first shift closed at %v", c)
	}
}

func TestReports_NoShows(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	ctx := context.Background()
	rep, err := s.ReportNoShows(ctx, storetest.Manager, fixtureRange())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Count != 1 || rep.Tickets != 2 || rep.Total != 2500 {
		t.Fatalf("no-shows %+v", rep)
	}
	r := rep.Rows[0]
	if r.Booking != "BO-R9" || r.Customer != "Nora Noshow" || r.Show != "First Film" || r.Hall != "Hall A" || r.Tickets != 2 {
		t.Errorf("row %+v", r)
	}
	// D4 has no no-show: the report says so with an empty list.
	d4 := storetest.ReportDay(fixtureZone, 4, 0, 0)
	rep, err = s.ReportNoShows(ctx, storetest.Manager, booking.ReportRange{From: d4, To: d4})
	if err != nil || rep.Rows == nil || rep.Count != 0 {
		t.Errorf("D4: %+v, %v", rep, err)
	}
}

func TestReports_Refused(t *testing.T) {
	t.Parallel()
	s := openReportFixture(t)
	ctx := context.Background()
	r := fixtureRange()
	if _, err := s.ReportTakings(ctx, storetest.Supervisor, booking.TakingsQuery{ReportRange: r}); booking.ErrorCode(err) != booking.EForbidden {
		t.Errorf("a supervisor read the takings: %v", err)
	}
	back := booking.ReportRange{From: r.To, To: r.From}
	if _, err := s.ReportRefunds(ctx, storetest.Manager, back); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("a range ending before it starts: %v", err)
	}
	long := booking.ReportRange{From: r.From, To: r.From.AddDate(1, 0, 1)}
	if _, err := s.ReportShifts(ctx, storetest.Manager, long); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("a range of more than a year: %v", err)
	}
	if _, err := s.ReportTakings(ctx, storetest.Manager, booking.TakingsQuery{ReportRange: r, By: "week"}); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("by week: %v", err)
	}
}

// Sales and a cancel made through the store, not the fixture's SQL, land
// in the reports: the money of the sale and of its refund, and who
// approved it.
func TestReports_StoreWrites(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	ctx := context.Background()
	show := firstShow(t, s)
	sold := mustSell(t, s, show.ID, "a", "E7", "E8")
	_, err := s.Cancel(ctx, clerk, booking.CancelRequest{Number: sold.Number, Reason: "double booked", Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	day := booking.ReportRange{From: clock.Now(), To: clock.Now()}
	rep, err := s.ReportTakings(ctx, storetest.Manager, booking.TakingsQuery{ReportRange: day, By: booking.ByClerk})
	if err != nil {
		t.Fatal(err)
	}
	want := takings("carl", "carl", sold.Total, sold.Total, 2, 2)
	if len(rep.Rows) != 1 || rep.Rows[0] != want {
		t.Errorf("takings %+v, want %+v", rep.Rows, want)
	}
	refunds, err := s.ReportRefunds(ctx, storetest.Manager, day)
	if err != nil {
		t.Fatal(err)
	}
	if refunds.Total != sold.Total || len(refunds.Rows) == 0 || refunds.Rows[0].ApprovedBy != "sue" || refunds.Rows[0].Reason != "double booked" {
		t.Errorf("refunds %+v", refunds)
	}
	occ, err := s.ReportOccupancy(ctx, storetest.Manager, booking.OccupancyQuery{ReportRange: booking.ReportRange{From: show.Starts, To: show.Starts}})
	if err != nil || occ.Total.Sold != 0 {
		t.Errorf("occupancy after the cancel: %+v, %v", occ, err)
	}
}
