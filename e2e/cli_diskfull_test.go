package e2e

import (
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// smallDisk mounts a 4 MB tmpfs at a new directory for the test and
// returns it; the test is skipped, saying why, where that cannot be done
// (not root, no mount). CI runs as root.
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() {
		// A process of the test (a counter in tmux) may still be ending
		// and hold the disk busy for a moment.
		for range 50 {
			if exec.Command("umount", dir).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command("umount", "-l", dir).Run()
	})
	return dir
}

// fillDisk writes path until the file system refuses, then gives back
// pages 4 KB pages, so a command can still open the database and begin.
func fillDisk(t *testing.T, path string, pages int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if err != nil {
			break
		}
	}
	if err := f.Truncate(max(n-pages*4096, 0)); err != nil {
		t.Fatal(err)
	}
}

// The command line on a full disk: sales go on until the disk is full,
// then sell exits 5 with "The disk is full: …" (code disk_full in
// --json) and nothing half-made; once space is freed the next sale
// works, every sale acknowledged is there and check is clean.
func TestCLI_DiskFull(t *testing.T) {
	t.Parallel()
	disk := smallDisk(t)
	data := filepath.Join(disk, "data")
	if code, _, stderr := runCLI(t, data, "", "init"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	show := grandShowID(t, data)
	name := strings.Repeat("x", 80)
	var sold []string
	sell := func() (int, string, string) {
		code, out, stderr := runCLI(t, data, "", "sell", show, "--best", "1", "--pay", "card", "--name", name, "--json")
		if code == 0 {
			var b struct {
				Number string `json:"booking"`
			}
			if err := json.Unmarshal([]byte(out), &b); err != nil || b.Number == "" {
				t.Fatalf("sale %d: %v %q", len(sold), err, out)
			}
			sold = append(sold, b.Number)
		}
		return code, out, stderr
	}
	for range 3 {
		if code, out, stderr := sell(); code != 0 {
			t.Fatalf("sale with space free: exit %d %s %s", code, out, stderr)
		}
	}
	// Fill the disk but for a few pages: a sale or two may still fit.
	fillDisk(t, filepath.Join(disk, "filler"), 8)
	var code int
	var out, stderr string
	for range 20 {
		if code, out, stderr = sell(); code != 0 {
			break
		}
	}
	var answer struct{ Error, Message string }
	json.Unmarshal([]byte(out), &answer)
	if code != exitDiskFull || answer.Error != "disk_full" || answer.Message != "The disk is full: nothing was saved. Free space and try again." {
		t.Fatalf("after %d sales on a filling disk: exit %d\n%s%s", len(sold), code, out, stderr)
	}
	// Without --json: the same words for a person, and the exit code.
	code, _, stderr = runCLI(t, data, "", "sell", show, "--best", "1", "--pay", "card", "--name", name)
	if code != exitDiskFull || !strings.Contains(stderr, "boxoffice: The disk is full: nothing was saved. Free space and try again.") {
		t.Fatalf("sell on a full disk: exit %d %q", code, stderr)
	}

	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := sell(); code != 0 {
		t.Fatalf("sell once space was freed: exit %d %s %s", code, out, stderr)
	}
	// Every sale acknowledged is in the file, with its seat sold.
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	for _, number := range sold {
		var n int
		if err := dbh.QueryRow(`SELECT count(*) FROM bookings b JOIN seat_claims c ON c.booking_id = b.id AND c.status = 'sold' WHERE b.number = ? AND b.status = 'confirmed'`, number).Scan(&n); err != nil || n != 1 {
			t.Fatalf("booking %s, acknowledged: %d seats sold, %v", number, n, err)
		}
	}
	if code, out, stderr := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: exit %d %s %s", code, out, stderr)
	}
	t.Logf("%d sales acknowledged around a full disk (disk_full, exit 5, in between), all there; check clean", len(sold))
}

