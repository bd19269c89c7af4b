package db_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// TestAudit_SQLiteShell is issue 10's must-show 4 done as a person at the
// sqlite3 shell would do it, with the real binary on the real file: the
// audit trail refuses UPDATE and DELETE, payments refuse DELETE and any
// UPDATE of amount, method or staff. The same shell may still change a
// booking's customer name, so the refusals are the triggers', not a
// read-only file's.
func TestAudit_SQLiteShell(t *testing.T) {
	t.Parallel()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 is not installed (.ci/run installs it)")
	}
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	sold := mustSell(t, s, 1, "a", "A1", "A2")
	if _, err := s.Cancel(context.Background(), supervisor, booking.CancelRequest{Number: mustSell(t, s, 1, "b", "B1").Number}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	run := func(sql string) (string, error) {
		out, err := exec.Command(shell, "-bail", path, sql).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	count := func(sql string) string {
		out, err := run(sql)
		if err != nil {
			t.Fatalf("%s: %v: %s", sql, err, out)
		}
		return out
	}
	auditRows, payments := count(`SELECT count(*) FROM audit`), count(`SELECT count(*) || ' ' || sum(amount) || ' ' || group_concat(method || staff) FROM payments`)
	if auditRows == "0" {
		t.Fatal("the store wrote no audit rows to refuse changes to")
	}
	for _, c := range []struct{ sql, want string }{
		{`UPDATE audit SET actor = 'nobody'`, "the audit trail is append-only"},
		{`UPDATE audit SET amount = 0 WHERE action = 'sale'`, "the audit trail is append-only"},
		{`DELETE FROM audit`, "the audit trail is append-only"},
		{`DELETE FROM audit WHERE id = (SELECT max(id) FROM audit)`, "the audit trail is append-only"},
		{`UPDATE audit SET hash = NULL`, "the audit trail is append-only"},
		{`UPDATE audit SET hash = zeroblob(32) WHERE id = 1`, "the audit trail is append-only"},
		{`UPDATE audit SET id = id + 1000 WHERE id = (SELECT max(id) FROM audit)`, "the audit trail is append-only"},
		{`DELETE FROM payments`, "payments are never deleted"},
		{`UPDATE payments SET amount = 1`, "payments are never changed"},
		{`UPDATE payments SET method = 'cash' WHERE method = 'card'`, "payments are never changed"},
		{`UPDATE payments SET staff = 'nobody'`, "payments are never changed"},
	} {
		out, err := run(c.sql)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("sqlite3 %q: err %v, output %q; want a refusal saying %q", c.sql, err, out, c.want)
		}
	}
	if out, err := run(`UPDATE bookings SET customer = 'Changed' WHERE number = '` + sold.Number + `'`); err != nil {
		t.Fatalf("the shell cannot write this file at all (%v: %s): the refusals above prove nothing", err, out)
	}
	if got := count(`SELECT count(*) FROM audit`); got != auditRows {
		t.Errorf("audit rows %s after the attempts, want %s", got, auditRows)
	}
	if got := count(`SELECT count(*) || ' ' || sum(amount) || ' ' || group_concat(method || staff) FROM payments`); got != payments {
		t.Errorf("payments %q after the attempts, want %q", got, payments)
	}
}
