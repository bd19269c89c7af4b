package db_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// statusTables are the tables whose status column moves by booking's
// table, with the kind of row each holds.
var statusTables = map[string]booking.Statuses{
	"bookings":    booking.BookingStatuses,
	"tickets":     booking.TicketStatuses,
	"holds":       booking.HoldStatuses,
	"seat_claims": booking.ClaimStatuses,
	"shifts":      booking.ShiftStatuses,
	// A show's life.
	"shows": booking.ShowStatuses,
	// kiosk
	"reservations": booking.ReservationStatuses,
}

var (
	updateRe   = regexp.MustCompile(`(?is)\bUPDATE\s+(\w+)\s+SET\s+(.*?)\s+WHERE\s+(.*?)(?:\bRETURNING\b|$)`)
	setRe      = regexp.MustCompile(`(?i)(?:^|[\s,])status\s*=\s*('(\w+)'|\?)`)
	fromRe     = regexp.MustCompile(`(?i)(?:^|\s)status\s*=\s*'(\w+)'`)
	subqueryRe = regexp.MustCompile(`\([^()]*\)`)
)

// statusMoves checks one SQL text: every UPDATE that sets a status must
// be a compare-and-set from one literal status to another, on a table
// with a status table, and booking's table must allow the move. It
// returns the moves it checked and what is wrong.
func statusMoves(sql string) (moves []string, problems []string) {
	for _, m := range updateRe.FindAllStringSubmatch(sql, -1) {
		table, set, where := strings.ToLower(m[1]), m[2], m[3]
		to := setRe.FindStringSubmatch(set)
		if to == nil {
			continue // sets no status: not a move
		}
		kind, ok := statusTables[table]
		if !ok {
			problems = append(problems, "a status is set on "+table+", which has no status table")
			continue
		}
		if to[2] == "" {
			problems = append(problems, "the status of "+table+" is set from a parameter, which no test can check")
			continue
		}
		// The row's own condition, not a subquery's on another table.
		for subqueryRe.MatchString(where) {
			where = subqueryRe.ReplaceAllString(where, "")
		}
		from := fromRe.FindStringSubmatch(where)
		if from == nil {
			problems = append(problems, table+" is set to "+to[2]+" without a compare-and-set on its status")
			continue
		}
		move := string(kind) + ": " + from[1] + " -> " + to[2]
		moves = append(moves, move)
		if !kind.CanMove(from[1], to[2]) {
			problems = append(problems, "booking's table does not allow "+move)
		}
	}
	return moves, problems
}

// sqlLiterals returns every string literal of the store's Go code.
func sqlLiterals(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out[fset.Position(lit.Pos()).String()] = s
				}
			}
			return true
		})
	}
	return out
}

// Every status the store writes moves by booking's table: each status
// UPDATE in db/ is a compare-and-set whose move the table allows.
func TestStatusMoves_ObeyTheTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for pos, sql := range sqlLiterals(t) {
		moves, problems := statusMoves(sql)
		for _, p := range problems {
			t.Errorf("%s: %s in:\n\t%s", pos, p, strings.Join(strings.Fields(sql), " "))
		}
		for _, m := range moves {
			seen[m] = true
		}
	}
	// Every move the store makes was found; if this list shrinks, the
	// parsing broke or a move went away.
	for _, want := range []string{
		"hold: held -> expired", "hold: held -> released", "hold: held -> confirmed",
		"claim: held -> expired", "claim: held -> released", "claim: held -> sold", "claim: sold -> cancelled",
		"booking: confirmed -> cancelled", "ticket: issued -> void", "ticket: issued -> admitted",
		"ticket: issued -> refunded", "shift: open -> closed", "shift: closed -> open",
		// A show's life.
		"show: scheduled -> cancelled", "ticket: admitted -> void", "booking: confirmed -> completed", "booking: confirmed -> no_show",
		// kiosk
		"reservation: reserved -> paid", "reservation: reserved -> lapsed",
	} {
		if !seen[want] {
			t.Errorf("no status UPDATE makes the move %s", want)
		}
	}
	t.Logf("moves checked: %v", seen)
}

// The check can fail: a move the table refuses, a move without a
// compare-and-set, a status from a parameter and one on a table without a
// status table are all named.
func TestStatusMoves_Catches(t *testing.T) {
	t.Parallel()
	for _, sql := range []string{
		`UPDATE holds SET status = 'held' WHERE id = ? AND status = 'confirmed'`,
		`UPDATE seat_claims SET status = 'confirmed' WHERE hold_id = ? AND status = 'held'`,
		`UPDATE bookings SET status = 'cancelled', reason = ? WHERE id = ?`,
		`UPDATE tickets SET status = ? WHERE id = ? AND status = 'issued'`,
		`UPDATE waitlist SET status = 'called' WHERE id = ? AND status = 'told'`,
		`UPDATE seat_claims SET status = 'released' WHERE hold_id IN (SELECT id FROM holds WHERE status = 'held')`,
	} {
		if _, problems := statusMoves(sql); len(problems) != 1 {
			t.Errorf("%s: %v, want one problem", sql, problems)
		}
	}
	if moves, problems := statusMoves(`UPDATE seat_claims SET status = 'released' WHERE status = 'held' AND hold_id IN
		(SELECT id FROM holds WHERE status = 'held' AND owner = ?)`); len(problems) != 0 || len(moves) != 1 || moves[0] != "claim: held -> released" {
		t.Errorf("release by prefix read as %v, %v", moves, problems)
	}
}

// Every row the store writes, down every path (sales, cancels, admits,
// releases, expiry), has a status its kind's table knows.
func TestStatuses_OnlyKnown(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	ctx := context.Background()
	show := firstShow(t, s)
	sold := mustSell(t, s, show.ID, "a", "A1", "A2")
	cancelled := mustSell(t, s, show.ID, "b", "B1")
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: cancelled.Number}); err != nil {
		t.Fatal(err)
	}
	released := mustHold(t, s, show.ID, "c", "C1")
	if err := s.Release(ctx, clerk, released.ID, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"D1"}, Owner: "d", TTL: time.Second}); err != nil {
		t.Fatal(err)
	}
	clock.Add(100 * time.Minute) // the doors are open; d's hold lapsed
	if _, err := s.ExpireHolds(ctx); err != nil {
		t.Fatal(err)
	}
	mustHold(t, s, show.ID, "e", "E1")
	if _, err := s.Admit(ctx, storetest.Door, sold.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	dbtest.MustBeWhole(t, s)
	raw := openRaw(t, path)
	want := map[string]int{"bookings": 2, "tickets": 3, "holds": 4, "seat_claims": 5}
	for table, kind := range statusTables {
		rows, err := raw.Query(`SELECT DISTINCT status FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var st string
			rows.Scan(&st)
			n++
			if !kind.Known(st) {
				t.Errorf("%s has status %q, which the %s table does not know", table, st, kind)
			}
		}
		rows.Close()
		if n < want[table] {
			t.Errorf("%s shows %d statuses, want at least %d: the workload missed a path", table, n, want[table])
		}
	}
}
