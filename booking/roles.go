package booking

import (
	"errors"
	"fmt"
	"slices"
)

// Role orders what a member of staff may do: door < clerk < supervisor <
// manager. Kiosk is below door: it may only do what a customer may.
// RoleNone, the zero value, may do nothing: an Actor nobody filled in
// (a signed-out counter, a forgotten field) is refused everything,
// public reads included, rather than counted as a kiosk.
type Role int

const (
	RoleNone Role = iota
	RoleKiosk
	RoleDoor
	RoleClerk
	RoleSupervisor
	RoleManager
)

func (r Role) String() string {
	switch r {
	case RoleNone:
		return "nobody"
	case RoleKiosk:
		return "kiosk"
	case RoleDoor:
		return "door"
	case RoleClerk:
		return "clerk"
	case RoleSupervisor:
		return "supervisor"
	case RoleManager:
		return "manager"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// ParseRole is the inverse of String for staff roles.
func ParseRole(s string) (Role, error) {
	for r := RoleDoor; r <= RoleManager; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, Errorf(EInvalid, "unknown role %q (door, clerk, supervisor or manager)", s)
}

// Action is something a person asks the booking core to do.
type Action string

const (
	ActionViewShows    Action = "view_shows"
	ActionHold         Action = "hold"
	ActionSell         Action = "sell"
	ActionViewBooking  Action = "view_booking"
	ActionFindBooking  Action = "find_booking"
	ActionWaitlist     Action = "waitlist"
	ActionCancel       Action = "cancel"
	ActionAdmit        Action = "admit"
	ActionManageStaff  Action = "manage_staff"
	ActionManageHalls  Action = "manage_halls"
	ActionRunBenchmark Action = "run_benchmark"

	// ActionViewAudit reads the audit trail.
	ActionViewAudit Action = "view_audit"

	// ActionViewReports reads the takings, refunds, occupancy, shifts and
	// no-shows reports (booking.Reports).
	ActionViewReports Action = "view_reports"

	// Shifts and refunds.
	ActionShift         Action = "shift"          // open, close and report on one's own shift
	ActionReopenShift   Action = "reopen_shift"   // reopen a closed shift, see anyone's
	ActionCancelStarted Action = "cancel_started" // cancel or refund after the show started
	ActionRefund        Action = "refund"         // refund some tickets of a booking

	// Exchanges: move tickets to other seats or another show.
	ActionExchange Action = "exchange"
	// A show's life: cancel a show, refunding every booking of it.
	ActionCancelShow Action = "cancel_show"
	// Blocked and house seats (issue 11).
	ActionBlockSeats   Action = "block_seats"   // block, unblock, hold house seats back
	ActionReleaseHouse Action = "release_house" // release house seats into sale
	// The kiosk and reservations (issue 13).
	ActionKiosk   Action = "kiosk"   // a kiosk session holds and lets go of seats
	ActionReserve Action = "reserve" // turn a hold into a reservation paid later
	ActionCollect Action = "collect" // a customer's own booking, by number and phone digits
	// Sites (issue 14): add a cinema to a chain.
	ActionManageSites Action = "manage_sites"
	// Customer accounts (customers.go): open one and attach sales to it,
	// find and read them, erase one; the film watchlist.
	ActionCustomers     Action = "customers"
	ActionFindCustomers Action = "find_customers"
	ActionEraseCustomer Action = "erase_customer"
	ActionWatchlist     Action = "watchlist"
	// Gift cards (giftcards.go): sell one; its balance is read with
	// ActionSell.
	ActionIssueGiftCard Action = "issue_gift_card"
)

// permissions is the one table of who may do what: the least role an action
// needs. An action missing here needs RoleManager, so anything added to the
// code without a decision fails closed.
var permissions = map[Action]Role{
	ActionViewShows:   RoleKiosk, // the programme and seat map are public: a kiosk shows them
	ActionHold:        RoleClerk,
	ActionSell:        RoleClerk,
	ActionViewBooking: RoleDoor,
	ActionFindBooking: RoleClerk,
	ActionWaitlist:    RoleClerk,
	ActionCancel:      RoleSupervisor,
	ActionAdmit:       RoleDoor,
	ActionManageStaff: RoleManager,
	ActionManageHalls: RoleManager,

	// audit
	ActionViewAudit: RoleManager,

	// Reports: the takings by clerk and every shift's variance are a
	// manager's to read; a supervisor approves refunds and reopens
	// shifts but does not audit the people they supervise.
	ActionViewReports: RoleManager,

	// Shifts and refunds.
	ActionShift:         RoleClerk,
	ActionReopenShift:   RoleSupervisor,
	ActionCancelStarted: RoleManager,
	ActionRefund:        RoleSupervisor,

	// Exchanges: a clerk may move a customer to seats as dear or dearer
	// before the show; money back or a started show needs ActionRefund or
	// ActionCancelStarted as well, checked by the store.
	ActionExchange: RoleClerk,
	// A show's life: cancelling a show refunds a hall's worth of money
	// and tells every customer; it is the manager's decision.
	ActionCancelShow: RoleManager,
	// Blocked and house seats.
	ActionBlockSeats:   RoleManager,
	ActionReleaseHouse: RoleSupervisor,
	// The kiosk and reservations: a customer's own actions, which the
	// kiosk role may do and every member of staff too. The store bounds
	// them (booking.Kiosk) whoever calls.
	ActionKiosk:   RoleKiosk,
	ActionReserve: RoleKiosk,
	ActionCollect: RoleKiosk,
	// A customer pays their own reservation at a kiosk with a gift card
	// (kioskpay.go); the store counts every try.
	ActionKioskPay: RoleKiosk,
	// Concessions: the items, their prices and stock are a manager's.
	ActionManageItems: RoleManager,
	// The cinema's settings and tax rates (booking/settings.go): what
	// every receipt and report says, a manager's.
	ActionManageSettings: RoleManager,
	// Customer accounts are staff's: a customer's own session (the
	// kiosk) neither opens nor reads one. Erasure cannot be undone, so it
	// is a supervisor's.
	ActionCustomers:     RoleClerk,
	ActionFindCustomers: RoleClerk,
	ActionEraseCustomer: RoleSupervisor,
	ActionWatchlist:     RoleClerk,
	// Selling a gift card is a sale of money at the counter.
	ActionIssueGiftCard: RoleClerk,
	// ActionManageSites (a new cinema of a chain) is left out on purpose:
	// it needs a manager, MinRole's default, and on the embedded SQLite
	// store it never changes anything (AddSite refuses), so it has no
	// write there for the audit walk of this table.
}

// MinRole returns the least role allowed to do a; unclassified actions need
// a manager.
func MinRole(a Action) Role {
	if r, ok := permissions[a]; ok {
		return r
	}
	return RoleManager
}

// Actor is who asks for an action: the signed-in staff member, the terminal
// they sit at and the session that owns their holds.
type Actor struct {
	// StaffID is the signed-in member of staff; 0 for System and kiosks.
	// Every write checks, in its own transaction, that this person is
	// still enabled and holds at least Role.
	StaffID  int64
	Name     string
	Role     Role
	Terminal string
	// TerminalID is the registered terminal (an SSH counter device) the
	// actor works at; 0 for a local counter or the command line. Every
	// write checks that it is still registered.
	TerminalID int64
	// Site is the site the session works at (the terminal's, a member of
	// staff's own, or the local counter's --site); AllSites (0) for every
	// site: the command line, a manager's view of a chain. Shows lists
	// only its site's shows and a hold of another site's show is refused.
	Site int64
}

// Access is who may still act: enabled staff with their roles, and the
// registered terminals.
type Access struct {
	Staff     map[int64]Role
	Terminals map[int64]bool
}

// Allows reports whether a session of staff staffID acting as role (0: no
// one signed in) at terminal terminalID (0: none) may go on.
func (a Access) Allows(staffID int64, role Role, terminalID int64) bool {
	if staffID != 0 {
		if r, ok := a.Staff[staffID]; !ok || r < role {
			return false
		}
	}
	return terminalID == 0 || a.Terminals[terminalID]
}

// ErrWithdrawn is the error of a write by someone disabled, demoted or
// working at a removed terminal since they signed in.
var ErrWithdrawn = &Error{Code: EForbidden, Message: "Your access was withdrawn."}

// IsWithdrawn reports whether err says the actor's access was withdrawn.
func IsWithdrawn(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == ErrWithdrawn.Code && e.Message == ErrWithdrawn.Message
}

// System is the actor for the local command line, run by whoever owns the
// data directory.
var System = Actor{Name: "system", Role: RoleManager}

// Authorize returns a forbidden error unless actor may do a.
func Authorize(actor Actor, a Action) error {
	if actor.Role >= MinRole(a) {
		return nil
	}
	return Errorf(EForbidden, "%s needs a %s; %s is signed in as %s", describe(a), MinRole(a), actor.Name, actor.Role)
}

func describe(a Action) string {
	switch a {
	case ActionCancel, ActionRefund:
		return "Cancelling or refunding"
	case ActionCancelStarted:
		return "Refunding a show that has started"
	case ActionShift:
		return "Taking money in a shift"
	case ActionReopenShift:
		return "Reopening a shift"
	case ActionSell, ActionHold:
		return "Selling seats"
	case ActionAdmit:
		return "Admitting tickets"
	case ActionManageStaff:
		return "Managing staff"
	case ActionViewReports:
		return "Reading the reports"
	case ActionExchange:
		return "Exchanging tickets"
	case ActionBlockSeats:
		return "Blocking seats"
	case ActionReleaseHouse:
		return "Releasing house seats"
	case ActionManageSettings:
		return "Changing the cinema's settings"
	case ActionEraseCustomer:
		return "Erasing a customer"
	}
	return "This action"
}

// reads are the actions of the permission table whose every call only
// reads. Every other action writes: each of its calls that changes
// anything writes exactly one audit row in its own transaction. An
// action missing here counts as a write, so a new action is walked by the
// audit test (db: TestAudit_EveryWriteAction) until someone decides.
var reads = map[Action]bool{
	ActionViewShows:   true,
	ActionViewBooking: true,
	ActionFindBooking: true,

	// audit
	ActionViewAudit: true,

	// reports
	ActionViewReports: true,

	// kiosk
	ActionCollect: true,

	// customers
	ActionFindCustomers: true,
}

// IsWrite reports whether calls needing a change state (and so write an
// audit row); unclassified actions do.
func IsWrite(a Action) bool { return !reads[a] }

// Actions lists every action of the permission table, sorted.
func Actions() []Action {
	out := make([]Action, 0, len(permissions))
	for a := range permissions {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
