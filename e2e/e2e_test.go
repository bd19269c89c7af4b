package e2e

import (
	"database/sql"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// tmuxTerm is the real binary running in a real terminal (tmux), read the
// way a person reads it: the visible screen.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, width, height int, command ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux)")
	}
	// The socket is named after the test's own temp dir (TestName plus
	// os.MkdirTemp's random digits) and this terminal's entry in it
	// ("001", "002"): test runs of other checkouts on the same machine
	// must not type into this session or kill its server, and a test with
	// two terminals (a local counter and an SSH client) needs two servers,
	// since keys go to session 0.
	tmp := t.TempDir()
	tm := &tmuxTerm{t: t, socket: "boxoffice-test-" + filepath.Base(filepath.Dir(tmp)) + "-" + filepath.Base(tmp)}
	args := append([]string{"-L", tm.socket, "new-session", "-d", "-x", itoa(width), "-y", itoa(height)}, command...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func itoa(n int) string { return strconv.Itoa(n) }

// signIn signs in with the demo credentials and waits for the shows.
func (tm *tmuxTerm) signIn() {
	tm.t.Helper()
	tm.waitFor("Sign in")
	tm.send("demo", "Tab", "1234", "Enter")
	tm.waitFor("Start", "Grand")
}

// tomorrow lists tomorrow's shows and waits for hall among them: the
// first, in Grand, is on sale whatever the time of day. Wait for a hall
// in the rows, not just the header, before opening one.
func (tm *tmuxTerm) tomorrow(hall string) {
	tm.t.Helper()
	tm.send("Right")
	tm.waitFor("Tomorrow", hall)
}

// openTomorrow signs in and opens tomorrow's first show, up to its map.
func (tm *tmuxTerm) openTomorrow() {
	tm.t.Helper()
	tm.signIn()
	tm.tomorrow("Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
}

// holdTwo holds two seats by best available on the open map.
func (tm *tmuxTerm) holdTwo() {
	tm.t.Helper()
	tm.send("2", "b")
	tm.waitFor("Holding 2")
}

func (tm *tmuxTerm) send(keys ...string) {
	tm.t.Helper()
	args := append([]string{"-L", tm.socket, "send-keys", "-t", "0"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

func (tm *tmuxTerm) screen() string {
	out, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-t", "0").Output()
	return string(out)
}

// waitFor waits until the screen shows every one of texts at once, and
// nothing still under way (loading, selling), failing with the screen.
// The deadline is generous: on a loaded machine the binary may take
// seconds to answer, and what is asserted is what the screen ends up
// saying, not how fast.
func (tm *tmuxTerm) waitFor(texts ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.screen()
		all := true
		for _, text := range texts {
			all = all && strings.Contains(s, text)
		}
		if all && !strings.Contains(s, "Loading") && !strings.Contains(s, "Selling…") {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q:\n%s", texts, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The shipped binary in a real terminal: sign in with the demo
// credentials, sell two seats by best available for cash, then read the
// database file.
func TestE2E_CounterSellsTwoSeats(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	tm := startTmux(t, 100, 30, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)

	tm.openTomorrow()
	tm.holdTwo()
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("30", "Enter") // the amount, then enter to the Sell step
	tm.waitFor("[ Sell 2 tickets · 25.00 cash, change 5.00 ]")
	tm.send("Enter")
	// The first cash sale of a clerk with no shift asks for the float,
	// and goes on with it.
	tm.waitFor("Open a shift first", "Float")
	tm.send("100", "Enter")
	// The done screen: the booking number and the change together (the
	// checkout showed "Change due 5.00" too, before the sale).
	tm.waitFor("Sold BO-", "Paid cash 30.00", "Change due 5.00")
	assertSale(t, data, 1, 2500, 3000, 500)
}

// assertSale reads the database file and checks the bookings, seats sold
// and the last sale's amount, tendered and change.
func assertSale(t *testing.T, data string, bookings, amount, tendered, change int) {
	t.Helper()
	// The counter is still running: a read can meet its writer or its
	// checkpointer mid-step, so it waits instead of reading zeros.
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var n, sold, a, tnd, c int
	for _, err := range []error{
		dbh.QueryRow(`SELECT count(*) FROM bookings`).Scan(&n),
		dbh.QueryRow(`SELECT count(*) FROM seat_claims WHERE status = 'sold'`).Scan(&sold),
		dbh.QueryRow(`SELECT amount, tendered, change_due FROM payments WHERE kind = 'sale' ORDER BY id DESC LIMIT 1`).Scan(&a, &tnd, &c),
	} {
		if err != nil {
			t.Fatalf("reading the counter's file: %v", err)
		}
	}
	if n != bookings || sold != 2*bookings || a != amount || tnd != tendered || c != change {
		t.Fatalf("bookings %d, sold seats %d, payment %d tendered %d change %d", n, sold, a, tnd, c)
	}
}

// Must show 1 with real processes: the counter runs in a terminal with its
// checkout open while another process (`price set`) changes the adult
// price. The open checkout shows the new total within moments, and the sale
// is recorded at that figure.
func TestE2E_PriceChangeReachesOpenCounter(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	tm := startTmux(t, 80, 24, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	tm.openTomorrow()
	tm.holdTwo()
	tm.send("Enter")
	tm.waitFor("Total                   25.00")

	out, err := exec.Command(bin, "--data", data, "price", "set", "adult", "Adult", "13.00").CombinedOutput()
	if err != nil {
		t.Fatalf("price set: %v %s", err, out)
	}
	tm.waitFor("Total                   26.00", "Prices changed: the total is now 26.00.")
	tm.send("Enter")
	tm.waitFor("[ Sell 2 tickets · 26.00 cash, exact ]")
	tm.send("Enter")
	tm.waitFor("Open a shift first", "Float") // the clerk's first cash sale
	tm.send("100", "Enter")
	tm.waitFor("Sold BO-", "Total 26.00", "Paid cash 26.00")
	assertSale(t, data, 1, 2600, 2600, 0)
}

// serveCmd is a running `serve` of the built binary: the soak's, and the
// PostgreSQL end-to-end tests' (startPGServe).
type serveCmd struct {
	t           *testing.T
	cmd         *exec.Cmd
	out         *clitest.SyncBuffer
	addr        string
	metrics     string
	fingerprint string
}
