package booking

import (
	"context"
	"crypto/rand"
	"strings"
	"time"
)

// Gift cards (docs/giftcards.md): a card is sold for an amount of money
// and spent on sales until its balance is used up. Selling one is not
// takings: the money is the customer's until a sale spends it. Its
// number is 16 digits whose last is a Luhn check digit, so a mistyped
// digit (or two swapped) is caught at the counter before the database
// is asked.

// GiftCard is a payment method: the part of a sale a gift card paid.
const GiftCard PayMethod = "giftcard"

// PaymentIssue is the money taken for a gift card sold: in the shift's
// drawer (cash) or card total, never in its takings.
const PaymentIssue PaymentKind = "issue"

// Gift card limits: the amount a card is sold for, and the parts one sale
// may be paid in.
const (
	MinGiftCard    Money = 100    // 1.00
	MaxGiftCard    Money = 100000 // 1 000.00
	CardDigits           = 16
	MaxTenderParts       = 3
)

// AuditGiftCard is a gift card sold (its redemptions and refills are
// the sales and refunds that made them).
const AuditGiftCard AuditAction = "gift_card"

// GiftCardMoveKind names one movement of a card's balance.
type GiftCardMoveKind string

const (
	CardIssued   GiftCardMoveKind = "issue"  // sold for money: the balance starts
	CardRedeemed GiftCardMoveKind = "redeem" // spent on a sale
	CardRefilled GiftCardMoveKind = "refill" // given back by a refund or cancel
)

// Sign is +1 for what adds to a balance, −1 for what takes from it: a
// card's balance is the sum of its moves' signed amounts.
func (k GiftCardMoveKind) Sign() Money {
	if k == CardRedeemed {
		return -1
	}
	return 1
}

// GiftCardMove is one row of a card's ledger.
type GiftCardMove struct {
	Kind    GiftCardMoveKind
	Amount  Money // always positive; Kind says which way
	Booking string
	At      time.Time
	Staff   string
}

// GiftCardInfo is a card as read: its balance and, newest last, its ledger.
type GiftCardInfo struct {
	Number   string // the 16 digits, as stored
	Amount   Money  // what it was sold for
	Balance  Money
	Method   PayMethod // how it was paid for
	IssuedAt time.Time
	IssuedBy string
	Moves    []GiftCardMove
}

// GiftCardRequest sells a gift card for Amount, paid by Method (cash,
// with Tendered handed over, 0 for exact money; or card).
type GiftCardRequest struct {
	Amount   Money
	Method   PayMethod
	Tendered Money
	// OpenFloat opens the seller's shift with this float, in the same
	// transaction, when a cash sale meets none open.
	OpenFloat *Money
	// CustomerID, when not 0, is the customer account the card is sold
	// for (ActionCustomers): it is listed on the account.
	CustomerID int64
}

// Validate refuses an amount out of bounds or a payment that is not one.
func (r GiftCardRequest) Validate() error {
	if err := CheckGiftCardAmount(r.Amount); err != nil {
		return err
	}
	switch r.Method {
	case Cash, Card:
	default:
		return Errorf(EInvalid, "Pay for a gift card by cash or card.")
	}
	if r.Tendered < 0 || r.Tendered > MaxMoney {
		return Errorf(EInvalid, "The amount tendered must be between 0.00 and %s.", MaxMoney.String())
	}
	if r.Method == Card && r.Tendered != 0 {
		return Errorf(EInvalid, "Cash tendered goes with a cash payment, not a card.")
	}
	if r.OpenFloat != nil {
		return checkFloat("float", *r.OpenFloat)
	}
	return nil
}

// Payment is what was tendered for the card and the change due.
func (r GiftCardRequest) Payment() (tendered, change Money, err error) {
	return CheckoutRequest{Method: r.Method, Tendered: r.Tendered}.Payment(r.Amount)
}

