package paper

import (
	"fmt"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos"
)

// ReceiptKind says what a receipt is for.
type ReceiptKind int

const (
	ReceiptSale ReceiptKind = iota
	ReceiptRefund
	// ReceiptExchange is for an exchange: its lines are the new tickets,
	// Total the difference (negative when money goes back).
	ReceiptExchange
)

func (k ReceiptKind) String() string {
	switch k {
	case ReceiptSale:
		return "RECEIPT"
	case ReceiptRefund:
		return "REFUND"
	case ReceiptExchange:
		return "EXCHANGE"
	}
	return fmt.Sprintf("ReceiptKind(%d)", int(k))
}

// ReceiptLine is one line of a receipt: what and how much, and what its
// tax rate is for (the zero key: untaxed).
type ReceiptLine struct {
	Text   string
	Amount booking.Money
	Tax    booking.TaxKey
}

// Receipt is what a customer takes home as proof of a payment.
type Receipt struct {
	Kind          ReceiptKind
	Number        string // the booking number
	Film, Hall    string
	Starts        time.Time
	Lines         []ReceiptLine
	Total         booking.Money
	Paid, Change  booking.Money
	Method        booking.PayMethod
	Clerk, Where  string // who took it and at which terminal
	At            time.Time
	ApprovedBy    string // who authorised a refund: its approver, or who made it when it needed none
	Reason        string // why a refund was made, "" for none given
	Customer      string
	CustomerPhone string

	// Duplicate marks a receipt printed again after the sale: it says
	// DUPLICATE at the top and at the foot, so it cannot pass for a
	// second payment, and lists the refunds made since (Refunds,
	// Refunded), so it cannot pass for money still held.
	Duplicate bool
	Refunds   []ReceiptLine
	Refunded  booking.Money
	// Items are the lines of items sold (or refunded) beside the tickets,
	// or alone on an order of items (Film empty): "2 x Popcorn".
	Items []ReceiptLine
	// Voucher is the voucher the tickets were sold with and Saved what
	// it took off them: the lines are what was paid, net of it.
	Voucher string
	Saved   booking.Money
	// SoldAt is when the lines were sold: their tax is at the rates in
	// force then (a refund's too: the tax its sale counted goes back).
	SoldAt time.Time
	// Parts are the payments of a sale paid in parts (split tender), a
	// line a part; nil for a sale paid one way (giftcards.go).
	Parts []ReceiptLine
}

// SaleReceipt is the receipt of b's sale: every ticket sold (whatever
// happened to it since) and the sale payment.
func SaleReceipt(b *booking.Booking) Receipt {
	r := receiptHead(ReceiptSale, b)
	for _, t := range b.Tickets {
		r.Lines = append(r.Lines, ReceiptLine{Text: t.Seat.Label + " " + TypeName(t.Type), Amount: t.Price, Tax: booking.TicketTax(t.Type)})
	}
	r.Total = b.Total
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentSale {
			r.payment(p)
			r.Paid = max(p.Tendered, p.Amount)
			break
		}
	}
	saleExtras(&r, b)
	saleParts(&r, b)
	return r
}

// saleExtras adds to r the voucher b's tickets were sold with and the
// items sold on it: their lines and their money, paid with the tickets'
// (on cash, the items' payment took the rest and gave the change).
func saleExtras(r *Receipt, b *booking.Booking) {
	if b.Voucher != nil {
		r.Voucher, r.Saved = b.Voucher.Code, b.Voucher.Discount
	}
	if b.Items == nil {
		return
	}
	for _, ln := range b.Items.Lines {
		r.Items = append(r.Items, itemLine(ln))
	}
	r.Total += b.Items.Total()
	r.Paid += max(b.Items.Tendered, b.Items.Total())
	r.Change += b.Items.Change
}

// ReprintReceipt is the receipt of b's sale printed again: the sale's
// receipt marked DUPLICATE, with every refund made since and what the
// sale comes to after them.
func ReprintReceipt(b *booking.Booking) Receipt {
	r := SaleReceipt(b)
	r.Duplicate = true
	seat := ticketNames(b)
	for _, p := range b.Payments {
		if p.Kind != booking.PaymentRefund {
			continue
		}
		text := "Refund"
		switch s, ok := seat[p.TicketID]; {
		case b.ExchangePayment(p):
			text = "Exchange paid back"
		case ok:
			text = "Refund " + s
		}
		r.Refunds = append(r.Refunds, ReceiptLine{Text: text, Amount: p.Amount})
		r.Refunded += p.Amount
	}
	return r
}

