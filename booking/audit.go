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
