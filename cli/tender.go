package cli

import (
	"fmt"
	"strings"

	"boxoffice/booking"
)

// sell --part METHOD[:AMOUNT]: a sale paid in parts (booking.TenderPart),
// cash and card on one sale, or either beside a gift card; the part with
// no amount is the rest, change comes only from cash (docs/giftcards.md).

// tenderFlags is sell's repeatable --part, as typed.
type tenderFlags []booking.TenderPart

func (f *tenderFlags) String() string {
	if f == nil || len(*f) == 0 {
		return ""
	}
	return fmt.Sprint(len(*f), " parts")
}

// Set reads one --part METHOD[:AMOUNT], refusing a bad one at once. The
// checks a whole tender needs (a method twice, two rests) are
// booking.ValidateTender's, once every part is read.
func (f *tenderFlags) Set(s string) error {
	method, amount, hasAmount := strings.Cut(strings.TrimSpace(s), ":")
	p := booking.TenderPart{Method: booking.PayMethod(strings.ToLower(strings.TrimSpace(method)))}
	switch p.Method {
	case booking.Cash, booking.Card, booking.GiftCard:
	default:
		return fmt.Errorf("%q is not a way of paying: cash, card or giftcard", booking.CleanLine(method, 20))
	}
	if hasAmount {
		m, err := booking.ParseMoney(amount)
		if err != nil {
			return fmt.Errorf("%s", booking.ErrorMessage(err))
		}
		if m <= 0 {
			return fmt.Errorf("a part's amount is more than 0.00; leave it out (--part %s) for the rest", p.Method)
		}
		p.Amount = m
	}
	if len(*f) >= booking.MaxTenderParts {
		return fmt.Errorf("%s", booking.ErrorMessage(booking.ValidateTender(append(*f, p), 0)))
	}
	*f = append(*f, p)
	return nil
}

// tenderPayment is parsePayment for --part: the parts as the checkout's
// Tender, a gift card part its number from --card.
func tenderPayment(f *sellInput) (booking.CheckoutRequest, error) {
	if f.pay != string(booking.Cash) || f.gift.rest != "" {
		return booking.CheckoutRequest{}, usagef("--part says how each part is paid: leave out --pay and --rest (a part without an amount is the rest)")
	}
	parts := make([]booking.TenderPart, len(f.parts))
	copy(parts, f.parts)
	card := false
	for i := range parts {
		if parts[i].Method == booking.GiftCard {
			if f.gift.card == "" {
				return booking.CheckoutRequest{}, usagef("--part giftcard needs --card NUMBER")
			}
			parts[i].Card, card = f.gift.card, true
		}
	}
	if f.gift.card != "" && !card {
		return booking.CheckoutRequest{}, usagef("--card goes with --pay giftcard or --part giftcard")
	}
	tender, err := parseTendered(f.tendered)
	if err != nil {
		return booking.CheckoutRequest{}, err
	}
	return saleRequest(f, booking.CheckoutRequest{Tendered: tender, Tender: parts})
}

// parseTendered reads --tendered, 0 when not given (exact money).
func parseTendered(s string) (booking.Money, error) {
	if s == "" {
		return 0, nil
	}
	m, err := booking.ParseMoney(s)
	if err != nil {
		return 0, usagef("--tendered: %s", booking.ErrorMessage(err))
	}
	return m, nil
}

// saleRequest completes pay, how the customer pays, with the rest of the
// command line (the key, who the customer is, a voucher, items) and
// checks it (exit 2).
func saleRequest(f *sellInput, pay booking.CheckoutRequest) (booking.CheckoutRequest, error) {
	req := pay
	if req.IdempotencyKey = f.key; req.IdempotencyKey == "" {
		req.IdempotencyKey = "cli-" + randomID()
	}
	if f.customer < 0 {
		return booking.CheckoutRequest{}, usagef("--customer must be a customer id from `boxoffice customer find`")
	}
	req.Customer, req.Phone, req.CustomerID, req.CheckTotal = f.name, f.phone, f.customer, true
	req.Voucher, req.Items = f.voucher, f.items
	if err := req.Validate(); err != nil {
		return booking.CheckoutRequest{}, usagef("%s", booking.ErrorMessage(err))
	}
	return req, nil
}