// RefundReceipt is the receipt of b's refund payments made at or after
// since (the refund just made): one line per refunded ticket, why, and
// who authorised it.
func RefundReceipt(b *booking.Booking, since time.Time) Receipt {
	r := receiptHead(ReceiptRefund, b)
	seat := map[int64]booking.Ticket{}
	for _, t := range b.Tickets {
		seat[t.ID] = t
	}
	for _, p := range b.Payments {
		if p.Kind != booking.PaymentRefund || p.At.Before(since) {
			continue
		}
		line := ReceiptLine{Text: "Refund", Amount: p.Amount}
		if t, ok := seat[p.TicketID]; ok {
			line.Text, line.Tax = t.Seat.Label+" "+TypeName(t.Type), booking.TicketTax(t.Type)
		}
		r.Lines = append(r.Lines, line)
		r.Total += p.Amount
		r.payment(p)
		// A refund names its approver; one that needed none was made
		// by someone who may refund, who authorised it themselves.
		r.ApprovedBy = p.ApprovedBy
		if r.ApprovedBy == "" {
			r.ApprovedBy = p.Staff
		}
		if p.Reason != "" {
			r.Reason = p.Reason
		}
	}
	if r.Reason == "" && b.Status == booking.BookingCancelled {
		r.Reason = b.Reason // a refund made before refunds kept their own
	}
	r.Paid = r.Total
	refundParts(&r, b, since)
	return r
}

// ticketNames names each ticket of b by id: "G8 Child".
func ticketNames(b *booking.Booking) map[int64]string {
	seat := make(map[int64]string, len(b.Tickets))
	for _, t := range b.Tickets {
		seat[t.ID] = t.Seat.Label + " " + TypeName(t.Type)
	}
	return seat
}

func receiptHead(k ReceiptKind, b *booking.Booking) Receipt {
	return Receipt{Kind: k, Number: b.Number, Film: b.Show.Film.Title, Hall: b.Show.HallName, Starts: b.Show.Starts,
		Clerk: b.SoldBy, Where: b.Terminal, At: b.CreatedAt, Customer: b.Customer, SoldAt: b.CreatedAt}
}

// payment takes who, where, when and how from p.
func (r *Receipt) payment(p booking.Payment) {
	r.Method, r.Change, r.At = p.Method, p.Change, p.At
	if p.Staff != "" {
		r.Clerk = p.Staff
	}
	if p.Terminal != "" {
		r.Where = p.Terminal
	}
}

// duplicateMark heads and ends a receipt printed again.
const duplicateMark = "*** DUPLICATE ***"

// Tax is r's tax by rate: each line's at the rate in force for it when
// it was sold (Layout.Rates), in the currency's unit.
func (l Layout) Tax(r Receipt) []booking.TaxRow {
	lines := make([]booking.TaxLine, 0, len(r.Lines))
	for _, ln := range r.Lines {
		lines = append(lines, booking.TaxLine{Key: ln.Tax, Amount: ln.Amount, SoldAt: r.SoldAt})
	}
	unit := booking.Money(1)
	if l.Settings != nil {
		unit = l.Settings.Currency.Unit()
	}
	return l.Rates.Tally(lines, unit)
}

// Receipt adds r to d, cut at the end.
func (l Layout) Receipt(d *escpos.Doc, r Receipt) {
	l.head(d, r.Kind.String())
	if r.Duplicate {
		d.Align(escpos.Center).Bold(true).Line(duplicateMark).Bold(false)
	}
	d.Align(escpos.Left)
	if r.Film == "" && len(r.Items) > 0 {
		d.Line(clip("Order "+r.Number, Width)) // items alone
	} else {
		d.Line(clip("Booking "+r.Number, Width))
		d.Line(clip(r.Film, Width))
		d.Line(clip("Hall "+r.Hall+"  "+l.when(r.Starts), Width))
	}
	d.Line(rule())
	for _, ln := range r.Lines {
		d.Line(l.row(ln.Text, l.money(ln.Amount)))
	}
	for _, ln := range r.Items {
		d.Line(l.row(ln.Text, l.money(ln.Amount)))
	}
	d.Line(rule())
	d.Bold(true).Line(l.row("Total", l.money(r.Total))).Bold(false)
	if r.Saved > 0 {
		d.Line(clip("Voucher "+r.Voucher+" saved "+l.money(r.Saved), Width))
	}
	l.taxLines(d, l.Tax(r))
	paid := "Paid"
	if r.Kind == ReceiptRefund {
		paid = "Paid out"
	}
	switch {
	case len(r.Parts) > 0:
		l.tenderParts(d, r)
	default:
		d.Line(l.row(paid+" "+string(r.Method), l.money(r.Paid)))
		if r.Method == booking.Cash && r.Kind != ReceiptRefund {
			d.Line(l.row("Change", l.money(r.Change)))
		}
	}
	if len(r.Refunds) > 0 {
		d.Line(rule())
		for _, ln := range r.Refunds {
			d.Line(l.row(ln.Text, "-"+l.money(ln.Amount)))
		}
		d.Line(l.row("Refunded", l.money(r.Refunded)))
		d.Bold(true).Line(l.row("Net", l.money(r.Total-r.Refunded))).Bold(false)
	}
	if r.Reason != "" {
		for _, ln := range wrap("Reason: "+r.Reason, Width) {
			d.Line(ln)
		}
	}
	if r.ApprovedBy != "" {
		d.Line(clip("Approved by "+r.ApprovedBy, Width))
	}
	d.Line(clip("Clerk "+r.Clerk, Width))
	if r.Where != "" {
		d.Line(clip("Terminal "+r.Where, Width))
	}
	d.Line(l.when(r.At))
	if r.Duplicate {
		d.Align(escpos.Center).Bold(true).Line(duplicateMark).Bold(false).Align(escpos.Left)
	}
	l.footer(d)
	d.Feed(3).Cut()
}

