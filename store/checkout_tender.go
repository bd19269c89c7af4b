package store

import (
	"boxoffice/booking"
)

// Split tender: a sale paid in parts (booking.TenderPart) — a gift card,
// a card, cash — one payment row a part, in the order the parts were
// given, all in the seller's shift; change only from cash. Its refunds
// go back part by part, in a fixed order that needs no one to choose:
// the gift card first (refilled), then the card, then cash, each no more
// than it paid and has not had back. A whole cancel gives each part back
// exactly what it paid.

// tenderShiftMethod is the method a sale in parts asks ShiftFor with:
// cash when a part is cash (the drawer needs a shift), else card.
func tenderShiftMethod(parts []booking.TenderPart) booking.PayMethod {
	for _, p := range parts {
		if p.Method == booking.Cash {
			return booking.Cash
		}
	}
	return booking.Card
}

// payTender writes the payments of b's sale paid in parts inside tx: the
// gift card read locked and spent by its guarded statement, each part's
// payment, cash's change. It returns the payments as written.
func payTender(tx Tx, actor booking.Actor, req booking.CheckoutRequest, b *booking.Booking, shiftID int64) ([]booking.Payment, error) {
	var number string
	var cardID int64
	var balance booking.Money
	for _, p := range req.Tender {
		if p.Method != booking.GiftCard {
			continue
		}
		number, _ = booking.ParseCardNumber(p.Card)
		id, bal, found, err := tx.GiftCardForUpdate(number)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, booking.ErrNoGiftCard(number)
		}
		cardID, balance = id, bal
	}
	shares, err := booking.SplitTender(b.Total, req.Tender, balance)
	if err != nil {
		return nil, err
	}
	var out []booking.Payment
	for i, p := range req.Tender {
		if shares[i] == 0 {
			continue
		}
		pay := PaymentRow{BookingID: b.ID, Kind: booking.PaymentSale, Method: p.Method, Amount: shares[i], Staff: actor.Name, Terminal: actor.Terminal, ShiftID: shiftID}
		if p.Method == booking.Cash {
			if pay.Tendered = req.Tendered; pay.Tendered == 0 {
				pay.Tendered = pay.Amount // exact money
			}
			if pay.Tendered < pay.Amount {
				return nil, booking.Errorf(booking.EInvalid, "%s tendered is less than the %s due in cash.", pay.Tendered.String(), pay.Amount.String())
			}
			pay.Change = pay.Tendered - pay.Amount
		}
		var id int64
		if p.Method == booking.GiftCard {
			id, err = redeemCard(tx, pay, len(out), number, cardID, balance)
		} else {
			id, err = tx.InsertTenderPayment(pay, len(out))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, booking.Payment{ID: id, Kind: booking.PaymentSale, Method: p.Method, Amount: pay.Amount, Tendered: pay.Tendered,
			Change: pay.Change, At: b.CreatedAt, Staff: b.SoldBy, Terminal: b.Terminal, ShiftID: shiftID})
	}
	return out, nil
}

// tenderBack is what each part of a booking paid in parts (or by a gift
// card) still has to give back, in the order refunds take it: the gift
// card, the card, cash.
type tenderBack struct {
	left [3]booking.Money
	had  [3]bool // the parts it was paid in
	card int64   // the gift card's id
}

// backOrder is the order refunds give a sale in parts back.
var backOrder = [3]booking.PayMethod{booking.GiftCard, booking.Card, booking.Cash}

// loadTender reads how booking id was paid: nil, and the one method, when
// by cash or card alone (the refunder's old way); else what each part
// has left to give back.
func loadTender(tx Tx, bookingID int64) (*tenderBack, booking.PayMethod, error) {
	rows, err := tx.BookingTender(bookingID)
	if err != nil {
		return nil, "", err
	}
	if len(rows) == 1 && rows[0].Method != booking.GiftCard {
		return nil, rows[0].Method, nil
	}
	if len(rows) == 0 {
		m, err := tx.SaleMethod(bookingID)
		return nil, m, err
	}
	t := &tenderBack{}
	for _, r := range rows {
		for i, m := range backOrder {
			if m == r.Method {
				t.left[i], t.had[i] = max(r.Paid-r.Refunded, 0), r.Paid > 0
			}
		}
		if r.Method == booking.GiftCard {
			t.card = r.CardID
		}
	}
	method := booking.Card
	if t.left[2] > 0 {
		method = booking.Cash
	}
	return t, method, nil
}

// refund writes ticket t's refund in parts: each part's share in
// backOrder, the gift card's refilled with its ledger row. Whatever is
// left once every part gave back what it paid (a ticket's price above
// what the sale paid, after an exchange) goes back by the last part.
func (tb *tenderBack) refund(tx Tx, r *refunder, t Refundable) error {
	due := t.Price
	last := -1
	for i := range backOrder {
		if tb.left[i] > 0 || last < 0 && tb.had[i] {
			last = i
		}
	}
	for i, m := range backOrder {
		take := min(due, tb.left[i])
		if i == last {
			take = due
		}
		if take <= 0 {
			continue
		}
		id, err := tx.InsertPayment(PaymentRow{BookingID: r.bookingID, Kind: booking.PaymentRefund, Method: m, Amount: take, Staff: r.actor.Name,
			Terminal: r.actor.Terminal, ShiftID: r.shift, TicketID: t.TicketID, ApprovedBy: r.approver, Reason: r.reason})
		if err != nil {
			return err
		}
		if m == booking.GiftCard {
			if err := tx.RefillGiftCard(tb.card, take); err != nil {
				return err
			}
			err = tx.InsertGiftCardMove(GiftCardMoveRow{CardID: tb.card, Kind: booking.CardRefilled, Amount: take, BookingID: r.bookingID,
				PaymentID: id, Staff: r.actor.Name, Terminal: r.actor.Terminal})
			if err != nil {
				return err
			}
		}
		tb.left[i] = max(tb.left[i]-take, 0)
		if due -= take; due == 0 {
			break
		}
	}
	return nil
}
