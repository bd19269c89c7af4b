package booking

import "time"

// AuditAction names one kind of state change in the audit trail. Every
// write of the store appends one audit row in its own transaction; the
// names are what a manager filters by.
type AuditAction string

const (
	AuditHold         AuditAction = "hold"
	AuditRelease      AuditAction = "release"
	AuditExtend       AuditAction = "extend"
	AuditSale         AuditAction = "sale"
	AuditCancel       AuditAction = "cancel"
	AuditRefund       AuditAction = "refund"
	AuditAdmit        AuditAction = "admit"
	AuditOverride     AuditAction = "override"
	AuditPriceChange  AuditAction = "price_change"
	AuditStaffChange  AuditAction = "staff_change"
	AuditShiftOpen    AuditAction = "shift_open"
	AuditShiftClose   AuditAction = "shift_close"
	AuditShiftReopen  AuditAction = "shift_reopen"
	AuditSignInFailed AuditAction = "signin_failed"
	AuditApprovalFail AuditAction = "approval_failed"
	AuditProgramme    AuditAction = "programme_change"
	AuditWaitlist     AuditAction = "waitlist"

	// The audit helper's own actions: terminals registered or removed, a
	// PIN accepted (the sign-in clears its failure count) and holds that
	// lapsed and were expired by the sweeper.
	AuditTerminalChange AuditAction = "terminal_change"
	AuditSignIn         AuditAction = "signin"
	AuditExpire         AuditAction = "expire"

	// Exchanges: tickets moved to other seats or another show.
	AuditExchange AuditAction = "exchange"
	// A show's life: a show cancelled (each booking it refunds is an
	// AuditCancel row of its own), and the sweeper settling the bookings
	// of ended shows as completed or no_show.
	AuditCancelShow AuditAction = "show_cancel"
	AuditSettle     AuditAction = "settle"
	// Blocked and house seats: kept out of sale, put back on sale.
	AuditSeatBlock   AuditAction = "seat_block"
	AuditSeatUnblock AuditAction = "seat_unblock"
	// Reservations (issue 13): a hold turned into a reservation. Paying
	// for one is a sale.
	AuditReserve AuditAction = "reserve"
	// A kiosk's collect that failed: wrong digits for the number typed
	// (which may not exist), or refused unseen during a pause. Each try
	// at guessing someone's digits leaves one.
	AuditCollectFailed AuditAction = "collect_failed"
)

// AuditEntry is one row of the audit trail: who (staff name, role and
// terminal), when, what, on which show, booking or shift, and the amount
// of money it moved (minor units; zero when none).
type AuditEntry struct {
	ID       int64
	At       time.Time
	Actor    string
	Role     string
	Terminal string
	Action   AuditAction
	ShowID   int64
	Booking  string // booking number, when the change concerns one
	ShiftID  int64
	Amount   Money
	Detail   string
}

// AuditQuery filters the audit trail; a zero field matches every row.
type AuditQuery struct {
	Booking string    // a booking number ("BO-7KQ2X9TD", any case, the prefix optional)
	Staff   string    // who acted, by name, any case; without Day, over the last AuditStaffWindow
	Day     time.Time // rows of this local day (its location's midnight to midnight)
	Limit   int       // at most this many, newest first: DefaultAuditLimit when 0, never over MaxAuditLimit
}

// Audit read limits: a screen or a command reads a page, never the whole
// trail of a year.
const (
	DefaultAuditLimit = 200
	MaxAuditLimit     = 10000
)

// AuditStaffWindow is how far back a search by person without a day
// looks: the trail is indexed by time, not by person (a per-person index
// cost every sale a page write per counter), so a search by person walks
// a bounded stretch of it, newest first.
const AuditStaffWindow = 31 * 24 * time.Hour

// AuditLimit is q.Limit bounded to 1..MaxAuditLimit, DefaultAuditLimit
// when unset.
func (q AuditQuery) AuditLimit() int {
	switch {
	case q.Limit <= 0:
		return DefaultAuditLimit
	case q.Limit > MaxAuditLimit:
		return MaxAuditLimit
	}
	return q.Limit
}
