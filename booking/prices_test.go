package booking_test

import (
	"strings"
	"testing"

	"boxoffice/booking"
)

func priceTable() *booking.PriceTable {
	return &booking.PriceTable{
		Types: []booking.TicketType{{Code: "adult", Name: "Adult", Price: 1250}, {Code: "child", Name: "Child", Price: 850}},
		Entries: map[booking.PriceKey]money{
			{List: "", Type: "adult", Kind: booking.Premium}:           1500,
			{List: "", Type: "adult", Kind: booking.Wheelchair}:        1300, // above standard: capped
			{List: "evening", Type: "adult", Kind: booking.Standard}:   1400,
			{List: "evening", Type: "adult", Kind: booking.Premium}:    1650,
			{List: "matinee", Type: "adult", Kind: booking.Companion}:  1000,
			{List: "matinee", Type: "child", Kind: booking.Standard}:   600,
			{List: "evening", Type: "adult", Kind: booking.Wheelchair}: 1200,
		},
	}
}

type money = booking.Money

func TestPriceFor_OK(t *testing.T) {
	tab := priceTable()
	for _, tt := range []struct {
		name, list, typ string
		kind            booking.SeatKind
		want            booking.Priced
	}{
		{"TypePrice", "", "adult", booking.Standard, booking.Priced{Amount: 1250}},
		{"PremiumSeat", "", "adult", booking.Premium, booking.Priced{Amount: 1500, Source: "premium seat"}},
		{"NoPremiumRowForChild", "", "child", booking.Premium, booking.Priced{Amount: 850}},
		{"EveningList", "evening", "adult", booking.Standard, booking.Priced{Amount: 1400, Source: "evening list"}},
		{"EveningPremium", "evening", "adult", booking.Premium, booking.Priced{Amount: 1650, Source: "evening list · premium seat"}},
		// The list's standard price beats the standing list's seat kind.
		{"ListStandardBeforeStandingKind", "evening", "adult", booking.Companion, booking.Priced{Amount: 1400, Source: "evening list"}},
		{"UnknownListIsStanding", "late", "adult", booking.Premium, booking.Priced{Amount: 1500, Source: "premium seat"}},
		{"ListWithoutTypeRow", "evening", "child", booking.Standard, booking.Priced{Amount: 850}},
		// 13.00 for a wheelchair place is above the standard 12.50.
		{"WheelchairCapped", "", "adult", booking.Wheelchair, booking.Priced{Amount: 1250}},
		{"WheelchairOwnLowerPrice", "evening", "adult", booking.Wheelchair, booking.Priced{Amount: 1200, Source: "evening list · wheelchair seat"}},
		{"CompanionBelowStandard", "matinee", "adult", booking.Companion, booking.Priced{Amount: 1000, Source: "matinee list · companion seat"}},
		{"MatineeChild", "matinee", "child", booking.Premium, booking.Priced{Amount: 600, Source: "matinee list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := booking.PriceFor(tab, tt.list, tt.typ, tt.kind)
			if !ok || got != tt.want {
				t.Fatalf("PriceFor(%q, %q, %s) = %+v, %v; want %+v", tt.list, tt.typ, tt.kind, got, ok, tt.want)
			}
		})
	}
}

func TestPriceFor_Err(t *testing.T) {
	if _, ok := booking.PriceFor(priceTable(), "", "senior", booking.Standard); ok {
		t.Fatal("an unknown ticket type was priced")
	}
	if _, ok := booking.PriceFor(nil, "", "adult", booking.Standard); ok {
		t.Fatal("a nil table priced a seat")
	}
}

func TestQuoteSeats_OK(t *testing.T) {
	seats := []booking.Seat{{ID: 1, Label: "C5", Kind: booking.Premium}, {ID: 2, Label: "C6", Kind: booking.Standard}, {ID: 3, Label: "A1", Kind: booking.Wheelchair}}
	q, err := booking.QuoteSeats(priceTable(), "evening", seats, map[string]string{"c6": "child"})
	if err != nil {
		t.Fatal(err)
	}
	want := []booking.Priced{{Amount: 1650, Source: "evening list · premium seat"}, {Amount: 850}, {Amount: 1200, Source: "evening list · wheelchair seat"}}
	var sum booking.Money
	for i, l := range q.Lines {
		if l.Priced != want[i] || l.Seat.ID != seats[i].ID {
			t.Fatalf("line %d = %+v, want %+v", i, l, want[i])
		}
		sum += l.Amount
	}
	if q.Lines[1].Type != "child" || q.Lines[1].TypeName != "Child" || q.Lines[0].Type != "adult" {
		t.Fatalf("types = %+v", q.Lines)
	}
	if q.Total != sum || sum != 3700 {
		t.Fatalf("total %s, lines add to %s", q.Total, sum)
	}
}

