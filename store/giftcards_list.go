package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// The manager's list of gift cards (booking/giftcards_list.go): a read,
// never a write; the full numbers stay in the store.

// GiftCardListReads are the reads of the manager's list.
type GiftCardListReads interface {
	// ReadGiftCardList reads the card numbered number, or when number is
	// "" the newest limit cards, newest first; none when no card has the
	// number.
	ReadGiftCardList(ctx context.Context, number string, limit int) ([]GiftCardListRow, error)
	// CustomerGiftCards reads the newest cards of a customer, at most
	// limit, newest first.
	CustomerGiftCards(ctx context.Context, customerID int64, limit int) ([]GiftCardListRow, error)
}

// GiftCardListRow is one card of the list as a driver reads it.
type GiftCardListRow struct {
	Number          string
	Amount, Balance booking.Money
	Staff           string
	Created         time.Time
	LastUsed        time.Time // zero: never
}

// ListGiftCards lists gift cards for a manager, each by its last four
// digits.
func (s *Store) ListGiftCards(ctx context.Context, actor booking.Actor, q booking.GiftCardQuery) ([]booking.GiftCardSummary, error) {
	if err := booking.Authorize(actor, booking.ActionViewReports); err != nil {
		return nil, err
	}
	if q.Limit < 0 || q.Limit > booking.MaxGiftCardsListed {
		return nil, booking.Errorf(booking.EInvalid, "List 1 to %d gift cards.", booking.MaxGiftCardsListed)
	}
	limit := q.Limit
	if limit == 0 {
		limit = booking.MaxGiftCardsListed
	}
	number := ""
	if q.Number != "" {
		n, err := booking.ParseCardNumber(q.Number)
		if err != nil {
			return nil, err
		}
		number, limit = n, 1
	}
	rows, err := s.d.ReadGiftCardList(ctx, number, limit)
	if err != nil {
		return nil, err
	}
	return cardSummaries(rows), nil
}

// cardSummaries are rows as a list shows them: each card by its last
// four digits.
func cardSummaries(rows []GiftCardListRow) []booking.GiftCardSummary {
	out := make([]booking.GiftCardSummary, len(rows))
	for i, r := range rows {
		out[i] = booking.GiftCardSummary{Tail: booking.CardTail(r.Number), Amount: r.Amount, Balance: r.Balance, IssuedAt: r.Created,
			IssuedBy: booking.CleanLine(r.Staff, 40), LastUsed: r.LastUsed}
	}
	return out
}