// CheckGiftCardAmount refuses an amount a card cannot be sold for.
func CheckGiftCardAmount(m Money) error {
	if m < MinGiftCard || m > MaxGiftCard {
		return Errorf(EInvalid, "A gift card is for %s to %s, not %s.", MinGiftCard.String(), MaxGiftCard.String(), m.String())
	}
	return nil
}

// NewCardNumber draws a random card number: 15 random digits (the first
// not 0, so it never reads as shorter) and the Luhn check digit.
func NewCardNumber() string {
	var b [CardDigits - 1]byte
	rand.Read(b[:])
	d := make([]byte, CardDigits)
	for i, x := range b {
		d[i] = '0' + x%10
	}
	if d[0] == '0' {
		d[0] = '9'
	}
	d[CardDigits-1] = '0' + luhnDigit(d[:CardDigits-1])
	return string(d)
}

// luhnDigit is the check digit that makes digits plus it pass Luhn.
func luhnDigit(digits []byte) byte {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		n := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 0 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return byte((10 - sum%10) % 10)
}

// ParseCardNumber reads a card number as a clerk types or a scanner
// sends it — spaces and dashes anywhere — into its 16 digits, refusing
// anything else and any number whose check digit is wrong.
func ParseCardNumber(s string) (string, error) {
	if len(s) > 4*CardDigits {
		return "", Errorf(EInvalid, "A gift card number is %d digits.", CardDigits)
	}
	d := make([]byte, 0, CardDigits)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d = append(d, c)
		case c == ' ' || c == '-':
		default:
			return "", Errorf(EInvalid, "A gift card number is %d digits, like %s.", CardDigits, FormatCardNumber("6012345678901234"))
		}
	}
	if len(d) != CardDigits {
		return "", Errorf(EInvalid, "A gift card number is %d digits; %d typed.", CardDigits, len(d))
	}
	if luhnDigit(d[:CardDigits-1]) != d[CardDigits-1]-'0' {
		return "", Errorf(EInvalid, "%s is not a gift card number: check the digits.", FormatCardNumber(string(d)))
	}
	return string(d), nil
}

// FormatCardNumber prints a card number in groups of four, as on the
// card: "6012 3456 7890 1234".
func FormatCardNumber(n string) string {
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(n[i])
	}
	return b.String()
}

// ErrNoGiftCard is the answer for a number that names no card.
func ErrNoGiftCard(number string) error {
	return Errorf(ENotFound, "No gift card %s.", FormatCardNumber(number))
}

// ErrCardShort refuses a sale a card cannot pay: it holds balance and the
// sale asked for need. EConflict, as a seat taken: the card was spent,
// perhaps at another counter.
func ErrCardShort(number string, balance, need Money) error {
	return Errorf(EConflict, "Gift card %s holds %s; %s is due. Pay the rest by cash or card.",
		FormatCardNumber(number), balance.String(), need.String())
}

// TenderPart is one part of a sale paid by several methods (split
// tender): by cash, card or a gift card (Card its number). Amount is the
// part's share of the total; 0 means "the rest": for a gift card as much
// of what the other parts leave as it holds, for cash or card what is
// left after that. Cash handed
// over is the request's Tendered; change comes only from cash.
type TenderPart struct {
	Method PayMethod
	Amount Money
	Card   string
}

// ValidateTender refuses parts that are not a split tender: more than
// MaxTenderParts, a method twice (one gift card a sale), an unknown
// method, an amount out of range, more than one cash or card "rest", or cash handed
// over with no cash part.
func ValidateTender(parts []TenderPart, tendered Money) error {
	if len(parts) > MaxTenderParts {
		return Errorf(EInvalid, "A sale is paid in at most %d parts.", MaxTenderParts)
	}
	seen := map[PayMethod]bool{}
	rest := 0
	for _, p := range parts {
		switch p.Method {
		case Cash, Card:
		case GiftCard:
			if _, err := ParseCardNumber(p.Card); err != nil {
				return err
			}
		default:
			return Errorf(EInvalid, "Pay by cash, card or gift card.")
		}
		if seen[p.Method] {
			return Errorf(EInvalid, "Each way of paying once a sale (one gift card).")
		}
		seen[p.Method] = true
		if p.Amount < 0 || p.Amount > MaxMoney {
			return Errorf(EInvalid, "A part must be between 0.00 and %s.", MaxMoney.String())
		}
		if p.Amount == 0 && p.Method != GiftCard {
			rest++
		}
	}
	if rest > 1 {
		return Errorf(EInvalid, "Only one part can be the rest.")
	}
	if tendered != 0 && !seen[Cash] {
		return Errorf(EInvalid, "Cash tendered goes with a cash part.")
	}
	return nil
}

