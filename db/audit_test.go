package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Audit actors: the fixture's staff, each at a terminal of their own, so
// a row that drops the role or the terminal is seen.
var (
	auditClerk = booking.Actor{StaffID: 3, Name: "carl", Role: booking.RoleClerk, Terminal: "till-1"}
	auditSup   = booking.Actor{StaffID: 2, Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	auditMgr   = booking.Actor{StaffID: 1, Name: "mgr", Role: booking.RoleManager, Terminal: "office"}
	auditDoor  = booking.Actor{StaffID: 4, Name: "dora", Role: booking.RoleDoor, Terminal: "door-1"}
)

// auditFixture is a fresh seeded store for one call, with its raw
// connection for reading the trail as the file holds it.
type auditFixture struct {
	t     *testing.T
	ctx   context.Context
	s     *db.Store
	raw   *sql.DB
	clock *storetest.Clock
	// hold, sold and entry are what prep made for the call to act on.
	hold  *booking.Hold
	sold  *booking.Booking
	entry *booking.WaitlistEntry
	// card is the gift card prep sold.
	card string
	// shiftID is the shift prep closed.
	shiftID int64
}

// closeCarlsShift closes the shift the kit opened for carl.
func closeCarlsShift(f *auditFixture) {
	z, err := f.s.CloseShift(f.ctx, auditClerk, booking.CloseShiftRequest{Counted: 10000})
	if err != nil {
		f.t.Fatal(err)
	}
	f.shiftID = z.Shift.ID
}

// soldAndStarted sells A1 A2 of show 1, gives the manager a shift to
// refund from, and moves the clock past the show's start.
func soldAndStarted(f *auditFixture) {
	sellA1(f)
	if _, err := f.s.CurrentShift(f.ctx, auditMgr); err != nil {
		if _, err := f.s.OpenShift(f.ctx, auditMgr, booking.OpenShiftRequest{Float: 10000}); err != nil {
			f.t.Fatal(err)
		}
	}
	sh, err := f.s.Show(f.ctx, auditMgr, 1)
	if err != nil {
		f.t.Fatal(err)
	}
	f.clock.Add(sh.Starts.Sub(f.clock.Now()) + time.Minute)
}

func newAuditFixture(t *testing.T) *auditFixture {
	t.Helper()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	return &auditFixture{t: t, ctx: context.Background(), s: s, raw: openRaw(t, path), clock: clock}
}

// auditRow is one row of the trail as stored.
type auditRow struct {
	actor, role, terminal, action, detail string
	show, bookingID                       sql.NullInt64
	amount                                int64
}

// rows returns the trail's rows after id, oldest first.
func (f *auditFixture) rowsAfter(id int64) []auditRow {
	f.t.Helper()
	rows, err := f.raw.Query(`SELECT actor, role, terminal, action, detail, show_id, booking_id, coalesce(amount, 0) FROM audit WHERE id > ? ORDER BY id`, id)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.actor, &r.role, &r.terminal, &r.action, &r.detail, &r.show, &r.bookingID, &r.amount); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func (f *auditFixture) lastID() int64 {
	f.t.Helper()
	var id int64
	if err := f.raw.QueryRow(`SELECT coalesce(max(id), 0) FROM audit`).Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	return id
}

// soldOut sells every seat of show 3 but the two of the last booking,
// which it keeps in f.sold for a cancel to free.
func (f *auditFixture) soldOut() {
	m, err := f.s.SeatMap(f.ctx, clerk, 3, "")
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i < len(m.Hall.Seats); i += 20 {
		var labels []string
		for _, seat := range m.Hall.Seats[i:min(i+20, len(m.Hall.Seats))] {
			labels = append(labels, seat.Label)
		}
		f.sold = mustSell(f.t, f.s, 3, fmt.Sprint("bulk", i), labels...)
	}
}

// auditCall is one write call made by actor: after prep, call must write
// exactly one audit row of action naming the actor, their role and
// terminal.
type auditCall struct {
	method string
	actor  booking.Actor
	action booking.AuditAction
	prep   func(f *auditFixture)
	call   func(f *auditFixture, a booking.Actor) error
}

func holdA1(f *auditFixture) { f.hold = mustHold(f.t, f.s, 1, "a", "A1", "A2") }

func sellA1(f *auditFixture) { f.sold = mustSell(f.t, f.s, 1, "a", "A1", "A2") }

// writeCalls are the write calls of every write action of the permission
// table (booking.IsWrite).
var writeCalls = map[booking.Action][]auditCall{
	booking.ActionHold: {
		{"Hold", auditClerk, booking.AuditHold, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Hold(f.ctx, a, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a"})
			return err
		}},
		{"HoldBest", auditClerk, booking.AuditHold, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.HoldBest(f.ctx, a, booking.HoldBestRequest{ShowID: 1, N: 3, Owner: "a"})
			return err
		}},
		{"Release", auditClerk, booking.AuditRelease, holdA1, func(f *auditFixture, a booking.Actor) error {
			return f.s.Release(f.ctx, a, f.hold.ID, "a", "A2")
		}},
		{"Extend", auditClerk, booking.AuditExtend, holdA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Extend(f.ctx, a, f.hold.ID, "a", time.Minute)
			return err
		}},
	},
	booking.ActionSell: {
		{"ConfirmID", auditClerk, booking.AuditIDCheck, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.ConfirmID(f.ctx, a, 2) // the seed's second film is rated 15
		}},
		{"Checkout", auditClerk, booking.AuditSale, holdA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Checkout(f.ctx, a, booking.CheckoutRequest{HoldID: f.hold.ID, Owner: "a", IdempotencyKey: "k1", Method: booking.Cash, Tendered: 5000})
			return err
		}},
	},
	booking.ActionCancel: {
		{"Cancel", auditSup, booking.AuditCancel, sellA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Cancel(f.ctx, a, booking.CancelRequest{Number: f.sold.Number, Reason: "wrong day"})
			return err
		}},
	},
	booking.ActionAdmit: {
		{"Admit", auditDoor, booking.AuditAdmit, sellA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Admit(f.ctx, a, f.sold.Tickets[0].Code)
			return err
		}},
	},
	booking.ActionWaitlist: {
		{"AddWaitlist", auditClerk, booking.AuditWaitlist, (*auditFixture).soldOut, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddWaitlist(f.ctx, a, 3, "Ann", "0123", 2)
			return err
		}},
		{"RemoveWaitlist", auditClerk, booking.AuditWaitlist, waiting, func(f *auditFixture, a booking.Actor) error {
			return f.s.RemoveWaitlist(f.ctx, a, f.entry.ID)
		}},
		{"MarkCalled", auditClerk, booking.AuditWaitlist, told, func(f *auditFixture, a booking.Actor) error {
			return f.s.MarkCalled(f.ctx, a, f.entry.ID)
		}},
	},
	booking.ActionManageHalls: {
		{"AddHall", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			h := storetest.Hall()
			h.Name = "Second Hall"
			_, err := f.s.AddHall(f.ctx, a, h)
			return err
		}},
		{"SetFilmHire", auditMgr, booking.AuditFilmHire, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetFilmHire(f.ctx, a, booking.FilmHire{Film: 1, Rate: 3500})
			return err
		}},
		{"AddFilm", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddFilm(f.ctx, a, booking.Film{Title: "Third", Minutes: 90})
			return err
		}},
		{"AddShow", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddShow(f.ctx, a, 1, 1, f.clock.Now().Add(72*time.Hour))
			return err
		}},
		{"SetPrice", auditMgr, booking.AuditPriceChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.SetPrice(f.ctx, a, booking.TicketType{Code: "adult", Name: "Adult", Price: 1300})
		}},
		{"SetPriceEntry", auditMgr, booking.AuditPriceChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.SetPriceEntry(f.ctx, a, booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Premium}, Amount: 1650})
		}},
		{"SetShowPriceList", auditMgr, booking.AuditPriceChange, func(f *auditFixture) {
			if err := f.s.SetPriceEntry(f.ctx, auditMgr, booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Standard}, Amount: 1400}); err != nil {
				f.t.Fatal(err)
			}
		}, func(f *auditFixture, a booking.Actor) error {
			return f.s.SetShowPriceList(f.ctx, a, 1, "evening")
		}},

		// manager screens: editing the programme.
		{"EditFilm", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.EditFilm(f.ctx, a, booking.Film{ID: 1, Title: "First Film (restored)", Minutes: 100, Rating: "PG"})
		}},
		{"RetireFilm", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.RetireFilm(f.ctx, a, 2)
		}},
		{"MoveShow", auditMgr, booking.AuditProgramme, sellA1, func(f *auditFixture, a booking.Actor) error {
			return f.s.MoveShow(f.ctx, a, 1, f.clock.Now().Add(96*time.Hour), 0)
		}},
		// A show's life.
		{"SetSalesClose", auditMgr, booking.AuditProgramme, nil, func(f *auditFixture, a booking.Actor) error {
			d := -10 * time.Minute
			return f.s.SetSalesClose(f.ctx, a, 1, &d)
		}},
	},
	// Shifts and refunds.
	booking.ActionShift: {
		{"OpenShift", auditClerk, booking.AuditShiftOpen, closeCarlsShift, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.OpenShift(f.ctx, a, booking.OpenShiftRequest{Float: 10000})
			return err
		}},
		{"CloseShift", auditClerk, booking.AuditShiftClose, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.CloseShift(f.ctx, a, booking.CloseShiftRequest{Counted: 10000})
			return err
		}},
		{"OpenDrawer", auditClerk, booking.AuditNoSale, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.OpenDrawer(f.ctx, a, "change")
		}},
	},
	booking.ActionCloseDay: {
		{"CloseDay", auditMgr, booking.AuditDayClose, func(f *auditFixture) {
			for _, a := range []booking.Actor{auditClerk, auditSup, auditMgr, booking.System} {
				if _, err := f.s.CurrentShift(f.ctx, a); err == nil {
					if _, err := f.s.CloseShift(f.ctx, a, booking.CloseShiftRequest{Counted: 10000}); err != nil {
						f.t.Fatal(err)
					}
				}
			}
		}, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.CloseDay(f.ctx, a, f.clock.Now(), booking.AllSites)
			return err
		}},
	},
	booking.ActionReopenShift: {
		{"ReopenShift", auditSup, booking.AuditShiftReopen, closeCarlsShift, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.ReopenShift(f.ctx, a, booking.ReopenShiftRequest{ID: f.shiftID, Reason: "recount"})
			return err
		}},
	},
	booking.ActionRefund: {
		{"RefundTickets", auditSup, booking.AuditRefund, sellA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.RefundTickets(f.ctx, a, booking.RefundRequest{Number: f.sold.Number, Seats: []string{"A2"}})
			return err
		}},
	},
	booking.ActionCancelStarted: {
		{"Cancel", auditMgr, booking.AuditCancel, soldAndStarted, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Cancel(f.ctx, a, booking.CancelRequest{Number: f.sold.Number, Reason: "projector"})
			return err
		}},
	},
	// A show's life.
	booking.ActionCancelShow: {
		{"CancelShow", auditMgr, booking.AuditCancelShow, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.CancelShow(f.ctx, a, 1, "projector")
			return err
		}},
	},
	booking.ActionManageStaff: {
		{"AddStaff", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddStaff(f.ctx, a, "Maria", booking.RoleClerk, "4321", nil)
			return err
		}},
		{"DisableStaff", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.DisableStaff(f.ctx, a, "carl")
		}},
		{"EnableStaff", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.EnableStaff(f.ctx, a, "carl")
		}},
		{"SetRole", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.SetRole(f.ctx, a, "carl", booking.RoleSupervisor)
		}},
		{"SetPIN", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.SetPIN(f.ctx, a, "carl", "5678")
		}},
		{"UnlockStaff", auditMgr, booking.AuditStaffChange, nil, func(f *auditFixture, a booking.Actor) error {
			return f.s.UnlockStaff(f.ctx, a, "carl")
		}},
		{"AddTerminal", auditMgr, booking.AuditTerminalChange, nil, func(f *auditFixture, a booking.Actor) error {
			key, _ := newAuthorizedKey(f.t)
			_, err := f.s.AddTerminal(f.ctx, a, "till-9", key)
			return err
		}},
		{"RemoveTerminal", auditMgr, booking.AuditTerminalChange, func(f *auditFixture) {
			key, _ := newAuthorizedKey(f.t)
			if _, err := f.s.AddTerminal(f.ctx, auditMgr, "till-9", key); err != nil {
				f.t.Fatal(err)
			}
		}, func(f *auditFixture, a booking.Actor) error {
			return f.s.RemoveTerminal(f.ctx, a, "till-9")
		}},

		// Printers (issue 12).
		{"SetTerminalPrinter", auditMgr, booking.AuditTerminalChange, func(f *auditFixture) {
			key, _ := newAuthorizedKey(f.t)
			if _, err := f.s.AddTerminal(f.ctx, auditMgr, "till-9", key); err != nil {
				f.t.Fatal(err)
			}
		}, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetTerminalPrinter(f.ctx, a, "till-9", "tcp://192.0.2.1")
			return err
		}},
		{"SetTerminalDrawer", auditMgr, booking.AuditTerminalChange, func(f *auditFixture) {
			key, _ := newAuthorizedKey(f.t)
			if _, err := f.s.AddTerminal(f.ctx, auditMgr, "till-9", key); err != nil {
				f.t.Fatal(err)
			}
		}, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetTerminalDrawer(f.ctx, a, "till-9", false)
			return err
		}},
	},

	// Exchanges: a clerk moving a booking to another show at its price.
	booking.ActionExchange: {
		{"Exchange", auditClerk, booking.AuditExchange, sellA1, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Exchange(f.ctx, a, booking.ExchangeRequest{Number: f.sold.Number, ToShow: 2, Seats: []string{"C1", "C2"}, IdempotencyKey: "x1", Method: booking.Cash})
			return err
		}},
	},

	// Blocked and house seats.
	booking.ActionBlockSeats: {
		{"BlockSeats", auditMgr, booking.AuditSeatBlock, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.BlockSeats(f.ctx, a, booking.BlockRequest{ShowID: 1, Seats: []string{"E7", "E8"}, Kind: booking.BlockBlocked, HallWide: true, Reason: "broken"})
			return err
		}},
		{"UnblockSeats", auditMgr, booking.AuditSeatUnblock, func(f *auditFixture) { blockE7(f, booking.BlockBlocked) }, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.UnblockSeats(f.ctx, a, booking.BlockRequest{ShowID: 1, Seats: []string{"E7"}, Kind: booking.BlockBlocked})
			return err
		}},
	},
	booking.ActionReleaseHouse: {
		{"UnblockSeats", auditSup, booking.AuditSeatUnblock, func(f *auditFixture) { blockE7(f, booking.BlockHouse) }, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.UnblockSeats(f.ctx, a, booking.BlockRequest{ShowID: 1, Seats: []string{"E7"}, Kind: booking.BlockHouse})
			return err
		}},
	},
	// The kiosk and reservations (issue 13).
	booking.ActionKiosk: {
		{"KioskHold", auditClerk, booking.AuditHold, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.KioskHold(f.ctx, a, booking.KioskHoldRequest{ShowID: 1, Owner: "k", N: 2})
			return err
		}},
		{"KioskRelease", auditClerk, booking.AuditRelease, kioskHeld, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.KioskRelease(f.ctx, a, "k")
			return err
		}},
	},
	booking.ActionReserve: {
		{"Reserve", auditClerk, booking.AuditReserve, kioskHeld, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Reserve(f.ctx, a, booking.ReserveRequest{HoldID: f.hold.ID, Owner: "k", Name: "Ann", Phone: "0123456789"})
			return err
		}},
	},
	// The cinema's settings and tax rates.
	booking.ActionManageSettings: {
		{"SetSetting", auditMgr, booking.AuditSettings, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetSetting(f.ctx, a, booking.AllSites, booking.SetSymbol, "€")
			return err
		}},
		{"SetTaxRate", auditMgr, booking.AuditSettings, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetTaxRate(f.ctx, a, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: 2000})
			return err
		}},
	},
}

