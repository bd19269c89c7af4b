package contract

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"boxoffice/booking"
)

// finder is what findCases need of booking.Bookings.
type finder interface {
	Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error)
	FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error)
}

// findCases: a clerk finds a booking by its number, the end of the phone
// number or the start of the customer's names, newest first, on any day
// of a year's history.
var findCases = []testCase{
	{"ExactNumberAlone", findExactNumberAlone},
	{"PhoneAndName", findPhoneAndName},
	{"OldestBehindNewerNamesakes", findOldestBehindNewer},
	{"ErrEmptyAndUnknown", findErrEmptyAndUnknown},
}

// sellTo sells seat to a named customer.
func (e *env) sellTo(t *testing.T, seat, customer, phone string) *booking.Booking {
	t.Helper()
	owner := "find-" + seat
	h := e.hold(t, owner, seat)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner,
		Method: booking.Card, Customer: customer, Phone: phone})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// standardSeats lists the first show's standard seats, in the hall's
// order.
func (e *env) standardSeats(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, seat := range e.seatMap(t, "").Hall.Seats {
		if seat.Kind == booking.Standard && !seat.Blocked {
			out = append(out, seat.Label)
		}
	}
	return out
}

// customers finds text and names the bookings found, newest first.
func customers(t *testing.T, e *env, f finder, text string) string {
	t.Helper()
	found, err := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: text})
	if err != nil {
		t.Fatalf("find %q: %v", text, err)
	}
	var out []string
	for _, b := range found {
		out = append(out, b.Customer)
	}
	return strings.Join(out, ",")
}

func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// A full booking number finds that booking alone, even when another
// booking's phone holds its digits; typed in any case, without its
// prefix, with spaces.
func findExactNumberAlone(t *testing.T, e *env) {
	f := need[finder](t, e, "Booking and FindBookings (booking.Bookings)")
	seats := e.standardSeats(t)
	var a *booking.Booking
	for i := 0; a == nil; i++ {
		if i >= 60 {
			t.Fatal("no booking number with three digits in 60 sales")
		}
		if b := e.sellTo(t, seats[i], "Ann Lee", ""); len(digitsOf(b.Number)) >= 3 {
			a = b
		}
	}
	e.sellTo(t, seats[len(seats)-1], "Bob Digits", "0"+digitsOf(a.Number)+"1")
	for _, q := range []string{a.Number, strings.ToLower(a.Number), a.Number[3:], " " + a.Number[3:7] + " " + a.Number[7:]} {
		got, err := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: q})
		if err != nil || len(got) != 1 || got[0].Number != a.Number {
			t.Errorf("find %q: %d bookings, %v; want %s alone", q, len(got), err, a.Number)
		}
	}
	if got := customers(t, e, f, digitsOf(a.Number)+"1"); got != "Bob Digits" {
		t.Errorf("phone search: %q", got)
	}
	got, err := f.Booking(e.ctx, clerk, " "+strings.ToLower(strings.TrimPrefix(a.Number, "BO-"))+" ")
	if err != nil || got.ID != a.ID {
		t.Fatalf("Booking by a typed number: %+v, %v", got, err)
	}
}