func TestQuoteSeats_Err(t *testing.T) {
	_, err := booking.QuoteSeats(priceTable(), "", []booking.Seat{{Label: "A1"}}, map[string]string{"A1": "vip"})
	if booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("err = %v, want invalid", err)
	}
}

func TestPriceEntry_Validate(t *testing.T) {
	ok := booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Standard}, Amount: 1400}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]booking.PriceEntry{
		"StandingStandard": {PriceKey: booking.PriceKey{Type: "adult", Kind: booking.Standard}, Amount: 1},
		"BadList":          {PriceKey: booking.PriceKey{List: "late night", Type: "adult", Kind: booking.Premium}, Amount: 1},
		"Negative":         {PriceKey: booking.PriceKey{Type: "adult", Kind: booking.Premium}, Amount: -1},
		"TooMuch":          {PriceKey: booking.PriceKey{Type: "adult", Kind: booking.Premium}, Amount: booking.MaxMoney + 1},
		"NoType":           {PriceKey: booking.PriceKey{Kind: booking.Premium}, Amount: 1},
		"BadKind":          {PriceKey: booking.PriceKey{Type: "adult", Kind: 9}, Amount: 1},
	} {
		if err := e.Validate(); booking.ErrorCode(err) != booking.EInvalid {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
}

// FuzzPriceFor builds a table from bytes and checks what always holds: a
// wheelchair or companion place never costs more than a standard seat of
// the same type and list, every price is one the table has, and a source
// names the list or kind it came from.
func FuzzPriceFor(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{10, 1, 2, 3, 200, 7, 9, 0, 1, 2})
	f.Add([]byte{255, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		lists := []string{"", "evening", "matinee"}
		tab := &booking.PriceTable{Types: []booking.TicketType{{Code: "adult", Price: booking.Money(next()) * 10}, {Code: "child", Price: booking.Money(next()) * 10}}, Entries: map[booking.PriceKey]booking.Money{}}
		for n := int(next() % 16); n > 0; n-- {
			k := booking.PriceKey{List: lists[next()%3], Type: tab.Types[next()%2].Code, Kind: booking.SeatKind(next() % 4)}
			tab.Entries[k] = booking.Money(next()) * 10
		}
		for _, list := range lists {
			for _, ty := range tab.Types {
				std, ok := booking.PriceFor(tab, list, ty.Code, booking.Standard)
				if !ok {
					t.Fatalf("%s not priced", ty.Code)
				}
				for k := booking.Standard; k <= booking.Companion; k++ {
					p, _ := booking.PriceFor(tab, list, ty.Code, k)
					if k.Accessible() && p.Amount > std.Amount {
						t.Fatalf("%s %s on %q costs %s, above standard %s", ty.Code, k, list, p.Amount, std.Amount)
					}
					found := p.Amount == ty.Price && p.Source == ""
					for key, a := range tab.Entries {
						found = found || (a == p.Amount && key.Type == ty.Code)
					}
					if !found {
						t.Fatalf("%s %s on %q: %s is not in the table", ty.Code, k, list, p.Amount)
					}
					if p.Source != "" && list == "" && p.Source != k.String()+" seat" {
						t.Fatalf("standing list source %q for %s", p.Source, k)
					}
				}
			}
		}
	})
}

// A ticket type code is one shape wherever it is typed: a manager may set
// a code of MaxTicketTypeCode characters, so a kiosk's reservation and a
// voucher's limit take it too, and refuse one longer.
func TestValidTicketTypeCode_OneRuleEverywhere(t *testing.T) {
	longest := strings.Repeat("a", booking.MaxTicketTypeCode-8) + "_child-2"
	tooLong := longest + "x"
	for code, want := range map[string]bool{"adult": true, longest: true, tooLong: false, "": false, "Adult": false, "a b": false, "été": false} {
		if got := booking.ValidTicketTypeCode(code); got != want {
			t.Errorf("ValidTicketTypeCode(%q) = %v, want %v", code, got, want)
		}
	}
	resv := booking.ReserveRequest{HoldID: 1, Owner: "kiosk", Name: "Ann Lee", Phone: "020 7946 0018", Types: map[string]string{"A1": longest}}
	if err := resv.Validate(); err != nil {
		t.Errorf("a reservation of a %d-character type: %v", len(longest), err)
	}
	resv.Types["A1"] = tooLong
	if err := resv.Validate(); err == nil {
		t.Errorf("a reservation of a %d-character type was taken", len(tooLong))
	}
	if _, err := booking.ValidVoucher(booking.Voucher{Code: "KIDS", Percent: 10, TicketType: longest}); err != nil {
		t.Errorf("a voucher kept to a %d-character type: %v", len(longest), err)
	}
	if _, err := booking.ValidVoucher(booking.Voucher{Code: "KIDS", Percent: 10, TicketType: tooLong}); booking.ErrorMessage(err) != booking.ErrorMessage(booking.ErrTicketTypeCode()) {
		t.Errorf("a voucher kept to a %d-character type: %v", len(tooLong), err)
	}
}