// blockE7 keeps E7 of show 1 out of sale as kind.
func blockE7(f *auditFixture, kind booking.BlockKind) {
	if _, err := f.s.BlockSeats(f.ctx, auditMgr, booking.BlockRequest{ShowID: 1, Seats: []string{"E7"}, Kind: kind}); err != nil {
		f.t.Fatal(err)
	}
}

// kioskHeld holds two seats for kiosk session k, and reservedK reserves
// them.
func kioskHeld(f *auditFixture) {
	h, err := f.s.KioskHold(f.ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k", N: 2})
	if err != nil {
		f.t.Fatal(err)
	}
	f.hold = h
}

func reservedK(f *auditFixture) {
	kioskHeld(f)
	r, err := f.s.Reserve(f.ctx, kioskActor, booking.ReserveRequest{HoldID: f.hold.ID, Owner: "k", Name: "Ann", Phone: "0123456789"})
	if err != nil {
		f.t.Fatal(err)
	}
	f.sold = &booking.Booking{Number: r.Number}
}

// The payment for a reservation is a sale: one sale row.
func init() {
	writeCalls[booking.ActionSell] = append(writeCalls[booking.ActionSell], auditCall{"PayReservation", auditClerk, booking.AuditSale, reservedK,
		func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.PayReservation(f.ctx, a, booking.PayReservationRequest{Number: f.sold.Number, Method: booking.Card, IdempotencyKey: "pay"})
			return err
		}})
}

