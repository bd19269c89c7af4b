package kiosk

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Paying at the kiosk (docs/kiosk.md): a voucher code on the details
// form, which the reservation takes (its price shown discounted), and,
// once reserved, the whole of it paid with a gift card (g), after which
// the tickets are shown and printed as a collected booking's are. The
// store counts every card number tried; the kiosk only sends what the
// customer typed, bounded by its fields.

// kPaidMsg is the answer to a kiosk payment.
type kPaidMsg struct {
	b   *booking.Booking
	err error
}

// detailsFields are the details form's: who the seats are for, and a
// voucher code, which may be left empty (optional: ⏎ on the phone sends).
func detailsFields() []kField {
	return []kField{{label: "Your name", max: booking.MaxNameLen + 1}, {label: "Your phone number", max: 20},
		{label: "Voucher code (if you have one)", max: booking.MaxVoucherCode + 1, optional: true}}
}

// cardField is the gift-card form's one field: the number as printed
// (16 digits in groups of four), drawn with all but its last four
// hidden from whoever stands behind the customer.
func cardField() []kField {
	return []kField{{label: "Gift card number", max: booking.CardDigits + 8, maskHead: true}}
}

// sends reports whether ⏎ on the focused field sends the form: on the
// last field, or when every field after it may be left empty.
func (m *Model) sends() bool {
	for _, f := range m.fields[m.focus+1:] {
		if !f.optional {
			return false
		}
	}
	return true
}

// keyReserved offers the reservation's payment with a gift card.
func (m *Model) keyReserved(s string) tea.Cmd {
	switch s {
	case "g":
		if m.reservation != nil && m.reservation.Status == booking.ReservationReserved {
			m.screen, m.focus, m.note, m.fields = kPay, 0, "", cardField()
		}
	case "enter", "esc":
		return m.reset("")
	}
	return nil
}

// payCmd pays the reservation with the card typed. The phone's last four
// digits are the reservation's own, which the store checks as Collect
// does; the key makes a retried payment land on the booking it made.
func (m *Model) payCmd(card string) tea.Cmd {
	ctx, store, actor, r := m.ctx, m.opts.Store, m.actor, m.reservation
	req := booking.KioskPayRequest{Number: r.Number, Digits: phoneTail(r.Phone), Card: card, Addr: m.opts.Addr,
		IdempotencyKey: "kiosk-pay " + m.opts.Owner + " " + r.Number}
	return func() tea.Msg {
		b, err := store.KioskPay(ctx, actor, req)
		return kPaidMsg{b, err}
	}
}

// onPaid shows the paid booking's tickets, as collected, and prints them;
// a refusal keeps the reservation on screen and what was typed, ready to
// be typed again.
func (m *Model) onPaid(msg kPaidMsg) tea.Cmd {
	m.busy = false
	if msg.err != nil {
		note := booking.ErrorMessage(msg.err)
		if n, err := booking.ParseCardNumber(m.fields[0].String()); err == nil {
			// The store's words name the card in full (the counter's);
			// here they are read over the customer's shoulder.
			f := kField{value: []rune(booking.FormatCardNumber(n)), maskHead: true}
			note = strings.ReplaceAll(note, booking.FormatCardNumber(n), shownField(f))
		}
		m.fields[0].again = true
		m.note = note + " Your seats stay reserved: pay at the counter by " + m.reservation.CutOff.Format("15:04") + "."
		return nil
	}
	m.collection, m.screen, m.note, m.ticket = &booking.Collection{Booking: msg.b}, kCollected, "Paid with your gift card.", 0
	return m.printCollected()
}

// phoneTail is the last four digits of a phone number as typed.
func phoneTail(phone string) string {
	var d []byte
	for i := len(phone) - 1; i >= 0 && len(d) < 4; i-- {
		if c := phone[i]; c >= '0' && c <= '9' {
			d = append([]byte{c}, d...)
		}
	}
	return string(d)
}

// shownField is a field's value as drawn: cleaned, masked whole, or
// with all but its last four characters hidden.
func shownField(f kField) string {
	shown := booking.Clean(f.String())
	switch {
	case f.mask:
		return strings.Repeat("•", len(f.value))
	case f.maskHead:
		r := []rune(shown)
		for i := range max(len(r)-4, 0) {
			if r[i] != ' ' {
				r[i] = '•'
			}
		}
		return string(r)
	}
	return shown
}

// voucherLine says the voucher the reservation took: its code and what
// it took off; "" for none.
func voucherLine(r *booking.Reservation) string {
	if r.Voucher == nil {
		return ""
	}
	return "Voucher " + kioskTrim(r.Voucher.Code, booking.MaxVoucherCode) + ": −" + r.Voucher.Discount.String()
}