// Phones match by their last digits whatever the prefix typed; names by
// the start of any word, accents and apostrophes folded, in any order.
func findPhoneAndName(t *testing.T, e *env) {
	f := need[finder](t, e, "FindBookings (booking.Bookings)")
	e.sellTo(t, "A1", "Ann Lee", "+44 20 7946 0018")
	e.sellTo(t, "A2", "Jürgen Müller-Lüdenscheidt", "(030) 555-1234")
	e.sellTo(t, "A3", "Siobhán O'Brien", "087 123 4567")
	e.sellTo(t, "A4", "Annabel Smith", "020 7946 9999")
	e.sellTo(t, "A5", "Bob Annan", "07700 900123")
	e.sellTo(t, "A6", "Carl", "020 7946 0018")
	e.sellTo(t, "A7", "Дмитрий İstanbul ★Star", "")
	for text, want := range map[string]string{
		"0018":             "Carl,Ann Lee", // newest first
		"7946 0018":        "Carl,Ann Lee",
		"+44 20 7946 0018": "Carl,Ann Lee",
		"555 1234":         "Jürgen Müller-Lüdenscheidt",
		"900123":           "Bob Annan",
		"7946":             "", // the middle of a number is not its end
		"ann":              "Bob Annan,Annabel Smith,Ann Lee",
		"ANN L":            "Ann Lee",
		"lee ann":          "Ann Lee",
		"annan bob":        "Bob Annan",
		"muller":           "Jürgen Müller-Lüdenscheidt",
		"lüdensch":         "Jürgen Müller-Lüdenscheidt",
		"jurgen mul":       "Jürgen Müller-Lüdenscheidt",
		"obrien":           "Siobhán O'Brien",
		"o'brien":          "Siobhán O'Brien",
		"siobhan":          "Siobhán O'Brien",
		"smi":              "Annabel Smith",
		"дми":              "Дмитрий İstanbul ★Star", // lower case beyond ASCII
		"ДМИТ":             "Дмитрий İstanbul ★Star",
		"istan":            "Дмитрий İstanbul ★Star",
		"star":             "Дмитрий İstanbul ★Star", // a symbol separates words
		"ee":               "",                       // a name is found by the start of a word
		"%":                "",
		"_":                "",
		"zzz":              "",
	} {
		if got := customers(t, e, f, text); got != want {
			t.Errorf("find %q: %q, want %q", text, got, want)
		}
	}
	// Whole bookings come back, with tickets and payments.
	found, _ := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: "ann"})
	for _, b := range found {
		if len(b.Tickets) != 1 || len(b.Payments) != 1 || b.Show.ID != e.show.ID || b.Tickets[0].Seat.Label == "" || b.Tickets[0].Code == "" {
			t.Errorf("booking %s loaded as %+v", b.Number, b)
		}
	}
}

// A customer is found by full name however many newer bookings share one
// of the names: Ann Moreau's one old booking behind 120 of Paul Moreau's.
func findOldestBehindNewer(t *testing.T, e *env) {
	f := need[finder](t, e, "FindBookings (booking.Bookings)")
	seats := e.standardSeats(t)
	if len(seats) < 122 {
		t.Fatalf("the fixture hall has %d standard seats", len(seats))
	}
	ann := e.sellTo(t, seats[0], "Ann Moreau", "")
	for i := 1; i <= 120; i++ {
		e.sellTo(t, seats[i], "Paul Moreau", fmt.Sprintf("0700 %06d", i))
	}
	e.sellTo(t, seats[121], "Anna Smith", "")
	for _, text := range []string{"Ann Moreau", "moreau ann", "ann mor"} {
		found, err := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: text})
		if err != nil || len(found) != 1 || found[0].Number != ann.Number {
			t.Errorf("find %q: %d bookings, %v; want %s", text, len(found), err, ann.Number)
		}
	}
	if got := customers(t, e, f, "paul moreau"); strings.Count(got, "Paul Moreau") != 20 {
		t.Errorf("find \"paul moreau\": %q, want the newest 20", got)
	}
}

func findErrEmptyAndUnknown(t *testing.T, e *env) {
	f := need[finder](t, e, "Booking and FindBookings (booking.Bookings)")
	if _, err := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: " \x1b "}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("empty text: %v", err)
	}
	if got, err := f.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: "BO-22222222"}); err != nil || len(got) != 0 {
		t.Fatalf("a number-shaped search that is no booking: %v, %v", got, err)
	}
	if _, err := f.Booking(e.ctx, clerk, "BO-22222222"); booking.ErrorMessage(err) != "No booking BO-22222222." {
		t.Fatalf("unknown number: %v", err)
	}
	if _, err := f.FindBookings(e.ctx, door, booking.BookingQuery{Text: "ann"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("door staff searching: %v", err)
	}
}
