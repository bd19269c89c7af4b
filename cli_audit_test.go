package main

import "testing"

// TestGolden_Audit: the audit trail from the command line — a sale, a
// cancel and a price change read back whole, by booking (text and JSON),
// by person and day, and the mistakes a person makes asking.
func TestGolden_Audit(t *testing.T) {
	t.Parallel()
	goldenRun(t, "audit", []goldenStep{
		cmd("init"),
		cmd("shift", "open", "--float", "100"),
		cmd("sell", "13", "A1", "A2", "--pay", "cash", "--tendered", "50"),
		cmd("cancel", "$NUMBER1", "--reason", "wrong day"),
		cmd("price", "set", "adult", "Adult", "13.50"),
		cmd("audit"),
		cmd("audit", "--booking", "$NUMBER1"),
		cmd("audit", "--booking", "$NUMBER1", "--json"),
		cmd("audit", "--staff", "SYSTEM", "--day", "2026-12-01", "--limit", "3"),
		cmd("audit", "--day", "2026-12-02"),
		cmd("audit", "--booking", "BO-ZZZZZZZZ"),
		cmd("audit", "--day", "1 Dec"),
		cmd("audit", "--limit", "0"),
		cmd("audit", "extra"),
	})
}
