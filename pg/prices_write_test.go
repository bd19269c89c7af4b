package pg_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/booking"
)

// Prices and sales close set on one server reach the other's next sale: a
// show put on a new price list sells at the list's price there, and a
// show whose sales close was moved before now refuses a hold.
func TestPrices_ListAndSalesClose(t *testing.T) {
	s, u, clk := seeded(t)
	other := MustOpen(t, u, clk)
	ctx := context.Background()
	if err := s.SetPriceEntry(ctx, manager, booking.PriceEntry{PriceKey: booking.PriceKey{List: "Evening", Type: "adult", Kind: booking.Standard}, Amount: 1500}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPriceEntry(ctx, manager, booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "senior", Kind: booking.Standard}, Amount: 900}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a price for a ticket type that does not exist: %v", err)
	}
	if err := s.SetShowPriceList(ctx, manager, 1, "matinee"); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("a list nobody priced: %v", err)
	}
	if err := s.SetShowPriceList(ctx, manager, 1, "Evening"); err != nil {
		t.Fatal(err)
	}
	pt, err := other.Prices(ctx, clerk)
	if err != nil || len(pt.Lists) != 1 || pt.Lists[0].Name != "evening" {
		t.Fatalf("the other server's price lists: %+v, %v", pt, err)
	}
	h, err := other.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "o"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "o", IdempotencyKey: "e1", Method: booking.Card})
	if err != nil || b.Total != 1500 {
		t.Fatalf("a sale on the evening list: %+v, %v", b, err)
	}

	// Sales close a day before the start, which is less than a day away.
	day := -24 * time.Hour
	if err := s.SetSalesClose(ctx, manager, 1, &day); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A2"}, Owner: "o"}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a hold after sales closed: %v", err)
	}
	if err := s.SetSalesClose(ctx, manager, 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A2"}, Owner: "o"}); err != nil {
		t.Fatalf("a hold once the default is back: %v", err)
	}
	if err := s.SetSalesClose(ctx, manager, 99, &day); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("no such show: %v", err)
	}
}
