package booking

import (
	"strings"
	"testing"
	"time"
)

// The cases of the counter's own parser, kept word for word: the counter
// switches to ParseSeatRange and must read what it read before.
func TestParseSeatRange(t *testing.T) {
	for in, want := range map[string]string{
		"G7": "G7", "g7": "G7", "G7-9": "G7 G8 G9", "G9-7": "G7 G8 G9", "G7-G8": "G7 G8", " g 7 - 8 ": "G7 G8", "AA12": "AA12",
		"A1-20": strings.Join(seq("A", 1, 20), " "),
	} {
		got, err := ParseSeatRange(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ParseSeatRange(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "7", "G", "G0", "G7-H9", "G1-40", "G7-x", "A1-21", "-", "G-7", "G7-", "G7-0"} {
		if got, err := ParseSeatRange(in); ErrorCode(err) != EInvalid {
			t.Errorf("ParseSeatRange(%q) = %v, %v; want an EInvalid error", in, got, err)
		}
	}
	if _, err := ParseSeatRange("A1-21"); ErrorMessage(err) != "At most 20 seats at once." {
		t.Errorf("too long a range: %q", ErrorMessage(err))
	}
}

func seq(row string, from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, row+itoa(n))
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func FuzzParseSeatRange(f *testing.F) {
	for _, s := range []string{"G7", "G7-9", "G7-G9", "aa1-aa20", " 1-2", "Z99-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSeatRange(s)
		if err != nil {
			if ErrorCode(err) != EInvalid {
				t.Fatalf("%q: code %s", s, ErrorCode(err))
			}
			return
		}
		if len(got) < 1 || len(got) > MaxSeatsPerSale {
			t.Fatalf("%q gave %d seats", s, len(got))
		}
		row, _, _ := splitSeatLabel(got[0])
		for _, l := range got {
			if r, _, ok := splitSeatLabel(l); !ok || r != row {
				t.Fatalf("%q gave %v: not one row", s, got)
			}
		}
	})
}

func TestSalesOpen(t *testing.T) {
	starts := time.Date(2030, 5, 3, 20, 0, 0, 0, time.Local)
	for _, c := range []struct {
		close time.Duration
		now   time.Time
		open  bool
		msg   string
	}{
		{DefaultSalesClose, starts.Add(-48 * time.Hour), true, ""},
		{DefaultSalesClose, starts, true, ""},
		{DefaultSalesClose, starts.Add(DefaultSalesClose - time.Millisecond), true, ""},
		{DefaultSalesClose, starts.Add(DefaultSalesClose), false, "Sales for the Fri 20:00 show closed 30 min after the start."},
		{DefaultSalesClose, starts.Add(time.Hour), false, "Sales for the Fri 20:00 show closed 30 min after the start."},
		{-10 * time.Minute, starts.Add(-11 * time.Minute), true, ""},
		{-10 * time.Minute, starts.Add(-10 * time.Minute), false, "Sales for the Fri 20:00 show closed 10 min before the start."},
		{0, starts, false, "Sales for the Fri 20:00 show closed at the start."},
	} {
		err := SalesOpen(Show{Starts: starts, SalesClose: c.close}, c.now)
		if (err == nil) != c.open {
			t.Errorf("close %v at %v: %v, want open %v", c.close, c.now.Sub(starts), err, c.open)
		}
		if err != nil && (ErrorCode(err) != EInvalid || ErrorMessage(err) != c.msg) {
			t.Errorf("close %v at %v: %s %q, want %q", c.close, c.now.Sub(starts), ErrorCode(err), ErrorMessage(err), c.msg)
		}
	}
	// A cancelled show sells nothing, however early.
	err := SalesOpen(Show{Starts: starts, SalesClose: DefaultSalesClose, Status: ShowCancelled, CancelReason: "projector\x1b[2J broken"}, starts.Add(-48*time.Hour))
	if ErrorCode(err) != EInvalid || ErrorMessage(err) != "The Fri 20:00 show was cancelled: projector[2J broken." {
		t.Errorf("cancelled: %s %q", ErrorCode(err), ErrorMessage(err))
	}
}

func TestParseSalesClose(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30m", 30 * time.Minute, true}, {"-10m", -10 * time.Minute, true}, {"0m", 0, true}, {"1h", time.Hour, true},
		{"-24h", -24 * time.Hour, true}, {"61m", 0, false}, {"-25h", 0, false}, {"90s", 0, false}, {"soon", 0, false}, {"", 0, false},
	} {
		got, err := ParseSalesClose(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseSalesClose(%q) = %v, %v; want %v ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && ErrorCode(err) != EInvalid {
			t.Errorf("ParseSalesClose(%q): code %s", c.in, ErrorCode(err))
		}
		if c.ok {
			if back, err := ParseSalesClose(FormatSalesClose(got)); err != nil || back != got {
				t.Errorf("FormatSalesClose(%v) = %q, reads back %v, %v", got, FormatSalesClose(got), back, err)
			}
		}
	}
}

// The table holds every move the brief of each kind names, and nothing
// that would bring a row back from a final status.
func TestStatuses(t *testing.T) {
	for _, c := range []struct {
		kind     Statuses
		from, to string
		ok       bool
	}{
		{HoldStatuses, string(HoldHeld), string(HoldReleased), true},
		{HoldStatuses, string(HoldHeld), string(HoldExpired), true},
		{HoldStatuses, string(HoldHeld), string(HoldConfirmed), true},
		{HoldStatuses, string(HoldConfirmed), string(HoldReleased), false},
		{HoldStatuses, string(HoldExpired), string(HoldHeld), false},
		{HoldStatuses, string(HoldHeld), "sold", false},
		{ClaimStatuses, string(ClaimHeld), string(ClaimSold), true},
		{ClaimStatuses, string(ClaimHeld), string(ClaimReleased), true},
		{ClaimStatuses, string(ClaimHeld), string(ClaimExpired), true},
		{ClaimStatuses, string(ClaimSold), string(ClaimCancelled), true},
		{ClaimStatuses, string(ClaimHeld), string(ClaimCancelled), false},
		{ClaimStatuses, string(ClaimSold), string(ClaimReleased), false},
		{ClaimStatuses, string(ClaimCancelled), string(ClaimHeld), false},
		{ClaimStatuses, string(ClaimHeld), "confirmed", false},
		{BookingStatuses, string(BookingConfirmed), string(BookingCancelled), true},
		{BookingStatuses, string(BookingCancelled), string(BookingConfirmed), false},
		{TicketStatuses, string(TicketIssued), string(TicketVoid), true},
		{TicketStatuses, string(TicketVoid), string(TicketIssued), false},
		{TicketStatuses, string(BookingConfirmed), string(BookingCancelled), false},
	} {
		if got := c.kind.CanMove(c.from, c.to); got != c.ok {
			t.Errorf("%s: CanMove(%s, %s) = %v", c.kind, c.from, c.to, got)
		}
	}
	for _, k := range AllStatuses() {
		if !k.Known(k.Initial()) {
			t.Errorf("%s starts in %q, which is not in its table", k, k.Initial())
		}
		for from, tos := range transitions[k].moves {
			for _, to := range tos {
				if !k.Known(to) {
					t.Errorf("%s: %s -> %s goes to a status not in the table", k, from, to)
				}
				// A reopened shift is the one designed way back.
				if to == k.Initial() && k != ShiftStatuses {
					t.Errorf("%s: %s -> %s goes back to the first status", k, from, to)
				}
			}
		}
	}
}