// The counter in a real terminal on a full disk, stderr the terminal
// itself as when a clerk starts it: the sale is refused in the issue's
// words, the seats stay held, and enter sells once space is freed. The
// log lines the full disk keeps out of the log file are never drawn over
// the screen: ctrl+l then L shows them, and they go to the terminal once the
// counter has closed.
func TestE2E_CounterDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	disk := smallDisk(t)
	bin := clitest.Binary(t)
	data := filepath.Join(disk, "data")
	if out, err := exec.Command(bin, "--data", data, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	tm := startTmux(t, 100, 30, "sh", "-c", `env BOXOFFICE_DATA="$1" TERM=xterm-256color "$2"; echo "counter exited $?"; sleep 600`, "sh", data, bin)
	tm.openTomorrow()
	tm.holdTwo()
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Up", "Space") // by card: no float to count first
	tm.waitFor("[card]")
	tm.send("Enter")
	tm.waitFor("[ Sell 2 tickets · 25.00 by card ]")

	filler := filepath.Join(disk, "filler")
	fi, err := os.Stat(filepath.Join(data, "boxoffice.log"))
	// An empty log file needs a new page for its first line; one with
	// lines could have room left in its last, and take the line.
	logEmpty := err == nil && fi.Size() == 0
	fillDisk(t, filler, 0)
	tm.send("Enter")
	screen := tm.waitFor("The disk is full: the sale was not made. Free space and try again.", "[ Sell 2 tickets", "P11")
	logLines := []string{"cannot write the log file", "no space left on device", `msg="disk full" op=checkout`}
	for _, line := range append(logLines, "level=", "boxoffice: ") {
		if strings.Contains(screen, line) {
			t.Fatalf("a log line is drawn over the counter's screen (%q):\n%s", line, screen)
		}
	}
	if logEmpty {
		tm.send("C-l")
		tm.waitFor("L shows them")
		tm.send("L")
		tm.waitFor(append(logLines, "Log lines the log file missed", "The log file cannot be written since")...)
		tm.send("Escape")
		tm.waitFor("[ Sell 2 tickets", "P11")
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	tm.send("Enter")
	tm.waitFor("Sold BO-")
	tm.send("C-c")
	// The terminal wraps long lines at its width: read them whole.
	closed := strings.ReplaceAll(tm.waitFor("counter exited 0"), "\n", "")
	if logEmpty {
		for _, want := range append(logLines, "log lines the log file") {
			if !strings.Contains(closed, want) {
				t.Errorf("once closed, the terminal lacks %q:\n%s", want, closed)
			}
		}
	} else {
		t.Log("the log file had room left in its last page: no line was refused")
	}
	if out, err := exec.Command(bin, "--data", data, "check").CombinedOutput(); err != nil {
		t.Fatalf("check: %v %s", err, out)
	}
}

// At 0 bytes free SQLite cannot even make the WAL index it opens a file
// with. Every command names the full disk (before: "Internal error.",
// exit 1): the reads still answer, from the file opened read-only, and
// say after it that the disk is full; check and a backup to another disk
// work; the writes and init exit 5 with the disk_full words, init in a
// new data dir too. Once space is freed, everything works again.
func TestCLI_DiskFullZeroBytes(t *testing.T) {
	t.Parallel()
	disk := smallDisk(t)
	data := filepath.Join(disk, "data")
	if code, _, stderr := runCLI(t, data, "", "init"); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	show := grandShowID(t, data)
	code, out, stderr := runCLI(t, data, "", "sell", show, "--best", "2", "--pay", "card", "--json")
	var sale struct {
		Number string `json:"booking"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sale) != nil {
		t.Fatalf("sell: exit %d %s %s", code, out, stderr)
	}
	fillDisk(t, filepath.Join(disk, "filler"), 0)
	named := "boxoffice: The disk is full: no room left for " + data + ". Free space and try again."

	// Reads: the answer, then the full disk named.
	code, out, stderr = runCLI(t, data, "", "shows", "--json")
	var shows []clitest.Show
	if code != 0 || json.Unmarshal([]byte(out), &shows) != nil || len(shows) == 0 || !strings.Contains(stderr, named) {
		t.Fatalf("shows at 0 bytes free: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, data, "", "booking", sale.Number)
	if code != 0 || !strings.Contains(out, sale.Number) || !strings.Contains(stderr, named) {
		t.Fatalf("booking at 0 bytes free: exit %d\n%s%s", code, out, stderr)
	}

	// check reads the file as it is, and a backup to another disk copies
	// it: what to do before freeing space.
	if code, out, stderr := runCLI(t, data, "", "check"); code != 0 || !strings.Contains(out, "Invariants: every one holds") {
		t.Fatalf("check at 0 bytes free: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, data, "", "backup", filepath.Join(t.TempDir(), "copy.db")); code != 0 || !strings.Contains(out, "every invariant holds") {
		t.Fatalf("backup to another disk at 0 bytes free: exit %d\n%s%s", code, out, stderr)
	}

	// Writes and init: exit 5, the disk named.
	var answer struct{ Error, Message string }
	code, out, _ = runCLI(t, data, "", "sell", show, "--best", "1", "--pay", "card", "--json")
	if json.Unmarshal([]byte(out), &answer); code != exitDiskFull || answer.Error != "disk_full" || answer.Message != "The disk is full: nothing was saved. Free space and try again." {
		t.Fatalf("sell at 0 bytes free: exit %d %s", code, out)
	}
	for _, args := range [][]string{{"init"}, {"staff", "unlock", "demo"}} {
		code, out, stderr := runCLI(t, data, "", args...)
		if code != exitDiskFull || !strings.Contains(stderr, "boxoffice: The disk is full: ") || strings.Contains(stderr, "Internal error") {
			t.Errorf("%v at 0 bytes free: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	code, _, stderr = runCLI(t, filepath.Join(disk, "new"), "", "init")
	if code != exitDiskFull || !strings.Contains(stderr, "boxoffice: The disk is full: no room left for "+filepath.Join(disk, "new")) {
		t.Errorf("init of a new data dir at 0 bytes free: exit %d %s", code, stderr)
	}

	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, data, "", "sell", show, "--best", "1", "--pay", "card"); code != 0 || strings.Contains(stderr, "disk is full") {
		t.Fatalf("sell once space was freed: exit %d %s %s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: exit %d %s %s", code, out, stderr)
	}
}