// ZReport adds the report of a shift to d: the Z report of a closed shift
// (counted and variance), or an X report of an open one.
func (l Layout) ZReport(d *escpos.Doc, z *booking.ShiftReport) {
	title := "X REPORT (shift open)"
	if z.Final {
		title = "Z REPORT"
	}
	sh := z.Shift
	l.head(d, title)
	d.Align(escpos.Left)
	d.Line(clip(fmt.Sprintf("Shift %d  %s", sh.ID, sh.Staff), Width))
	if sh.Terminal != "" {
		d.Line(clip("Terminal "+sh.Terminal, Width))
	}
	d.Line(l.row("Opened", l.when(sh.OpenedAt)))
	if z.Final && !sh.ClosedAt.IsZero() {
		d.Line(l.row("Closed", l.when(sh.ClosedAt)))
	}
	d.Line(rule())
	d.Line(l.row("Float", l.money(sh.Float)))
	d.Line(l.row(fmt.Sprintf("Cash sales (%d)", z.CashSaleCount), l.money(z.CashSales)))
	d.Line(l.row(fmt.Sprintf("Cash refunds (%d)", z.CashRefundCount), l.money(z.CashRefunds)))
	d.Line(l.row(fmt.Sprintf("Card sales (%d)", z.CardSaleCount), l.money(z.CardSales)))
	d.Line(l.row(fmt.Sprintf("Card refunds (%d)", z.CardRefundCount), l.money(z.CardRefunds)))
	d.Line(l.row(fmt.Sprintf("Refunds (%d)", z.Refunds), l.money(z.CashRefunds+z.CardRefunds)))
	l.zItems(d, z)
	l.zGiftCards(d, z)
	if taxed := booking.Taxed(z.Tax); len(taxed) > 0 {
		d.Line(rule())
		l.taxLines(d, taxed)
	}
	d.Line(rule())
	d.Bold(true).Line(l.row("Expected in drawer", l.money(z.Expected))).Bold(false)
	if z.Final {
		d.Line(l.row("Counted", l.money(z.Counted)))
		d.Bold(true).Line(l.row("Variance", l.money(z.Variance))).Bold(false)
		if z.Breakdown != "" {
			d.Line(clip("Count "+z.Breakdown, Width))
		}
		if sh.ClosedBy != "" {
			d.Line(clip("Closed by "+sh.ClosedBy, Width))
		}
	}
	d.Feed(3).Cut()
}

// BookingJob is a whole print job for b: the printer reset, every
// printable ticket, and the sale's receipt.
func (l Layout) BookingJob(b *booking.Booking) ([]byte, error) {
	return l.bookingJob(b, SaleReceipt(b))
}

// ReprintJob is BookingJob printed again after the sale: the tickets
// still to be used, and the receipt marked DUPLICATE with the refunds
// made since (ReprintReceipt).
func (l Layout) ReprintJob(b *booking.Booking) ([]byte, error) {
	return l.bookingJob(b, ReprintReceipt(b))
}

func (l Layout) bookingJob(b *booking.Booking, r Receipt) ([]byte, error) {
	var d escpos.Doc
	l.begin(&d)
	if !r.Duplicate {
		l.cash(&d, r)
	}
	if err := l.Tickets(&d, b); err != nil {
		return nil, err
	}
	l.Receipt(&d, r)
	return d.Bytes(), nil
}

// TicketsJob is a print job of b's printable tickets alone, for the
// kiosk, where a customer collects tickets already paid for.
func (l Layout) TicketsJob(b *booking.Booking) ([]byte, error) {
	var d escpos.Doc
	l.begin(&d)
	if err := l.Tickets(&d, b); err != nil {
		return nil, err
	}
	return d.Bytes(), nil
}

