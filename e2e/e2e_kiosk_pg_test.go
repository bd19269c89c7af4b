package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/internal/clitest"
	"boxoffice/internal/pgtest"
)

// TestE2E_KioskOnPostgres runs the shipped binary's kiosk on PostgreSQL
// (--db) in a real terminal: a customer books seats, gets a reservation
// number, and collects it with the phone's last four digits; then the
// counter's command pays it, and the database says it is paid under that
// number. Skips without BOXOFFICE_TEST_PG.
func TestE2E_KioskOnPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	url := pgtest.URL(t)
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	// Tomorrow at 09:00 UTC: the demo's first show (11:00) is on sale and
	// before its cut-off whenever the test runs.
	now := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02") + "T09:00:00Z"
	env := append(os.Environ(), "TZ=UTC", "BOXOFFICE_NOW="+now)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", data, "--db", url}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
	run("init")
	tm := startTmux(t, 100, 50, "sh", "-c", "env TZ=UTC BOXOFFICE_NOW="+now+" TERM=xterm-256color "+bin+" --data "+data+" --db '"+url+"' kiosk; echo KIOSK-EXITED $?; sleep 600")
	tm.waitFor("Welcome", "Book tickets")
	number := tm.kioskReserveAnn()
	tm.kioskCollect(number)
	tm.waitFor(number, "Not paid yet")
	tm.send("C-x", "C-e")
	tm.waitFor("Close the kiosk")
	tm.send("demo", "Tab", "1234", "Enter")
	tm.waitFor("KIOSK-EXITED 0")

	if out := run("reservation", "pay", number, "--pay", "card"); !strings.Contains(out, number) {
		t.Fatalf("reservation pay said:\n%s", out)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var status, source, actor, terminal string
	var seats int
	if err := conn.QueryRow(context.Background(), `SELECT r.status, r.source, a.actor, a.terminal,
		(SELECT count(*) FROM tickets t WHERE t.booking_id = b.id)
		FROM reservations r JOIN bookings b ON b.id = r.booking_id AND b.number = r.number
		JOIN audit a ON a.action = 'reserve' WHERE r.number = $1`, number).Scan(&status, &source, &actor, &terminal, &seats); err != nil {
		t.Fatal(err)
	}
	if status != "paid" || source != "kiosk" || actor != "kiosk" || !strings.HasPrefix(terminal, "kiosk") || seats != 2 {
		t.Fatalf("reservation %s: %s from %s by %s at %s, %d tickets", number, status, source, actor, terminal, seats)
	}
}
