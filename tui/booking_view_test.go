package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/qrscan"
)

// bookingNumber matches the random part of a booking number, which a
// golden cannot hold.
var bookingNumber = regexp.MustCompile(`BO-[2-9A-Z]{8}`)

// goldenMasked is golden with every booking number written BO-NUMBER##,
// numbered in order of first appearance so the lines still tell two
// bookings apart.
func goldenMasked(t *testing.T, m *Model, name string, profile colorprofile.Profile) {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: profile}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	got := bookingNumber.ReplaceAllFunc(buf.Bytes(), func(n []byte) []byte {
		if _, ok := seen[string(n)]; !ok {
			seen[string(n)] = fmt.Sprintf("BO-NUMBER%02d", len(seen)+1)
		}
		return []byte(seen[string(n)])
	})
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// grandShows are today's first two Grand shows of the demo cinema.
func grandShows(t *testing.T, s *db.Store) (first, second booking.Show) {
	t.Helper()
	shows, err := s.Shows(context.Background(), booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	var grand []booking.Show
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			grand = append(grand, sh)
		}
	}
	if len(grand) < 2 {
		t.Fatalf("%d Grand shows today", len(grand))
	}
	return grand[0], grand[1]
}

// storeSell sells seats of show by card, with the ticket types given.
func storeSell(t *testing.T, s *db.Store, show int64, owner string, types map[string]string, seats ...string) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner, Method: booking.Card, Types: types})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// findBooking opens the booking view of number through find.
func findBooking(t *testing.T, m *Model, number string) {
	t.Helper()
	press(t, m, "ctrl+f")
	typeText(t, m, number)
	press(t, m, "enter", "tab")
	if m.screen != screenFind || m.find.mode != findView || m.find.booking == nil {
		t.Fatalf("the booking view did not open: %v %v %q", m.screen, m.find.mode, m.status)
	}
	m.setInfo("")
}

