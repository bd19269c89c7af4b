package booking

import (
	"reflect"
	"testing"
	"time"
)

// TestTaxPart: the tax in a tax-inclusive amount, per line, rounded half
// up (away from zero for an amount taken back).
func TestTaxPart(t *testing.T) {
	for _, c := range []struct {
		name   string
		amount Money
		rate   Rate
		unit   Money
		want   Money
	}{
		{"Adult", 1250, 2000, 1, 208},            // 2.0833…
		{"HalfGoesUp", 15, 2000, 1, 3},           // 2.5 exactly: half up, not to even (2)
		{"HalfGoesUpOdd", 9, 2000, 1, 2},         // 1.5
		{"BelowHalf", 10, 3300, 1, 2},            // 2.48
		{"ReducedRate", 1000, 550, 1, 52},        // 52.13
		{"Refund", -1250, 2000, 1, -208},         // the same size as the sale's
		{"RefundHalf", -15, 2000, 1, -3},         // away from zero, like the sale
		{"NoRate", 1250, 0, 1, 0},                //
		{"Free", 0, 2000, 1, 0},                  // a comp
		{"WholeUnits", 1250, 2000, 100, 200},     // 2.08 rounds to 2 units
		{"WholeHalf", 1800, 2000, 100, 300},      // 3.00
		{"AllTax", 1000, MaxRate, 1, 500},        // 100 %: half of it
		{"Largest", MaxMoney, 2000, 1, 16666667}, // no overflow
	} {
		if got := TaxPart(c.amount, c.rate, c.unit); got != c.want {
			t.Errorf("%s: TaxPart(%d, %d, %d) = %d, want %d", c.name, c.amount, c.rate, c.unit, got, c.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Rate{"20": 2000, "5.5": 550, "5,5": 550, "20%": 2000, " 7.25 % ": 725, "0": 0, "100": MaxRate, "33": 3300} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-5", "100.01", "101", "5.555", "five", "5.", ".5", "1e2", "20 %%", "2 0"} {
		if got, err := ParseRate(in); err == nil || ErrorCode(err) != EInvalid {
			t.Errorf("ParseRate(%q) = %d, %v; want EInvalid", in, got, err)
		}
	}
}

// TestTaxRates_At: a sale reads the rate in force when it was sold, so a
// new rate changes the sales from then on only.
func TestTaxRates_At(t *testing.T) {
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jul := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	adult := TicketTax("adult")
	rs := TaxRates{
		{ID: 1, Key: adult, Rate: 2000, From: jan},
		{ID: 2, Key: TicketTax("child"), Rate: 500, From: jan},
		{ID: 3, Key: adult, Rate: 700, From: jul},
		{ID: 4, Key: adult, Rate: 1000, From: jul}, // set after 3, from the same moment
	}
	for _, c := range []struct {
		at   time.Time
		want Rate
	}{{jan.Add(-time.Second), 0}, {jan, 2000}, {jul.Add(-time.Millisecond), 2000}, {jul, 1000}, {jul.AddDate(1, 0, 0), 1000}} {
		if got := rs.At(adult, c.at); got != c.want {
			t.Errorf("adult at %s: %d, want %d", c.at, got, c.want)
		}
	}
	if got := rs.At(TaxKey{Kind: TaxItemCategory, Code: "adult"}, jul); got != 0 {
		t.Errorf("an item category of the same code read the ticket type's rate: %d", got)
	}
	breaks := rs.Breaks()
	if !reflect.DeepEqual(breaks, []time.Time{jan, jul}) {
		t.Fatalf("breaks %v", breaks)
	}
	// A sale counted in span n reads the rate at the span's start.
	for n, want := range []Rate{0, 2000, 1000} {
		if got := rs.At(adult, Span(breaks, n)); got != want {
			t.Errorf("span %d: %d, want %d", n, got, want)
		}
	}
	cur := rs.Current(jan.AddDate(0, 1, 0))
	if len(cur) != 3 || cur[0].Key != adult || cur[0].Rate != 2000 || cur[1].Rate != 1000 || cur[2].Key.Code != "child" {
		t.Errorf("current in February: %+v", cur)
	}
}

// TestTaxRates_Tally: awkward amounts add up per line, summed per rate,
// and a refund takes back exactly the tax of its sale.
func TestTaxRates_Tally(t *testing.T) {
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sold := jan.Add(time.Hour)
	rs := TaxRates{{ID: 1, Key: TicketTax("adult"), Rate: 2000, From: jan}, {ID: 2, Key: TicketTax("sweet"), Rate: 3300, From: jan}}
	lines := []TaxLine{
		{Key: TicketTax("adult"), Amount: 1250, SoldAt: sold},
		{Key: TicketTax("sweet"), Amount: 10, SoldAt: sold},
		{Key: TicketTax("sweet"), Amount: 10, SoldAt: sold},
		{Key: TicketTax("sweet"), Amount: 10, SoldAt: sold},
		{Key: TicketTax("free"), Amount: 800, SoldAt: sold},
		{Key: TicketTax("adult"), Amount: 1250, SoldAt: sold, Back: true},
	}
	got := rs.Tally(lines, 1)
	want := []TaxRow{
		{Rate: 0, Sales: 800, Gross: 800, Net: 800, Sold: 1},
		{Rate: 2000, Sales: 1250, Returns: 1250, Gross: 0, Tax: 0, Net: 0, Sold: 1, Back: 1},
		// 3 × 0.10 at 33 %: 0.0248 each rounds to 0.02, so 0.06, not
		// the 0.07 of the 0.30 taken whole.
		{Rate: 3300, Sales: 30, Gross: 30, Tax: 6, Net: 24, Sold: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tally\n got %+v\nwant %+v", got, want)
	}
	if taxed := Taxed(got); len(taxed) != 2 || taxed[0].Rate != 2000 {
		t.Errorf("taxed rows %+v", taxed)
	}
}
