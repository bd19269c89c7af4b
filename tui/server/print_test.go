package server_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/tui/server"
)

// TestServer_Printing is must-show 4, over real SSH connections: a
// session on a terminal registered with a printer prints its sale there;
// a session on a staff key, with no printer, gets the tickets as a PDF in
// the server's PDF directory and the screen names the file.
func TestServer_Printing(t *testing.T) {
	t.Parallel()
	pr := escpostest.NewPrinter(t)
	pdfDir := filepath.Join(t.TempDir(), "tickets")
	e := newEnv(t, func(c *server.Config) {
		c.PDFDir, c.PrintTimeout = pdfDir, 3*time.Second
		c.AccessCheck = 50 * time.Millisecond // how soon a new printer reaches open sessions
	})
	ctx := context.Background()
	till := e.terminalKey("till-5")
	if _, err := e.store.SetTerminalPrinter(ctx, booking.System, "till-5", pr.URL()); err != nil {
		t.Fatal(err)
	}

	t.Run("TerminalPrinter", func(t *testing.T) {
		c := e.mustDial(till)
		c.waitText("Sign in at this counter")
		c.send("carl\t1234\r")
		c.waitText("carl (clerk)")
		c.openFirstShow()
		c.goTo("C3")
		c.send("\r")
		c.waitText("Holding 1: C3")
		number := c.sell()
		cmds, err := escpostest.Parse(pr.Job(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.store.Booking(ctx, booking.System, number)
		if err != nil {
			t.Fatal(err)
		}
		if got := escpostest.QRData(cmds); !slices.Equal(got, []string{b.Tickets[0].Code}) {
			t.Fatalf("printed QR codes %q, want %q", got, b.Tickets[0].Code)
		}
		c.waitText("Printed 1 ticket(s)")
		if entries, _ := os.ReadDir(pdfDir); len(entries) != 0 {
			t.Fatalf("a session with a printer wrote PDFs: %v", entries)
		}
	})

	// A terminal's printer set while its session is open reaches that
	// session: it prints its next sale there, not as a PDF.
	t.Run("PrinterSetWhileOpen", func(t *testing.T) {
		c := e.mustDial(e.terminalKey("till-6"))
		c.waitText("Sign in at this counter")
		c.send("carl\t1234\r")
		c.waitText("carl (clerk)")
		if _, err := e.store.SetTerminalPrinter(ctx, booking.System, "till-6", pr.URL()); err != nil {
			t.Fatal(err)
		}
		c.waitText("This counter prints on " + pr.URL() + " now.")
		c.openFirstShow()
		c.goTo("C4")
		c.send("\r")
		c.waitText("Holding 1: C4")
		number := c.sell()
		cmds, err := escpostest.Parse(pr.Job(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.store.Booking(ctx, booking.System, number)
		if err != nil {
			t.Fatal(err)
		}
		if got := escpostest.QRData(cmds); !slices.Equal(got, []string{b.Tickets[0].Code}) {
			t.Fatalf("printed QR codes %q, want %q", got, b.Tickets[0].Code)
		}
		if entries, _ := os.ReadDir(pdfDir); len(entries) != 0 {
			t.Fatalf("the session wrote PDFs after its printer was set: %v", entries)
		}
	})

	t.Run("StaffKeyPDF", func(t *testing.T) {
		c := e.mustDial(e.staffKey("pia", booking.RoleClerk))
		c.openFirstShow()
		c.goTo("C5") // beside C4, sold by the subtest before: no seat left single
		c.send("\r")
		c.waitText("Holding 1: C5")
		number := c.sell()
		c.waitText("saved as PDF")
		// The path may wrap or be cut on screen; the file is in the
		// directory under the booking's number.
		want := filepath.Join(pdfDir, "tickets-"+number+".pdf")
		body, err := os.ReadFile(want)
		if err != nil || !strings.HasPrefix(string(body), "%PDF-") {
			t.Fatalf("PDF %s: %v", want, err)
		}
		shown := regexp.MustCompile(`saved as PDF: (\S+)`).FindStringSubmatch(c.scr.Text())
		if shown == nil || !strings.HasPrefix(want, shown[1]) {
			t.Fatalf("the screen does not name %s:\n%s", want, c.scr.Text())
		}
		pr.NoJob(t, 200*time.Millisecond)
	})
}