// TestGolden_BookingView draws the booking view (every ticket's status,
// the payments: sale, a refund, an exchange), its tickets' QR codes again
// and an exchange's confirmation, at 80×24 and 120×40.
func TestGolden_BookingView(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	first, second := grandShows(t, s)
	b := storeSell(t, s, first.ID, "golden-view", map[string]string{"G8": "child"}, "G7", "G8", "G9", "G10")
	if _, err := s.RefundTickets(ctx, booking.System, booking.RefundRequest{Number: b.Number, Seats: []string{"G10"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exchange(ctx, booking.System, booking.ExchangeRequest{Number: b.Number, Tickets: []string{"G9"}, ToShow: second.ID, Seats: []string{"K9"},
		IdempotencyKey: "golden-x", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	profiles := []colorprofile.Profile{colorprofile.Ascii, colorprofile.ANSI256}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, hgt := size[0], size[1]
		m := newTestModel(t, s, clock, fmt.Sprintf("golden-view-%d", w), w, hgt)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		findBooking(t, m, b.Number)
		shot := func(screen string) {
			for _, p := range profiles {
				goldenMasked(t, m, fmt.Sprintf("%s-%dx%d-%s", screen, w, hgt, p), p)
			}
		}
		shot("booking")
		press(t, m, "t")
		shot("booking-codes")
		press(t, m, "esc", "e", "right", "space")
		shot("booking-pick") // G8 stays, G7 moves
		press(t, m, "space", "enter")
		if m.screen != screenSeatMap || m.exch == nil {
			t.Fatalf("e did not open the map to exchange: %v %q", m.screen, m.status)
		}
		goTo(t, m, "N8-9")
		press(t, m, "enter")
		m.setInfo("")
		shot("exchange")
		press(t, m, "esc")
		if _, err := s.ReleaseOwner(ctx, m.opts.Owner); err != nil {
			t.Fatal(err)
		}
	}
}

// The booking view's exchange, driven by keys: the map of another show,
// two seats held there, the difference on screen before anything moves,
// then the new booking in the view and the old tickets void. A clerk
// whose exchange pays money back is asked for a supervisor's PIN.
func TestBookingView_ExchangeToAnotherShow(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	first, second := grandShows(t, s)
	b := storeSell(t, s, first.ID, "keys", nil, "G7", "G8")
	addStaff(t, s, "cleo", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "keys-counter", 100, 30)
	signIn(t, m, "cleo", "2468")
	findBooking(t, m, b.Number)
	if text := screenText(m); !strings.Contains(text, "G7    adult") || !strings.Contains(text, "issued") || !strings.Contains(text, "sale") {
		t.Fatalf("booking view:\n%s", text)
	}
	press(t, m, "e", "enter") // both tickets move
	press(t, m, "esc")        // leave this show's map for the shows list
	if m.screen != screenShows {
		t.Fatalf("esc from the map: %v %q", m.screen, m.status)
	}
	for m.shows.visible()[m.shows.cursor].ID != second.ID {
		press(t, m, "down")
	}
	press(t, m, "enter")
	if !strings.Contains(screenText(m), "Exchange ") {
		t.Fatalf("the map does not say it is for an exchange:\n%s", screenText(m))
	}
	goTo(t, m, "M1")
	press(t, m, "enter")
	if m.screen == screenExchange {
		t.Fatalf("one seat held for two tickets went on")
	}
	goTo(t, m, "M2")
	press(t, m, "enter")
	if m.screen != screenExchange || m.exch.quote == nil {
		t.Fatalf("no confirmation: %v %q", m.screen, m.status)
	}
	text := screenText(m)
	if !strings.Contains(text, "Difference") || strings.Contains(text, "Supervisor") {
		t.Fatalf("confirmation:\n%s", text)
	}
	if n := storeMap(t, s, second.ID, "").States; len(n) != 2 {
		t.Fatalf("before confirming, the second show has %d seats taken, want the 2 held", len(n))
	}
	press(t, m, "enter") // the last question, No chosen
	if text := screenText(m); m.screen != screenExchange || !strings.Contains(text, "Exchange "+b.Number+" to M1 M2: no money moves?") {
		t.Fatalf("no last question:\n%s", text)
	}
	press(t, m, "right", "enter")
	if m.screen != screenFind || m.find.booking == nil || m.find.booking.ExchangedFrom != b.Number {
		t.Fatalf("after the exchange: %v %q", m.screen, m.status)
	}
	got, err := s.Booking(ctx, booking.System, b.Number)
	if err != nil || got.Status != booking.BookingCancelled || got.Tickets[0].Status != booking.TicketVoid {
		t.Fatalf("old booking %+v %v", got, err)
	}
	if sm := storeMap(t, s, second.ID, ""); stateOf(t, sm, "M1") != booking.SeatSold || stateOf(t, sm, "M2") != booking.SeatSold {
		t.Fatalf("new seats not sold")
	}
	if p := m.find.booking.Payments[0]; p.Method != booking.Card {
		t.Fatalf("the difference of a card booking went by %s", p.Method)
	}
	if p, _ := s.CheckInvariants(ctx); len(p) > 0 {
		t.Fatalf("broken: %v", p)
	}

	// A child's ticket moved to the same seats' price: cheaper, money back,
	// so the clerk is asked for a supervisor.
	c := storeSell(t, s, first.ID, "keys-2", nil, "H7")
	findBooking(t, m, c.Number)
	press(t, m, "e")
	m.exch.tickets[0].Price += 5_00 // as if it had been sold dearer
	goTo(t, m, "H10")               // H9 would leave H8 single beside the sold H7
	press(t, m, "enter")
	if text := screenText(m); !strings.Contains(text, "paid back") || !strings.Contains(text, "Supervisor") {
		t.Fatalf("a cheaper exchange by a clerk:\n%s", text)
	}
}

// The booking view's QR codes scan from an 80×24 screen: the first one
// drawn reads back as the first ticket's code, and a void ticket gets none.
func TestBookingView_CodesScan(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	b := storeSell(t, s, first.ID, "scan", nil, "F3", "F4")
	if _, err := s.RefundTickets(context.Background(), booking.System, booking.RefundRequest{Number: b.Number, Seats: []string{"F3"}}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "scan-counter", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	findBooking(t, m, b.Number)
	press(t, m, "t")
	var qr []string
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "█") {
			qr = append(qr, string([]rune(l)[:len([]rune(strings.TrimRight(l, " ")))]))
		}
	}
	if len(qr) == 0 || strings.Contains(screenText(m), "F3 adult") {
		t.Fatalf("codes screen:\n%s", screenText(m))
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(qrscan.Image(strings.Join(qr, "\n"), 6))
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil || res.GetText() != b.Tickets[1].Code {
		t.Fatalf("scanned %v %v, want %s", res, err, b.Tickets[1].Code)
	}
}

// An exchange under way ends with the clerk: signing out, or a new search,
// leaves the next sale a sale.
func TestBookingView_ExchangeEndsWithSignOutAndFind(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	b := storeSell(t, s, first.ID, "ends", nil, "C5")
	m := newTestModel(t, s, clock, "ends-counter", 100, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	for _, leave := range []string{"ctrl+o", "ctrl+f"} {
		findBooking(t, m, b.Number)
		press(t, m, "e")
		if m.exch == nil || m.screen != screenSeatMap {
			t.Fatalf("no exchange under way: %v %q", m.screen, m.status)
		}
		press(t, m, leave)
		if m.exch != nil {
			t.Fatalf("%s left the exchange under way", leave)
		}
		if leave == "ctrl+o" {
			signIn(t, m, assets.DemoUser, assets.DemoPIN)
		}
	}
}

// Some tickets of a party move: the ones unmarked stay on the booking,
// issued, and the map asks for as many seats as move.
func TestBookingView_ExchangeSomeTickets(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	b := storeSell(t, s, first.ID, "some", nil, "D4", "D5", "D6")
	m := newTestModel(t, s, clock, "some-counter", 100, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	findBooking(t, m, b.Number)
	press(t, m, "e")
	if !m.bview.picking || !strings.Contains(screenText(m), "[x] D4") {
		t.Fatalf("no choice of tickets:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.bview.picking || m.find.mode != findView {
		t.Fatalf("esc while choosing: picking %v, mode %v", m.bview.picking, m.find.mode)
	}
	press(t, m, "e", "space", "right", "space") // D4 and D5 stay
	press(t, m, "enter")
	if m.exch == nil || len(m.exch.tickets) != 1 || m.exch.tickets[0].Seat.Label != "D6" {
		t.Fatalf("exchange of %+v", m.exch)
	}
	goTo(t, m, "E9")
	press(t, m, "enter", "enter", "right", "enter")
	got, err := s.Booking(context.Background(), booking.System, b.Number)
	if err != nil || got.Status != booking.BookingConfirmed || got.Tickets[0].Status != booking.TicketIssued || got.Tickets[2].Status != booking.TicketVoid {
		t.Fatalf("after: %+v %v (%q)", got, err, m.status)
	}
	if m.find.booking == nil || strings.Join(m.find.booking.SeatLabels(), " ") != "E9" {
		t.Fatalf("the view shows %+v", m.find.booking)
	}
}

// A dearer exchange in cash by a clerk with no shift open asks for the
// float, then goes on: the shift opens in the exchange's transaction.
func TestBookingView_ExchangeAsksForTheFloat(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, second := grandShows(t, s)
	if err := s.SetPriceEntry(context.Background(), booking.System, booking.PriceEntry{PriceKey: booking.PriceKey{List: "gala", Type: "adult", Kind: booking.Standard}, Amount: 30_00}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetShowPriceList(context.Background(), booking.System, second.ID, "gala"); err != nil {
		t.Fatal(err)
	}
	b := storeSell(t, s, first.ID, "float", nil, "D9")
	addStaff(t, s, "nora", booking.RoleClerk, "1357")
	nora := booking.Actor{Name: "nora", Role: booking.RoleClerk}
	if _, err := s.CloseShift(context.Background(), nora, booking.CloseShiftRequest{Counted: 100_00}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "float-counter", 100, 30)
	signIn(t, m, "nora", "1357")
	findBooking(t, m, b.Number)
	press(t, m, "e", "esc")
	for m.shows.visible()[m.shows.cursor].ID != second.ID {
		press(t, m, "down")
	}
	press(t, m, "enter")
	goTo(t, m, "D9")
	press(t, m, "enter", "space", "enter", "right", "enter") // in cash, though it was paid by card
	if m.screen != screenShift {
		t.Fatalf("no float asked: %v %q", m.screen, m.status)
	}
	typeText(t, m, "50")
	press(t, m, "enter")
	if m.find.booking == nil || m.find.booking.ExchangedFrom != b.Number {
		t.Fatalf("after the float: %v %q", m.screen, m.status)
	}
	sh, err := s.CurrentShift(context.Background(), nora)
	if err != nil || sh.Float != 50_00 {
		t.Fatalf("nora's shift %+v %v", sh, err)
	}
	if p := m.find.booking.Payments[0]; p.Method != booking.Cash || p.ShiftID != sh.ID || p.Amount <= 0 {
		t.Fatalf("difference %+v", p)
	}
}
