package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"boxoffice/internal/clitest"
	"boxoffice/internal/hostile"
)

// hostileCLI runs the built binary on one data dir, as a person at a
// shell would, and checks every byte it prints.
type hostileCLI struct {
	t         *testing.T
	bin, data string
	mu        sync.Mutex
	runs      int
	leaks     int
}

// run runs the binary with args and returns its exit code and output,
// reporting a leak in either stream, and for --json and --csv output that
// does not parse.
func (c *hostileCLI) run(stdin string, args ...string) (int, string) {
	c.t.Helper()
	cmd := exec.Command(c.bin, append([]string{"--data", c.data}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		c.t.Fatalf("%s: %v", args[0], err)
	}
	what := strings.Join(args, " ")
	if len(what) > 120 {
		what = what[:120] + "…"
	}
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	for name, s := range map[string]string{"stdout": out.String(), "stderr": errb.String()} {
		for _, l := range hostile.Leaks(s, false) {
			c.mu.Lock()
			c.leaks++
			c.mu.Unlock()
			c.t.Errorf("%q: %s: %s", what, name, l)
		}
	}
	if code == 0 && contains(args, "--json") && !json.Valid(out.Bytes()) {
		c.t.Errorf("%q: not JSON: %.300q", what, out.String())
	}
	if code == 0 && contains(args, "--csv") {
		c.checkCSV(what, out.String())
	}
	return code, out.String() + errb.String()
}

// checkCSV parses a report's CSV: every row has the header's fields (a
// comma or newline in a value did not break a row) and no text cell
// starts a spreadsheet formula.
func (c *hostileCLI) checkCSV(what, out string) {
	c.t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		c.t.Errorf("%q: the CSV does not parse: %v", what, err)
		return
	}
	for i, row := range rows {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+@", rune(cell[0])) || strings.HasPrefix(cell, "-") && !number.MatchString(cell) {
				c.t.Errorf("%q: row %d: a cell a spreadsheet runs as a formula: %q", what, i, cell)
			}
		}
	}
}

