package paper

import (
	"fmt"
	"slices"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos"
)

// GiftCardJob is the print job of a gift card sold: the card's slip (its
// value, its number in groups of four with the check digit, and the
// number as a QR code a counter's scanner reads back), then the
// receipt of the money taken for it, which is not a sale of tickets.
func (l Layout) GiftCardJob(c *booking.GiftCardInfo) []byte {
	var d escpos.Doc
	l.begin(&d)
	d.Align(escpos.Center).Bold(true).Size(2, 2).Line(l.cinema()).Size(1, 1)
	d.Line("GIFT CARD").Bold(false)
	d.Bold(true).Size(2, 2).Line(l.money(c.Balance)).Size(1, 1).Bold(false)
	d.QR(c.Number, 6, escpos.ECMedium)
	d.Bold(true).Line(booking.FormatCardNumber(c.Number)).Bold(false)
	d.Line(l.when(c.IssuedAt))
	d.Feed(3).Cut()
	l.head(&d, "RECEIPT")
	d.Align(escpos.Left)
	d.Line(l.row("Gift card "+booking.FormatCardNumber(c.Number)[15:], l.money(c.Amount)))
	d.Line(rule())
	d.Line(l.row("Paid "+string(c.Method), l.money(c.Amount)))
	d.Line(clip("Clerk "+c.IssuedBy, Width))
	d.Line(l.when(c.IssuedAt))
	l.footer(&d)
	d.Feed(3).Cut()
	return d.Bytes()
}

// tenderParts are the payment lines of a sale paid in parts: one line a
// part ("Paid giftcard 10.00"), cash as handed over, then the change.
func (l Layout) tenderParts(d *escpos.Doc, r Receipt) {
	for _, p := range r.Parts {
		d.Line(l.row(p.Text, l.money(p.Amount)))
	}
	if r.Kind != ReceiptRefund {
		d.Line(l.row("Change", l.money(r.Change)))
	}
}

// refundParts fills r's parts from b's refunds made at or after since
// when they went back more than one way (a sale paid in parts): a line a
// way, "Paid out giftcard 10.00".
func refundParts(r *Receipt, b *booking.Booking, since time.Time) {
	var parts []ReceiptLine
	for _, p := range b.Payments {
		if p.Kind != booking.PaymentRefund || p.At.Before(since) {
			continue
		}
		i := slices.IndexFunc(parts, func(l ReceiptLine) bool { return l.Text == "Paid out "+string(p.Method) })
		if i < 0 {
			parts = append(parts, ReceiptLine{Text: "Paid out " + string(p.Method)})
			i = len(parts) - 1
		}
		parts[i].Amount += p.Amount
	}
	if len(parts) > 1 {
		r.Parts = parts
	}
}

// saleParts fills r's parts from b's sale payments when there are more
// than one (split tender), and the change of its cash part.
func saleParts(r *Receipt, b *booking.Booking) {
	var parts []ReceiptLine
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentSale && !b.ExchangePayment(p) {
			amount := p.Amount
			if p.Method == booking.Cash {
				amount = max(p.Tendered, p.Amount)
			}
			parts = append(parts, ReceiptLine{Text: "Paid " + string(p.Method), Amount: amount})
		}
	}
	if len(parts) > 1 {
		r.Parts, r.Change = parts, b.Change()
	}
}

// zGiftCards adds a shift's gift cards to its X or Z report: the parts
// of sales they paid (takings, no money in the drawer) and the cards sold
// (money in the drawer or the card total, not takings).
func (l Layout) zGiftCards(d *escpos.Doc, z *booking.ShiftReport) {
	if z.GiftCardSaleCount+z.GiftCardRefundCount+z.CardsSold == 0 {
		return
	}
	d.Line(l.row(fmt.Sprintf("Gift card sales (%d)", z.GiftCardSaleCount), l.money(z.GiftCardSales)))
	d.Line(l.row(fmt.Sprintf("Gift card refunds (%d)", z.GiftCardRefundCount), l.money(z.GiftCardRefunds)))
	d.Line(l.row(fmt.Sprintf("Cards sold (%d) cash", z.CardsSold), l.money(z.CardsSoldCash)))
	d.Line(l.row("Cards sold card", l.money(z.CardsSoldCard)))
}
