package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// The plan guard: every statement the store prepares, collected while a
// workload calls every store method, must not SCAN a table that grows
// with history. A scan of such a table is what made a year of sales run
// a hundred times slower than a week (issue 7).

// historyTables grow with every sale, hold, call or commit.
var historyTables = map[string]bool{
	"bookings": true, "seat_claims": true, "tickets": true, "payments": true, "holds": true,
	"waitlist": true, "changes": true, "audit": true, "booking_words": true, "shows": true,
	"seat_blocks": true, // house seats of every show
	// kiosk
	"reservations": true,
}

// boundedIndexes are partial indexes whose rows are only what is live
// now: scanning one costs what is open at the counters, not history.
var boundedIndexes = map[string]string{
	"holds_live_by_show":           "holds whose status is still 'held': each lapses within its TTL and the next sweep or sale on its show expires it",
	"reservations_unpaid_by_phone": "reservations still 'reserved': each is paid or lapses at its cut-off, before its show, and the sweeper lapses it",
}

// allowedScans are statements that must read a whole table, each with the
// reason, matched by a fragment of their text.
var allowedScans = []struct{ fragment, reason string }{
	{"GROUP BY show_id, seat_id HAVING count(*) > 1", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"WHERE sold <> claims", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"AND t.booking_id <> b.id)", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"FROM payments p WHERE NOT EXISTS", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"FROM tickets t WHERE NOT EXISTS", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"WHERE t.status = 'admitted'", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"WHERE status = 'admitted' AND (admitted_at IS NULL", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"SELECT EXISTS (SELECT 1 FROM bookings)", "HasSales: the scan stops at the first booking; run once by init --demo-history"},

	// audit
	{"LEFT JOIN bookings b ON b.id = a.booking_id ORDER BY a.at DESC, a.id DESC LIMIT ?", "Audit unfiltered: the newest page, walked from the end of audit_by_at and stopped by LIMIT"},

	// Shifts and refunds.
	{"FROM payments p JOIN tickets t ON t.id = p.ticket_id", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"UNION ALL SELECT shift_id, kind, method, -amount, -1 FROM payments", "CheckInvariants: a full check, run on demand, never by a counter"},

	// Blocked and house seats.
	{"h.created_at >= b.at", "CheckInvariants: a full check, run on demand, never by a counter"},
	{"detail, hash FROM audit ORDER BY id", "CheckInvariants: the audit chain, walked whole on demand, never by a counter"},
}

// planProblems explains each statement (and logs each plan when
// BOXOFFICE_PLANS is set) on conn and names every scan of a
// history table that is neither through a bounded index nor allowed.
func planProblems(tb testing.TB, conn *sql.DB, stmts []string) []string {
	tb.Helper()
	var problems []string
	for _, q := range stmts {
		if !plannable(q) {
			continue
		}
		details, err := explain(conn, q)
		if err != nil {
			tb.Fatalf("explain %s: %v", q, err)
		}
		tables := tableAliases(q)
		if os.Getenv("BOXOFFICE_PLANS") != "" {
			tb.Logf("%s\n\t%s", oneLine(q), strings.Join(details, "\n\t"))
		}
		for _, d := range details {
			m := scanRe.FindStringSubmatch(d)
			if m == nil {
				continue
			}
			table, named := tables[m[1]]
			if !named {
				table = m[1]
				if isInsert(q) {
					// A table the statement does not name is scanned
					// by a foreign-key check on a parent row's insert,
					// which SQLite skips (OP_FkIfZero) unless a
					// violation is pending: never in this store.
					continue
				}
			}
			if !historyTables[table] || boundedIndexes[m[2]] != "" || allowed(q) {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s (table %s) in:\n\t%s", d, table, oneLine(q)))
		}
	}
	return problems
}

var scanRe = regexp.MustCompile(`^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?`)

func allowed(q string) bool {
	for _, a := range allowedScans {
		if strings.Contains(q, a.fragment) {
			return true
		}
	}
	return false
}

func plannable(q string) bool {
	first := strings.ToUpper(strings.Fields(q)[0])
	switch first {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE":
		return true
	}
	return false
}

func isInsert(q string) bool { return strings.EqualFold(strings.Fields(q)[0], "INSERT") }

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }

// explain returns the detail column of EXPLAIN QUERY PLAN for q, with
// every parameter bound to NULL.
func explain(conn *sql.DB, q string) ([]string, error) {
	args := make([]any, paramCount(q))
	rows, err := conn.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}

// paramCount is how many parameters SQLite numbers in q: a bare ? takes
// the next number after the largest so far, ?NNN its own.
func paramCount(q string) int {
	n := 0
	inString := false
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '\'':
			inString = !inString
		case q[i] == '?' && !inString:
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				k, _ := strconv.Atoi(q[i+1 : j])
				n = max(n, k)
			} else {
				n++
			}
			i = j - 1
		}
	}
	return n
}

var aliasRe = regexp.MustCompile(`(?i)\b(?:from|join|update|into)\s+([a-z_][a-z0-9_]*)(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?`)

var notAliases = map[string]bool{
	"where": true, "on": true, "join": true, "cross": true, "left": true, "inner": true, "set": true, "order": true,
	"group": true, "limit": true, "using": true, "values": true, "returning": true, "select": true, "union": true,
	"natural": true, "default": true, "having": true, "and": true, "or": true,
}

// tableAliases maps every name a plan may show for a table of q (its
// alias, or its own name) to the table.
func tableAliases(q string) map[string]string {
	out := map[string]string{}
	for _, m := range aliasRe.FindAllStringSubmatch(q, -1) {
		table := strings.ToLower(m[1])
		out[table] = table
		if alias := strings.ToLower(m[2]); alias != "" && !notAliases[alias] {
			out[alias] = table
		}
	}
	return out
}