// number is a CSV cell that is a figure: "-5.00", "12", "-3".
var number = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?%?$`)

func contains(args []string, s string) bool {
	for _, a := range args {
		if a == s {
			return true
		}
	}
	return false
}

// mustRun is run that fails the test unless the command succeeds.
func (c *hostileCLI) mustRun(stdin string, args ...string) string {
	c.t.Helper()
	code, out := c.run(stdin, args...)
	if code != 0 {
		c.t.Fatalf("%q: exit %d: %s", strings.Join(args, " "), code, out)
	}
	return out
}

// fileName is h as a file name the file system takes: no '/' or NUL, at
// most 200 bytes.
func fileName(h string) string {
	h = strings.NewReplacer("/", "_", "\x00", "_").Replace(h)
	if len(h) > 200 {
		h = h[:200]
	}
	return h
}

func authorizedKey(t *testing.T) []byte {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.MarshalAuthorizedKey(key)
}

var (
	addedShow = regexp.MustCompile(`Added show (\d+)`)
	bookingNo = regexp.MustCompile(`BO-[0-9A-Z]+`)
)

// TestHostile_CLI feeds every hostile string through every text argument
// of the command line (film titles and ratings, customer names and
// phones, cancel, block and show-cancel reasons, staff, terminal and
// printer names, waiting-list names and phones, hall files' names, hall
// names and row labels), then prints everything that holds them, as text,
// --json and --csv; then writes them all again straight into the file
// with the sqlite3 shell, past the store's cleaning, and prints it all
// again. Nothing printed holds a control character of theirs, JSON and
// CSV parse, and no CSV cell is a formula.
func TestHostile_CLI(t *testing.T) {
	t.Parallel()
	c := &hostileCLI{t: t, bin: clitest.Binary(t), data: t.TempDir()}
	c.mustRun("", "init")
	c.mustRun("", "shift", "open", "--float", "100")
	dir := t.TempDir()
	tomorrow := time.Now().UTC().AddDate(0, 0, 1)
	tiny := filepath.Join(dir, "tiny.hall")
	os.WriteFile(tiny, []byte("hall: Tiny\nA | ss\n"), 0o600)
	c.mustRun("", "hall", "add", tiny)
	var ids []string
	for d := 1; d <= 6; d++ {
		var shows []clitest.Show
		json.Unmarshal([]byte(c.mustRun("", "shows", "--date", tomorrow.AddDate(0, 0, d-1).Format("2006-01-02"), "--json")), &shows)
		for _, sh := range shows {
			ids = append(ids, fmt.Sprint(sh.ID))
		}
	}
	sellOn := ids[0]
	soldOut := addedShow.FindStringSubmatch(c.mustRun("", "show", "add", "--film", "1", "--hall", "Tiny", "--at", tomorrow.Format("2006-01-02")+" 23:50"))[1]
	c.mustRun("", "sell", soldOut, "A1", "A2", "--pay", "card")

	strs := hostile.Strings
	if len(ids) < len(strs)+1 {
		t.Fatalf("%d shows for %d strings", len(ids), len(strs))
	}
	inputs := 14 // see feed
	var files []string
	var wg sync.WaitGroup
	work := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				// argv cannot carry a NUL byte (exec refuses it, as a
				// shell does), so the NUL entry reaches the command line
				// without it.
				h := strings.ReplaceAll(strs[i].S, "\x00", "")
				c.feed(i, h, dir, sellOn, soldOut, ids[1+i])
			}
		}()
	}
	for i := range strs {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, h := range strs {
		name := filepath.Join(dir, fileName(h.S)+fmt.Sprint(".", i, ".hall"))
		src := fmt.Sprintf("hall: %s %d\n%s | ssss\nZ | ss\n", h.S, i, h.S)
		if err := os.WriteFile(name, []byte(src), 0o600); err == nil {
			files = append(files, name)
		}
	}
	inputs += 2 // the layout files: their names, and the hall names and row labels inside
	c.run("", append([]string{"hall", "check"}, files...)...)
	c.run("", append([]string{"hall", "add"}, files...)...)

	printed := c.printAll(sellOn, soldOut)
	c.plant(len(strs))
	printed += c.printAll(sellOn, soldOut)
	t.Logf("%d strings × %d text inputs; %d outputs printed twice (stored by the CLI, then planted with sqlite3); %d runs of the binary, %d leaks",
		len(strs), inputs, printed/2, c.runs, c.leaks)
}

// feed puts h through every text argument once: 14 of them, the film
// title and rating, the staff name, the key file's name, the terminal and
// printer names, the customer's name and phone, a PDF's file name, the
// cancel, block and show-cancel reasons, the waiting-list name and phone.
func (c *hostileCLI) feed(i int, h, dir, sellOn, soldOut, cancelShow string) {
	n := fmt.Sprint(" ", i)
	c.run("", "film", "add", h, "--minutes", "90", "--rating", h)
	c.run("1234\n", "staff", "add", h+n, "--role", "clerk")
	key := filepath.Join(dir, fileName(h)+fmt.Sprint(".", i, ".pub"))
	if os.WriteFile(key, authorizedKey(c.t), 0o600) != nil {
		key = filepath.Join(dir, fmt.Sprint(i, ".pub"))
		os.WriteFile(key, authorizedKey(c.t), 0o600)
	}
	c.run("", "terminal", "add", h+n, "--key-file", key, "--printer", h)
	seat := fmt.Sprintf("%c%d", 'A'+i/10, i%10+3)
	_, out := c.run("", "sell", sellOn, seat, "--pay", "card", "--name", h, "--phone", h)
	if b := bookingNo.FindString(out); b != "" {
		c.run("", "booking", b, "--pdf", filepath.Join(dir, fileName(h)+fmt.Sprint(".", i, ".pdf")))
		c.run("", "cancel", b, "--reason", h)
	}
	c.run("", "block", sellOn, fmt.Sprintf("%c%d", 'A'+i/10, i%10+15), "--reason", h)
	c.run("", "show", "cancel", cancelShow, "--reason", h)
	c.run("", "waitlist", "add", soldOut, "--name", h, "--phone", h)
}

// printAll prints everything that holds what was fed, in every form; it
// returns how many outputs it printed.
func (c *hostileCLI) printAll(sellOn, soldOut string) int {
	var n int
	each := func(args ...string) {
		c.run("", args...)
		n++
	}
	for _, list := range [][]string{{"shows"}, {"seats", sellOn}, {"film", "list"}, {"staff", "list"}, {"terminal", "list"},
		{"hall", "list"}, {"waitlist", soldOut}, {"audit", "--limit", "400"}, {"price", "list"}} {
		each(list...)
		each(append(list, "--json")...)
	}
	for _, b := range bookingNo.FindAllString(c.mustRun("", "audit", "--limit", "60"), 8) {
		each("booking", b)
		each("booking", b, "--json")
	}
	for _, r := range [][]string{{"takings", "--by", "film"}, {"takings", "--by", "clerk"}, {"takings", "--by", "show"}, {"refunds"},
		{"occupancy", "--by", "show"}, {"occupancy", "--by", "hall"}, {"shifts"}, {"noshows"}, {"reservations"}} {
		args := append([]string{"report"}, r...)
		args = append(args, "--from", time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02"), "--to", time.Now().UTC().AddDate(0, 0, 8).Format("2006-01-02"))
		each(args...)
		each(append(args, "--json")...)
		each(append(args, "--csv")...)
	}
	each("check")
	return n
}

// plant overwrites, with the sqlite3 shell, every text the outputs print
// with the raw strings, row by row in turn, so each string sits in each
// table past the store's cleaning.
func (c *hostileCLI) plant(n int) {
	c.t.Helper()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		c.t.Log("sqlite3 is not installed: values written straight into the file are not tried (.ci/run installs it)")
		return
	}
	var b strings.Builder
	b.WriteString("PRAGMA synchronous = OFF;\n") // a test file: no need to wait for the disk
	for k, h := range hostile.Strings[:n] {
		v := "CAST(X'" + hex.EncodeToString([]byte(h.S)) + "' AS TEXT)"
		w := fmt.Sprintf(" WHERE rowid %% %d = %d;\n", n, k)
		for _, set := range []string{
			"films SET title = " + v + ", rating = " + v,
			"halls SET name = " + v + " || ' ' || rowid",
			"seats SET label = " + v + " || label",
			"bookings SET customer = " + v + ", phone = " + v + ", reason = " + v,
			"shows SET cancel_reason = " + v,
			"seat_blocks SET reason = " + v,
			"staff SET name = " + v + " || ' ' || rowid",
			"terminals SET name = " + v + " || ' ' || rowid, printer = " + v,
			"waitlist SET name = " + v + ", phone = " + v,
			"ticket_types SET name = " + v,
		} {
			b.WriteString("UPDATE " + set + w)
		}
	}
	cmd := exec.Command(shell, "-bail", filepath.Join(c.data, "boxoffice.db"))
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("sqlite3: %v: %s", err, out)
	}
}
