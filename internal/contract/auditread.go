package contract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
)

// auditReadCases: the audit trail read back by booking, person and day,
// newest first, a page at a time, for a manager only.
var auditReadCases = []testCase{
	{"Filters", auditReadFilters},
}

func auditReadFilters(t *testing.T, e *env) {
	a := need[auditor](t, e, "Audit (booking.Audit)")
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	read := func(what string, q booking.AuditQuery) []booking.AuditEntry { return auditRead(t, e, a, what, q) }
	sold := e.sell(t, "a", "A1", "A2")
	e.clock.Add(time.Minute)
	sue := supervisor
	sue.Terminal = "till-2"
	if _, err := c.Cancel(e.ctx, sue, booking.CancelRequest{Number: sold.Number, Reason: "wrong day"}); err != nil {
		t.Fatal(err)
	}
	e.sell(t, "b", "B1")

	rows := read("by booking", booking.AuditQuery{Booking: strings.ToLower(sold.Number)})
	if got := auditActions(rows); got != fmt.Sprintf("%s %s", booking.AuditCancel, booking.AuditSale) {
		t.Fatalf("the trail of %s: %s, want the cancel then the sale", sold.Number, got)
	}
	if r := rows[0]; r.Actor != "sue" || r.Role != "supervisor" || r.Terminal != "till-2" || r.Booking != sold.Number || r.Amount != sold.Total ||
		r.ShowID != e.show.ID || !strings.Contains(r.Detail, "wrong day") || !r.At.Equal(e.clock.Now()) {
		t.Errorf("the cancel's row %+v", r)
	}
	if r := rows[1]; r.Actor != clerk.Name || r.Amount != sold.Total || r.Booking != sold.Number {
		t.Errorf("the sale's row %+v", r)
	}
	// A person, any case: her cancel, then the shift newEnv opened for
	// her drawer.
	if got := auditActions(read("by person", booking.AuditQuery{Staff: "SUE"})); got != fmt.Sprintf("%s %s", booking.AuditCancel, booking.AuditShiftOpen) {
		t.Fatalf("sue's trail: %s", got)
	}
	today := read("by day", booking.AuditQuery{Day: e.clock.Now()})
	all := read("all", booking.AuditQuery{})
	if len(today) == 0 || len(today) != len(all) || today[0].ID != all[0].ID {
		t.Fatalf("today %d rows, all %d: want the same rows", len(today), len(all))
	}
	if rows := read("tomorrow", booking.AuditQuery{Day: e.clock.Now().AddDate(0, 0, 1)}); len(rows) != 0 {
		t.Fatalf("tomorrow: %+v", rows)
	}
	east := time.FixedZone("East", 5*3600)
	for _, r := range read("a day in another zone", booking.AuditQuery{Day: e.clock.Now().In(east)}) {
		if r.At.Location() != east {
			t.Fatalf("a row of a day in another zone at %v", r.At)
		}
	}
	if rows := read("the newest two", booking.AuditQuery{Limit: 2}); len(rows) != 2 || rows[0].Action != booking.AuditSale || rows[0].Actor != clerk.Name {
		t.Fatalf("the newest two: %+v", rows)
	}
	if rows := read("the most", booking.AuditQuery{Limit: booking.MaxAuditLimit + 1}); len(rows) != len(all) {
		t.Fatalf("past the most: %d rows of %d", len(rows), len(all))
	}
	// Without a day a person's search looks back AuditStaffWindow; older
	// rows are found by their day.
	then := e.clock.Now()
	e.clock.Add(booking.AuditStaffWindow + time.Hour)
	if rows := read("sue a month on", booking.AuditQuery{Staff: "sue"}); len(rows) != 0 {
		t.Fatalf("sue's trail a month on: %+v", rows)
	}
	if got := auditActions(read("sue on the day", booking.AuditQuery{Staff: "sue", Day: then})); !strings.HasPrefix(got, string(booking.AuditCancel)+" ") {
		t.Fatalf("sue's trail on the day: %s", got)
	}
	_, err := a.Audit(e.ctx, manager, booking.AuditQuery{Booking: "BO-23456789"})
	wantCode(t, "an unknown booking's trail", err, booking.ENotFound)
	wantMessage(t, "an unknown booking's trail", err, "No booking BO-23456789.")
	_, err = a.Audit(e.ctx, supervisor, booking.AuditQuery{})
	wantCode(t, "a supervisor reading the trail", err, booking.EForbidden)
}

// auditRead reads the trail as a manager, checking it comes newest first.
func auditRead(t *testing.T, e *env, a auditor, what string, q booking.AuditQuery) []booking.AuditEntry {
	t.Helper()
	rows, err := a.Audit(e.ctx, manager, q)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].At.After(rows[i-1].At) || rows[i].At.Equal(rows[i-1].At) && rows[i].ID > rows[i-1].ID {
			t.Fatalf("%s: row %d is newer than row %d: %+v", what, i, i-1, rows)
		}
	}
	return rows
}

// auditActions lists rows' actions, space-separated.
func auditActions(rows []booking.AuditEntry) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = string(r.Action)
	}
	return strings.Join(out, " ")
}
