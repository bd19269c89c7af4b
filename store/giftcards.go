package store

import (
	"context"
	"fmt"
	"strings"

	"boxoffice/booking"
)

// Gift cards (booking/giftcards.go, docs/giftcards.md): sold for money
// into the seller's shift (not takings), spent on sales in part or whole
// (split tender, checkout_tender.go) and given back by the refunds of the
// sales they paid. A card's balance never goes below zero under any
// concurrency: a sale takes its part by one guarded statement
// (TakeGiftCard: "… SET balance = balance - ? WHERE id = ? AND balance >=
// ?", which must change one row) in the sale's own transaction, and each
// engine's CHECK refuses whatever slips past. Every movement is a ledger
// row whose signed sum is the balance; `check` verifies it.

// GiftCardTx is what gift cards ask of a transaction.
type GiftCardTx interface {
	// InsertGiftCard adds a card with its first balance at the
	// transaction's time; ok is false, and nothing is written, when its
	// number is taken.
	InsertGiftCard(c NewGiftCard) (id int64, ok bool, err error)
	// GiftCardForUpdate reads a card's id and balance by number, its row
	// locked, so the sales and refunds of one card take turns; found is
	// false when no card has the number.
	GiftCardForUpdate(number string) (id int64, balance booking.Money, found bool, err error)
	// TakeGiftCard takes amount off a card's balance in one guarded
	// statement; false, and nothing changed, when the card holds less.
	TakeGiftCard(cardID int64, amount booking.Money) (bool, error)
	// SetGiftCardCustomer makes card cardID the customer's.
	SetGiftCardCustomer(cardID, customerID int64) error
	// RefillGiftCard puts amount back on a card's balance.
	RefillGiftCard(cardID int64, amount booking.Money) error
	// InsertGiftCardMove appends one row to a card's ledger at the
	// transaction's time.
	InsertGiftCardMove(m GiftCardMoveRow) error
	// InsertTenderPayment is InsertPayment for part n (0, 1, 2) of a sale
	// paid in parts. The engine refuses a second sale part n of one
	// booking.
	InsertTenderPayment(p PaymentRow, part int) (int64, error)
	// BookingTender reads how a booking was paid: one row a method, with
	// what its sale parts paid and its refunds gave back, and for the
	// gift card the card's id; none for a booking with no payment.
	BookingTender(bookingID int64) ([]TenderRow, error)
}

// GiftCardReads are the reads of gift cards outside a transaction.
type GiftCardReads interface {
	// ReadGiftCard reads a card with its ledger (oldest first) in one
	// snapshot; found is false when no card has the number.
	ReadGiftCard(ctx context.Context, number string) (c booking.GiftCardInfo, found bool, err error)
	// GiftCardTally adds up the ledger's moves of [w.From, w.To) by kind
	// and (for the cards sold) method, and the balance every card holds
	// now.
	GiftCardTally(ctx context.Context, w ReportWindow) (GiftCardTotals, error)
}

// NewGiftCard is a card to add.
type NewGiftCard struct {
	Number          string
	Amount          booking.Money
	Staff, Terminal string
}

// GiftCardMoveRow is one ledger row as a driver writes it.
type GiftCardMoveRow struct {
	CardID    int64
	Kind      booking.GiftCardMoveKind
	Amount    booking.Money
	BookingID int64 // redeem, refill
	PaymentID int64 // redeem, refill: the booking's payment row
	// Method, Tendered, Change and ShiftID are a card sold's payment.
	Method           booking.PayMethod
	Tendered, Change booking.Money
	ShiftID          int64
	Site             int64 // where it was sold; an engine with one site keeps none
	Staff, Terminal  string
}

// TenderRow is what one method paid for a booking and gave back.
type TenderRow struct {
	Method         booking.PayMethod
	Paid, Refunded booking.Money
	CardID         int64 // the gift card's, for GiftCard
}

// GiftCardTotals are the gift cards' figures of a report.
type GiftCardTotals struct {
	SoldCash, SoldCard   booking.Money
	SoldN                int
	Redeemed, Refilled   booking.Money
	Outstanding          booking.Money
	RedeemedN, RefilledN int
}