// waiting puts Ann on the waiting list of the sold-out show 3.
func waiting(f *auditFixture) {
	f.soldOut()
	e, err := f.s.AddWaitlist(f.ctx, clerk, 3, "Ann", "0123", 2)
	if err != nil {
		f.t.Fatal(err)
	}
	f.entry = e
}

// told is waiting, then two seats free and the sweeper tells Ann.
func told(f *auditFixture) {
	waiting(f)
	if _, err := f.s.Cancel(f.ctx, supervisor, booking.CancelRequest{Number: f.sold.Number}); err != nil {
		f.t.Fatal(err)
	}
	if n, err := f.s.NotifyWaitlist(f.ctx); err != nil || len(n) != 1 {
		f.t.Fatalf("notify: %v, %v", n, err)
	}
}

// TestAudit_EveryWriteAction walks every action of the permission table:
// each write action's every call writes exactly one audit row naming the
// actor, their role and terminal, in the call's transaction.
func TestAudit_EveryWriteAction(t *testing.T) {
	t.Parallel()
	for _, action := range booking.Actions() {
		calls := writeCalls[action]
		if !booking.IsWrite(action) {
			if len(calls) > 0 {
				t.Errorf("%s is a read in the permission table but has write calls here", action)
			}
			continue
		}
		if len(calls) == 0 {
			t.Errorf("write action %s has no call in writeCalls: add its store methods", action)
		}
		for _, c := range calls {
			t.Run(string(action)+"/"+c.method, func(t *testing.T) {
				f := newAuditFixture(t)
				if c.prep != nil {
					c.prep(f)
				}
				before := f.lastID()
				if err := c.call(f, c.actor); err != nil {
					t.Fatalf("%s: %v", c.method, err)
				}
				rows := f.rowsAfter(before)
				if len(rows) != 1 {
					t.Fatalf("%s wrote %d audit rows, want 1: %+v", c.method, len(rows), rows)
				}
				r := rows[0]
				if r.actor != c.actor.Name || r.role != c.actor.Role.String() || r.terminal != c.actor.Terminal || r.action != string(c.action) {
					t.Errorf("%s wrote %+v, want actor %s, role %s, terminal %s, action %s", c.method, r, c.actor.Name, c.actor.Role, c.actor.Terminal, c.action)
				}
			})
		}
	}
}

