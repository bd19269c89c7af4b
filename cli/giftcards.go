package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"boxoffice/booking"
)

// giftcard: gift cards sold for money and read at the counter, and a sale
// paid by one (sell --pay giftcard --card NUMBER), the rest, if the card
// is short, by --rest cash|card (docs/giftcards.md).

const giftcardUsage = `usage: boxoffice giftcard issue AMOUNT [--pay cash|card] [--tendered AMOUNT] | giftcard balance NUMBER`

const giftcardLong = `A gift card is sold for 1.00 to 1000.00, paid by cash (into the command
line's shift) or card; the money is the customer's until a sale spends
it, so it is in the drawer but not in the takings. Its number is 16
digits, the last a check digit: a mistyped digit is refused before the
database is asked. A sale paid by a card (sell … --pay giftcard --card
NUMBER) spends what it costs; a card that holds less is refused with
exit code 3 and nothing sold, unless --rest cash or --rest card pays
what the card cannot. A cancel or refund of that sale gives the card its
money back, once. In --json, amounts are strings like "12.50".`

func giftcardCommand() *command {
	return &command{name: "giftcard", json: machine, missing: giftcardUsage, subs: []*command{
		{name: "issue", args: "AMOUNT [--pay cash|card] [--tendered AMOUNT] [--customer ID] [--json]", short: "sell a gift card for AMOUNT", long: giftcardLong, flags: giftcardIssueFlags},
		{name: "balance", args: "NUMBER [--json]", short: "a gift card's balance and what moved it", long: giftcardLong, run: (*env).giftcardBalance},
	}}
}

func giftcardIssueFlags(fs *flag.FlagSet) runFunc {
	pay := fs.String("pay", "cash", "how the customer pays for the card: `cash|card`")
	tendered := fs.String("tendered", "", "the cash handed over, an `AMOUNT` (default: exact money)")
	customer := fs.Int64("customer", 0, "the customer account `ID` the card is sold for: it is listed on the account")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef("usage: boxoffice giftcard issue AMOUNT [--pay cash|card] [--tendered AMOUNT] [--customer ID]")
		}
		if *customer < 0 {
			return usagef("--customer: a customer ID is a number from 1")
		}
		amount, err := booking.ParseMoney(pos[0])
		if err != nil {
			return usagef("AMOUNT: %s", booking.ErrorMessage(err))
		}
		pr, err := parsePayment(&sellInput{pay: *pay, tendered: *tendered})
		if err != nil {
			return err
		}
		req := booking.GiftCardRequest{Amount: amount, Method: pr.Method, Tendered: pr.Tendered, CustomerID: *customer}
		if err := req.Validate(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		if _, _, err := req.Payment(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			actor, err := c.itemActor(st)
			if err != nil {
				return err
			}
			card, err := st.IssueGiftCard(c.ctx, actor, req)
			if err != nil {
				return err
			}
			c.print(giftcardView{card})
			return nil
		})
	}
}

func (c *env) giftcardBalance(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice giftcard balance NUMBER [--json]")
	}
	if _, err := booking.ParseCardNumber(pos[0]); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		card, err := st.GiftCardBalance(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		c.print(giftcardView{card})
		return nil
	})
}

// giftcardView is a card with its ledger.
type giftcardView struct{ c *booking.GiftCardInfo }

type giftcardMoveJSON struct {
	Kind    string `json:"kind"`
	Amount  string `json:"amount"`
	Booking string `json:"booking,omitempty"`
	At      string `json:"at"`
}

func (v giftcardView) jsonValue() any {
	c := v.c
	moves := make([]giftcardMoveJSON, 0, len(c.Moves))
	for _, m := range c.Moves {
		moves = append(moves, giftcardMoveJSON{string(m.Kind), m.Amount.String(), m.Booking, m.At.Format(time.RFC3339)})
	}
	return map[string]any{"number": c.Number, "printed": booking.FormatCardNumber(c.Number), "amount": c.Amount.String(),
		"balance": c.Balance.String(), "paid_by": string(c.Method), "issued_at": c.IssuedAt.Format(time.RFC3339),
		"issued_by": booking.Clean(c.IssuedBy), "moves": moves}
}

func (v giftcardView) writeText(w io.Writer) {
	c := v.c
	fmt.Fprintf(w, "Gift card %s\n", booking.FormatCardNumber(c.Number))
	fmt.Fprintf(w, "Balance   %s (sold for %s by %s)\n", c.Balance.String(), c.Amount.String(), c.Method)
	for _, m := range c.Moves {
		fmt.Fprintf(w, "  %s  %-6s %8s  %s\n", m.At.Format("Mon 02 Jan 15:04"), m.Kind, (m.Kind.Sign() * m.Amount).String(), m.Booking)
	}
}