// SplitTender shares total among parts: each part its own amount; a gift
// card asked for "the rest" as much of what is left as it holds
// (balance); the other rest part what is left after that. The shares add
// up to total, or it refuses: parts asking more than the total (no
// change but from cash's tendered), or short of it (a gift card short:
// ErrCardShort).
func SplitTender(total Money, parts []TenderPart, balance Money) ([]Money, error) {
	out := make([]Money, len(parts))
	left := total
	for i, p := range parts {
		out[i] = p.Amount
		left -= p.Amount
	}
	if left < 0 {
		return nil, Errorf(EInvalid, "The parts add up to %s, more than the total %s.", (total - left).String(), total.String())
	}
	card := -1
	for i, p := range parts {
		if p.Amount == 0 && p.Method == GiftCard {
			card, out[i] = i, min(balance, left)
			left -= out[i]
		}
	}
	for i, p := range parts {
		if p.Amount == 0 && p.Method != GiftCard {
			out[i], left = left, 0
		}
	}
	switch {
	case left > 0 && card >= 0:
		return nil, ErrCardShort(parts[card].Card, balance, out[card]+left)
	case left > 0:
		return nil, Errorf(EInvalid, "The parts add up to %s, short of the total %s.", (total - left).String(), total.String())
	}
	return out, nil
}

// GiftCardReport is the gift cards' money over a range: the cards sold
// (by how they were paid for: money held for customers, not takings),
// what sales spent of them and refunds gave back, and the balance every
// card holds now (Outstanding).
type GiftCardReport struct {
	From, To           time.Time
	SoldCash, SoldCard Money
	Sold               int
	Redeemed           Money
	RedeemedN          int
	Refilled           Money
	RefilledN          int
	Outstanding        Money
}

// GiftCards sells gift cards and reads them. A card pays a sale through
// CheckoutRequest.Tender (Sales.Checkout), and is given back by that
// sale's refund or cancel.
type GiftCards interface {
	// IssueGiftCard sells a card for req.Amount (GiftCardRequest.Validate)
	// into the actor's shift: cash needs one open (ErrNoShift) or
	// req.OpenFloat. Needs ActionIssueGiftCard. EInvalid for a bad
	// request or short cash.
	IssueGiftCard(ctx context.Context, actor Actor, req GiftCardRequest) (*GiftCardInfo, error)
	// GiftCardBalance reads a card's balance and ledger. Needs
	// ActionSell. EInvalid for a number that is not one
	// (ParseCardNumber); ENotFound.
	GiftCardBalance(ctx context.Context, actor Actor, number string) (*GiftCardInfo, error)
	// ReportGiftCards adds up the cards sold, spent and given back in a
	// range, and what is outstanding now. Needs ActionViewReports.
	ReportGiftCards(ctx context.Context, actor Actor, r ReportRange) (*GiftCardReport, error)
	// ListGiftCards lists the card numbered q.Number, or the newest
	// q.Limit cards, newest first, each named by its last four digits
	// (giftcards_list.go). Needs ActionViewReports. EInvalid for a number
	// that is not one (ParseCardNumber) or a limit out of range; none
	// (no error) when no card has the number.
	ListGiftCards(ctx context.Context, actor Actor, q GiftCardQuery) ([]GiftCardSummary, error)
}

// MsgCardLedgerDrift is what `check` says, after their count, of gift
// cards whose balance is not the signed sum of their ledger.
const MsgCardLedgerDrift = "gift cards whose balance is not the sum of their ledger"
