package booking

import "time"

// The manager's list of gift cards (docs/giftcards.md): read-only, each
// card named by its last four digits only — the number is what spends
// it, and a list on a manager's screen is read over shoulders. Issuing
// one is a sale, at the counter's gift-card screen.

// MaxGiftCardsListed bounds the manager's list: the newest cards.
const MaxGiftCardsListed = 200

// GiftCardQuery asks for the card with Number (typed as printed), or,
// when Number is empty, the newest Limit cards (at most
// MaxGiftCardsListed; 0 for that many).
type GiftCardQuery struct {
	Number string
	Limit  int
}

// GiftCardSummary is one card in the manager's list.
type GiftCardSummary struct {
	Tail     string // the number's last four digits
	Amount   Money  // what it was sold for
	Balance  Money
	IssuedAt time.Time
	IssuedBy string
	LastUsed time.Time // the last sale it paid or refund it took; zero: never
}

// CardTail is the last four digits of a card number.
func CardTail(number string) string { return number[max(len(number)-4, 0):] }
