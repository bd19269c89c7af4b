package booking

import (
	"slices"
	"testing"
)

func TestParseCardNumber(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"6012345678901234", "6012345678901234", ""},
		{" 6012 3456-7890 1234 ", "6012345678901234", ""},
		{"6012345678901235", "", "6012 3456 7890 1235 is not a gift card number: check the digits."},
		{"6012345678901243", "", "6012 3456 7890 1243 is not a gift card number: check the digits."}, // two swapped
		{"601234567890123", "", "A gift card number is 16 digits; 15 typed."},
		{"6012x45678901234", "", "A gift card number is 16 digits, like 6012 3456 7890 1234."},
		{"", "", "A gift card number is 16 digits; 0 typed."},
	} {
		got, err := ParseCardNumber(c.in)
		if got != c.want || ErrorMessage(err) != c.err && !(err == nil && c.err == "") {
			t.Errorf("ParseCardNumber(%q) = %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestNewCardNumber(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		n := NewCardNumber()
		if got, err := ParseCardNumber(n); err != nil || got != n || n[0] == '0' || seen[n] {
			t.Fatalf("NewCardNumber() = %q: %v", n, err)
		}
		seen[n] = true
	}
}

func TestSplitTender(t *testing.T) {
	gc := TenderPart{Method: GiftCard, Card: "6012345678901234"}
	for _, c := range []struct {
		name    string
		total   Money
		parts   []TenderPart
		balance Money
		want    []Money
		err     string
	}{
		{"card pays all", 12_50, []TenderPart{gc}, 30_00, []Money{12_50}, ""},
		{"card short", 12_50, []TenderPart{gc}, 5_00, nil, "Gift card 6012 3456 7890 1234 holds 5.00; 12.50 is due. Pay the rest by cash or card."},
		{"card then cash rest", 25_00, []TenderPart{gc, {Method: Cash}}, 5_00, []Money{5_00, 20_00}, ""},
		{"fixed parts", 25_00, []TenderPart{{Method: GiftCard, Card: gc.Card, Amount: 10_00}, {Method: Card, Amount: 10_00}, {Method: Cash}}, 30_00, []Money{10_00, 10_00, 5_00}, ""},
		{"too much", 25_00, []TenderPart{{Method: Card, Amount: 20_00}, {Method: Cash, Amount: 10_00}}, 0, nil, "The parts add up to 30.00, more than the total 25.00."},
		{"too little", 25_00, []TenderPart{{Method: Card, Amount: 20_00}}, 0, nil, "The parts add up to 20.00, short of the total 25.00."},
	} {
		got, err := SplitTender(c.total, c.parts, c.balance)
		if !slices.Equal(got, c.want) || ErrorMessage(err) != c.err && !(err == nil && c.err == "") {
			t.Errorf("%s: %v, %v; want %v, %q", c.name, got, err, c.want, c.err)
		}
	}
}

func TestValidateTender(t *testing.T) {
	gc := TenderPart{Method: GiftCard, Card: "6012345678901234"}
	for _, c := range []struct {
		parts    []TenderPart
		tendered Money
		err      string
	}{
		{[]TenderPart{gc, {Method: Cash}}, 20_00, ""},
		{[]TenderPart{gc, {Method: Card}}, 20_00, "Cash tendered goes with a cash part."},
		{[]TenderPart{gc, gc}, 0, "Each way of paying once a sale (one gift card)."},
		{[]TenderPart{{Method: Card}, {Method: Cash}}, 0, "Only one part can be the rest."},
		{[]TenderPart{{Method: "cheque"}}, 0, "Pay by cash, card or gift card."},
		{[]TenderPart{gc, {Method: Card}, {Method: Cash, Amount: 1}, {Method: Cash}}, 0, "A sale is paid in at most 3 parts."},
	} {
		if err := ValidateTender(c.parts, c.tendered); ErrorMessage(err) != c.err && !(err == nil && c.err == "") {
			t.Errorf("ValidateTender(%v) = %v, want %q", c.parts, err, c.err)
		}
	}
}

func FuzzParseCardNumber(f *testing.F) {
	f.Add("6012 3456 7890 1234")
	f.Add("6012-3456-7890-1235")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseCardNumber(s)
		if err != nil {
			return
		}
		if len(n) != CardDigits || luhnDigit([]byte(n[:CardDigits-1])) != n[CardDigits-1]-'0' {
			t.Fatalf("ParseCardNumber(%q) = %q", s, n)
		}
		if again, err := ParseCardNumber(FormatCardNumber(n)); err != nil || again != n {
			t.Fatalf("the printed form of %q reads back as %q, %v", n, again, err)
		}
	})
}