// systemRow is an audit row a call without a staff actor must write.
type systemRow struct {
	action                booking.AuditAction
	actor, role, terminal string
}

// systemCall is a write of the program's own parts, or a PIN typed at a
// counter, and the audit rows it must write, oldest first.
type systemCall struct {
	method string
	empty  bool // on an unseeded store
	prep   func(f *auditFixture)
	call   func(f *auditFixture) error
	want   []systemRow
}

func wrongPIN(f *auditFixture, name string) error {
	_, err := f.s.SignIn(f.ctx, booking.SignInRequest{Name: name, PIN: "0000", Terminal: "till-1"})
	if booking.ErrorCode(err) != booking.EForbidden {
		return fmt.Errorf("wrong PIN for %s: %v, want EForbidden", name, err)
	}
	return nil
}

var systemCalls = []systemCall{
	{"ReleaseOwner", false, holdA1, func(f *auditFixture) error {
		_, err := f.s.ReleaseOwner(f.ctx, "a")
		return err
	}, []systemRow{{booking.AuditRelease, "system", "manager", ""}}},
	{"ReleasePrefix", false, holdA1, func(f *auditFixture) error {
		_, err := f.s.ReleasePrefix(f.ctx, "a")
		return err
	}, []systemRow{{booking.AuditRelease, "system", "manager", ""}}},
	{"ExpireHolds", false, func(f *auditFixture) {
		if _, err := f.s.Hold(f.ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a", TTL: time.Second}); err != nil {
			f.t.Fatal(err)
		}
		f.clock.Add(2 * time.Second)
	}, func(f *auditFixture) error {
		_, err := f.s.ExpireHolds(f.ctx)
		return err
	}, []systemRow{{booking.AuditExpire, "system", "manager", ""}}},
	{"NotifyWaitlist", false, func(f *auditFixture) {
		waiting(f)
		if _, err := f.s.Cancel(f.ctx, supervisor, booking.CancelRequest{Number: f.sold.Number}); err != nil {
			f.t.Fatal(err)
		}
	}, func(f *auditFixture) error {
		_, err := f.s.NotifyWaitlist(f.ctx)
		return err
	}, []systemRow{{booking.AuditWaitlist, "system", "manager", ""}}},
	{"TopUpDemo", false, nil, func(f *auditFixture) error {
		_, err := f.s.TopUpDemo(f.ctx, storetest.Seed(f.clock.Now().AddDate(0, 0, 3)))
		return err
	}, []systemRow{{booking.AuditProgramme, "system", "manager", ""}}},
	{"Seed", true, nil, func(f *auditFixture) error {
		return f.s.Seed(f.ctx, storetest.Seed(f.clock.Now()), false)
	}, []systemRow{{booking.AuditProgramme, "system", "manager", ""}}},
	{"SignIn", false, nil, func(f *auditFixture) error {
		_, err := f.s.SignIn(f.ctx, booking.SignInRequest{Name: "carl", PIN: "1234", Terminal: "till-1"})
		return err
	}, []systemRow{{booking.AuditSignIn, "carl", "clerk", "till-1"}}},
	{"SignIn", false, nil, func(f *auditFixture) error { return wrongPIN(f, "carl") },
		[]systemRow{{booking.AuditSignInFailed, "carl", "", "till-1"}}},
	{"SignIn", false, nil, func(f *auditFixture) error { return wrongPIN(f, "nobody") },
		[]systemRow{{booking.AuditSignInFailed, "nobody", "", "till-1"}}},
	{"SignIn", false, func(f *auditFixture) {
		for range 5 {
			if err := wrongPIN(f, "carl"); err != nil {
				f.t.Fatal(err)
			}
		}
	}, func(f *auditFixture) error { return wrongPIN(f, "carl") },
		[]systemRow{{booking.AuditSignInFailed, "carl", "", "till-1"}}},
	// A clerk's cancel approved by a supervisor at the clerk's counter:
	// the approval (an override) and the cancel, one row each.
	{"Cancel", false, sellA1, func(f *auditFixture) error {
		_, err := f.s.Cancel(f.ctx, auditClerk, booking.CancelRequest{Number: f.sold.Number, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
		return err
	}, []systemRow{{booking.AuditOverride, "sue", "supervisor", "till-1"}, {booking.AuditCancel, "carl", "clerk", "till-1"}}},
	{"Cancel", false, sellA1, func(f *auditFixture) error {
		_, err := f.s.Cancel(f.ctx, auditClerk, booking.CancelRequest{Number: f.sold.Number, Approver: &booking.Credentials{Name: "sue", PIN: "0000"}})
		if booking.ErrorCode(err) != booking.EForbidden {
			return fmt.Errorf("wrong approval: %v, want EForbidden", err)
		}
		return nil
	}, []systemRow{{booking.AuditApprovalFail, "sue", "", "till-1"}}},
	// The right PIN of someone who may not approve is a failed approval,
	// not an override.
	{"Cancel", false, sellA1, func(f *auditFixture) error {
		_, err := f.s.Cancel(f.ctx, auditClerk, booking.CancelRequest{Number: f.sold.Number, Approver: &booking.Credentials{Name: "dora", PIN: "1234"}})
		if booking.ErrorCode(err) != booking.EForbidden {
			return fmt.Errorf("a door's approval: %v, want EForbidden", err)
		}
		return nil
	}, []systemRow{{booking.AuditApprovalFail, "dora", "door", "till-1"}}},

	// A show's life: cancelling a show with a booking writes the show's
	// row and the booking's; settling an ended show writes one row for
	// the sweep.
	{"CancelShow", false, sellA1, func(f *auditFixture) error {
		_, err := f.s.CancelShow(f.ctx, auditMgr, 1, "projector")
		return err
	}, []systemRow{{booking.AuditCancelShow, "mgr", "manager", "office"}, {booking.AuditCancel, "mgr", "manager", "office"}}},
	{"SetSalesClose", false, nil, func(f *auditFixture) error {
		d := 15 * time.Minute
		return f.s.SetSalesClose(f.ctx, auditMgr, 0, &d)
	}, []systemRow{{booking.AuditProgramme, "mgr", "manager", "office"}}},
	{"SettleShows", false, func(f *auditFixture) {
		sellA1(f)
		f.clock.Add(3 * 24 * time.Hour)
	}, func(f *auditFixture) error {
		_, err := f.s.SettleShows(f.ctx)
		return err
	}, []systemRow{{booking.AuditSettle, "system", "manager", ""}}},
}

// TestAudit_SystemWrites: the sweeper's, a closing session's and the
// command line's writes, and every PIN typed, leave their rows too.
func TestAudit_SystemWrites(t *testing.T) {
	t.Parallel()
	for i, c := range systemCalls {
		t.Run(fmt.Sprint(c.method, i), func(t *testing.T) {
			f := newAuditFixture(t)
			if c.empty {
				s, path := dbtest.MustOpenEmpty(t, db.Options{Clock: f.clock.Now, SweepInterval: -1})
				f.s, f.raw = s, openRaw(t, path)
			}
			if c.prep != nil {
				c.prep(f)
			}
			before := f.lastID()
			if err := c.call(f); err != nil {
				t.Fatalf("%s: %v", c.method, err)
			}
			rows := f.rowsAfter(before)
			if len(rows) != len(c.want) {
				t.Fatalf("%s wrote %d audit rows, want %d: %+v", c.method, len(rows), len(c.want), rows)
			}
			for j, w := range c.want {
				r := rows[j]
				if r.action != string(w.action) || r.actor != w.actor || r.role != w.role || r.terminal != w.terminal {
					t.Errorf("%s row %d: %+v, want %+v", c.method, j, r, w)
				}
			}
		})
	}
}

// unaudited are the store methods that change no state a manager
// audits: reads, and TrimChanges, which drops old rows of the change log
// (the feed that tells open counters to repaint), not anything sold,
// held or decided.
var unaudited = []string{
	"TicketTypes", "Booking", "BookingByKey", "FindBookings", "Shows", "Show", "SeatMap", "Halls", "Films",
	"ListStaff", "ListTerminals", "IdentifyKey", "PINUnchanged", "Access", "Waitlist", "WaitlistCalls",
	"Changes", "Empty", "IsDemo", "HasSales", "CheckInvariants", "Quiesce", "Close", "Path", "Stats", "WriteCosts",
	"TrimChanges", "Audit", "Prices", "Quote",
	"ReportTakings", "ReportRefunds", "ReportOccupancy", "ReportShifts", "ReportNoShows", "Backup",
	"Cinema", "TaxRates", "ReportTax",
	// The books' reads.
	"DistributorReturn", "DayReport", "TerminalDrawer",
	"CurrentShift", "ListShifts", "ShiftReport",
	// kiosk
	"Reservation", "FindReservations", "Collect", "ReportReservations",
	// A bounded shutdown: what it could not release, and giving up the wait.
	"LiveHolds", "GiveUpWaiting",
	// Sites: SQLite is one site and stores nothing for them (AddSite
	// refuses; the setters only find the name), so there is no change to
	// audit. PostgreSQL's audit theirs.
	"Sites", "AddSite", "SetTerminalSite", "SetStaffSite",
}

// TestAudit_EveryMethodClassified: every method of the store is either a
// write walked above or named unaudited, so a write added later without
// its audit row fails here until it is walked.
func TestAudit_EveryMethodClassified(t *testing.T) {
	t.Parallel()
	walked := map[string]bool{}
	for _, calls := range writeCalls {
		for _, c := range calls {
			walked[c.method] = true
		}
	}
	for _, c := range systemCalls {
		walked[c.method] = true
	}
	st := reflect.TypeOf(&db.Store{})
	for i := 0; i < st.NumMethod(); i++ {
		name := st.Method(i).Name
		if !walked[name] && !slices.Contains(unaudited, name) {
			t.Errorf("Store.%s is neither walked by the audit tests nor named unaudited", name)
		}
	}
}

// TestAudit_FailedWriteLeavesNoRow: a write refused inside its
// transaction rolls its audit row back with everything else, even when
// group commit ran it beside writes that committed.
func TestAudit_FailedWriteLeavesNoRow(t *testing.T) {
	t.Parallel()
	f := newAuditFixture(t)
	held := mustHold(t, f.s, 1, "a", "A1")
	sold, err := f.s.Checkout(f.ctx, clerk, booking.CheckoutRequest{HoldID: held.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	before := f.lastID()
	if _, err := f.s.Hold(f.ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "b"}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("hold of a sold seat: %v", err)
	}
	if _, err := f.s.Cancel(f.ctx, supervisor, booking.CancelRequest{Number: sold.Number}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Cancel(f.ctx, supervisor, booking.CancelRequest{Number: sold.Number}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("second cancel: %v", err)
	}
	if err := f.s.DisableStaff(f.ctx, auditMgr, "nobody"); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("disable nobody: %v", err)
	}
	// Releasing a hold that was sold is not an error and changes nothing.
	if err := f.s.Release(f.ctx, clerk, held.ID, "a"); err != nil {
		t.Fatalf("release of a sold hold: %v", err)
	}
	rows := f.rowsAfter(before)
	if len(rows) != 1 || rows[0].action != string(booking.AuditCancel) {
		t.Fatalf("rows after one cancel and three refused writes: %+v, want the cancel's only", rows)
	}

	// Twelve counters race for one seat; the writer batches them. One
	// hold wins and leaves the one hold row.
	before = f.lastID()
	errs := make(chan error, 12)
	for i := range 12 {
		go func() {
			_, err := f.s.Hold(f.ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"C5"}, Owner: fmt.Sprint("r", i)})
			errs <- err
		}()
	}
	won := 0
	for range 12 {
		if err := <-errs; err == nil {
			won++
		}
	}
	if rows := f.rowsAfter(before); won != 1 || len(rows) != 1 || rows[0].action != string(booking.AuditHold) {
		t.Fatalf("%d winners, rows %+v: want one hold and its one row", won, rows)
	}
}