// giftCardInput is what sell takes to be paid by a gift card.
type giftCardInput struct{ card, rest string }

// giftCardFlags adds sell's --card and --rest.
func giftCardFlags(fs *flag.FlagSet, g *giftCardInput) {
	fs.StringVar(&g.card, "card", "", "with --pay giftcard or --part giftcard: the gift card's `NUMBER`")
	fs.StringVar(&g.rest, "rest", "", "with --pay giftcard: what the card cannot pay, by `cash|card` (default: refuse a short card)")
}

// giftCardPayment is parsePayment for --pay giftcard: the card's part,
// then the rest by --rest when given.
func giftCardPayment(f *sellInput) (booking.CheckoutRequest, error) {
	if f.pay != string(booking.GiftCard) {
		return booking.CheckoutRequest{}, usagef("--card and --rest go with --pay giftcard")
	}
	parts := []booking.TenderPart{{Method: booking.GiftCard, Card: f.gift.card}}
	switch booking.PayMethod(f.gift.rest) {
	case "":
	case booking.Cash, booking.Card:
		parts = append(parts, booking.TenderPart{Method: booking.PayMethod(f.gift.rest)})
	default:
		return booking.CheckoutRequest{}, usagef("--rest must be cash or card")
	}
	if f.gift.card == "" {
		return booking.CheckoutRequest{}, usagef("--pay giftcard needs --card NUMBER")
	}
	if f.tendered != "" && f.gift.rest != string(booking.Cash) {
		return booking.CheckoutRequest{}, usagef("--tendered is for cash payments (--rest cash)")
	}
	tender, err := parseTendered(f.tendered)
	if err != nil {
		return booking.CheckoutRequest{}, err
	}
	return saleRequest(f, booking.CheckoutRequest{Tendered: tender, Tender: parts})
}

// giftCardShiftLines are the gift cards of an X or Z report as its
// lines: the parts of sales they paid and the cards sold (in the
// expected cash when sold for cash, but not takings).
func giftCardShiftLines(r *booking.ShiftReport) [][2]string {
	if r.GiftCardSaleCount+r.GiftCardRefundCount+r.CardsSold == 0 {
		return nil
	}
	return [][2]string{
		{"giftcard_sales", r.GiftCardSales.String()}, {"giftcard_refunds", r.GiftCardRefunds.String()},
		{"giftcards_sold_cash", r.CardsSoldCash.String()}, {"giftcards_sold_card", r.CardsSoldCard.String()},
		{"giftcards_sold", fmt.Sprint(r.CardsSold)},
	}
}

// withGiftCards adds the gift cards of the range to a takings table:
// sold, spent, given back and outstanding.
func (c *env) withGiftCards(st backend, t *reportTable, r booking.ReportRange) (*reportTable, error) {
	rep, err := st.ReportGiftCards(c.ctx, booking.System, r)
	if err != nil || rep.Sold+rep.RedeemedN+rep.RefilledN == 0 && rep.Outstanding == 0 {
		return t, err
	}
	t.cards = rep
	return t, nil
}

// giftCardLines are a takings report's gift-card figures, named.
func (t *reportTable) giftCardLines() [][2]string {
	g := t.cards
	if g == nil {
		return nil
	}
	return [][2]string{
		{"giftcards_sold", fmt.Sprint(g.Sold)}, {"giftcards_sold_cash", g.SoldCash.String()}, {"giftcards_sold_card", g.SoldCard.String()},
		{"paid_by_giftcard", g.Redeemed.String()}, {"refunded_to_giftcard", g.Refilled.String()}, {"giftcards_outstanding", g.Outstanding.String()},
	}
}

// writeCardsText prints a takings report's gift cards after its tables:
// money held for customers, not takings.
func (t *reportTable) writeCardsText(w io.Writer) {
	if t.cards == nil {
		return
	}
	fmt.Fprintln(w, "\nGift cards (sold: not takings; paid by gift card: in the takings above)")
	for _, l := range t.giftCardLines() {
		fmt.Fprintf(w, "  %-22s %10s\n", l[0], l[1])
	}
}

// cardsJSON adds the gift cards to a takings report's JSON.
func (t *reportTable) cardsJSON(out map[string]any) {
	if t.cards == nil {
		return
	}
	m := map[string]any{}
	for _, l := range t.giftCardLines() {
		m[l[0]] = l[1]
	}
	out["giftcards"] = m
}