// planWorkload calls every store method at least once, down the paths a
// counter, the CLI and the sweeper take (clashes, retries, lapsed holds,
// lockouts too), and returns the names of the methods it called.
func planWorkload(t *testing.T, s *db.Store, clock *storetest.Clock) []string {
	t.Helper()
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	var called []string
	step := func(name string, err error) {
		t.Helper()
		called = append(called, name)
		if err != nil && booking.ErrorCode(err) == booking.EInternal {
			t.Fatalf("%s: %v", name, err)
		}
	}
	stepV := func(name string) func(any, error) {
		return func(_ any, err error) { t.Helper(); step(name, err) }
	}

	stepV("Empty")(s.Empty(ctx))
	stepV("HasSales")(s.HasSales(ctx))
	stepV("IsDemo")(s.IsDemo(ctx))
	stepV("WriteCosts")(s.WriteCosts(ctx))
	stepV("Shows")(s.Shows(ctx, clerk, clock.Now()))
	stepV("Show")(s.Show(ctx, clerk, 1))
	stepV("SeatMap")(s.SeatMap(ctx, clerk, 1, "a"))
	stepV("TicketTypes")(s.TicketTypes(ctx))
	stepV("Halls")(s.Halls(ctx, clerk))
	stepV("Films")(s.Films(ctx, clerk))
	film, err := s.AddFilm(ctx, mgr, booking.Film{Title: "Third", Minutes: 90})
	step("AddFilm", err)
	stepV("AddShow")(s.AddShow(ctx, mgr, film, 1, clock.Now().Add(48*time.Hour)))
	stepV("AddShow")(s.AddShow(ctx, mgr, film, 1, clock.Now().Add(48*time.Hour+time.Minute))) // clash
	h := storetest.Hall()
	h.Name = "Second Hall"
	stepV("AddHall")(s.AddHall(ctx, mgr, h))
	step("SetPrice", s.SetPrice(ctx, mgr, booking.TicketType{Code: "adult", Name: "Adult", Price: 1300}))
	stepV("TopUpDemo")(s.TopUpDemo(ctx, storetest.Seed(clock.Now().AddDate(0, 0, 3))))
	customerSteps(t, s, clock, step, stepV) // customer accounts and the watchlist (customers_test.go)

	// Holds: a new one, added to, a clash, lapsed holds in the way, the
	// best available, released in part and whole, extended, by owner.
	hold, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1", "A2"}, Owner: "a"})
	step("Hold", err)
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A3"}, Owner: "a", AddTo: hold.ID}))
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "b"}))
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "lapse", TTL: time.Second}))
	clock.Add(2 * time.Second)
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "b"}))
	stepV("HoldBest")(s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 3, Owner: "c"}))
	step("Release", s.Release(ctx, clerk, hold.ID, "a", "A3"))
	stepV("Extend")(s.Extend(ctx, clerk, hold.ID, "a", time.Minute))
	stepV("ReleaseOwner")(s.ReleaseOwner(ctx, "c"))
	stepV("ReleasePrefix")(s.ReleasePrefix(ctx, "b"))
	// A bounded shutdown names the holds it could not release.
	stepV("LiveHolds")(s.LiveHolds(ctx, "a"))

	// Sales: a sale, a retry with the same key, a lapsed hold, lookups.
	sold, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: hold.ID, Owner: "a", IdempotencyKey: "plan-1", Method: booking.Cash, Tendered: 5000, Customer: "Ann Lee", Phone: "020 7946 0018"})
	step("Checkout", err)
	stepV("Checkout")(s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: hold.ID, Owner: "a", IdempotencyKey: "plan-1", Method: booking.Cash}))
	late, _ := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"C1"}, Owner: "d", TTL: time.Second})
	clock.Add(2 * time.Second)
	stepV("Checkout")(s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: late.ID, Owner: "d", IdempotencyKey: "plan-2", Method: booking.Card}))
	stepV("ExpireHolds")(s.ExpireHolds(ctx))
	stepV("Booking")(s.Booking(ctx, clerk, sold.Number))
	stepV("BookingByKey")(s.BookingByKey(ctx, clerk, "plan-1"))
	for _, q := range []string{sold.Number, "BO-23456789", "0018", "ann", "ann le", "zz"} {
		stepV("FindBookings")(s.FindBookings(ctx, clerk, booking.BookingQuery{Text: q}))
	}
	clock.Add(100 * time.Minute) // doors open
	stepV("Admit")(s.Admit(ctx, booking.Actor{Name: "dora", Role: booking.RoleDoor}, sold.Tickets[0].Code))
	stepV("Admit")(s.Admit(ctx, booking.Actor{Name: "dora", Role: booking.RoleDoor}, sold.Tickets[0].Code))
	stepV("Cancel")(s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold.Number}))

	// The waiting list of a sold-out show: add, refuse, tell, call, remove.
	show := int64(3)
	var last *booking.Booking
	m, _ := s.SeatMap(ctx, clerk, show, "")
	for i := 0; i < len(m.Hall.Seats); i += 20 {
		var labels []string
		for _, seat := range m.Hall.Seats[i:min(i+20, len(m.Hall.Seats))] {
			labels = append(labels, seat.Label)
		}
		last = mustSell(t, s, show, "bulk", labels...)
	}
	ann, err := s.AddWaitlist(ctx, clerk, show, "Ann", "0123", 2)
	step("AddWaitlist", err)
	bob, err := s.AddWaitlist(ctx, clerk, show, "Bob", "0456", 2)
	step("AddWaitlist", err)
	stepV("Cancel")(s.Cancel(ctx, supervisor, booking.CancelRequest{Number: last.Number}))
	stepV("AddWaitlist")(s.AddWaitlist(ctx, clerk, show, "Cy", "0789", 2)) // seats are free
	stepV("NotifyWaitlist")(s.NotifyWaitlist(ctx))
	stepV("WaitlistCalls")(s.WaitlistCalls(ctx, clerk))
	step("MarkCalled", s.MarkCalled(ctx, clerk, ann.ID))
	step("MarkCalled", s.MarkCalled(ctx, clerk, ann.ID))
	stepV("Waitlist")(s.Waitlist(ctx, clerk, show))
	step("RemoveWaitlist", s.RemoveWaitlist(ctx, clerk, bob.ID))
	stepV("TrimChanges")(s.TrimChanges(ctx))

	// Staff, terminals and sign-in, including a lockout.
	staffKey, _ := newAuthorizedKey(t)
	termKey, termPub := newAuthorizedKey(t)
	stepV("AddStaff")(s.AddStaff(ctx, mgr, "Maria", booking.RoleClerk, "4321", staffKey))
	stepV("ListStaff")(s.ListStaff(ctx, mgr))
	stepV("SignIn")(s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}))
	for range 6 {
		stepV("SignIn")(s.SignIn(ctx, booking.SignInRequest{Name: "maria", PIN: "0000"}))
	}
	stepV("SignIn")(s.SignIn(ctx, booking.SignInRequest{Name: "mgr", PIN: "0000", Kiosk: true}))
	stepV("SignIn")(s.SignIn(ctx, booking.SignInRequest{Name: "mgr", PIN: "1234", Kiosk: true}))
	step("DisableStaff", s.DisableStaff(ctx, mgr, "Maria"))
	step("EnableStaff", s.EnableStaff(ctx, mgr, "Maria"))
	step("SetRole", s.SetRole(ctx, mgr, "Maria", booking.RoleSupervisor))
	step("SetPIN", s.SetPIN(ctx, mgr, "Maria", "5678"))
	step("UnlockStaff", s.UnlockStaff(ctx, mgr, "Maria"))
	stepV("PINUnchanged")(s.PINUnchanged(ctx, "Maria"))
	stepV("Access")(s.Access(ctx))
	stepV("Cancel")(s.Cancel(ctx, clerk, booking.CancelRequest{Number: last.Number, Approver: &booking.Credentials{Name: "sue", PIN: "0000"}}))
	stepV("AddTerminal")(s.AddTerminal(ctx, mgr, "till-9", termKey))
	// Sites: SQLite's one site, read where a name is looked up.
	stepV("Sites")(s.Sites(ctx, clerk))
	stepV("AddSite")(s.AddSite(ctx, mgr, "Second"))
	stepV("SetTerminalSite")(s.SetTerminalSite(ctx, mgr, "till-9", booking.MainSite))
	step("SetStaffSite", s.SetStaffSite(ctx, mgr, "Maria", booking.MainSite))
	stepV("ListTerminals")(s.ListTerminals(ctx, mgr))
	_, _, err = s.IdentifyKey(ctx, termPub.Marshal())
	step("IdentifyKey", err)
	step("RemoveTerminal", s.RemoveTerminal(ctx, mgr, "till-9"))
	stepV("CheckInvariants")(s.CheckInvariants(ctx))

	// Prices: by seat kind and list, a show's list, a quote, the table.
	step("SetPriceEntry", s.SetPriceEntry(ctx, mgr, booking.PriceEntry{PriceKey: booking.PriceKey{Type: "adult", Kind: booking.Premium}, Amount: 1500}))
	step("SetPriceEntry", s.SetPriceEntry(ctx, mgr, booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Standard}, Amount: 1400}))
	step("SetShowPriceList", s.SetShowPriceList(ctx, mgr, 1, "evening"))
	step("SetShowPriceList", s.SetShowPriceList(ctx, mgr, 1, "nope"))
	stepV("Prices")(s.Prices(ctx, clerk))
	stepV("Quote")(s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: 1, SeatIDs: []int64{sold.Tickets[0].Seat.ID, sold.Tickets[1].Seat.ID}}))

	// audit: the trail by booking, by person, by day, all three, none.
	day := clock.Now()
	for _, q := range []booking.AuditQuery{{Booking: sold.Number}, {Staff: "CARL"}, {Day: day}, {Staff: "carl", Day: day},
		{Booking: sold.Number, Staff: "sue", Day: day}, {Booking: sold.Number, Day: day}, {Booking: "BO-23456789"}, {}} {
		stepV("Audit")(s.Audit(ctx, mgr, q))
	}

	// Reports: every kind over a week, which reads a range of days
	// through an index on time, never a whole table.
	week := booking.ReportRange{From: clock.Now().AddDate(0, 0, -3), To: clock.Now().AddDate(0, 0, 3)}
	for _, by := range booking.TakingsBys() {
		stepV("ReportTakings")(s.ReportTakings(ctx, mgr, booking.TakingsQuery{ReportRange: week, By: by}))
	}
	stepV("ReportRefunds")(s.ReportRefunds(ctx, mgr, week))
	stepV("SetSetting")(s.SetSetting(ctx, mgr, booking.AllSites, booking.SetSymbol, "€"))
	stepV("SetTaxRate")(s.SetTaxRate(ctx, mgr, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: 2000}))
	stepV("Cinema")(s.Cinema(ctx, mgr, booking.AllSites))
	stepV("TaxRates")(s.TaxRates(ctx, mgr))
	stepV("ReportTax")(s.ReportTax(ctx, mgr, week))
	stepV("ReportOccupancy")(s.ReportOccupancy(ctx, mgr, booking.OccupancyQuery{ReportRange: week, By: booking.PerShow}))
	stepV("ReportOccupancy")(s.ReportOccupancy(ctx, mgr, booking.OccupancyQuery{ReportRange: week, By: booking.PerHall}))
	stepV("ReportShifts")(s.ReportShifts(ctx, mgr, week))
	stepV("ReportNoShows")(s.ReportNoShows(ctx, mgr, week))

	// The books: a film's week, a day closed (yesterday's, whose shifts
	// are none) and read back, today's refused for its open shifts, the
	// drawer and an ID check.
	stepV("SetFilmHire")(s.SetFilmHire(ctx, mgr, booking.FilmHire{Film: 1, Rate: 3500}))
	stepV("DistributorReturn")(s.DistributorReturn(ctx, mgr, booking.ReturnQuery{Film: 1, Week: clock.Now()}))
	stepV("CloseDay")(s.CloseDay(ctx, mgr, clock.Now().AddDate(0, 0, -1), booking.AllSites))
	stepV("CloseDay")(s.CloseDay(ctx, mgr, clock.Now(), booking.AllSites))
	stepV("DayReport")(s.DayReport(ctx, mgr, clock.Now().AddDate(0, 0, -1), booking.AllSites))
	stepV("SetTerminalDrawer")(s.SetTerminalDrawer(ctx, mgr, "till-1", false))
	stepV("TerminalDrawer")(s.TerminalDrawer(ctx, clerk, "till-1"))
	step("OpenDrawer", s.OpenDrawer(ctx, clerk, "change"))
	step("ConfirmID", s.ConfirmID(ctx, clerk, 2))

	stepV("Backup")(s.Backup(ctx, filepath.Join(t.TempDir(), "backup.db")))

	// Shifts and refunds: an X report, lists, a partial refund and its
	// retry, the blind count, the Z report, a reopen, a second open.
	own, err := s.CurrentShift(ctx, clerk)
	step("CurrentShift", err)
	stepV("ShiftReport")(s.ShiftReport(ctx, clerk, own.ID))
	stepV("ListShifts")(s.ListShifts(ctx, supervisor, booking.ShiftQuery{Staff: "carl"}))
	stepV("ListShifts")(s.ListShifts(ctx, clerk, booking.ShiftQuery{Open: true}))
	party := mustSell(t, s, 2, "party", "D1", "D2", "D3")
	for range 2 {
		stepV("RefundTickets")(s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: party.Number, Seats: []string{"D2"}}))
	}
	z, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 10000, Breakdown: "50x2"})
	step("CloseShift", err)
	stepV("ShiftReport")(s.ShiftReport(ctx, clerk, z.Shift.ID))
	stepV("ReopenShift")(s.ReopenShift(ctx, supervisor, booking.ReopenShiftRequest{ID: z.Shift.ID, Reason: "recount"}))
	stepV("OpenShift")(s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 10000}))
	stepV("CheckInvariants")(s.CheckInvariants(ctx))

	// Printers (issue 12): a terminal's printer set, then read back.
	printerKey, printerPub := newAuthorizedKey(t)
	stepV("AddTerminal")(s.AddTerminal(ctx, mgr, "till-8", printerKey))
	stepV("SetTerminalPrinter")(s.SetTerminalPrinter(ctx, mgr, "till-8", "tcp://192.0.2.1:9100"))
	_, _, err = s.IdentifyKey(ctx, printerPub.Marshal())
	step("IdentifyKey", err)
	stepV("ListTerminals")(s.ListTerminals(ctx, mgr))
	// manager screens: a film edited longer (its shows re-checked) and
	// retired, a show moved in its hall, to another, into a clash.
	step("EditFilm", s.EditFilm(ctx, mgr, booking.Film{ID: film, Title: "Third Cut", Minutes: 150, Rating: "15"}))
	step("EditFilm", s.EditFilm(ctx, mgr, booking.Film{ID: film, Title: "Third Cut", Minutes: 500, Rating: "15"}))
	step("MoveShow", s.MoveShow(ctx, mgr, 2, clock.Now().Add(30*time.Hour), 0))
	step("MoveShow", s.MoveShow(ctx, mgr, 3, clock.Now().Add(30*time.Hour), 2))
	step("MoveShow", s.MoveShow(ctx, mgr, 3, clock.Now().Add(30*time.Hour), 1))
	step("RetireFilm", s.RetireFilm(ctx, mgr, film))
	stepV("AddShow")(s.AddShow(ctx, mgr, film, 1, clock.Now().Add(96*time.Hour)))
	// Exchanges: part of a party to another show, its retry with the same
	// key, a clash, the rest in its own show; the door meets the old code.
	trio := mustSell(t, s, 2, "trio", "E1", "E2", "E3")
	moved := booking.ExchangeRequest{Number: trio.Number, Tickets: []string{"E1"}, ToShow: 3, Seats: []string{"F1"}, IdempotencyKey: "plan-x1", Method: booking.Card}
	for range 2 {
		stepV("Exchange")(s.Exchange(ctx, clerk, moved))
	}
	stepV("Exchange")(s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: trio.Number, Tickets: []string{"E2"}, ToShow: 3, Seats: []string{"F1"}, IdempotencyKey: "plan-x2", Method: booking.Card}))
	stepV("Exchange")(s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: trio.Number, Seats: []string{"E4", "E5"}, IdempotencyKey: "plan-x3", Method: booking.Card}))
	stepV("Admit")(s.Admit(ctx, booking.Actor{Name: "dora", Role: booking.RoleDoor}, trio.Tickets[0].Code))
	stepV("Booking")(s.Booking(ctx, clerk, trio.Number))
	stepV("CheckInvariants")(s.CheckInvariants(ctx))
	// Blocked and house seats: for a show and hall-wide, refused on a
	// sold or held seat, a hold and a clash beside them, best available
	// around them, every free count, the check, and lifting them.
	blockSteps(t, s, step, stepV)
	itemSteps(t, s, clock, step, stepV)     // concessions (items_test.go)
	voucherSteps(t, s, clock, step, stepV)  // vouchers (vouchers_test.go)
	giftCardSteps(t, s, clock, step, stepV) // gift cards and split tender (giftcards_test.go)
	kioskPaySteps(t, s, clock, step, stepV) // the kiosk's vouchers and gift cards (kiosk_pay_test.go)
	// The kiosk and reservations (issue 13): a kiosk hold, a second one
	// refused, a move, a release; reserve, find, collect right and wrong,
	// pay and its retry, a lapse swept, a lapsed one's payment, the report.
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}
	kh, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: 2, Owner: "kiosk-a", N: 2})
	step("KioskHold", err)
	stepV("KioskHold")(s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: 2, Owner: "kiosk-a", N: 1}))
	kh, err = s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: 2, Owner: "kiosk-a", Seats: []string{"F1", "F2"}, MoveFrom: kh.ID})
	step("KioskHold", err)
	stepV("KioskRelease")(s.KioskRelease(ctx, kiosk, "kiosk-b"))
	resv, err := s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: kh.ID, Owner: "kiosk-a", Name: "Ann Lee", Phone: "020 7946 0018",
		Addr: "192.0.2.1", Types: map[string]string{"F1": "child"}})
	step("Reserve", err)
	stepV("Reservation")(s.Reservation(ctx, clerk, resv.Number))
	stepV("FindReservations")(s.FindReservations(ctx, clerk, resv.Number))
	stepV("FindReservations")(s.FindReservations(ctx, clerk, "020 7946 0018"))
	stepV("FindReservations")(s.FindReservations(ctx, clerk, "0018"))
	collect := func(number, digits string) (*booking.Collection, error) {
		return s.Collect(ctx, kiosk, booking.CollectRequest{Number: number, Digits: digits, Addr: "192.0.2.1"})
	}
	stepV("Collect")(collect(resv.Number, "0018"))
	stepV("Collect")(collect(resv.Number, "9999"))
	stepV("Collect")(collect("BO-ZZZZ2222", "0018"))
	payReq := booking.PayReservationRequest{Number: resv.Number, Method: booking.Card, IdempotencyKey: "plan-resv"}
	stepV("PayReservation")(s.PayReservation(ctx, clerk, payReq))
	stepV("PayReservation")(s.PayReservation(ctx, clerk, payReq))
	stepV("Collect")(collect(resv.Number, "0018"))
	lh, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: 2, Owner: "kiosk-c", N: 1})
	step("KioskHold", err)
	lapsing, err := s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: lh.ID, Owner: "kiosk-c", Name: "Bo", Phone: "07700 900123"})
	step("Reserve", err)
	clock.Set(lapsing.CutOff)
	stepV("ExpireHolds")(s.ExpireHolds(ctx))
	stepV("PayReservation")(s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: lapsing.Number, Method: booking.Card, IdempotencyKey: "plan-late"}))
	stepV("ReportReservations")(s.ReportReservations(ctx, mgr, booking.ReportRange{From: clock.Now(), To: clock.Now()}))
	// A show's life: sales close per show and by default, a show
	// cancelled (and again, resuming), the sweeper settling ended shows.
	closes := -10 * time.Minute
	step("SetSalesClose", s.SetSalesClose(ctx, mgr, 2, &closes))
	step("SetSalesClose", s.SetSalesClose(ctx, mgr, 2, nil))
	step("SetSalesClose", s.SetSalesClose(ctx, mgr, 0, &closes))
	mustSell(t, s, 2, "doomed", "G1", "G2")
	for range 2 {
		stepV("CancelShow")(s.CancelShow(ctx, booking.System, 2, "projector"))
	}
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 2, Seats: []string{"F1"}, Owner: "late"}))
	clock.Add(3 * 24 * time.Hour)
	stepV("SettleShows")(s.SettleShows(ctx))
	stepV("SettleShows")(s.SettleShows(ctx))
	return called
}

