//go:build unix

package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/clitest"
)

// killedRestore runs restore of file into data in a child process that is
// killed at step (the helper program killrestore, built without the race
// detector), and fails unless SIGKILL ended it.
func killedRestore(t *testing.T, data, file, step string) {
	t.Helper()
	cmd := exec.Command(clitest.Helper(t, "killrestore"), "--data", data, "restore", file)
	cmd.Env = append(os.Environ(), "BOXOFFICE_TEST_KILL_RESTORE_AT="+step)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("restore killed at %s: %v\n%s", step, err, out)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("restore killed at %s ended otherwise: %v\n%s", step, err, out)
	}
}

// checkRestoreJSON is check --json with what it did with a killed restore.
type checkRestoreJSON struct {
	checkJSON
	Restore *struct {
		From     string `json:"from"`
		Kept     string `json:"kept"`
		Finished bool   `json:"finished"`
	} `json:"interrupted_restore"`
}

// bookingNumbers reads the booking numbers a database file holds.
func bookingNumbers(t *testing.T, path string) []string {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	rows, err := dbh.Query(`SELECT number FROM bookings ORDER BY number`)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// sellAcknowledged sells one seat through the CLI and returns its
// booking number, printed only once the sale is committed.
func sellAcknowledged(t *testing.T, data, show string) string {
	t.Helper()
	var b clitest.Booking
	if err := json.Unmarshal([]byte(mustRun(t, data, "sell", show, "--best", "1", "--pay", "card", "--json")), &b); err != nil || b.Number == "" {
		t.Fatalf("sell: %v", err)
	}
	return b.Number
}

// crashImage leaves in a new dir what a server killed after selling
// leaves: a database whose main file holds the first sales (the backup's
// three) and whose -wal holds the nine it acknowledged after them. A read
// transaction held open meanwhile keeps its checkpointer from copying
// them into the main file, as a long report does. It returns the dir and
// every acknowledged booking number.
func crashImage(t *testing.T, base, show, backup string) (string, []string) {
	t.Helper()
	var acked []string
	for range 3 {
		acked = append(acked, sellAcknowledged(t, base, show))
	}
	mustRun(t, base, "backup", backup)
	live := filepath.Join(base, "boxoffice.db")
	ctx := context.Background()
	reader, err := sql.Open("sqlite", "file:"+live+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	snap, err := reader.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var n int
	if _, err := snap.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := snap.QueryRowContext(ctx, "SELECT count(*) FROM bookings").Scan(&n); err != nil || n != 3 {
		t.Fatalf("the reader's snapshot: %d bookings, %v", n, err)
	}
	keyText, err := os.ReadFile(filepath.Join(base, "ticket_key"))
	if err != nil {
		t.Fatal(err)
	}
	id, secretHex, _ := strings.Cut(strings.TrimSpace(string(keyText)), ":")
	keyID, _ := strconv.ParseUint(id, 10, 32)
	secret, _ := hex.DecodeString(secretHex)
	s, err := db.Open(live, db.Options{TicketKey: booking.TicketKey{ID: uint32(keyID), Secret: secret}, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	showID, _ := strconv.ParseInt(show, 10, 64)
	actor := booking.System
	actor.Terminal = "cli"
	for i := range 9 {
		owner := fmt.Sprint("crash-", i)
		h, err := s.HoldBest(ctx, actor, booking.HoldBestRequest{ShowID: showID, N: 1, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, b.Number)
	}
	// The files as the kill leaves them, every sale committed and synced.
	image := filepath.Join(t.TempDir(), "image")
	os.MkdirAll(image, 0o700)
	for _, f := range []string{"boxoffice.db", "boxoffice.db-wal", "ticket_key"} {
		copyTo(t, filepath.Join(base, f), filepath.Join(image, f))
	}
	snap.Close()
	s.Close()
	// The condition the old restore lost sales in: the main file alone
	// holds only the backup's three.
	mainOnly := filepath.Join(t.TempDir(), "main.db")
	copyTo(t, filepath.Join(image, "boxoffice.db"), mainOnly)
	if got := bookingNumbers(t, mainOnly); len(got) != 3 {
		t.Fatalf("the image's main file alone holds %d bookings, want the backup's 3", len(got))
	}
	return image, acked
}

// Must show (1): restore killed at each of its steps, 20 times across
// them, on a database whose latest sales are in its -wal (a server
// killed after acknowledging them). Afterwards every acknowledged sale is
// there: in the live database when the next command rolled the restore
// back, or, when it finished it, in the kept copy (a file of its own: the
// live one sells on without touching it); check says which database is
// live, nothing of the restore is left lying about, and restore runs
// again.
func TestCLI_RestoreKilledAtEveryStep(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	base := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, base)
	backup := filepath.Join(t.TempDir(), "backup.db")
	image, acked := crashImage(t, base, show, backup)
	backupNumbers := bookingNumbers(t, backup)
	committed := slices.Index(db.RestoreSteps, "committed")
	var rolledBack, finishedRuns atomic.Int32
	killedAt := func(t *testing.T, run, k int, step string) {
		data := filepath.Join(t.TempDir(), "data")
		os.MkdirAll(data, 0o700)
		for _, f := range []string{"boxoffice.db", "boxoffice.db-wal", "ticket_key"} {
			copyTo(t, filepath.Join(image, f), filepath.Join(data, f))
		}
		live := filepath.Join(data, "boxoffice.db")
		killedRestore(t, data, backup, step)

		code, out, errOut := runCLI(t, data, "", "check", "--json")
		var r checkRestoreJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || !r.OK {
			t.Fatalf("killed at %s: check exit %d, %v %q %q", step, code, err, out, errOut)
		}
		finished := k >= committed
		switch {
		case step == "done":
			// Killed after the last step, before it printed: nothing to
			// recover, the restore is whole.
			if r.Restore != nil {
				t.Fatalf("killed at %s: check recovered %+v", step, r.Restore)
			}
		case r.Restore == nil || r.Restore.From != backup || r.Restore.Finished != finished:
			t.Fatalf("killed at %s: check said %+v, want finished=%v", step, r.Restore, finished)
		}
		kept, _ := filepath.Glob(live + ".replaced-*")
		if left, _ := filepath.Glob(live + ".restore-*"); len(left) != 0 {
			t.Fatalf("killed at %s: left %v", step, left)
		}
		if finished {
			finishedRuns.Add(1)
			if got := bookingNumbers(t, live); !slices.Equal(got, backupNumbers) {
				t.Fatalf("killed at %s and finished: the live database holds %v, want the backup's %v", step, got, backupNumbers)
			}
			if len(kept) != 1 || (step != "done" && r.Restore.Kept != kept[0]) {
				t.Fatalf("killed at %s and finished: kept %v, check said %+v", step, kept, r.Restore)
			}
			if lost := missing(acked, bookingNumbers(t, kept[0])); len(lost) != 0 {
				t.Fatalf("killed at %s and finished: the kept database lacks %d of %d acknowledged sales: %v", step, len(lost), len(acked), lost)
			}
			liveInfo, _ := os.Stat(live)
			keptInfo, _ := os.Stat(kept[0])
			if os.SameFile(liveInfo, keptInfo) {
				t.Fatalf("killed at %s: the kept database is the live file under another name", step)
			}
		} else {
			rolledBack.Add(1)
			if len(kept) != 0 {
				t.Fatalf("killed at %s and rolled back: kept %v", step, kept)
			}
			if got := bookingNumbers(t, live); len(got) != len(acked) || len(missing(acked, got)) != 0 {
				t.Fatalf("killed at %s and rolled back: the live database holds %d bookings, lacks %v", step, len(got), missing(acked, got))
			}
		}
		if finished && step != "done" {
			// The live database sells on, and the kept one stays as it was.
			sellAcknowledged(t, data, show)
			if got := bookingNumbers(t, kept[0]); len(got) != len(acked) {
				t.Fatalf("killed at %s: a sale on the live database changed the kept one: %d bookings", step, len(got))
			}
		}
		if run == len(db.RestoreSteps)-1 {
			// A restore after a recovery goes through: nothing is left in
			// its way.
			mustRun(t, data, "restore", backup)
		}
	}
	// The runs are independent (a data dir each), so they run side by
	// side where there are cores to spare.
	t.Run("runs", func(t *testing.T) {
		for run := range 20 {
			k := run % len(db.RestoreSteps)
			step := db.RestoreSteps[k]
			t.Run(fmt.Sprintf("%02d-%s", run, step), func(t *testing.T) {
				t.Parallel()
				killedAt(t, run, k, step)
			})
		}
	})
	t.Logf("20 killed restores: %d rolled back, %d finished; %d acknowledged sales each time, 3 in the backup", rolledBack.Load(), finishedRuns.Load(), len(acked))
}