// IssueGiftCard sells a gift card for req.Amount: a card with a fresh
// number, its first ledger row and the money into the seller's shift
// (cash needs one open, or req.OpenFloat), one audit row.
func (s *Store) IssueGiftCard(ctx context.Context, actor booking.Actor, req booking.GiftCardRequest) (*booking.GiftCardInfo, error) {
	if err := booking.Authorize(actor, booking.ActionIssueGiftCard); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.CustomerID != 0 {
		if err := booking.Authorize(actor, booking.ActionCustomers); err != nil {
			return nil, err
		}
	}
	tendered, change, err := req.Payment()
	if err != nil {
		return nil, err
	}
	number, err := write(s, ctx, actor, Write{Op: "issue gift card"}, func(tx Tx) (string, error) {
		shift, err := ShiftFor(tx, actor, req.Method, req.OpenFloat)
		if err != nil {
			return "", err
		}
		id, number, err := insertCard(tx, NewGiftCard{Amount: req.Amount, Staff: actor.Name, Terminal: actor.Terminal})
		if err != nil {
			return "", err
		}
		if err := attachCustomer(tx, req.CustomerID, func(c int64) error { return tx.SetGiftCardCustomer(id, c) }); err != nil {
			return "", err
		}
		m := GiftCardMoveRow{CardID: id, Kind: booking.CardIssued, Amount: req.Amount, Method: req.Method, Tendered: tendered, Change: change,
			ShiftID: shift, Site: max(actor.Site, booking.MainSite), Staff: actor.Name, Terminal: actor.Terminal}
		if err := tx.InsertGiftCardMove(m); err != nil {
			return "", err
		}
		detail := "gift card " + cardTail(number) + " sold for " + req.Amount.String() + " " + string(req.Method)
		if req.CustomerID != 0 {
			detail += fmt.Sprintf("; customer %d", req.CustomerID)
		}
		return number, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditGiftCard, ShiftID: shift, Amount: req.Amount, Detail: detail}, 0)
	})
	if err != nil {
		return nil, err
	}
	return committed(ctx, func(ctx context.Context) (*booking.GiftCardInfo, error) { return s.readCard(ctx, number) })
}

// insertCard adds c under a fresh number: a number drawn twice (one in
// 10^15) is drawn again.
func insertCard(tx Tx, c NewGiftCard) (int64, string, error) {
	for range 4 {
		c.Number = booking.NewCardNumber()
		id, ok, err := tx.InsertGiftCard(c)
		if err != nil || ok {
			return id, c.Number, err
		}
	}
	return 0, "", booking.Errorf(booking.EInternal, "no free gift card number")
}

// cardTail names a card in the audit trail by its last four digits: the
// number is what spends it.
func cardTail(number string) string { return "…" + number[len(number)-4:] }

// GiftCardBalance reads a card's balance and ledger at the counter.
func (s *Store) GiftCardBalance(ctx context.Context, actor booking.Actor, number string) (*booking.GiftCardInfo, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	n, err := booking.ParseCardNumber(number)
	if err != nil {
		return nil, err
	}
	return s.readCard(ctx, n)
}

// readCard reads card number whole.
func (s *Store) readCard(ctx context.Context, number string) (*booking.GiftCardInfo, error) {
	c, found, err := s.d.ReadGiftCard(ctx, number)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.ErrNoGiftCard(number)
	}
	return &c, nil
}

// ReportGiftCards adds up the gift cards sold, spent and given back in the
// range, and the balance outstanding on every card now: money the
// cinema holds for its customers, not takings.
func (s *Store) ReportGiftCards(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.GiftCardReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	t, err := s.d.GiftCardTally(ctx, w)
	if err != nil {
		return nil, err
	}
	return &booking.GiftCardReport{From: w.From, To: reportTo(r), SoldCash: t.SoldCash, SoldCard: t.SoldCard, Sold: t.SoldN,
		Redeemed: t.Redeemed, RedeemedN: t.RedeemedN, Refilled: t.Refilled, RefilledN: t.RefilledN, Outstanding: t.Outstanding}, nil
}

// redeemCard takes amount off card number for booking bookingID in tx by
// the guarded statement and writes the payment (part n) and the ledger
// row; ErrCardShort when the card holds less.
func redeemCard(tx Tx, pay PaymentRow, part int, number string, cardID int64, balance booking.Money) (int64, error) {
	ok, err := tx.TakeGiftCard(cardID, pay.Amount)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, booking.ErrCardShort(number, balance, pay.Amount)
	}
	id, err := tx.InsertTenderPayment(pay, part)
	if err != nil {
		return 0, err
	}
	return id, tx.InsertGiftCardMove(GiftCardMoveRow{CardID: cardID, Kind: booking.CardRedeemed, Amount: pay.Amount, BookingID: pay.BookingID,
		PaymentID: id, Staff: pay.Staff, Terminal: pay.Terminal})
}

// tenderDetail says how a sale in parts was paid, for its audit row:
// "giftcard 10.00 + card 10.00 + cash 5.00".
func tenderDetail(pays []booking.Payment) string {
	out := make([]string, len(pays))
	for i, p := range pays {
		out[i] = string(p.Method) + " " + p.Amount.String()
	}
	return strings.Join(out, " + ")
}

// giftCardMoney adds a shift's gift-card money m to its report r: the
// cards sold (by how they were paid for) or the parts of sales paid by
// gift card and given back to one.
func giftCardMoney(r *booking.ShiftReport, m ShiftMoney) {
	switch {
	case m.Kind == booking.PaymentIssue && m.Method == booking.Cash:
		r.CardsSoldCash, r.CardsSold = r.CardsSoldCash+m.Sum, r.CardsSold+m.N
	case m.Kind == booking.PaymentIssue:
		r.CardsSoldCard, r.CardsSold = r.CardsSoldCard+m.Sum, r.CardsSold+m.N
	case m.Kind == booking.PaymentSale:
		r.GiftCardSales, r.GiftCardSaleCount = r.GiftCardSales+m.Sum, r.GiftCardSaleCount+m.N
	default:
		r.GiftCardRefunds, r.GiftCardRefundCount = r.GiftCardRefunds+m.Sum, r.GiftCardRefundCount+m.N
	}
}
