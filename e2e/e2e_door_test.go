package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/clitest"
)

// runAt runs the built binary on data at the instant now and returns its
// exit code and output.
func runAt(t *testing.T, bin, data string, now time.Time, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Command(bin, []string{"BOXOFFICE_NOW=" + now.UTC().Format(time.RFC3339)}, "", append([]string{"--data", data}, args...)...)
}

// TestE2E_AdmitByBookingNumber is the door taking a booking's number in
// the binary that ships: before the doors open it says when they do; once
// they are open it admits the tickets not in yet, once each, and a second
// scan says when and by whom; a reservation not paid is sent to the
// counter. No answer is ever "Unknown ticket code".
func TestE2E_AdmitByBookingNumber(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "E4", "E5", "E6", "--pay", "card", "--json")
	var b clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil {
		t.Fatalf("sell: %d %s", code, errOut)
	}
	code, out, errOut = runCLI(t, data, "", "reservation", "make", show, "F4", "F5", "--name", "Ann Lee", "--phone", "020 7946 0018", "--json")
	var r struct{ Number string }
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("reservation: %d %s", code, errOut)
	}
	_, out, _ = runCLI(t, data, "", "shows", "--date", time.Now().AddDate(0, 0, 1).Format("2006-01-02"), "--json")
	var shows []clitest.Show
	if err := json.Unmarshal([]byte(out), &shows); err != nil {
		t.Fatal(err)
	}
	starts, err := time.Parse(time.RFC3339, shows[0].Start)
	if err != nil {
		t.Fatal(err)
	}
	never := func(what string, outs ...string) {
		t.Helper()
		for _, o := range outs {
			if strings.Contains(o, "Unknown ticket code") {
				t.Fatalf("%s: %q", what, o)
			}
		}
	}

	early := starts.Add(-booking.DoorsOpen - 30*time.Minute)
	code, out, errOut = runAt(t, bin, data, early, "admit", b.Number)
	never("too early", out, errOut)
	if code != 2 || !strings.Contains(errOut, "Doors open at") && !strings.Contains(errOut, " is for ") {
		t.Fatalf("a number before the doors open: exit %d, %q", code, errOut)
	}
	code, out, errOut = runAt(t, bin, data, early, "admit", r.Number)
	never("unpaid", out, errOut)
	if code != 3 || !strings.Contains(errOut, "Not paid: pay at the counter") {
		t.Fatalf("an unpaid reservation: exit %d, %q", code, errOut)
	}

	open := starts.Add(-10 * time.Minute)
	if code, _, errOut := runAt(t, bin, data, open, "admit", b.Tickets[0].Code); code != 0 {
		t.Fatalf("the first ticket by its code: %d %s", code, errOut)
	}
	code, out, errOut = runAt(t, bin, data, open, "admit", strings.ToLower(b.Number))
	if code != 0 || !strings.Contains(out, "Admit: 2 seats E5 (adult), E6 (adult)") || !strings.Contains(out, "Ticket E4 was already admitted") {
		t.Fatalf("the number with doors open: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("admit %s:\n%s", b.Number, out)
	code, out, errOut = runAt(t, bin, data, open.Add(time.Minute), "admit", b.Number, "--json")
	never("again", out, errOut)
	if code != 3 || !strings.Contains(out+errOut, "already admitted at") {
		t.Fatalf("the number scanned again: exit %d %q %q", code, out, errOut)
	}
}

// TestCLI_BookingShowsAReservation: `booking` with the number of a
// reservation not yet paid says so — reserved, until when, not paid —
// instead of "No booking".
func TestCLI_BookingShowsAReservation(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "reservation", "make", show, "F7", "F8", "--name", "Ann Lee", "--phone", "020 7946 0222", "--json")
	var r struct{ Number, Cutoff string }
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("reservation: %d %s", code, errOut)
	}
	cut, err := time.Parse(time.RFC3339, r.Cutoff)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, data, "", "booking", strings.ToLower(r.Number))
	if code != 0 || !strings.Contains(out, "Reservation  "+r.Number+" (reserved, not paid)") || !strings.Contains(out, "Seats        F7 F8") ||
		!strings.Contains(out, "by "+cut.Format("15:04")+" at the counter") {
		t.Fatalf("booking of a reservation: %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, data, "", "reservation", "find", "0222"); code != 0 || !strings.Contains(out, r.Number) {
		t.Fatalf("find by the last digits: %d %s", code, out)
	}
}
