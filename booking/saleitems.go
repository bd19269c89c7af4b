package booking

// SaleItems are the concessions sold on a ticket sale
// (CheckoutRequest.Items): an order of items of its own, paid with the
// tickets the same way, refunded with the booking when it is cancelled.
type SaleItems struct {
	Order string // the order's number, IT-…
	Lines []ItemOrderLine
	// Method, Tendered and Change are the order's sale payment: on a cash
	// sale with items the tickets' payment takes exactly their total and
	// the items' the rest of the cash, with the change.
	Method           PayMethod
	Tendered, Change Money
}

// Total is what the items came to when sold.
func (s *SaleItems) Total() Money {
	var t Money
	for _, l := range s.Lines {
		t += l.Amount()
	}
	return t
}
