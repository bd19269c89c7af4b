package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/internal/clitest"
	"boxoffice/internal/pgtest"
)

// Issue 14, must show 4: `migrate --to` on a cinema with a week of sales.
// A SQLite side with a broken invariant is refused and nothing reaches
// PostgreSQL; a clean one is copied with every table's rows equal (counted
// here, on both sides, apart from what migrate says), a seat blocked for a
// show to come stays out of sale, `check` is clean on both sides, and a
// ticket sold before the move admits after it, once.
func TestCLI_MigrateToPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and plays a week of history")
	}
	into, refused := pgtest.URL(t), pgtest.URL(t)
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	run := func(env []string, args ...string) (int, string, string) {
		return clitest.Command(bin, env, "", append([]string{"--data", data}, args...)...)
	}
	if code, _, errOut := run(nil, "init", "--demo-history", "7"); code != 0 {
		t.Fatalf("init --demo-history 7: %d %s", code, errOut)
	}
	// A ticket for tomorrow's first show, sold and later scanned 20 minutes
	// before it starts.
	code, out, errOut := run(nil, "shows", "--date", time.Now().AddDate(0, 0, 1).Format("2006-01-02"), "--json")
	var shows []clitest.Show
	if code != 0 || json.Unmarshal([]byte(out), &shows) != nil || len(shows) == 0 {
		t.Fatalf("shows: %d %s %s", code, out, errOut)
	}
	starts, err := time.Parse(time.RFC3339, shows[0].Start)
	if err != nil {
		t.Fatal(err)
	}
	at := []string{"BOXOFFICE_NOW=" + starts.Add(-20*time.Minute).UTC().Format(time.RFC3339)}
	code, out, errOut = run(at, "sell", itoa(int(shows[0].ID)), "--best", "2", "--pay", "card", "--json")
	var sold struct {
		Tickets []struct {
			Code string `json:"code"`
		} `json:"tickets"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sold) != nil || len(sold.Tickets) != 2 {
		t.Fatalf("sell: %d %s %s", code, out, errOut)
	}
	// A voucher redeemed: its redemption is carried after it.
	if code, _, errOut := run(nil, "voucher", "add", "carry", "--off", "1"); code != 0 {
		t.Fatalf("voucher add: %s", errOut)
	}
	if code, out, errOut := run(at, "sell", itoa(int(shows[0].ID)), "--best", "1", "--pay", "card", "--voucher", "CARRY"); code != 0 {
		t.Fatalf("sell with a voucher: %d %s %s", code, out, errOut)
	}
	// A gift card sold and spent on part of a sale: the card, its ledger
	// and the sale's parts go across.
	code, out, errOut = run(nil, "giftcard", "issue", "5", "--pay", "card", "--json")
	var card struct{ Number string }
	if code != 0 || json.Unmarshal([]byte(out), &card) != nil {
		t.Fatalf("giftcard issue: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := run(at, "sell", itoa(int(shows[0].ID)), "--best", "2", "--pay", "giftcard", "--card", card.Number, "--rest", "card"); code != 0 {
		t.Fatalf("sell by gift card: %d %s %s", code, out, errOut)
	}

	// A broken invariant on the SQLite side: nothing is copied.
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE tickets SET price = price + 1 WHERE id = (SELECT min(id) FROM tickets)`); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(nil, "migrate", "--to", refused)
	if code == 0 || !strings.Contains(errOut, "tickets add up to") || !strings.Contains(errOut, "nothing was copied") {
		t.Fatalf("migrate of a cinema that does not check clean: exit %d\n%s", code, errOut)
	}
	if n := pgCount(t, refused, "bookings"); n != 0 {
		t.Fatalf("%d bookings reached PostgreSQL from a refused migration", n)
	}
	if _, err := raw.Exec(`UPDATE tickets SET price = price - 1 WHERE id = (SELECT min(id) FROM tickets)`); err != nil {
		t.Fatal(err)
	}
	// A seat kept out of sale for a show to come: it stays out of sale
	// on PostgreSQL (below).
	show := itoa(int(shows[0].ID))
	code, out, errOut = run(nil, "seats", show, "--json")
	var seats struct {
		Seats []struct {
			Seat, Kind, State string
		} `json:"seats"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &seats) != nil {
		t.Fatalf("seats: %d %s %s", code, out, errOut)
	}
	free := ""
	for _, x := range seats.Seats {
		if x.State == "free" && x.Kind == "standard" {
			free = x.Seat // the last free seat: the history sells from the best
		}
	}
	if code, _, errOut := run(nil, "block", show, free, "--reason", "broken"); code != 0 {
		t.Fatalf("block: %d %s", code, errOut)
	}

	code, out, errOut = run(nil, "migrate", "--to", into, "--json")
	var report struct {
		Tables []struct {
			Name       string `json:"name"`
			SQLite     int64  `json:"sqlite"`
			PostgreSQL int64  `json:"postgresql"`
		} `json:"tables"`
		Checked bool `json:"checked"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &report) != nil || !report.Checked {
		t.Fatalf("migrate: %d %s %s", code, out, errOut)
	}
	carried := map[string]bool{}
	for _, tb := range report.Tables {
		carried[tb.Name] = true
		var want int64
		if err := raw.QueryRow(`SELECT count(*) FROM ` + tb.Name).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if tb.Name == "meta" {
			continue // PostgreSQL keeps keys of its own beside SQLite's
		}
		if got := pgCount(t, into, tb.Name); got != want || tb.SQLite != want || tb.PostgreSQL != want {
			t.Errorf("%s: %d rows in SQLite, %d in PostgreSQL (migrate said %d and %d)", tb.Name, want, got, tb.SQLite, tb.PostgreSQL)
		}
	}
	for _, name := range []string{"halls", "seats", "films", "shows", "staff", "holds", "bookings", "seat_claims", "tickets", "payments", "shifts", "shift_events", "audit", "waitlist", "giftcards", "giftcard_moves"} {
		if !carried[name] {
			t.Errorf("%s was not carried", name)
		}
	}
	if n := pgCount(t, into, "bookings"); n < 1000 {
		t.Fatalf("a week of sales is %d bookings", n)
	}
	for _, env := range [][]string{nil, {"BOXOFFICE_DB=" + into}} {
		if code, out, errOut := run(env, "check"); code != 0 || !strings.Contains(out, "Invariants: every one holds") {
			t.Fatalf("check %v: %d %s %s", env, code, out, errOut)
		}
	}
	// Migrating again finds the cinema there and copies nothing.
	if code, _, errOut := run(nil, "migrate", "--to", into); code == 0 || !strings.Contains(errOut, "already holds a cinema") {
		t.Fatalf("a second migrate: %d %s", code, errOut)
	}

	// The seat blocked on SQLite is not sold on PostgreSQL, until it is
	// unblocked there.
	pgNow := []string{"BOXOFFICE_DB=" + into}
	if code, out, _ := run(pgNow, "sell", show, free, "--pay", "card"); code == 0 {
		t.Fatalf("the seat blocked before the move was sold after it:\n%s", out)
	}
	if code, _, errOut := run(pgNow, "unblock", show, free); code != 0 {
		t.Fatalf("unblock on PostgreSQL: %d %s", code, errOut)
	}
	if code, _, errOut := run(pgNow, "sell", show, free, "--pay", "card"); code != 0 {
		t.Fatalf("sell of the unblocked seat: %d %s", code, errOut)
	}

	// The ticket sold on SQLite admits on PostgreSQL, once.
	onPG := append([]string{"BOXOFFICE_DB=" + into}, at...)
	if code, out, errOut := run(onPG, "admit", sold.Tickets[0].Code); code != 0 {
		t.Fatalf("admit after the move: %d %s %s", code, out, errOut)
	}
	if code, _, _ := run(onPG, "admit", sold.Tickets[0].Code); code == 0 {
		t.Fatal("the ticket was admitted twice")
	}
}

// pgCount counts table's rows in the database at url.
func pgCount(t *testing.T, url, table string) int64 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return 0
		}
		t.Fatal(err)
	}
	return n
}
