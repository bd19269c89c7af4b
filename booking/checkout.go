package booking

import "strings"

// MaxIdempotencyKey is the longest idempotency key a checkout accepts.
const MaxIdempotencyKey = 128

// Validate checks what a checkout request says about itself — its key,
// the payment and the amounts — so a caller can refuse bad input before
// it writes anything (a hold), and the store refuses it again before its
// transaction. The hold and the ticket types are checked by the store.
func (r *CheckoutRequest) Validate() error {
	key := strings.TrimSpace(r.IdempotencyKey)
	if key == "" {
		return Errorf(EInvalid, "A checkout needs an idempotency key.")
	}
	if len(key) > MaxIdempotencyKey {
		return Errorf(EInvalid, "An idempotency key is at most %d characters.", MaxIdempotencyKey)
	}
	switch {
	case len(r.Tender) > 0:
		if err := ValidateTender(r.Tender, r.Tendered); err != nil {
			return err
		}
	case r.Method == Cash, r.Method == Card:
	default:
		return Errorf(EInvalid, "Pay by cash or card.")
	}
	if r.Tendered < 0 || r.Tendered > MaxMoney {
		return Errorf(EInvalid, "The amount tendered must be between 0.00 and %s.", MaxMoney.String())
	}
	if len(r.Tender) == 0 && r.Method == Card && r.Tendered != 0 {
		return Errorf(EInvalid, "Cash tendered goes with a cash payment, not a card.")
	}
	if r.CheckTotal && r.ExpectedTotal < 0 {
		return Errorf(EInvalid, "The expected total cannot be negative.")
	}
	if r.Voucher != "" {
		if _, err := ParseVoucherCode(r.Voucher); err != nil {
			return err
		}
	}
	if len(r.Items) > 0 {
		if _, err := NormalItemLines(r.Items); err != nil {
			return err
		}
		if len(r.Tender) > 0 {
			// The items' payment takes the cash left after the tickets
			// (store's itemsPayment): one way of paying, not parts.
			return Errorf(EInvalid, "Items on a sale are paid the way its tickets are: sell them on their own to pay in parts.")
		}
	}
	if r.OpenFloat != nil {
		return checkFloat("float", *r.OpenFloat)
	}
	return nil
}

// Payment works out, for a sale of total paid as r says, what was
// tendered and the change due: a card tenders nothing; cash tendered as 0
// is exact money; cash short of the total is refused.
func (r CheckoutRequest) Payment(total Money) (tendered, change Money, err error) {
	if r.Method != Cash {
		return 0, 0, nil
	}
	tendered = r.Tendered
	if tendered == 0 {
		tendered = total // exact money
	}
	if tendered < total {
		return 0, 0, Errorf(EInvalid, "%s tendered is less than the total %s.", tendered.String(), total.String())
	}
	return tendered, tendered - total, nil
}

// PriceChangedError refuses a checkout whose total, priced inside the
// write transaction from the ticket types current then, is not the total
// the clerk confirmed: a price changed after the counter loaded its
// prices. Total is the new figure, for the counter to show and ask again.
// Its code is EConflict.
type PriceChangedError struct {
	Expected Money // the total the clerk saw
	Total    Money // the total at today's prices
}

func (e *PriceChangedError) Error() string { return e.Message() }

// Message is what the clerk reads: "Prices changed: the total is now 26.00."
func (e *PriceChangedError) Message() string {
	return "Prices changed: the total is now " + e.Total.String() + "."
}

// Unwrap gives ErrorCode and ErrorMessage the conflict this is.
func (e *PriceChangedError) Unwrap() error { return &Error{Code: EConflict, Message: e.Message()} }
