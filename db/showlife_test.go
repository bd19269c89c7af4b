package db_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// settlerMain runs in a child process: another server's sweeper on the
// same file, its clock at BOXOFFICE_AT. It settles once on "GO", again on
// the next line, printing how many bookings each pass moved.
func settlerMain() int {
	at, _ := strconv.ParseInt(os.Getenv("BOXOFFICE_AT"), 10, 64)
	s, err := db.Open(os.Getenv("BOXOFFICE_DB"), db.Options{TicketKey: storetest.TicketKey, SweepInterval: -1,
		Clock: func() time.Time { return time.UnixMilli(at) }})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	defer s.Close()
	fmt.Println("READY")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, err := s.SettleShows(context.Background())
		if err != nil {
			fmt.Println("ERR", err)
			return 1
		}
		fmt.Println(n)
	}
	return 0
}

// settler is a child process sweeping the same file.
type settler struct {
	cmd *exec.Cmd
	in  *os.File
	out *bufio.Scanner
}

func startSettler(t *testing.T, path string, at time.Time) *settler {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BOXOFFICE_SETTLER=1", "BOXOFFICE_DB="+path, "BOXOFFICE_AT="+strconv.FormatInt(at.UnixMilli(), 10))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = r
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	p := &settler{cmd: cmd, in: w, out: bufio.NewScanner(stdout)}
	t.Cleanup(func() { w.Close(); cmd.Wait() })
	if line := p.answer(t); line != "READY" {
		t.Fatalf("settler: %q", line)
	}
	return p
}

func (p *settler) answer(t *testing.T) string {
	t.Helper()
	if !p.out.Scan() {
		t.Fatalf("settler ended: %v", p.out.Err())
	}
	return p.out.Text()
}

// settleState is what a sweep may change: every booking's status, the
// audit rows and the shows marked settled.
func settleState(t *testing.T, f *auditFixture) string {
	t.Helper()
	var b strings.Builder
	rows, err := f.raw.Query(`SELECT id, status FROM bookings ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var st string
		rows.Scan(&id, &st)
		fmt.Fprintf(&b, "%d:%s ", id, st)
	}
	rows.Close()
	var audits, settled int
	f.raw.QueryRow(`SELECT count(*) FROM audit`).Scan(&audits)
	f.raw.QueryRow(`SELECT count(*) FROM shows WHERE settled_at IS NOT NULL`).Scan(&settled)
	fmt.Fprintf(&b, "audit:%d settled:%d", audits, settled)
	return b.String()
}

// Must show 3: after a fixture show ends, its confirmed bookings become
// completed (a ticket admitted) or no_show (none), once: two stores in
// this process and two other processes sweeping at the same moment move
// each booking once between them and write one audit row; sweeping again,
// here and there, changes nothing and takes no write transaction. The
// door then refuses the show's tickets, saying it ended.
func TestStore_SettleShows(t *testing.T) {
	t.Parallel()
	f := newAuditFixture(t)
	ctx := context.Background()
	show, err := f.s.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	came := mustSell(t, f.s, 1, "came", "A1", "A2")
	stayed := mustSell(t, f.s, 1, "stayed", "B1")
	gone := mustSell(t, f.s, 1, "gone", "C1")
	if _, err := f.s.Cancel(ctx, supervisor, booking.CancelRequest{Number: gone.Number}); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(show.Starts.Add(-5 * time.Minute))
	if _, err := f.s.Admit(ctx, auditDoor, came.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}

	// While the show runs, and within the grace after it, nothing moves.
	for _, at := range []time.Time{show.Starts.Add(time.Minute), show.Ends().Add(booking.SettleGrace - time.Second)} {
		f.clock.Set(at)
		before := f.s.Stats().Commits
		if n, err := f.s.SettleShows(ctx); err != nil || n != 0 {
			t.Fatalf("at %v: settled %d, %v before the show ended", at.Sub(show.Starts), n, err)
		}
		if c := f.s.Stats().Commits - before; c != 0 {
			t.Fatalf("a sweep with nothing to settle committed %d transactions", c)
		}
	}
	// The door closes when the show ends.
	f.clock.Set(show.Ends())
	_, err = f.s.Admit(ctx, auditDoor, stayed.Tickets[0].Code)
	if want := "This show ended at " + show.Ends().Format("15:04") + "."; booking.ErrorCode(err) != booking.EInvalid || booking.ErrorMessage(err) != want {
		t.Fatalf("admit after the end: %s %q, want %q", booking.ErrorCode(err), booking.ErrorMessage(err), want)
	}

	at := show.Ends().Add(booking.SettleGrace)
	f.clock.Set(at)
	other := dbtest.Open(t, f.s.Path(), db.Options{Clock: f.clock.Now, SweepInterval: -1})
	procs := []*settler{startSettler(t, f.s.Path(), at), startSettler(t, f.s.Path(), at)}
	start := settleState(t, f)

	// All four at once.
	moved := make([]int, 4)
	var wg sync.WaitGroup
	for i, s := range []*db.Store{f.s, other} {
		wg.Go(func() {
			n, err := s.SettleShows(ctx)
			if err != nil {
				t.Error(err)
			}
			moved[i] = n
		})
	}
	for _, p := range procs {
		fmt.Fprintln(p.in, "GO")
	}
	for i, p := range procs {
		n, err := strconv.Atoi(p.answer(t))
		if err != nil {
			t.Fatal(err)
		}
		moved[2+i] = n
	}
	wg.Wait()
	if total := moved[0] + moved[1] + moved[2] + moved[3]; total != 2 {
		t.Fatalf("the sweepers moved %v bookings, want 2 in all", moved)
	}
	for _, c := range []struct {
		b    *booking.Booking
		want booking.BookingStatus
	}{{came, booking.BookingCompleted}, {stayed, booking.BookingNoShow}, {gone, booking.BookingCancelled}} {
		got, err := f.s.Booking(ctx, clerk, c.b.Number)
		if err != nil || got.Status != c.want {
			t.Errorf("%s: %v %v, want %s", c.b.Number, got.Status, err, c.want)
		}
	}
	var settles int
	f.raw.QueryRow(`SELECT count(*) FROM audit WHERE action = 'settle'`).Scan(&settles)
	if settles != 1 {
		t.Errorf("%d settle audit rows, want 1", settles)
	}
	after := settleState(t, f)
	if after == start {
		t.Fatal("nothing changed")
	}

	// Again, from every sweeper: nothing changes, nothing is written.
	commits := f.s.Stats().Commits + other.Stats().Commits
	for _, s := range []*db.Store{f.s, other} {
		if n, err := s.SettleShows(ctx); err != nil || n != 0 {
			t.Errorf("second sweep moved %d, %v", n, err)
		}
	}
	for _, p := range procs {
		fmt.Fprintln(p.in, "AGAIN")
		if line := p.answer(t); line != "0" {
			t.Errorf("second sweep in another process moved %s", line)
		}
	}
	if c := f.s.Stats().Commits + other.Stats().Commits - commits; c != 0 {
		t.Errorf("the second sweep committed %d transactions", c)
	}
	if again := settleState(t, f); again != after {
		t.Errorf("the second sweep changed the file:\n%s\nwas\n%s", again, after)
	}
	if problems, err := f.s.CheckInvariants(ctx); err != nil || len(problems) != 0 {
		t.Errorf("invariants: %v %v", problems, err)
	}
}
