package kiosk

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// cardNumberLike is a card number nobody was sold, its check digit
// right, the same every run (the refusal names it).
func cardNumberLike(t *testing.T, head string) string {
	t.Helper()
	for d := '0'; d <= '9'; d++ {
		if n, err := booking.ParseCardNumber(head + string(d)); err == nil {
			return n
		}
	}
	t.Fatalf("no check digit makes %s a card number", head)
	return ""
}

// TestKiosk_VoucherAndGiftCard80x24: at 80×24 a customer types a voucher
// code on the details form, sees the reservation's price discounted,
// presses g, types a card nobody has (hidden but for its last four
// digits; refused, the reservation still standing), then their own: the
// booking is paid, its tickets shown, and the card holds the rest.
func TestKiosk_VoucherAndGiftCard80x24(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t, newClock())
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.Actor{Name: "mia", Role: booking.RoleManager}, booking.Voucher{Code: "KIOSK5", Off: 5_00}); err != nil {
		t.Fatal(err)
	}
	card, err := s.IssueGiftCard(ctx, booking.Actor{Name: "carl", Role: booking.RoleClerk}, booking.GiftCardRequest{Amount: 50_00, Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestKiosk(s, "kiosk-pay")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	kioskToSeats(t, m)
	held, ok := m.heldTotal()
	if !ok {
		t.Fatal("no total for the seats held")
	}
	kioskPress(t, m, "enter")
	kioskType(t, m, "Ann Lee")
	kioskPress(t, m, "tab")
	kioskType(t, m, "020 7946 0018")
	kioskPress(t, m, "tab")
	kioskType(t, m, "kiosk5")
	kioskGolden(t, m, "kiosk-details-voucher-80x24")
	kioskPress(t, m, "enter")
	screen := m.Render()
	due := held - 5_00
	if m.screen != kReserved || !strings.Contains(screen, "To pay: "+due.String()) || !strings.Contains(screen, "Voucher KIOSK5: −5.00") ||
		!strings.Contains(screen, "g pay here with a gift card") {
		t.Fatalf("reserved with a voucher (want to pay %s): %q\n%s", due, m.note, screen)
	}
	kioskGolden(t, m, "kiosk-reserved-voucher-80x24")
	number := m.reservation.Number

	kioskPress(t, m, "g")
	wrong := cardNumberLike(t, "601234567890123")
	kioskType(t, m, booking.FormatCardNumber(wrong))
	if screen := m.Render(); m.screen != kPay || strings.Contains(screen, wrong[:12]) || !strings.Contains(screen, wrong[12:]) {
		t.Fatalf("the card form shows more than the last four digits:\n%s", screen)
	}
	kioskGolden(t, m, "kiosk-pay-80x24")
	kioskPress(t, m, "enter")
	if m.screen != kPay || !strings.Contains(m.note, "No gift card •••• •••• •••• "+wrong[12:]+".") || !strings.Contains(m.note, "Your seats stay reserved") {
		t.Fatalf("a card nobody has: screen %d, %q", m.screen, m.note)
	}
	kioskGolden(t, m, "kiosk-pay-refused-80x24")
	kioskType(t, m, card.Number) // replaces the wrong number
	kioskPress(t, m, "enter")
	if screen := m.Render(); m.screen != kCollected || !strings.Contains(screen, "Ticket 1 of 2") || !strings.Contains(screen, "Paid with your gift card.") {
		t.Fatalf("paid at the kiosk: %q\n%s", m.note, screen)
	}
	b, err := s.Booking(ctx, booking.Actor{Name: "carl", Role: booking.RoleClerk}, number)
	if err != nil || b.Total != due || len(b.Payments) != 1 || b.Payments[0].Method != booking.GiftCard || b.Voucher == nil {
		t.Fatalf("the booking paid at the kiosk: %+v, %v", b, err)
	}
	info, err := s.GiftCardBalance(ctx, booking.Actor{Name: "carl", Role: booking.RoleClerk}, card.Number)
	if err != nil || info.Balance != 50_00-due {
		t.Fatalf("balance after paying %s: %+v, %v", due, info, err)
	}
}

// TestKiosk_PayEscKeepsTheReservation: esc on the card form goes back to
// the reservation, which stands; the details form sends on the phone
// with the voucher left empty.
func TestKiosk_PayEscKeepsTheReservation(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-esc")
	kioskToSeats(t, m)
	kioskPress(t, m, "enter")
	kioskType(t, m, "Ann Lee")
	kioskPress(t, m, "tab")
	kioskType(t, m, "020 7946 0018")
	kioskPress(t, m, "enter")
	if m.screen != kReserved || m.reservation.Voucher != nil {
		t.Fatalf("⏎ on the phone did not reserve: %q", m.note)
	}
	kioskPress(t, m, "g")
	kioskType(t, m, strings.Repeat("9", 200))
	if n := len(m.fields[0].value); n != booking.CardDigits+8 {
		t.Fatalf("the card field took %d characters", n)
	}
	kioskPress(t, m, "esc")
	if m.screen != kReserved || m.reservation == nil {
		t.Fatalf("esc on the card form: screen %d", m.screen)
	}
}
