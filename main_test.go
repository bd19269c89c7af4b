package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// runCLI runs the command line in-process on a data dir and returns its
// exit code and output; after an init that succeeds it opens the command
// line's shift (clitest.Run).
func runCLI(t *testing.T, data, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, inProcess, data, stdin, args...)
}

// inProcess is the clitest.Runner of this package: main without the
// process, under the race detector.
func inProcess(data, stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := exitCode(run(context.Background(), append([]string{"--data", data}, args...), strings.NewReader(stdin), &out, &errb))
	return code, out.String(), errb.String()
}

// firstShowID returns the id of a show that is still on sale tomorrow,
// with the command line's shift open. On a data dir with no database yet
// it copies the demo cinema in (copyDemo) rather than making it again.
func firstShowID(t *testing.T, data string) string {
	t.Helper()
	copyDemo(t, data)
	return clitest.FirstShowID(t, inProcess, data)
}

// demo is a data dir the command line made the demo cinema in, with its
// shift open, once per test process: making it costs nearly two seconds
// under the race detector (the schema, the seed, the PIN hashes), a copy
// milliseconds. TestMain removes it.
var demo struct {
	once sync.Once
	dir  string
	err  error
}

// copyDemo copies the demo data dir into data unless data holds a
// database already.
func copyDemo(t *testing.T, data string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(data, "boxoffice.db")); err == nil {
		return
	}
	demo.once.Do(func() {
		var parent string
		if parent, demo.err = os.MkdirTemp("", "boxoffice-demo-"); demo.err != nil {
			return
		}
		demo.dir = filepath.Join(parent, "data")
		// Should FirstShowID fail this test, the error stays for the
		// tests after it.
		demo.err = errors.New("making it failed: see the first test that asked")
		clitest.FirstShowID(t, inProcess, demo.dir)
		demo.err = nil
	})
	if demo.err != nil {
		t.Fatalf("the demo data dir: %v", demo.err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(demo.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(demo.dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "ticket_key" {
			// A box office of its own signs with a key of its own, as
			// the command line makes one for a new data dir.
			raw = []byte("1:" + hex.EncodeToString(randomBytes(t, 32)) + "\n")
		}
		if err := os.WriteFile(filepath.Join(data, f.Name()), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// removeDemo removes the demo data dir copyDemo made, if it did.
func removeDemo() {
	if demo.dir != "" {
		os.RemoveAll(filepath.Dir(demo.dir))
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestCLI_Init(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	code, out, _ := runCLI(t, data, "", "init")
	if code != 0 || !strings.Contains(out, "Sign in as demo with PIN 1234") {
		t.Fatalf("init: %d %q", code, out)
	}
	code, out, _ = runCLI(t, data, "", "init")
	if code != 0 || !strings.Contains(out, "already there") {
		t.Fatalf("second init: %d %q", code, out)
	}
	for name, want := range map[string]os.FileMode{".": 0o700, "boxoffice.db": 0o600, "ticket_key": 0o600} {
		info, err := os.Stat(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", name, got, want)
		}
	}
}

func TestCLI_Sell(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	t.Run("OK", func(t *testing.T) {
		code, out, errOut := runCLI(t, data, "", "sell", show, "G7", "G8", "--tendered", "30", "--name", "Ann", "--allow-single", "--json")
		if code != 0 {
			t.Fatalf("sell: %d %s", code, errOut)
		}
		var b clitest.Booking
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatal(err)
		}
		if b.Total != "25.00" || b.Change != "5.00" || len(b.Tickets) != 2 || b.Tickets[0].Code == "" {
			t.Fatalf("booking %+v", b)
		}
		code, out, _ = runCLI(t, data, "", "booking", b.Number)
		if code != 0 || !strings.Contains(out, "G7 G8") || !strings.Contains(out, "change due 5.00") {
			t.Fatalf("booking: %d %q", code, out)
		}
	})
	t.Run("ErrClash", func(t *testing.T) {
		code, out, _ := runCLI(t, data, "", "sell", show, "G7", "--json")
		if code != 3 {
			t.Fatalf("exit %d, want 3", code)
		}
		var clash struct {
			Error       string     `json:"error"`
			Taken       []string   `json:"taken"`
			Suggestions [][]string `json:"suggestions"`
		}
		if err := json.Unmarshal([]byte(out), &clash); err != nil {
			t.Fatal(err)
		}
		if clash.Error != "seats_taken" || len(clash.Taken) != 1 || clash.Taken[0] != "G7" || len(clash.Suggestions) == 0 {
			t.Fatalf("clash %+v", clash)
		}
		// The first suggestion really is free: selling it works.
		code, _, errOut := runCLI(t, data, "", append([]string{"sell", show}, clash.Suggestions[0]...)...)
		if code != 0 {
			t.Fatalf("selling the suggestion: %d %s", code, errOut)
		}
	})
	t.Run("IdempotencyKey", func(t *testing.T) {
		_, out1, _ := runCLI(t, data, "", "sell", show, "A1", "--key", "retry-1", "--allow-single", "--json")
		code, out2, errOut := runCLI(t, data, "", "sell", show, "A1", "--key", "retry-1", "--allow-single", "--json")
		if code != 0 {
			t.Fatalf("retry: %d %s", code, errOut)
		}
		var b1, b2 clitest.Booking
		json.Unmarshal([]byte(out1), &b1)
		json.Unmarshal([]byte(out2), &b2)
		if b1.Number == "" || b1.Number != b2.Number {
			t.Fatalf("retry made %q after %q", b2.Number, b1.Number)
		}
	})
	t.Run("Best", func(t *testing.T) {
		code, out, errOut := runCLI(t, data, "", "sell", show, "--best", "4", "--type", "child", "--json")
		if code != 0 {
			t.Fatalf("sell --best: %d %s", code, errOut)
		}
		var b clitest.Booking
		json.Unmarshal([]byte(out), &b)
		if len(b.Seats) != 4 || b.Total != "34.00" {
			t.Fatalf("best 4 children: seats %v total %s", b.Seats, b.Total)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		for _, args := range [][]string{
			{"sell", show},
			{"sell", "abc", "G7"},
			{"sell", show, "G7", "--pay", "cheque"},
			{"sell", show, "G7", "--tendered", "lots"},
			{"sell", show, "Z99"},
			{"sell", show, "G1", "--best", "2"},
			{"sell", show, "--best", "30"},
			{"frobnicate"},
		} {
			if code, _, errOut := runCLI(t, data, "", args...); code != 2 || errOut == "" {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
			}
		}
	})
	t.Run("ErrShortCash", func(t *testing.T) {
		code, _, errOut := runCLI(t, data, "", "sell", show, "B1", "--tendered", "5")
		if code != 2 || !strings.Contains(errOut, "less than the total") {
			t.Fatalf("%d %q", code, errOut)
		}
		// The failed sale gave its hold back.
		if code, _, errOut := runCLI(t, data, "", "sell", show, "B1"); code != 0 {
			t.Fatalf("B1 still held: %d %s", code, errOut)
		}
	})
}

func TestCLI_Cancel(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	_, out, _ := runCLI(t, data, "", "sell", show, "C1", "C2", "--pay", "card", "--json")
	var b clitest.Booking
	json.Unmarshal([]byte(out), &b)
	code, out, errOut := runCLI(t, data, "", "cancel", b.Number, "--reason", "changed plans", "--json")
	if code != 0 {
		t.Fatalf("cancel: %d %s", code, errOut)
	}
	var c clitest.Booking
	json.Unmarshal([]byte(out), &c)
	// One refund per ticket: two tickets, two refunds of 12.50.
	if c.Status != "cancelled" || len(c.Payments) != 3 || c.Payments[1].Kind != "refund" || c.Payments[2].Amount != "12.50" {
		t.Fatalf("cancelled %+v", c)
	}
	code, out, _ = runCLI(t, data, "", "cancel", b.Number, "--json")
	if code != 3 || !strings.Contains(out, "stale_status") {
		t.Fatalf("second cancel: %d %q", code, out)
	}
	if code, _, _ := runCLI(t, data, "", "admit", c.Tickets[0].Code); code != 3 {
		t.Fatalf("a refunded ticket was admitted (exit %d)", code)
	}
	if code, _, _ := runCLI(t, data, "", "booking", "BO-ZZZZZZZZ"); code != 4 {
		t.Fatalf("unknown booking exit %d, want 4", code)
	}
}

func TestCLI_Staff(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	key := filepath.Join(t.TempDir(), "id.pub")
	os.WriteFile(key, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb1u0SvQ7eJ4p5XGfQ0pL3Xy7qEZKq6m1r3v0c5Z9aB test\n"), 0o600)
	if code, out, errOut := runCLI(t, data, "4321\n", "staff", "add", "Maria", "--role", "clerk", "--key-file", key); code != 0 {
		t.Fatalf("staff add: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "staff", "add", "Nopin", "--role", "clerk"); code != 2 || !strings.Contains(errOut, "PIN") {
		t.Fatalf("no PIN on stdin: %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, data, "1234\n", "staff", "add", "X", "--role", "emperor"); code != 2 {
		t.Fatalf("unknown role exit %d", code)
	}
	code, out, _ := runCLI(t, data, "", "staff", "list")
	if code != 0 || !strings.Contains(out, "Maria") || !strings.Contains(out, "clerk") {
		t.Fatalf("list: %q", out)
	}
	if code, _, _ := runCLI(t, data, "", "staff", "disable", "Maria"); code != 0 {
		t.Fatal("disable")
	}
	if code, _, _ := runCLI(t, data, "", "staff", "disable", "Nobody"); code != 4 {
		t.Fatal("disable unknown should be not found")
	}
	if code, _, errOut := runCLI(t, data, "", "terminal", "add", "till-2", "--key-file", key); code != 3 {
		t.Fatalf("a key bound to staff was registered as a terminal too: %d %s", code, errOut)
	}
}

// A rotated ticket key: the new first line signs, the old line below it
// still admits tickets printed before the rotation.
func TestCLI_TicketKeyRotation(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	_, out, _ := runCLI(t, data, "", "sell", show, "D4", "D5", "--json")
	var before clitest.Booking
	json.Unmarshal([]byte(out), &before)
	keyFile := filepath.Join(data, "ticket_key")
	old, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, append([]byte("2:"+strings.Repeat("ab", 32)+"\n"), old...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCLI(t, data, "", "booking", before.Number, "--json")
	var after clitest.Booking
	json.Unmarshal([]byte(out), &after)
	if after.Tickets[0].Code == before.Tickets[0].Code {
		t.Fatal("the new key did not take over signing")
	}
	// Tomorrow's show is not at the door yet; the code must still be
	// recognised as genuine (not "unknown").
	code, _, errOut := runCLI(t, data, "", "admit", before.Tickets[0].Code)
	if code == 4 || strings.Contains(errOut, "Unknown ticket code") {
		t.Fatalf("a ticket printed before the rotation is unknown: %d %s", code, errOut)
	}
	os.WriteFile(keyFile, []byte("2:"+strings.Repeat("ab", 32)+"\n"), 0o600)
	if code, _, _ := runCLI(t, data, "", "admit", before.Tickets[1].Code); code != 4 {
		t.Fatalf("with the old key gone, its codes should be unknown (exit %d)", code)
	}
	os.WriteFile(keyFile, []byte("garbage\n"), 0o600)
	if code, _, errOut := runCLI(t, data, "", "shows"); code != exitUsage || !strings.Contains(errOut, keyFile+" is damaged: line 1 is not a key") || strings.Contains(errOut, "Internal error") {
		t.Fatalf("a damaged key file: %d %q", code, errOut)
	}
}

// A cinema of its own: an empty database, a hall from a layout file, a
// film, a show, prices, then a sale.
func TestCLI_OwnCinema(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	if code, _, errOut := runCLI(t, data, "", "init", "--no-demo"); code != 0 {
		t.Fatal(errOut)
	}
	layout := filepath.Join(t.TempDir(), "small.hall")
	os.WriteFile(layout, []byte("hall: Small\nA | ssss..ssss\nB | sssscwssss\n"), 0o600)
	bad := filepath.Join(t.TempDir(), "bad.hall")
	os.WriteFile(bad, []byte("hall: Bad\nA | ssxs\n"), 0o600)
	if code, _, errOut := runCLI(t, data, "", "hall", "add", bad); code != 2 || !strings.Contains(errOut, "bad.hall:2:7:") {
		t.Fatalf("bad layout: %d %q", code, errOut)
	}
	if code, out, errOut := runCLI(t, data, "", "hall", "add", layout); code != 0 || !strings.Contains(out, "18 seats") {
		t.Fatalf("hall add: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "film", "add", "Our Film", "--minutes", "95"); code != 0 {
		t.Fatal(errOut)
	}
	at := time.Now().AddDate(0, 0, 1).Format("2006-01-02") + " 19:30"
	if code, _, errOut := runCLI(t, data, "", "show", "add", "--film", "1", "--hall", "small", "--at", at); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, _ := runCLI(t, data, "", "show", "add", "--film", "1", "--hall", "Small", "--at", at); code != 3 {
		t.Fatalf("a second show at the same time in the same hall: exit %d", code)
	}
	// No prices yet: a sale cannot go through.
	if code, _, _ := runCLI(t, data, "", "sell", "1", "A1"); code == 0 {
		t.Fatal("sold a seat with no ticket types")
	}
	if code, _, errOut := runCLI(t, data, "", "price", "set", "adult", "Adult", "11.00"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := runCLI(t, data, "", "sell", "1", "B5", "B6", "--tendered", "25", "--json")
	if code != 0 {
		t.Fatalf("sell: %d %s", code, errOut)
	}
	var b clitest.Booking
	json.Unmarshal([]byte(out), &b)
	if b.Total != "22.00" || b.Change != "3.00" {
		t.Fatalf("sale %+v", b)
	}
}

func TestCLI_Waitlist(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	copyDemo(t, data)
	show := clitest.ShowIn(t, inProcess, data, "Studio") // the smallest hall, sold out in four sales
	if code, _, _ := runCLI(t, data, "", "waitlist", "add", show, "--name", "Ann", "--phone", "0123", "--seats", "2"); code != exitConflict {
		t.Fatalf("waiting for a show with free seats: exit %d", code)
	}
	sold := sellOutCLI(t, data, show)
	if code, _, errOut := runCLI(t, data, "", "waitlist", "add", show, "--name", "Ann\x1b[31m", "--phone", "0123", "--seats", "2"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, _ := runCLI(t, data, "", "waitlist", "add", show, "--name", "Bob"); code != 2 {
		t.Fatalf("no phone: exit %d", code)
	}
	if code, _, errOut := runCLI(t, data, "", "waitlist", "add", show, "--name", "Bob", "--phone", "0456"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "cancel", sold); code != 0 {
		t.Fatal(errOut)
	}
	type entry struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		Seats  int    `json:"seats"`
		Status string `json:"status"`
	}
	list := func() []entry {
		t.Helper()
		code, out, errOut := runCLI(t, data, "", "waitlist", show, "--json")
		var list []entry
		if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
			t.Fatalf("waitlist: %d %v %s", code, err, errOut)
		}
		return list
	}
	got := list()
	if len(got) != 2 || got[0].Name != "Ann[31m" || got[0].Seats != 2 || got[1].Name != "Bob" || got[0].ID == 0 {
		t.Fatalf("waitlist: %+v", got)
	}
	code, out, _ := runCLI(t, data, "", "waitlist", show)
	if code != 0 || !strings.Contains(out, "ID") || !strings.Contains(out, "STATUS") || !strings.Contains(out, "waiting") || strings.Contains(out, "\x1b") {
		t.Fatalf("waitlist listing: %q", out)
	}
	if code, out, errOut := runCLI(t, data, "", "waitlist", "remove", jsonNumber(got[0].ID)); code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("remove: %d %s %s", code, out, errOut)
	}
	if code, _, _ := runCLI(t, data, "", "waitlist", "remove", jsonNumber(got[0].ID)); code != exitNotFound {
		t.Fatalf("removing twice: exit %d", code)
	}
	if code, _, _ := runCLI(t, data, "", "waitlist", "remove", "x"); code != exitUsage {
		t.Fatalf("remove x: exit %d", code)
	}
	if got := list(); len(got) != 1 || got[0].Name != "Bob" {
		t.Fatalf("after remove: %+v", got)
	}
}

// sellOutCLI sells every seat of a show through the command line and
// returns the number of a booking of one seat.
func sellOutCLI(t *testing.T, data, show string) string {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", "seats", show, "--json")
	var m struct {
		Seats []struct {
			Seat string `json:"seat"`
		} `json:"seats"`
	}
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
		t.Fatalf("seats: %d %v %s", code, err, errOut)
	}
	var first string
	for start := 0; start < len(m.Seats); {
		end := min(start+20, len(m.Seats))
		if start == 0 {
			end = 1
		}
		args := []string{"sell", show, "--pay", "card", "--allow-single", "--json"}
		for _, s := range m.Seats[start:end] {
			args = append(args, s.Seat)
		}
		start = end
		code, out, errOut := runCLI(t, data, "", args...)
		var b clitest.Booking
		if err := json.Unmarshal([]byte(out), &b); code != 0 || err != nil {
			t.Fatalf("sell: %d %v %s", code, err, errOut)
		}
		if first == "" {
			first = b.Number
		}
	}
	return first
}

// The bench runs end to end and its JSON carries the fields scripts read;
// nothing is sold twice and every acknowledged booking is committed.
func TestCLI_Bench(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the bench")
	}
	code, out, errOut := runCLI(t, t.TempDir(), "", "bench", "--duration", "300ms", "--clients", "1,4", "--sync", "normal", "--json")
	if code != 0 {
		t.Fatalf("bench: %d %s", code, errOut)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for _, clients := range []int{1, 4} {
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("result for %d clients: %v\n%s", clients, err, out)
		}
		for _, field := range []string{"clients", "sync", "bookings_per_sec", "p50_ms", "p99_ms", "max_ms", "double_sold", "raw_tx_per_sec"} {
			if _, ok := r[field]; !ok {
				t.Errorf("no %s in %v", field, r)
			}
		}
		if r["clients"] != float64(clients) || r["sync"] != "normal" || r["double_sold"] != float64(0) ||
			r["bookings_acknowledged"] != r["bookings_committed"] || r["bookings_per_sec"].(float64) <= 0 {
			t.Errorf("result %v", r)
		}
	}
}