// blockSteps is planWorkload's part for blocked and house seats.
func blockSteps(t *testing.T, s *db.Store, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	mustHold(t, s, 2, "blk", "H5")
	stepV("BlockSeats")(s.BlockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H6", "H7"}, Kind: booking.BlockBlocked, Reason: "broken"}))
	stepV("BlockSeats")(s.BlockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H8"}, Kind: booking.BlockHouse}))
	stepV("BlockSeats")(s.BlockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H9"}, Kind: booking.BlockBlocked, HallWide: true}))
	stepV("BlockSeats")(s.BlockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H5"}, Kind: booking.BlockBlocked}))                 // held
	stepV("BlockSeats")(s.BlockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"D1"}, Kind: booking.BlockBlocked, HallWide: true})) // sold
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 2, Seats: []string{"H6"}, Owner: "blk2"}))                                         // blocked
	stepV("Hold")(s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 2, Seats: []string{"H5", "H4"}, Owner: "blk2"}))                                   // clash
	stepV("HoldBest")(s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 2, N: 2, Owner: "blk3"}))
	stepV("Shows")(s.Shows(ctx, clerk, time.Now()))
	stepV("Show")(s.Show(ctx, clerk, 2))
	stepV("SeatMap")(s.SeatMap(ctx, clerk, 2, ""))
	stepV("AddWaitlist")(s.AddWaitlist(ctx, clerk, 2, "Di", "0999", 2))
	stepV("CheckInvariants")(s.CheckInvariants(ctx))
	stepV("UnblockSeats")(s.UnblockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H6"}, Kind: booking.BlockBlocked}))
	stepV("UnblockSeats")(s.UnblockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H9"}, Kind: booking.BlockBlocked}))
	stepV("UnblockSeats")(s.UnblockSeats(ctx, mgr, booking.BlockRequest{ShowID: 2, Seats: []string{"H9"}, Kind: booking.BlockBlocked, HallWide: true}))
	stepV("UnblockSeats")(s.UnblockSeats(ctx, supervisor, booking.BlockRequest{ShowID: 2, Seats: []string{"H8"}, Kind: booking.BlockHouse}))
}

// notStatements are store methods that run no SQL of their own.
var notStatements = []string{"Close", "Path", "Changes", "Stats", "Seed", "Quiesce",
	// A bounded shutdown.
	"GiveUpWaiting",
}

func TestPlanGuard(t *testing.T) {
	clock := storetest.FixedClock()
	stop := db.CapturePrepared()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	called := planWorkload(t, s, clock)
	stmts := append(append(stop(), db.OtherStatements()...), db.TriggerStatements()...)
	if len(stmts) < 80 || !slices.ContainsFunc(stmts, func(q string) bool { return strings.HasPrefix(q, "INSERT INTO bookings") }) {
		t.Fatalf("captured only %d statements: the capture is broken", len(stmts))
	}
	raw := openRaw(t, path)
	for _, p := range planProblems(t, raw, stmts) {
		t.Errorf("scan of a table that grows with history: %s", p)
	}

	// Every method of the store is in the workload, so a new method's
	// statements are checked too: add it to planWorkload.
	st := reflect.TypeOf(s)
	for i := 0; i < st.NumMethod(); i++ {
		name := st.Method(i).Name
		if !slices.Contains(called, name) && !slices.Contains(notStatements, name) {
			t.Errorf("the plan guard's workload never calls Store.%s: add it to planWorkload", name)
		}
	}
	t.Logf("checked %d statements", len(stmts))

	// The guard can fail: without the index on payments(booking_id),
	// loading a booking scans every payment ever made, and the guard says
	// so. (On the workload's own file and statements: a second workload
	// cost as much again, under the race detector, one test at a time.)
	t.Run("DroppedIndex", func(t *testing.T) {
		if _, err := raw.Exec(`DROP INDEX payments_by_booking`); err != nil {
			t.Fatal(err)
		}
		got := planProblems(t, raw, stmts)
		if !slices.ContainsFunc(got, func(p string) bool {
			return strings.HasPrefix(p, "SCAN payments (table payments)") && strings.Contains(p, "FROM payments WHERE booking_id IN")
		}) {
			t.Fatalf("dropping payments_by_booking went unnoticed: %v", got)
		}
	})
}

func TestPlanGuard_Parse(t *testing.T) {
	for q, want := range map[string]int{"SELECT ?": 1, "SELECT ?, ?": 2, "SELECT ?2, ?": 3, "SELECT '?', ?1": 1} {
		if got := paramCount(q); got != want {
			t.Errorf("paramCount(%q) = %d, want %d", q, got, want)
		}
	}
	got := tableAliases(`SELECT c.x FROM seat_claims c JOIN holds AS h ON h.id = c.hold_id WHERE c.show_id IN (SELECT id FROM shows)`)
	if got["c"] != "seat_claims" || got["h"] != "holds" || got["shows"] != "shows" || got["where"] != "" {
		t.Errorf("aliases %v", got)
	}
}
