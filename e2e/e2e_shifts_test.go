package e2e

import (
	"database/sql"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/clitest"
)

var soldNumber = regexp.MustCompile(`Sold (BO-[0-9A-Z]{8})`)

// shiftServer starts `boxoffice serve` on data and returns its port.
func shiftServer(t *testing.T, bin, data string) string {
	t.Helper()
	port := freePort(t)
	out := &clitest.SyncBuffer{}
	srv := exec.Command(bin, "--data", data, "serve", "--listen", "127.0.0.1:"+port)
	srv.Stdout, srv.Stderr = out, out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Serving the counter") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return port
}

// sellBest sells the best n seats of tomorrow's first Grand show for exact
// cash at a counter on the shows list, typing the float when asked, and
// returns the booking number.
func sellBest(tm *tmuxTerm, n string) string {
	tm.t.Helper()
	tm.send("Right")
	tm.waitFor("Tomorrow", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send(n, "b")
	tm.waitFor("Holding " + n)
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Enter", "Enter")
	tm.waitFor("Open a shift first", "Float") // this clerk's first cash sale
	tm.send("100", "Enter")
	m := soldNumber.FindStringSubmatch(tm.waitFor("Sold BO-"))
	if m == nil {
		tm.t.Fatal("no booking number on the done screen")
	}
	return m[1]
}

// Must show 1: two clerks sell at two counters, one over real SSH and one
// at a local terminal, each opening a shift with a float of 100.00 at the
// first cash sale; the local clerk refunds a ticket with a supervisor's
// approval. Each shift's expected cash is float + cash sales − cash
// refunds of that person, worked out here from the payments by person;
// the blind count shows no expected figure until the count is entered,
// and then the variance.
func TestE2E_TwoCountersTwoShifts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	needTools(t, "ssh", "ssh-keygen", "tmux")
	bin := clitest.Binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	key := filepath.Join(dir, "maria")
	sshKey(t, key)
	cli := commandLine(t, bin, "--data", data)
	cli("", "init")
	cli("4321\n", "staff", "add", "Maria", "--role", "clerk", "--key-file", key+".pub")
	cli("2468\n", "staff", "add", "Lee", "--role", "clerk")
	cli("1357\n", "staff", "add", "Sue", "--role", "supervisor")
	port := shiftServer(t, bin, data)

	remote := startTmux(t, 100, 30, "ssh", "-t", "-p", port, "-i", key,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1")
	remote.waitFor("Maria (clerk)", "Grand")
	sellBest(remote, "1") // 12.50

	local := startTmux(t, 100, 30, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	local.waitFor("Sign in")
	local.send("Lee", "Tab", "2468", "Enter")
	local.waitFor("Lee (clerk)", "Grand")
	number := sellBest(local, "3") // 37.50

	// Lee refunds one ticket; Sue approves at Lee's counter.
	local.send("C-f")
	local.waitFor("Find a booking")
	local.send(number, "Enter")
	local.waitFor("tab work on this booking")
	local.send("Tab") // into the booking: its letters are keys now
	local.waitFor("r refund one ticket")
	local.send("r")
	local.waitFor("which seat?")
	local.send("Enter", "Enter") // the first seat; no reason
	local.waitFor("A supervisor approves")
	local.send("Sue", "Enter", "1357", "Enter")
	local.waitFor("[ No, keep the booking ]")
	local.send("Right", "Enter")
	local.waitFor("Refunded")

	// Maria's blind count over SSH: no expected figure until it is in.
	remote.send("C-t")
	before := remote.waitFor("My shift", "c close")
	remote.send("c")
	remote.waitFor("Count the drawer")
	remote.send("110")
	counting := remote.waitFor("110")
	for _, s := range []string{before, counting} {
		if strings.Contains(s, "Expected") || strings.Contains(s, "112.50") {
			t.Fatalf("the blind count shows what is expected:\n%s", s)
		}
	}
	remote.send("Enter", "Enter") // the count, no breakdown: to the confirmation
	if s := remote.waitFor("with 110.00 counted?", "[ No, count again ]"); strings.Contains(s, "112.50") {
		t.Fatalf("the count's confirmation shows what is expected:\n%s", s)
	}
	remote.send("Right", "Enter")
	remote.waitFor("Z report", "Expected", "112.50", "Counted", "110.00", "-2.50 short")

	checkShifts(t, data, cli)
}

// checkShifts compares each shift's report with float + cash sales − cash
// refunds of its person, summed here from the payments by staff name.
func checkShifts(t *testing.T, data string, cli func(string, ...string) string) {
	t.Helper()
	var shifts []struct {
		ID     int64  `json:"id"`
		Staff  string `json:"staff"`
		Status string `json:"status"`
		Float  string `json:"float"`
	}
	if err := json.Unmarshal([]byte(cli("", "shift", "list", "--json")), &shifts); err != nil {
		t.Fatal(err)
	}
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	want := map[string]string{"Maria": "112.50", "Lee": "125.00"} // 100 + 12.50; 100 + 37.50 − 12.50
	seen := 0
	for _, sh := range shifts {
		if want[sh.Staff] == "" {
			continue
		}
		seen++
		var cents int64
		if err := dbh.QueryRow(`SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments WHERE method = 'cash' AND staff = ?`, sh.Staff).Scan(&cents); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Expected string `json:"expected"`
			Refunds  string `json:"cash_refunds"`
		}
		if err := json.Unmarshal([]byte(cli("", "report", "shift", strconv.FormatInt(sh.ID, 10), "--json")), &r); err != nil {
			t.Fatal(err)
		}
		byHand := 100_00 + cents
		if sh.Float != "100.00" || r.Expected != want[sh.Staff] || r.Expected != booking.Money(byHand).String() {
			t.Errorf("%s's shift %d: float %s, expected %s; by hand %s, want %s", sh.Staff, sh.ID, sh.Float, r.Expected, booking.Money(byHand).String(), want[sh.Staff])
		}
	}
	if seen != 2 {
		t.Fatalf("shifts %+v: want one for Maria and one for Lee", shifts)
	}
	if out := cli("", "booking", soldRefunded(t, dbh)); !strings.Contains(out, "approved by Sue") {
		t.Errorf("the refund's approval is not on the booking:\n%s", out)
	}
}

// soldRefunded returns the booking of the one refund, checking that Sue approved it, checking the
// payment names her and came out of Lee's shift.
func soldRefunded(t *testing.T, dbh *sql.DB) string {
	t.Helper()
	var number, staff, approver string
	var inLeesShift bool
	err := dbh.QueryRow(`SELECT b.number, p.staff, p.approved_by, p.shift_id = (SELECT id FROM shifts WHERE staff = 'Lee')
		FROM payments p JOIN bookings b ON b.id = p.booking_id WHERE p.kind = 'refund'`).Scan(&number, &staff, &approver, &inLeesShift)
	if err != nil {
		t.Fatal(err)
	}
	if staff != "Lee" || approver != "Sue" || !inLeesShift {
		t.Fatalf("the refund was taken by %q, approved by %q, in Lee's shift %v", staff, approver, inLeesShift)
	}
	return number
}

// Must show 5 with processes: twelve `boxoffice refund` processes race to
// refund one ticket of a party of three. Exactly one refunds it, for its
// price, once; the other eleven hear it was refunded already; that seat
// alone comes free.
func TestE2E_TwelveProcessesRefundOneTicket(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	run := func(args ...string) (int, string) {
		out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	run("init")
	run("shift", "open", "--float", "100")
	show := firstShowID(t, data)
	code, out := run("sell", show, "G7", "G8", "G9", "--type", "child", "--allow-single", "--json")
	if code != 0 {
		t.Fatalf("sell: %d %s", code, out)
	}
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	codes := make(chan int, 12)
	start := make(chan struct{})
	for i := 0; i < 12; i++ {
		go func() {
			<-start
			code, _ := run("refund", b.Number, "G8", "--reason", "one went home")
			codes <- code
		}()
	}
	close(start)
	count := map[int]int{}
	for i := 0; i < 12; i++ {
		count[<-codes]++
	}
	if count[0] != 1 || count[exitConflict] != 11 {
		t.Fatalf("exit codes %v: want one 0 and eleven %d", count, exitConflict)
	}
	_, out = run("booking", b.Number, "--json")
	var after clitest.Booking
	if err := json.Unmarshal([]byte(out), &after); err != nil {
		t.Fatal(err)
	}
	refunds := 0
	for _, p := range after.Payments {
		if p.Kind == "refund" {
			refunds++
			if p.Amount != after.Tickets[1].Price {
				t.Errorf("refunded %s for a ticket of %s", p.Amount, after.Tickets[1].Price)
			}
		}
	}
	if after.Status != "confirmed" || refunds != 1 || after.Tickets[1].Status != "refunded" || after.Tickets[0].Status != "issued" || after.Tickets[2].Status != "issued" {
		t.Fatalf("after the race: %+v", after)
	}
	_, out = run("seats", show, "--json")
	var m struct {
		Seats []struct{ Seat, State string } `json:"seats"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Seats {
		want := map[string]string{"G7": "sold", "G8": "free", "G9": "sold"}[s.Seat]
		if want != "" && s.State != want {
			t.Errorf("%s is %s, want %s", s.Seat, s.State, want)
		}
	}
}