// ReceiptJob is a print job of one receipt.
func (l Layout) ReceiptJob(r Receipt) []byte {
	var d escpos.Doc
	l.begin(&d)
	if !r.Duplicate {
		l.cash(&d, r)
	}
	l.Receipt(&d, r)
	return d.Bytes()
}

// ZReportJob is a print job of one shift report.
func (l Layout) ZReportJob(z *booking.ShiftReport) []byte {
	var d escpos.Doc
	l.begin(&d)
	l.ZReport(&d, z)
	return d.Bytes()
}

// cash opens the drawer first on a receipt of cash taken or paid out,
// so it is open while the receipt prints; a card payment leaves it shut.
func (l Layout) cash(d *escpos.Doc, r Receipt) {
	if l.Drawer && booking.OpensDrawer(r.Method, r.Total) {
		d.Drawer()
	}
}

// DrawerJob opens the drawer and prints a slip saying why (a float
// count, a "no sale" with its reason), who and when; without Drawer it
// prints the slip alone.
func (l Layout) DrawerJob(why, who string, at time.Time) []byte {
	var d escpos.Doc
	l.begin(&d)
	if l.Drawer {
		d.Drawer()
	}
	l.head(&d, "DRAWER OPENED")
	d.Align(escpos.Left).Line(clip(why, Width)).Line(l.row(clip(who, 20), l.when(at)))
	d.Feed(3).Cut()
	return d.Bytes()
}

// TestJob is the test page of `printer test`: the modes and a QR code, so
// whoever stands at the printer sees it all works.
func (l Layout) TestJob(at time.Time, target string) []byte {
	var d escpos.Doc
	l.begin(&d)
	d.Align(escpos.Center).Bold(true).Size(2, 2).Line(l.cinema()).Size(1, 1).Line("PRINTER TEST").Bold(false)
	d.Line(clip(target, Width)).Line(l.when(at))
	d.Bold(true).Line("bold").Bold(false).Size(2, 1).Line("wide").Size(1, 2).Line("tall").Size(1, 1)
	d.Align(escpos.Left).Line("left").Align(escpos.Right).Line("right").Align(escpos.Center)
	d.QR("BOXOFFICE PRINTER TEST", 6, escpos.ECMedium).Line("A QR code above: the printer draws them.")
	d.Feed(3).Cut()
	return d.Bytes()
}

// ItemSaleReceipt is the receipt of an order of items: a line an item
// sold (whatever happened to it since) and the sale payment.
func ItemSaleReceipt(o *booking.ItemOrder) Receipt {
	r := Receipt{Kind: ReceiptSale, Number: o.Number, Clerk: o.SoldBy, Where: o.Terminal, At: o.At, Total: o.Total}
	for _, ln := range o.Lines {
		r.Items = append(r.Items, itemLine(ln))
	}
	for _, p := range o.Payments {
		if p.Kind == booking.PaymentSale {
			r.payment(p.Payment)
			r.Paid = max(p.Tendered, p.Amount)
			break
		}
	}
	return r
}

// ItemRefundReceipt is the receipt of an order's refund payments made at
// or after since (the refund just made): a line a line refunded.
func ItemRefundReceipt(o *booking.ItemOrder, since time.Time) Receipt {
	r := Receipt{Kind: ReceiptRefund, Number: o.Number, Clerk: o.SoldBy, Where: o.Terminal, At: o.At}
	for _, p := range o.Payments {
		if p.Kind != booking.PaymentRefund || p.At.Before(since) {
			continue
		}
		for _, ln := range o.Lines {
			if ln.ID == p.LineID {
				r.Items = append(r.Items, ReceiptLine{Text: itemLine(ln).Text, Amount: p.Amount})
			}
		}
		r.Total += p.Amount
		r.payment(p.Payment)
		r.ApprovedBy = p.ApprovedBy
	}
	r.Paid = r.Total
	return r
}

// itemLine is a line of items as a receipt prints it: "2 x Popcorn".
func itemLine(ln booking.ItemOrderLine) ReceiptLine {
	return ReceiptLine{Text: fmt.Sprintf("%d x %s", ln.Qty, ln.Name), Amount: ln.Amount()}
}

// zItems adds a shift report's items, by category, and on an X report
// the items running low.
func (l Layout) zItems(d *escpos.Doc, z *booking.ShiftReport) {
	for _, t := range z.Items {
		d.Line(l.row(fmt.Sprintf("Items %s (%d)", booking.CategoryName(t.Category), t.Sold-t.Refunded), l.money(t.Net())))
	}
	for _, it := range z.LowStock {
		d.Line(l.row("Low: "+it.Name, it.StockText()))
	}
}
