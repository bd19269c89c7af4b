package db_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// TestAuditChain_RowsFromBeforeTheChain: audit rows without a hash (a
// file migrated from before the chain) are chained, in id order, by the
// writer's next write, and the whole trail then verifies; a row changed
// afterwards with the triggers dropped is named as the first broken link.
func TestAuditChain_RowsFromBeforeTheChain(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s).ID
	mustSell(t, s, show, "a", "A1", "A2")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The rows as an older binary left them: every hash gone.
	exec(`DROP TRIGGER audit_hash_once`)
	exec(`UPDATE audit SET hash = NULL`)
	exec(`INSERT INTO audit (at, actor, action, detail) VALUES (1, 'old', 'sale', 'before the chain')`)
	exec(`CREATE TRIGGER audit_hash_once BEFORE UPDATE OF hash ON audit
	WHEN OLD.hash IS NOT NULL OR NEW.hash IS NULL
BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END`)
	s = dbtest.Open(t, path, db.Options{SweepInterval: -1})
	mustSell(t, s, show, "b", "B1", "B2")
	dbtest.MustBeWhole(t, s)
	var unchained int
	if err := raw.QueryRow(`SELECT count(*) FROM audit WHERE hash IS NULL`).Scan(&unchained); err != nil || unchained != 0 {
		t.Fatalf("%d rows left unchained after a write (%v)", unchained, err)
	}
	exec(`DROP TRIGGER audit_no_update`)
	exec(`UPDATE audit SET detail = 'after the chain' WHERE detail = 'before the chain'`)
	problems, err := s.CheckInvariants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "the audit chain is broken at row ") {
		t.Fatalf("check after a row changed: %q, want the broken link named", problems)
	}
}
