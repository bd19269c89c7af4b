package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/escpos/escpostest"
	"boxoffice/internal/clitest"
)

// terminalPrinters reads the terminals' printers straight from the file.
func terminalPrinters(t *testing.T, data string) map[string]string {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	rows, err := dbh.Query(`SELECT name, printer FROM terminals`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, p string
		if err := rows.Scan(&n, &p); err != nil {
			t.Fatal(err)
		}
		out[n] = p
	}
	return out
}

// TestCLI_TerminalPrinter: terminal add --printer and terminal printer
// store a printer per counter; a bad URL is refused with the form a
// printer takes, exit 2, before anything is written.
func TestCLI_TerminalPrinter(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	copyDemo(t, data)
	t.Run("ErrInvalidAdd", func(t *testing.T) {
		code, _, errOut := runCLI(t, data, "", "terminal", "add", "till-1", "--key-file", "testdata/cli/till.pub", "--printer", "http://192.168.1.50")
		if code != 2 || !strings.Contains(errOut, "tcp://HOST[:PORT]") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if got := terminalPrinters(t, data); len(got) != 0 {
			t.Fatalf("terminals written: %v", got)
		}
	})
	t.Run("OK", func(t *testing.T) {
		code, out, errOut := runCLI(t, data, "", "terminal", "add", "till-1", "--key-file", "testdata/cli/till.pub", "--printer", "tcp://192.168.1.50")
		if code != 0 || !strings.Contains(out, "printing on tcp://192.168.1.50:9100") {
			t.Fatalf("add: %d %q %q", code, out, errOut)
		}
		if got := terminalPrinters(t, data)["till-1"]; got != "tcp://192.168.1.50:9100" {
			t.Fatalf("stored printer %q", got)
		}
		if code, out, _ := runCLI(t, data, "", "terminal", "list"); code != 0 || !strings.Contains(out, "till-1  printer tcp://192.168.1.50:9100") {
			t.Fatalf("list: %d %q", code, out)
		}
		if code, _, errOut := runCLI(t, data, "", "terminal", "printer", "till-1", "/dev/usb/lp0"); code != 0 {
			t.Fatalf("printer: %s", errOut)
		}
		if got := terminalPrinters(t, data)["till-1"]; got != "/dev/usb/lp0" {
			t.Fatalf("stored printer %q", got)
		}
		if code, out, _ := runCLI(t, data, "", "terminal", "printer", "till-1", "none"); code != 0 || !strings.Contains(out, "PDF tickets") {
			t.Fatalf("none: %d %q", code, out)
		}
		if got := terminalPrinters(t, data)["till-1"]; got != "" {
			t.Fatalf("stored printer %q after none", got)
		}
	})
	t.Run("ErrInvalidSet", func(t *testing.T) {
		code, _, errOut := runCLI(t, data, "", "terminal", "printer", "till-1", "/tmp/lp0")
		if code != 2 || !strings.Contains(errOut, "/dev/") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if code, _, errOut := runCLI(t, data, "", "terminal", "printer", "till-9", "tcp://10.0.0.1"); code != 4 {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("ErrCounterPrinter", func(t *testing.T) {
		// The local counter refuses a bad --printer before it draws.
		code, out, errOut := runCLI(t, data, "", "--printer", "lp0")
		if code != 2 || !strings.Contains(errOut, "tcp://HOST[:PORT]") || out != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

// TestCLI_Print: printer test and print send to a printer on loopback;
// print's tickets carry the booking's codes; a printer that is not there
// fails with a message and exit 1.
func TestCLI_Print(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "F4", "F5", "--json")
	if code != 0 {
		t.Fatalf("sell: %s", errOut)
	}
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	pr := escpostest.NewPrinter(t)

	t.Run("Test", func(t *testing.T) {
		if code, out, errOut := runCLI(t, data, "", "printer", "test", "--printer", pr.URL(), "--cinema", "The Roxy\x1b@"); code != 0 || !strings.Contains(out, "Printed a test page") {
			t.Fatalf("printer test: %d %q %q", code, out, errOut)
		}
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil || !slices.Contains(escpostest.Texts(cmds), "PRINTER TEST") || !slices.Contains(escpostest.Texts(cmds), "The Roxy@") {
			t.Fatalf("test page %v, %v", cmds, err)
		}
	})
	t.Run("Booking", func(t *testing.T) {
		if code, _, errOut := runCLI(t, data, "", "print", b.Number, "--printer", pr.URL()); code != 0 {
			t.Fatalf("print: %d %q", code, errOut)
		}
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{b.Tickets[0].Code, b.Tickets[1].Code}
		if got := escpostest.QRData(cmds); !slices.Equal(got, want) {
			t.Fatalf("QR codes %q, want %q", got, want)
		}
	})
	t.Run("ByTerminal", func(t *testing.T) {
		if code, _, errOut := runCLI(t, data, "", "terminal", "add", "till-1", "--key-file", "testdata/cli/till.pub", "--printer", pr.URL()); code != 0 {
			t.Fatal(errOut)
		}
		if code, _, errOut := runCLI(t, data, "", "print", b.Number, "--terminal", "till-1"); code != 0 {
			t.Fatalf("print --terminal: %d %q", code, errOut)
		}
		pr.Job(t, 5*time.Second)
	})
	t.Run("ShiftReport", func(t *testing.T) {
		code, out, errOut := runCLI(t, data, "", "shift", "close", "--counted", "100", "--json")
		if code != 0 {
			t.Fatalf("shift close: %d %q", code, errOut)
		}
		var z struct {
			Shift struct {
				ID int64 `json:"id"`
			} `json:"shift"`
		}
		if err := json.Unmarshal([]byte(out), &z); err != nil || z.Shift.ID == 0 {
			t.Fatalf("shift close json %q: %v", out, err)
		}
		if code, out, errOut := runCLI(t, data, "", "print", "--shift", jsonNumber(z.Shift.ID), "--printer", pr.URL()); code != 0 || !strings.Contains(out, "Z report") {
			t.Fatalf("print --shift: %d %q %q", code, out, errOut)
		}
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil || !slices.Contains(escpostest.Texts(cmds), "Z REPORT") {
			t.Fatalf("Z report %v, %v", escpostest.Texts(cmds), err)
		}
	})
	t.Run("ErrUsage", func(t *testing.T) {
		if code, _, errOut := runCLI(t, data, "", "print", b.Number); code != 2 || !strings.Contains(errOut, "--printer") {
			t.Fatalf("print without a printer: %d %q", code, errOut)
		}
		if code, _, errOut := runCLI(t, data, "", "printer", "test", "--printer", "lp0"); code != 2 || !strings.Contains(errOut, "tcp://HOST") {
			t.Fatalf("printer test lp0: %d %q", code, errOut)
		}
	})
	t.Run("ErrOffline", func(t *testing.T) {
		pr.Stall(true)
		defer pr.Stall(false)
		began := time.Now()
		code, _, errOut := runCLI(t, data, "", "print", b.Number, "--printer", pr.URL())
		if code != 1 || !strings.Contains(errOut, "did not answer in time") {
			t.Fatalf("stalled printer: %d %q", code, errOut)
		}
		if d := time.Since(began); d > 30*time.Second {
			t.Fatalf("a stalled printer held the command %s", d)
		}
	})
}

// TestCLI_BookingPDF: booking --pdf writes the tickets once and never
// over an existing file.
func TestCLI_BookingPDF(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "F6", "--json")
	if code != 0 {
		t.Fatalf("sell: %s", errOut)
	}
	var b clitest.Booking
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.pdf")
	if code, out, errOut := runCLI(t, data, "", "booking", b.Number, "--pdf", path); code != 0 || !strings.Contains(out, path) {
		t.Fatalf("booking --pdf: %d %q %q", code, out, errOut)
	}
	first, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(first), "%PDF-") {
		t.Fatalf("pdf: %v", err)
	}
	code, _, errOut = runCLI(t, data, "", "booking", b.Number, "--pdf", path)
	if code != 2 || !strings.Contains(errOut, "exists already") {
		t.Fatalf("second --pdf: %d %q", code, errOut)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Fatal("the PDF was written over")
	}
}
