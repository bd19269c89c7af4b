package booking

import (
	"slices"
	"testing"
)

// An action nobody classified is a write, so the audit test walks it
// until someone decides; the reads are only what the table names.
func TestIsWrite_FailsClosed(t *testing.T) {
	if !IsWrite(Action("something_new")) {
		t.Error("an unclassified action reads as a read")
	}
	for _, a := range []Action{ActionHold, ActionSell, ActionCancel, ActionAdmit, ActionWaitlist, ActionManageStaff, ActionManageHalls} {
		if !IsWrite(a) {
			t.Errorf("%s is not a write", a)
		}
	}
	for _, a := range []Action{ActionViewShows, ActionViewBooking, ActionFindBooking, ActionViewAudit} {
		if IsWrite(a) {
			t.Errorf("%s is a write", a)
		}
	}
	all := Actions()
	if !slices.IsSorted(all) || !slices.Contains(all, ActionViewAudit) || len(all) != len(permissions) {
		t.Errorf("Actions() = %v", all)
	}
	if MinRole(ActionViewAudit) != RoleManager {
		t.Errorf("the audit trail is open to a %s", MinRole(ActionViewAudit))
	}
}

func TestAuditQuery_AuditLimit(t *testing.T) {
	for limit, want := range map[int]int{0: DefaultAuditLimit, -3: DefaultAuditLimit, 1: 1, 50: 50, MaxAuditLimit + 1: MaxAuditLimit} {
		if got := (AuditQuery{Limit: limit}).AuditLimit(); got != want {
			t.Errorf("Limit %d: %d, want %d", limit, got, want)
		}
	}
}
