package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// The counter in a real terminal on a full disk: the sale is refused in
// the words, the seats stay held, and enter sells once space is
// freed. stderr goes to a file, as a counter's should, so log lines that
// the full disk sends there do not land on the screen.
func TestE2E_CounterDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	disk := smallDisk(t)
	bin := buildBinary(t)
	data := filepath.Join(disk, "data")
	if out, err := exec.Command(bin, "--data", data, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	errFile := filepath.Join(t.TempDir(), "counter.err")
	tm := startTmux(t, 100, 30, "sh", "-c", `exec env BOXOFFICE_DATA="$1" TERM=xterm-256color "$2" 2>"$3"`, "sh", data, bin, errFile)
	tm.waitFor("Sign in")
	tm.send("demo", "Tab", "1234", "Enter")
	tm.waitFor("Start", "Grand")
	tm.send("Right")
	tm.waitFor("Tomorrow", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send("2", "b")
	tm.waitFor("Holding 2")
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Up", "Space") // by card: no float to count first
	tm.waitFor("[card]")
	tm.send("Enter")
	tm.waitFor("[ Sell 2 tickets · 25.00 by card ]")

	filler := filepath.Join(disk, "filler")
	fi, err := os.Stat(filepath.Join(data, "boxoffice.log"))
	logEmpty := err == nil && fi.Size() == 0
	fillDisk(t, filler, 0)
	tm.send("Enter")
	tm.waitFor("The disk is full: the sale was not made. Free space and try again.", "[ Sell 2 tickets", "P11")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	tm.send("Enter")
	tm.waitFor("Sold BO-")
	// The log file, on the full disk, could not take the store's line
	// about it: the line went to stderr, with why. (An empty file needs a
	// new page; one with lines could have room left in its last.)
	errs, _ := os.ReadFile(errFile)
	if logEmpty {
		for _, want := range []string{"cannot write the log file", "no space left on device", `msg="disk full" op=checkout`} {
			if !strings.Contains(string(errs), want) {
				t.Errorf("the counter's stderr lacks %q:\n%s", want, errs)
			}
		}
	}
	if out, err := exec.Command(bin, "--data", data, "check").CombinedOutput(); err != nil {
		t.Fatalf("check: %v %s", err, out)
	}
}
