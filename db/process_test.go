package db_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// openRaw opens the database file directly, skipping the store, the way an
// operator with the sqlite3 shell would.
func openRaw(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	// The path is escaped: a test's temp dir can hold '#' or '?' (a
	// subtest named "X#01"), which a URI would read as its end.
	raw, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { raw.Close() })
	return raw
}

// racerMain runs in a child process: open the shared file, wait for the
// common start instant, then hold and sell one seat.
func racerMain() int {
	path, owner := os.Getenv("BOXOFFICE_DB"), os.Getenv("BOXOFFICE_RACER")
	show, _ := strconv.ParseInt(os.Getenv("BOXOFFICE_SHOW"), 10, 64)
	startNS, _ := strconv.ParseInt(os.Getenv("BOXOFFICE_START"), 10, 64)
	s, err := db.Open(path, db.Options{TicketKey: storetest.TicketKey})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	defer s.Close()
	time.Sleep(time.Until(time.Unix(0, startNS)))
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{"G7"}, Owner: owner})
	var taken *booking.SeatsTakenError
	switch {
	case errors.As(err, &taken):
		fmt.Println("TAKEN", strings.Join(taken.SuggestionLabels()[0], ","))
		return 0
	case err != nil:
		fmt.Println("ERR", err)
		return 1
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	fmt.Println("WON", b.Number)
	return 0
}

// Must show 2: four OS processes race for one seat on one file.
func TestStore_Hold_RaceProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, path := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	s.Close()

	start := time.Now().Add(1500 * time.Millisecond).UnixNano()
	const procs = 4
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			"BOXOFFICE_RACER=proc-"+strconv.Itoa(i),
			"BOXOFFICE_DB="+path,
			"BOXOFFICE_SHOW="+strconv.FormatInt(show.ID, 10),
			"BOXOFFICE_START="+strconv.FormatInt(start, 10))
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	won, lost := 0, 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("racer %d: %v: %s", i, err, outs[i])
		}
		out := strings.TrimSpace(outs[i].String())
		switch {
		case strings.HasPrefix(out, "WON "):
			won++
		case strings.HasPrefix(out, "TAKEN "):
			lost++
			if sug := strings.TrimPrefix(out, "TAKEN "); sug != "G6" && sug != "G8" {
				t.Errorf("racer %d was offered %s, not a seat next to G7", i, sug)
			}
		default:
			t.Fatalf("racer %d said %q", i, out)
		}
	}
	if won != 1 || lost != procs-1 {
		t.Fatalf("%d won, %d lost", won, lost)
	}
	raw := openRaw(t, path)
	var sold int
	raw.QueryRow(`SELECT count(*) FROM seat_claims WHERE show_id = ? AND status = 'sold'`, show.ID).Scan(&sold)
	if sold != 1 {
		t.Fatalf("%d sold claims", sold)
	}
}

// A write committed by another process reaches this process's broker.
func TestStore_ForeignWritesPublished(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: 10 * time.Millisecond})
	show := firstShow(t, s)
	other := dbtest.Open(t, path, db.Options{})
	sub := s.Changes().Subscribe(t.Context())
	mustHold(t, other, show.ID, "elsewhere", "A1")
	select {
	case c := <-sub:
		if c.ShowID != show.ID {
			t.Fatalf("published show %d, want %d", c.ShowID, show.ID)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a commit on another connection was never published")
	}
}
