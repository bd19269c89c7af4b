package pg_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/pg"
)

// chain is a cinema of two sites on one schema: Main (site 1) with hall
// One and show 1, North (site 2) with hall Two and a show of its own, a
// terminal at each (till-1, till-2), carl working at every site and zed
// at North only.
type chain struct {
	s           *pg.Store
	clk         *clock
	north       booking.Site
	northShow   int64
	till1       *booking.Terminal
	till2       *booking.Terminal
	carl, zed   booking.Staff
	mia         booking.Actor
	day         time.Time
	atMain, atN booking.Actor // carl at till-1, zed at till-2
}

func newChain(t *testing.T) *chain {
	t.Helper()
	a, _, _, clk := rostered(t)
	ctx := context.Background()
	c := &chain{s: a, clk: clk, day: clk.Now().Add(24 * time.Hour)}
	c.mia = signIn(t, a, "mia")
	var err error
	if c.north, err = a.AddSite(ctx, c.mia, "North"); err != nil || c.north.ID != 2 {
		t.Fatalf("add site: %+v, %v", c.north, err)
	}
	hall := smallSeed(clk.Now()).Halls[0]
	hall.Name, hall.Site = "Two", c.north.ID
	hallID, err := a.AddHall(ctx, c.mia, hall)
	if err != nil {
		t.Fatal(err)
	}
	if c.northShow, err = a.AddShow(ctx, c.mia, 1, hallID, c.day.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	line1, _ := newKey(t)
	line2, _ := newKey(t)
	if c.till1, err = a.AddTerminal(ctx, c.mia, "till-1", line1); err != nil {
		t.Fatal(err)
	}
	if _, err = a.AddTerminal(ctx, c.mia, "till-2", line2); err != nil {
		t.Fatal(err)
	}
	if c.till2, err = a.SetTerminalSite(ctx, c.mia, "till-2", c.north.ID); err != nil || c.till2.Site != c.north.ID {
		t.Fatalf("move till-2: %+v, %v", c.till2, err)
	}
	if _, err := a.AddStaff(ctx, c.mia, "zed", booking.RoleClerk, "1234", nil); err != nil {
		t.Fatal(err)
	}
	if err := a.SetStaffSite(ctx, c.mia, "ZED", c.north.ID); err != nil {
		t.Fatal(err)
	}
	carl, err := a.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234", Terminal: "till-1", TerminalID: c.till1.ID})
	if err != nil {
		t.Fatal(err)
	}
	zed, err := a.SignIn(ctx, booking.SignInRequest{Name: "zed", PIN: "1234", Terminal: "till-2", TerminalID: c.till2.ID})
	if err != nil {
		t.Fatal(err)
	}
	c.carl, c.zed = *carl, *zed
	c.atMain = booking.Actor{StaffID: carl.ID, Name: carl.Name, Role: carl.Role, Terminal: "till-1", TerminalID: c.till1.ID, Site: booking.MainSite}
	c.atN = booking.Actor{StaffID: zed.ID, Name: zed.Name, Role: zed.Role, Terminal: "till-2", TerminalID: c.till2.ID, Site: c.north.ID}
	return c
}

func showIDs(t *testing.T, s *pg.Store, actor booking.Actor, day time.Time) []int64 {
	t.Helper()
	shows, err := s.Shows(context.Background(), actor, day)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, sh := range shows {
		ids = append(ids, sh.ID)
	}
	return ids
}

// A counter lists, opens and holds only its own site's shows; a manager's
// view of every site sees both.
func TestSites_CounterSellsItsSite(t *testing.T) {
	t.Parallel()
	c := newChain(t)
	ctx := context.Background()
	if got := showIDs(t, c.s, c.atMain, c.day); !reflect.DeepEqual(got, []int64{1}) {
		t.Errorf("Main's counter sees %v", got)
	}
	if got := showIDs(t, c.s, c.atN, c.day); !reflect.DeepEqual(got, []int64{c.northShow}) {
		t.Errorf("North's counter sees %v", got)
	}
	if got := showIDs(t, c.s, c.mia, c.day); !reflect.DeepEqual(got, []int64{1, c.northShow}) {
		t.Errorf("every site sees %v", got)
	}
	want := booking.ErrorMessage(booking.ErrOtherSite(c.northShow))
	if _, err := c.s.SeatMap(ctx, c.atMain, c.northShow, "m"); booking.ErrorCode(err) != booking.ENotFound || booking.ErrorMessage(err) != want {
		t.Errorf("Main's counter opening North's show: %v", err)
	}
	if _, err := c.s.HoldBest(ctx, c.atMain, booking.HoldBestRequest{ShowID: c.northShow, N: 2, Owner: "m"}); booking.ErrorMessage(err) != want {
		t.Errorf("Main's counter holding North's best seats: %v", err)
	}
	if _, err := c.s.Hold(ctx, c.atMain, booking.HoldRequest{ShowID: c.northShow, Seats: []string{"A1"}, Owner: "m"}); booking.ErrorMessage(err) != want {
		t.Errorf("Main's counter holding a seat of North's show: %v", err)
	}
	if _, err := c.s.HoldBest(ctx, c.atN, booking.HoldBestRequest{ShowID: c.northShow, N: 2, Owner: "n"}); err != nil {
		t.Errorf("North's counter holding its own: %v", err)
	}
	if sh, err := c.s.Show(ctx, c.mia, c.northShow); err != nil || sh.Held != 2 {
		t.Fatalf("North's show after one refusal and one hold: %+v, %v", sh, err)
	}
	halls, err := c.s.Halls(ctx, c.mia)
	if err != nil || len(halls) != 2 || halls[0].Site != booking.MainSite || halls[1].Site != c.north.ID {
		t.Fatalf("halls: %+v, %v", halls, err)
	}
}

// A hall at a site nobody made is refused by the site's number.
func TestAddHall_UnknownSite(t *testing.T) {
	t.Parallel()
	c := newChain(t)
	hall := booking.Hall{Name: "Nowhere", Site: 9, Seats: []booking.Seat{{Label: "A1", RowTag: "A", Number: 1}}, Rows: []string{"A"}, Width: 1}
	if _, err := c.s.AddHall(context.Background(), c.mia, hall); booking.ErrorMessage(err) != "There is no site 9." {
		t.Errorf("a hall at an unknown site: %v", err)
	}
}

// sellAt sells seats of show at actor's counter for cash, its shift
// opened there.
func (c *chain) sellAt(t *testing.T, actor booking.Actor, show int64, seats ...string) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	h, err := c.s.Hold(ctx, actor, booking.HoldRequest{ShowID: show, Seats: seats, Owner: actor.Name + seats[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.s.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: actor.Name + seats[0], IdempotencyKey: actor.Name + seats[0],
		Method: booking.Cash, Tendered: 100000})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every report of one site counts only that site's money, shows and
// shifts, and the two sites' add up to the report of every site.
func TestSites_ReportsAddUp(t *testing.T) {
	t.Parallel()
	c := newChain(t)
	ctx := context.Background()
	for _, a := range []booking.Actor{c.atMain, c.atN} {
		if _, err := c.s.OpenShift(ctx, a, booking.OpenShiftRequest{Float: 5000}); err != nil {
			t.Fatal(err)
		}
	}
	c.sellAt(t, c.atMain, 1, "A1", "A2", "A3")
	c.sellAt(t, c.atN, c.northShow, "B1")
	sold := c.sellAt(t, c.atN, c.northShow, "B4", "B5")
	sue := signIn(t, c.s, "sue")
	sue.Site = c.north.ID
	if _, err := c.s.OpenShift(ctx, sue, booking.OpenShiftRequest{Float: 5000}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.s.RefundTickets(ctx, sue, booking.RefundRequest{Number: sold.Number, Seats: []string{"B5"}, Reason: "ill"}); err != nil {
		t.Fatal(err)
	}
	all := booking.ReportRange{From: c.clk.Now(), To: c.day}
	site := func(id int64) booking.ReportRange { r := all; r.Site = id; return r }
	for _, by := range booking.TakingsBys() {
		var parts [3]booking.TakingsRow
		for i, id := range []int64{booking.AllSites, booking.MainSite, c.north.ID} {
			rep, err := c.s.ReportTakings(ctx, c.mia, booking.TakingsQuery{ReportRange: site(id), By: by})
			if err != nil {
				t.Fatal(err)
			}
			parts[i] = rep.Total
		}
		sum := parts[1]
		sum.Add(parts[2])
		if sum.Sales != parts[0].Sales || sum.Refunds != parts[0].Refunds || sum.Tickets != parts[0].Tickets || sum.Refunded != parts[0].Refunded {
			t.Errorf("takings by %s: Main %+v + North %+v != all %+v", by, parts[1], parts[2], parts[0])
		}
		if parts[1].Tickets != 3 || parts[2].Tickets != 3 || parts[2].Refunded != 1 || parts[1].Refunded != 0 {
			t.Errorf("takings by %s: Main %+v, North %+v", by, parts[1], parts[2])
		}
	}
	occ := func(id int64) *booking.OccupancyReport {
		rep, err := c.s.ReportOccupancy(ctx, c.mia, booking.OccupancyQuery{ReportRange: site(id), By: booking.PerHall})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if o0, o1, o2 := occ(0), occ(1), occ(c.north.ID); len(o1.Rows) != 1 || o1.Rows[0].Hall != "One" || o1.Total.Sold != 3 ||
		len(o2.Rows) != 1 || o2.Rows[0].Hall != "Two" || o2.Total.Sold != 2 || o0.Total.Sold != o1.Total.Sold+o2.Total.Sold {
		t.Errorf("occupancy: all %+v, Main %+v, North %+v", o0.Total, o1.Total, o2.Total)
	}
	shifts := func(id int64) *booking.ShiftsReport {
		rep, err := c.s.ReportShifts(ctx, c.mia, site(id))
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// Sue's shift was opened at till-1, Main's terminal: site 1.
	if s0, s1, s2 := shifts(0), shifts(1), shifts(c.north.ID); s1.Total.Shifts != 2 || s2.Total.Shifts != 1 || s2.Rows[0].Staff != "zed" ||
		s0.Total.Shifts != 3 || s0.Total.Expected != s1.Total.Expected+s2.Total.Expected || s0.Total.CashRefunds != s1.Total.CashRefunds+s2.Total.CashRefunds {
		t.Errorf("shifts: all %+v, Main %+v, North %+v", s0.Total, s1.Total, s2.Total)
	}
	refunds := func(id int64) int {
		rep, err := c.s.ReportRefunds(ctx, c.mia, site(id))
		if err != nil {
			t.Fatal(err)
		}
		return rep.Count
	}
	if r0, r1, r2 := refunds(0), refunds(1), refunds(c.north.ID); r0 != 1 || r1 != 0 || r2 != 1 {
		t.Errorf("refunds: all %d, Main %d, North %d", r0, r1, r2)
	}
	// A shift opened at no registered terminal (a personal key) is at its
	// person's site when they work at one, else at site 1.
	ned, err := c.s.AddStaff(ctx, c.mia, "ned", booking.RoleClerk, "1234", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.s.SetStaffSite(ctx, c.mia, "ned", c.north.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.s.OpenShift(ctx, booking.Actor{StaffID: ned.ID, Name: "ned", Role: booking.RoleClerk}, booking.OpenShiftRequest{Float: 100}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.s.OpenShift(ctx, booking.Actor{Name: "mia", Role: booking.RoleManager}, booking.OpenShiftRequest{Float: 100}); err != nil {
		t.Fatal(err)
	}
	if s1, s2 := shifts(1), shifts(c.north.ID); s1.Total.Shifts != 3 || s2.Total.Shifts != 2 || s2.Rows[1].Staff != "ned" {
		t.Errorf("shifts with no terminal: Main %+v, North %+v", s1.Rows, s2.Rows)
	}
}

// TestSites_LocalCounterShiftAtItsSite: a shift opened at a local counter
// started with --site (no registered terminal) counts at that site, not at
// its person's or site 1.
func TestSites_LocalCounterShiftAtItsSite(t *testing.T) {
	t.Parallel()
	c := newChain(t)
	ctx := context.Background()
	local := c.mia
	local.Terminal, local.TerminalID, local.Site = "local", 0, c.north.ID
	sh, err := c.s.OpenShift(ctx, local, booking.OpenShiftRequest{Float: 50_00})
	if err != nil {
		t.Fatal(err)
	}
	day := booking.DayStart(c.clk.Now())
	shiftsAt := func(site int64) []int64 {
		t.Helper()
		r, err := c.s.ReportShifts(ctx, c.mia, booking.ReportRange{From: day, To: day, Site: site})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, row := range r.Rows {
			ids = append(ids, row.ID)
		}
		return ids
	}
	if got := shiftsAt(c.north.ID); !slices.Contains(got, sh.ID) {
		t.Errorf("North's shifts %v lack the local counter's %d", got, sh.ID)
	}
	if got := shiftsAt(booking.MainSite); slices.Contains(got, sh.ID) {
		t.Errorf("Main's shifts %v hold North's local counter's %d", got, sh.ID)
	}
}
